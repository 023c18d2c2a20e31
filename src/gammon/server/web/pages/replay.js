// A match replayed event by event, from either side: ←/→ step, ↑/↓ by play, PageUp/PageDown
// by game, Home/End. The board after each event is the server's (GET .../board?upto=).

import { api } from "../api.js";
import { drawBoard, playPoints } from "../board.js";
import { $, el, keyButton } from "../dom.js";
import { lengthText, playerTitles, shownName, title } from "../page.js";
import { app } from "../state.js";

export async function replayPage(id) {
  const match = await api(`/api/matches/${id}?history=all`);
  app.match = match; app.matchId = id;
  const events = match.history.filter((e) => e.description);
  const mine = match.you || null;
  let view = mine || localStorage.getItem("gammon.view") || "white";
  const titles = await playerTitles();
  title(`Replay: ${shownName(match.players.white, titles)} v ${shownName(match.players.black, titles)}`, el("span", { class: "subtitle", text: ` ${lengthText(match.length)}` }));
  const main = $("#main");
  main.className = "wide";
  const line = el("p", { id: "replay-line", class: "turn-line", "aria-live": "polite" });
  const list = el("ol", { class: "event-list", id: "event-list" }, events.map((e, i) => el("li", { id: `event-${i}` },
    el("button", { type: "button", class: "link", onclick: () => show(i), text: e.description }))));
  const proof = match.dice_proof;
  main.append(el("div", { class: "match-layout" },
    el("div", { class: "board-col" }, el("div", { class: "board-wrap" }, el("div", { id: "board-svg" }))),
    el("aside", { class: "side", "aria-label": "Replay" }, line,
      el("div", { class: "controls", role: "group", "aria-label": "Replay" },
        keyButton("replay-first", "First", "Home", () => show(0)),
        keyButton("replay-prev", "Back", "←", () => show(at - 1), { "aria-keyshortcuts": "ArrowLeft" }),
        keyButton("replay-next", "Forward", "→", () => show(at + 1), { class: "primary", "aria-keyshortcuts": "ArrowRight" }),
        keyButton("replay-last", "Last", "End", () => show(events.length - 1))),
      el("p", { class: "muted small", text: "↑ and ↓ go by play, Page Up and Page Down by game." }),
      el("fieldset", { class: "view-from" }, el("legend", { text: "View from" }),
        ...["white", "black"].map((color) => el("label", { class: "check" },
          el("input", { type: "radio", name: "view", value: color, checked: view === color,
            onchange: () => { view = color; $("#board-svg").__places = null; show(at); } }), ` ${match.players[color]} (${color})`))),
      el("section", { class: "card", "aria-labelledby": "events-heading" }, el("h2", { id: "events-heading", text: "Every event" }), list),
      el("section", { class: "card", "aria-labelledby": "proof-heading" }, el("h2", { id: "proof-heading", text: "Dice proof" }),
        el("p", { class: "hash", text: `Commitment (dice scheme ${proof.scheme}, shown before anyone's seed was sent): ${proof.commitment}` }),
        el("p", { class: "hash", text: `Seeds: ${match.players.white} ${proof.challenger_seed}${(proof.drawn || []).includes("challenger") ? " (drawn from the commitment)" : ""}; ${match.players.black} ${proof.opponent_seed}${(proof.drawn || []).includes("opponent") ? " (drawn from the commitment)" : ""}.` }),
        el("p", { class: "hash", text: proof.seed ? `Seed: ${proof.seed}. Check every roll with: gammon verify-dice --url ${location.origin}/api/matches/${id}` : "The seed is shown when the match is over." })),
      el("p", { class: "links" }, el("a", { href: `/api/matches/${id}/record.mat`, text: "Download the match (.mat)" }),
        match.status !== "finished" ? [" · ", el("a", { href: `#/match/${id}`, text: "Back to the match" })] : null))));
  let at = -1, asked = 0;

  async function show(index) {
    if (!events.length) return;
    at = Math.max(0, Math.min(events.length - 1, index));
    const ask = ++asked;
    const event = events[at];
    const board = await api(`/api/matches/${id}/board?view=${view}&upto=${event.seq}`);
    if (ask !== asked) return;  // a later step was asked for meanwhile
    // the dice: the roll itself, or for a play the roll it played (faded)
    const roll = event.kind === "play" ? events.slice(0, at).reverse().find((e) => e.game === event.game && e.data && e.data.dice) : event;
    const rolled = roll && roll.data && roll.data.dice ? roll.data.dice : board.remaining.length ? board.remaining.slice(0, 2) : null;
    const dice = rolled ? (rolled[0] === rolled[1] ? [rolled[0], rolled[0], rolled[0], rolled[0]] : rolled.slice(0, 2)) : null;
    const roller = event.kind === "roll" || event.kind === "opening" || event.kind === "play" ? event.color : null;
    const last = board.last_play && event.kind === "play" ? playPoints(board.last_play.play, board.last_play.color === view) : { from: [], to: [] };
    drawBoard($("#board-svg"), {
      view, cells: board.cells, bar: board.bar, off: board.off,
      dice: roller && dice ? dice : null, diceColor: roller, used: dice ? dice.map(() => event.kind === "play") : null,
      cube: cubeAt(events, at, match.length), lastFrom: last.from, lastTo: last.to,
      label: `The board after event ${at + 1}, from ${match.players[view]}'s side: ${describeBoard(board, view, match)}`,
    });
    line.textContent = `Event ${at + 1} of ${events.length}: ${event.description}`;
    for (const node of list.querySelectorAll("[aria-current]")) node.removeAttribute("aria-current");
    const item = $(`#event-${at}`);
    if (item) { item.setAttribute("aria-current", "step"); item.scrollIntoView({ block: "nearest" }); }
  }

  const jump = (direction, kinds) => {
    for (let i = at + direction; i >= 0 && i < events.length; i += direction) {
      if (kinds(events[i], events[i - 1])) return show(i);
    }
    return show(direction > 0 ? events.length - 1 : 0);
  };
  const onKey = (event) => {
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    const keys = {
      ArrowLeft: () => show(at - 1), ArrowRight: () => show(at + 1), Home: () => show(0), End: () => show(events.length - 1),
      ArrowUp: () => jump(-1, (e) => e.kind === "play"), ArrowDown: () => jump(1, (e) => e.kind === "play"),
      PageUp: () => jump(-1, (e, before) => !before || e.game !== before.game), PageDown: () => jump(1, (e, before) => before && e.game !== before.game),
    };
    if (keys[event.key] && !event.ctrlKey && !event.altKey && !event.metaKey) { event.preventDefault(); keys[event.key](); }
  };
  document.addEventListener("keydown", onKey);
  await show(events.length - 1);
  return () => document.removeEventListener("keydown", onKey);
}

function cubeAt(events, index, length) {
  // the cube as the events up to ``index`` of its game left it: what the takes said
  let value = 1, owner = null;
  const game = events[index].game;
  for (let i = 0; i <= index; i++) {
    const e = events[i];
    if (e.game !== game) continue;
    if ((e.kind === "take" || e.kind === "beaver") && e.data && e.data.cube) { value = e.data.cube; owner = e.color; }
  }
  return { value, owner, shown: length !== 1 };
}

function describeBoard(board, view, match) {
  const parts = [];
  for (const color of [view, view === "white" ? "black" : "white"]) {
    const points = board.cells.filter((c) => c.color === color).map((c) => `${c.count} on ${c.point}`);
    const extra = [board.bar[color] ? `${board.bar[color]} on the bar` : "", board.off[color] ? `${board.off[color]} borne off` : ""].filter(Boolean);
    parts.push(`${match.players[color]}: ${[...points, ...extra].join(", ") || "none"}`);
  }
  return parts.join("; ");
}
