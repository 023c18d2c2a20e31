// What every page has: its title and heading, and a match told in one line.

import { api } from "./api.js";
import { $, el } from "./dom.js";

/** The page's <h1> (focused after navigation) and the document's title. */
export function title(text, ...extra) {
  document.title = `${text} · gammon`;
  const heading = el("h1", { tabindex: "-1" }, text, ...extra);
  $("#main").append(heading);
  return heading;
}

export function lengthText(length) { return length ? `${length}-point match` : "money game"; }

/** A match of a list (`summary`), for a link's text. */
export function describeSummary(m, me = null) {
  const { white, black } = m.players;
  const score = `${m.score.white}–${m.score.black}`;
  let where = m.status;
  if (m.status === "playing") where = m.to_act ? (me && m.to_act.toLowerCase() === me.toLowerCase() ? "your turn" : `${m.to_act} to act`) : "playing";
  else if (m.status === "finished") where = `won by ${m.winner}`;
  return `${white} v ${black}, ${lengthText(m.length)}, ${score}, ${where}`;
}

export function opponentOf(m, me) {
  if (!me) return null;
  return m.players.white.toLowerCase() === me.toLowerCase() ? m.players.black : m.players.white;
}

let titles = null;

/** Bots by the title the server gives them ("bot:simple" is "Simple"); people by their name. */
export async function playerTitles() {
  if (!titles) titles = new Map((await api("/api/bots").catch(() => [])).map((bot) => [bot.name.toLowerCase(), bot.title]));
  return titles;
}

export function shownName(name, known) {
  return (known && known.get(name.toLowerCase())) || name;
}
