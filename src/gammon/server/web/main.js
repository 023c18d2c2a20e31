// gammon's web client: the pages of `gammon serve`, by mouse, keyboard (seed 004's keys) or
// screen reader. Every rule is the server's: the board, what may be done next, legal moves and
// checker moves entered come from it; these modules draw, listen and announce.
//
//   main.js      the router: one page at a time, focus on its <h1> after every navigation
//   header.js    who is logged in, their rating, invitations waiting, the sounds switch
//   api.js       the HTTP API (docs/server.md)          state.js   what the page knows (window.gammon)
//   board.js     the board drawn from the server's position, checkers sliding where they go
//   input.js     the grid of points over the board, mouse and seed 004's keys
//   announce.js  the match's log, a live region         sound.js   optional sounds (WebAudio)
//   page.js, dom.js   headings, a match in one line; building elements
//   pages/       login, lobby, match (players and spectators), replay, profile, top

import { $, el } from "./dom.js";
import { detachLog } from "./announce.js";
import { app } from "./state.js";
import { watchInvitations, whoAmI } from "./header.js";
import { loginPage } from "./pages/login.js";
import { lobbyPage } from "./pages/lobby.js";
import { matchPage, stopMatch } from "./pages/match.js";
import { replayPage } from "./pages/replay.js";
import { profilePage } from "./pages/profile.js";
import { topPage } from "./pages/top.js";

let leave = null;  // what the page shown asks to do when it is left (timers, sockets, keys)

async function route() {
  if (leave) { leave(); leave = null; }
  stopMatch();
  detachLog();
  const main = $("#main");
  main.replaceChildren();
  main.className = "";
  await whoAmI();
  if (app.me) watchInvitations();
  const [, page, arg] = (location.hash || "#/").split("/");
  try {
    if (page === "login" || page === "register") leave = await loginPage(page);
    else if (page === "top") leave = await topPage();
    else if (page === "user" && arg) leave = await profilePage(decodeURIComponent(arg));
    else if (page === "replay" && arg) leave = await replayPage(Number(arg));
    else if (page === "match" && arg) leave = await matchPage(Number(arg));
    else if (!app.me) leave = await loginPage("login");
    else leave = await lobbyPage();
  } catch (error) {
    main.replaceChildren(el("h1", { tabindex: "-1", text: "Something went wrong" }), el("p", { class: "error", role: "alert", text: error.message }));
  }
  // after every navigation the reader starts at the page's heading
  const heading = $("#main h1");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

window.addEventListener("hashchange", route);
route();
