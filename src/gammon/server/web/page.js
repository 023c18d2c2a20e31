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

/** Whether a match may move ratings (matches made before `rated` existed: every match of a length). */
export function isRated(m) { return Boolean(m.length) && (m.options || {}).rated !== false; }

/** What accepting an invitation agrees to, all of it: "3-point match, nackgammon, 12 s a move + 5:00
 * in reserve, rated", and the engine's help when it is on (the server's matches.rules.terms says the
 * same by mail and in the terminal). */
export function termsText(m) {
  const options = m.options || {};
  const parts = [lengthText(m.length)];
  if (options.variant && options.variant !== "standard") parts.push(options.variant.replace(",", " with ").replace(/-/g, " "));
  const clock = options.clock;
  parts.push(clock ? `${clock.delay} s a move + ${Math.floor(clock.reserve / 60)}:${String(clock.reserve % 60).padStart(2, "0")} in reserve` : "no clock");
  parts.push(isRated(m) ? "rated" : "unrated");
  const helps = [options.hints ? "engine hints" : null, options.cube_hints ? "cube hints" : null].filter(Boolean);
  if (helps.length) parts.push(`${helps.join(" and ")} on`);  // and so unrated between people
  return parts.join(", ");
}

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
