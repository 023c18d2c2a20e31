// What the page knows now, in one place (window.gammon, which the tests read).

export const app = {
  me: null, matchId: null, match: null, board: null, view: "white", pending: [], selected: null, cursor: 6,
  ws: null, lastSeq: -1, history: [], told: new Set(), stopped: true, sending: false, busy: false, replayAt: -1,
  holdUntil: 0,
};
window.gammon = app;

export function myColor() {
  if (!app.me || !app.match) return null;
  if (app.match.you) return app.match.you;
  const { white, black } = app.match.players;
  const me = app.me.name.toLowerCase();
  return white.toLowerCase() === me ? "white" : black.toLowerCase() === me ? "black" : null;
}
export const other = (color) => (color === "white" ? "black" : "white");
export function myTurn() {
  const m = app.match;
  return Boolean(m && m.status === "playing" && myColor() && m.to_act === myColor());
}
/** "you" for the reader, else the name exactly as the server spells it. */
export function nameOf(color) { return color === myColor() ? "you" : app.match.players[color]; }
