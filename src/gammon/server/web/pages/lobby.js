// The lobby: a new match (a bot by its name and strength, or a person), invitations to answer
// or withdraw, your matches, who is online, matches to watch. It asks the server again every
// ten seconds and when the window comes back, and says when an invitation arrives.

import { api, ownSeed, post, withOwnSeed } from "../api.js";
import { $, el } from "../dom.js";
import { describeSummary, opponentOf, termsText, title } from "../page.js";
import { app } from "../state.js";

// Used only while a server does not list its bots (GET /api/bots): the names as they are.
const FALLBACK_BOTS = ["bot:random", "bot:simple", "bot:pubeval", "bot:nn:0:beginner", "bot:nn:0:intermediate", "bot:nn:2"]
  .map((name) => ({ name, title: name, strength: "", rating: null, default: name === "bot:simple" }));
const CLOCKS = [["", "No clock"], ["12/300", "12 s delay + 5 min"], ["12/600", "12 s delay + 10 min"]];

export async function lobbyPage() {
  title("Play");
  const main = $("#main");
  const bots = await api("/api/bots").catch(() => FALLBACK_BOTS);
  const status = el("p", { id: "lobby-status", class: "notice", role: "status" });
  const lists = el("div", { class: "lobby-lists" });
  const urgent = el("div", { class: "urgent", id: "urgent" });  // invitations and matches to go on with: first, on any screen
  main.append(status, urgent, el("div", { class: "lobby" }, challengeForm(bots), lists));
  const seen = new Set();
  let first = true, shown = "";
  async function poll() {
    const lobby = await lobbyData();
    const text = JSON.stringify(lobby);
    if (text === shown) return;
    shown = text;
    const fresh = lobby.invitations.to_me.filter((m) => !seen.has(m.id));
    for (const m of lobby.invitations.to_me) seen.add(m.id);
    if (fresh.length && !first) {
      status.textContent = fresh.map((m) => `${opponentOf(m, app.me.name)} challenges you to a ${termsText(m)}.`).join(" ");
    } else if (first && lobby.invitations.to_me.length) {
      status.textContent = `${lobby.invitations.to_me.length} invitation${lobby.invitations.to_me.length > 1 ? "s" : ""} waiting for your answer.`;
    }
    first = false;
    const focused = document.activeElement && (lists.contains(document.activeElement) || urgent.contains(document.activeElement)) ? document.activeElement.id : null;
    const parts = renderLists(lobby);
    urgent.replaceChildren(...parts.urgent);
    lists.replaceChildren(...parts.rest);
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  }
  await poll();
  const timer = setInterval(() => poll().catch(() => null), 10_000);
  const again = () => { if (document.visibilityState !== "hidden") poll().catch(() => null); };
  window.addEventListener("focus", again);
  document.addEventListener("visibilitychange", again);
  app.lobbyPoll = poll;
  return () => {
    clearInterval(timer);
    window.removeEventListener("focus", again);
    document.removeEventListener("visibilitychange", again);
    app.lobbyPoll = null;
  };
}

async function lobbyData() {
  const lobby = await ownLists();
  const me = app.me.name.toLowerCase();
  const running = await api("/api/matches?status=playing&limit=12").catch(() => []);
  lobby.watch = running.filter((m) => m.players.white.toLowerCase() !== me && m.players.black.toLowerCase() !== me);
  return lobby;
}

async function ownLists() {
  try {
    return await api("/api/lobby");
  } catch (error) {
    if (error.status !== 404) throw error;
    // a server without GET /api/lobby: the same lists from GET /api/matches
    const mine = await api(`/api/matches?user=${encodeURIComponent(app.me.name)}&limit=30`);
    const me = app.me.name.toLowerCase();
    const invited = mine.filter((m) => m.status === "invited");
    return { online: [], playing: mine.filter((m) => m.status === "playing"), finished: mine.filter((m) => m.status === "finished").slice(0, 10),
      invitations: { to_me: invited.filter((m) => m.players.black.toLowerCase() === me), from_me: invited.filter((m) => m.players.white.toLowerCase() === me) } };
  }
}

function challengeForm(bots) {
  const error = el("p", { class: "error", role: "alert" });
  const lengths = [el("option", { value: "0", text: "Money game" })];
  for (let n = 1; n <= 25; n++) lengths.push(el("option", { value: String(n), selected: n === 1, text: n === 1 ? "1 point" : `${n} points` }));
  const chosen = bots.find((b) => b.default) || bots.find((b) => b.title === "Simple") || bots[0];
  const botChoices = bots.map((bot, i) => el("label", { class: "choice" },
    el("input", { type: "radio", name: "opponent", id: `bot-${i}`, value: bot.name, checked: bot === chosen }),
    el("span", { class: "choice-text" },
      el("span", { class: "choice-title" }, el("strong", { text: bot.title }),
        bot.rating !== null && bot.rating !== undefined ? el("span", { class: "rating" }, el("span", { class: "visually-hidden", text: "rated " }), String(Math.round(bot.rating))) : null),
      bot.strength ? el("span", { class: "muted", text: bot.strength }) : null)));
  const person = el("label", { class: "choice" },
    el("input", { type: "radio", name: "opponent", id: "opp-person", value: "" }),
    el("span", { class: "choice-text" }, el("strong", { text: "A person" }), el("span", { class: "muted", text: "by name: they are invited" })));
  const form = el("form", { class: "stack card", id: "challenge", "aria-labelledby": "challenge-heading" },
    el("h2", { id: "challenge-heading", text: "New match" }),
    el("fieldset", { class: "opponents" }, el("legend", { text: "Opponent" }), botChoices, person,
      el("label", { for: "opponent-name", class: "sub", text: "Their name" }),
      el("input", { id: "opponent-name", list: "online-names", autocomplete: "off", oninput: () => { $("#opp-person").checked = true; keepFair(); } }),
      el("datalist", { id: "online-names" })),
    el("div", { class: "row3" },
      el("div", {}, el("label", { for: "length", text: "Length" }), el("select", { id: "length" }, lengths)),
      el("div", {}, el("label", { for: "variant", text: "Variant" }), el("select", { id: "variant" },
        el("option", { value: "standard", text: "Standard" }), el("option", { value: "nackgammon", text: "Nackgammon" }))),
      el("div", {}, el("label", { for: "clock", text: "Time control" }), el("select", { id: "clock" },
        CLOCKS.map(([value, text]) => el("option", { value, text }))))),
    el("label", { class: "check" }, el("input", { type: "checkbox", id: "opt-rated", checked: true }),
      " Rated: the result moves both ratings (a money game never does)"),
    el("fieldset", {}, el("legend", { text: "Help while playing" }),
      ...[["hints", "Hints: the best plays, on request (H)"], ["cube_hints", "Cube hints (Shift+H)"], ["verbose", "Verbose commentary (pip counts)"]]
        .map(([key, label]) => el("label", { class: "check" }, el("input", { type: "checkbox", id: `opt-${key}` }), ` ${label}`))),
    el("p", {}, el("button", { type: "submit", class: "primary", id: "start", text: "Start the match" })), error);
  form.addEventListener("change", () => { $("#start").textContent = $("#opp-person").checked ? "Send the challenge" : "Start the match"; keepFair(); });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const picked = form.querySelector("input[name=opponent]:checked");
    const opponent = picked && picked.value ? picked.value : $("#opponent-name").value.trim();
    if (!opponent) { error.textContent = "Choose a bot, or write the name of the person to invite."; $("#opponent-name").focus(); return; }
    const options = { variant: $("#variant").value };
    for (const key of ["hints", "cube_hints", "verbose"]) options[key] = $(`#opt-${key}`).checked;
    options.rated = $("#opt-rated").checked && Number($("#length").value) > 0;
    if ($("#clock").value) {
      const [delay, reserve] = $("#clock").value.split("/").map(Number);
      options.clock = { delay, reserve };
    }
    try {
      const match = await post("/api/matches", await withOwnSeed({ opponent, length: Number($("#length").value), options }));
      location.hash = `#/match/${match.id}`;
    } catch (failure) { error.textContent = failure.message; }
  });
  return form;
}

/** The challenge form's fairness: engine hints make a match between people unrated (the server
 * makes it so), and the rated box says so before the challenge is sent. */
function keepFair() {
  const rated = $("#opt-rated");
  if (!rated) return;
  const person = $("#opp-person") && $("#opp-person").checked;
  const hints = $("#opt-hints").checked || $("#opt-cube_hints").checked;
  const why = person && hints ? "Engine hints make a match between people unrated: both of you are told before it starts." : "";
  if (why) { rated.checked = false; rated.disabled = true; } else if (rated.disabled) { rated.disabled = false; rated.checked = true; }
  let note = $("#fair-note");
  if (!note) {
    note = el("p", { id: "fair-note", class: "muted small", role: "status" });
    rated.closest("label").after(note);
  }
  if (note.textContent !== why) note.textContent = why;
}

function matchLink(m) {
  const me = app.me.name;
  const href = m.status === "finished" ? `#/replay/${m.id}` : `#/match/${m.id}`;
  return el("a", { href, text: describeSummary(m, me) });
}

function renderLists(lobby) {
  const me = app.me.name;
  const section = (id, heading, items, empty) => el("section", { class: "card", "aria-labelledby": id },
    el("h2", { id, text: heading }), items.length ? el("ul", { class: "plain" }, items) : el("p", { class: "muted", text: empty }));
  const toMe = lobby.invitations.to_me.map((m) => el("li", { class: "invite" },
    el("span", { text: `${opponentOf(m, me)} invites you: ${termsText(m)}` }),
    el("span", { class: "actions" },
      el("button", { type: "button", class: "primary", id: `accept-${m.id}`, "aria-label": `Accept ${opponentOf(m, me)}'s invitation (match ${m.id})`, text: "Accept",
        onclick: async () => { await post(`/api/matches/${m.id}/accept`, { seed: ownSeed() }); location.hash = `#/match/${m.id}`; } }),
      el("button", { type: "button", id: `decline-${m.id}`, "aria-label": `Decline ${opponentOf(m, me)}'s invitation (match ${m.id})`, text: "Decline",
        onclick: async () => { await post(`/api/matches/${m.id}/decline`); if (app.lobbyPoll) app.lobbyPoll(); } }))));
  const fromMe = lobby.invitations.from_me.map((m) => el("li", { class: "invite" },
    el("span", { text: `You invited ${opponentOf(m, me)}: ${termsText(m)}; waiting` }),
    el("span", { class: "actions" },
      el("a", { href: `#/match/${m.id}`, text: "Open" }),
      el("button", { type: "button", id: `withdraw-${m.id}`, "aria-label": `Withdraw the invitation to ${opponentOf(m, me)} (match ${m.id})`, text: "Withdraw",
        onclick: async () => { await post(`/api/matches/${m.id}/withdraw`); $("#lobby-status").textContent = `Invitation to ${opponentOf(m, me)} withdrawn.`; if (app.lobbyPoll) app.lobbyPoll(); } }))));
  const online = lobby.online.filter((p) => p.name.toLowerCase() !== me.toLowerCase());
  const datalist = $("#online-names");
  if (datalist) datalist.replaceChildren(...online.map((p) => el("option", { value: p.name })));
  const people = online.map((p) => el("li", { class: "person" },
    el("a", { href: `#/user/${encodeURIComponent(p.name)}`, text: p.name }), " ",
    el("span", { class: "rating", text: Math.round(p.rating) }), p.playing ? el("span", { class: "muted", text: " playing" }) : null, " ",
    el("button", { type: "button", class: "quiet", id: `invite-${p.name}`, "aria-label": `Challenge ${p.name}`, text: "Challenge",
      onclick: () => { $("#opp-person").checked = true; $("#opponent-name").value = p.name; $("#start").textContent = "Send the challenge"; keepFair(); $("#length").focus(); } })));
  const urgent = [];
  if (toMe.length || fromMe.length) urgent.push(section("invitations-heading", "Invitations", [...toMe, ...fromMe], ""));
  if (lobby.playing.length) urgent.push(section("mine-heading", "Your matches", lobby.playing.map((m) => el("li", {}, matchLink(m))), ""));
  return { urgent, rest: [
    section("online-heading", "Online now", people, "Nobody else is online just now."),
    section("watch-heading", "Being played now", lobby.watch.map((m) => el("li", {}, el("a", { href: `#/match/${m.id}`, text: `Watch ${describeSummary(m)}` }))), "No other match is being played."),
    section("finished-heading", "Finished", lobby.finished.slice(0, 8).map((m) => el("li", {}, matchLink(m))), "No finished matches yet."),
  ] };
}
