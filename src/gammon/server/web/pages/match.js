// A match: the board big and central, the controls beside it, the log of what happened.
// Players play by mouse, keys or typed plays; spectators (and visitors not logged in) watch.
// What may be done, the legal moves and the moves entered are the server's (the match view's
// `actions` and `legal`, GET .../board); this page asks, draws and tells.

import { api, ownSeed, post, withOwnSeed } from "../api.js";
import { announce, attachLog } from "../announce.js";
import { drawBoard, playPoints } from "../board.js";
import { $, el, keyButton } from "../dom.js";
import { whoAmI } from "../header.js";
import { buildGrid, focusCell, pageKeys } from "../input.js";
import { lengthText, playerTitles, shownName, termsText, title } from "../page.js";
import { play as sound } from "../sound.js";
import { app, myColor, myTurn, nameOf, other } from "../state.js";

const KIND_WORDS = { 1: "a single game", 2: "a gammon", 3: "a backgammon" };
const HOLD_MS = 1600;  // a roll nobody could play stays on the board this long before the turn passes
const UNHEARD_TOLD = 8;  // at most this many earlier events are told when a match page opens
let refreshTimer = null, clockTimer = null, keyListener = null, analysisTimer = null;

const cap = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);
/** Who, at the start of a sentence: "You", or a name exactly as its owner spells it ("bob"). */
const subject = (color) => (color === myColor() ? "You" : app.match.players[color]);
const heardKey = (id) => `gammon.heard.${id}.${app.me ? app.me.name.toLowerCase() : "-"}`;
const controller = { enter, act, deselect, cycle, sources };

export function stopMatch() {
  app.stopped = true;
  clearTimeout(refreshTimer);
  clearInterval(clockTimer);
  clearTimeout(analysisTimer);
  if (keyListener) document.removeEventListener("keydown", keyListener);
  keyListener = null;
  if (app.ws) { app.ws.onclose = null; app.ws.close(); app.ws = null; }
}

export async function matchPage(id) {
  Object.assign(app, { matchId: id, pending: [], selected: null, lastSeq: -1, told: new Set(), stopped: false, board: null,
    history: [], holdUntil: 0, held: null, lowTold: new Set() });
  const match = await api(`/api/matches/${id}?history=all`);
  app.match = match;
  learn(match.history);
  const mine = myColor();
  app.view = mine || localStorage.getItem("gammon.view") || "white";
  const { white, black } = match.players;
  app.titles = await playerTitles();
  title(`${shownName(white, app.titles)} v ${shownName(black, app.titles)}`, el("span", { class: "subtitle", text: ` ${cap(lengthText(match.length))}${match.options.variant === "nackgammon" ? ", nackgammon" : ""}` }));
  const main = $("#main");
  main.className = "wide";
  const side = el("aside", { class: "side", "aria-label": "Match" });
  main.append(el("div", { class: "match-layout" },
    el("div", { class: "board-col" },
      el("div", { class: "board-wrap", id: "board-wrap" }, el("div", { id: "board-svg" }),
        el("div", { id: "grid", role: "grid", "aria-label": mine ? "Board, from your side: points 13 to 24 on the top row, 12 to 1 on the bottom row"
          : `Board, from ${app.view}'s side: points 13 to 24 on the top row, 12 to 1 on the bottom row`, "aria-describedby": "status" }))),
    side));
  side.append(el("div", { class: "scoreboard" }, el("div", { class: "player theirs", id: "player-top" }), el("div", { class: "player mine", id: "player-bottom" })),
    el("p", { id: "turn-line", class: "turn-line" }), el("p", { id: "status", class: "status-line" }));
  if (mine) side.append(playerControls());
  else side.append(spectatorControls());
  side.append(el("div", { id: "hints", class: "hints", hidden: true }), el("section", { id: "summary", class: "summary", hidden: true, "aria-labelledby": "summary-heading" }));
  attachLog(side, `Match ${id} log`);
  side.append(el("p", { class: "links" }, el("a", { href: `#/replay/${id}`, text: "Replay" }), " · ",
    el("a", { href: `/api/matches/${id}/record.mat`, text: "Download (.mat)" })));
  buildGrid($("#grid"), controller);
  keyListener = pageKeys(controller);
  document.addEventListener("keydown", keyListener);  // a spectator's keys tell (E, P, S, ...); a player's act too
  tellWhereThingsStand(match);
  await refresh();
  if (app.board) {
    const you = mine || app.view, them = other(you);
    if (app.match.length > 1 && app.match.status === "playing") announce(`Score: ${nameOf(you)} ${app.match.score[you]}, ${nameOf(them)} ${app.match.score[them]}.`);
    announce(turnText());
  }
  connect();
  clockTimer = setInterval(drawClocks, 500);
  return null;
}

function playerControls() {
  const auto = localStorage.getItem("gammon.autoForced") !== "off";
  return el("div", { class: "controls-wrap" },
    el("div", { class: "controls", role: "group", "aria-label": "Actions" },
      keyButton("do-roll", "Roll", "Enter", () => act("roll"), { class: "primary" }),
      keyButton("do-confirm", "Confirm play", "Enter", () => act("confirm"), { class: "primary" }),
      keyButton("do-take", "Take", "Y", () => act("take"), { class: "primary" }),
      keyButton("do-drop", "Drop", "N", () => act("drop")),
      keyButton("do-double", "Double", "Shift+D", () => act("double")),
      keyButton("do-undo", "Undo", "U", () => act("undo")),
      keyButton("do-hint", "Hint", "H", () => act("hint")),
      keyButton("do-cubehint", "Cube hint", "Shift+H", () => act("cubehint"))),
    el("form", { id: "typed", class: "typed", onsubmit: typedPlay },
      el("label", { for: "typed-play", text: "Type a play" }),
      el("span", { class: "inline" }, el("input", { id: "typed-play", autocomplete: "off", placeholder: "8/5 6/5" }),
        el("button", { type: "submit", text: "Enter it" }))),
    el("details", { class: "more", id: "more" }, el("summary", { text: "Resign, settings, keys" }),
      el("div", { class: "resign" },
        el("label", { for: "resign-kind", text: "Resign" }),
        el("select", { id: "resign-kind" }, Object.entries(KIND_WORDS).map(([value, text]) => el("option", { value, text }))),
        el("button", { type: "button", id: "do-resign", text: "Offer to resign", onclick: () => act("resign") })),
      el("label", { class: "check" }, el("input", { type: "checkbox", id: "auto-forced", checked: auto,
        onchange: (e) => localStorage.setItem("gammon.autoForced", e.target.checked ? "on" : "off") }), " Play forced moves for me"),
      el("p", { class: "muted small", text: "Keys: arrows move along the board, Enter picks up and puts down (the same point twice bears off), "
        + "Ctrl+arrows find the checkers that can move, Ctrl+Backspace puts one back; E, D, P, S, C, T tell the board, cube, pips, score, dice and turn." })));
}

function spectatorControls() {
  return el("fieldset", { class: "view-from" }, el("legend", { text: "View from" }),
    ...["white", "black"].map((color) => el("label", { class: "check" },
      el("input", { type: "radio", name: "view", value: color, checked: app.view === color, onchange: () => {
        app.view = color;
        localStorage.setItem("gammon.view", color);
        $("#board-svg").__places = null;
        loadBoard([]);
      } }), ` ${app.match.players[color]} (${color})`)));
}

// -- what is heard -------------------------------------------------------------------------------
function tellWhereThingsStand(match) {
  const mine = myColor();
  const opponent = mine ? match.players[other(mine)] : null;
  const what = lengthText(match.length);
  announce(mine ? `Your ${what} against ${opponent}. You play ${mine}: your checkers move from 24 down to 1, home at the bottom right.`
    : `You are watching ${match.players.white} (white) against ${match.players.black} (black), a ${what}.`);
  const heard = Number(localStorage.getItem(heardKey(match.id)) ?? -1);
  const unheard = app.history.filter((e) => e.seq > heard && e.description && !["challenge", "accept_challenge", "new_game"].includes(e.kind));
  if (unheard.length > UNHEARD_TOLD) announce(`${unheard.length - UNHEARD_TOLD} earlier events are in the replay; the last ones:`);
  for (const event of unheard.slice(-UNHEARD_TOLD)) announce(describe(event));
  for (const event of app.history) app.told.add(event.seq);
  markHeard();
}

function markHeard() {
  if (app.matchId !== null) localStorage.setItem(heardKey(app.matchId), String(app.lastSeq));
}

function learn(events) {
  const fresh = [];
  for (const event of events || []) {
    if (app.history.some((known) => known.seq === event.seq)) continue;
    app.history.push(event);
    fresh.push(event);
    app.lastSeq = Math.max(app.lastSeq, event.seq);
  }
  app.history.sort((a, b) => a.seq - b.seq);
  return fresh;
}

function describe(event) {
  // The server tells every event for whoever asks (you, in your numbering): the page says what it says.
  const prompt = event.color && myColor() && event.color !== myColor();
  if (event.kind === "double") return event.description + (prompt ? " Y takes, N drops." : "");
  if (event.kind === "resign") return event.description + (prompt ? " Y accepts, N rejects." : "");
  return event.description;
}

/** New events, from the stream or an action's answer: told once each, heard and seen. */
function hear(events) {
  learn(events);
  for (const event of (events || []).slice().sort((a, b) => a.seq - b.seq)) {
    if (app.told.has(event.seq)) continue;
    app.told.add(event.seq);
    announce(describe(event));
    if (event.kind === "roll" || event.kind === "opening") sound("dice");
    if (event.kind === "play" && event.color !== myColor()) sound("move");
    if (event.kind === "play" && !(event.data && event.data.play)) {
      // a roll that cannot be played: its dice stay on the board a moment, said, before the turn passes
      const roll = [...app.history].reverse().find((e) => e.seq < event.seq && (e.kind === "roll" || e.kind === "opening"));
      if (roll && roll.data && roll.data.dice) {
        app.held = { dice: roll.data.dice, color: event.color, text: `${subject(event.color)} cannot move with ${roll.data.dice.join("-")}.` };
        app.holdUntil = Date.now() + HOLD_MS;
        if (app.board) render();
      }
    }
    if (event.kind === "match_over") { sound("end"); whoAmI(); }
  }
  markHeard();
}

// -- the server's state --------------------------------------------------------------------------
function connect() {
  if (app.stopped) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${app.matchId}/events?after=${app.lastSeq}`;
  const ws = new WebSocket(url);
  app.ws = ws;
  ws.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.seq === undefined) return;
    hear([event]);
    scheduleRefresh();
  };
  ws.onopen = () => { if (app.reconnecting) { app.reconnecting = false; announce("Connection restored."); scheduleRefresh(); } };
  ws.onclose = () => {
    if (app.stopped) return;
    if (!app.reconnecting) announce("Connection lost; reconnecting.");
    app.reconnecting = true;
    setTimeout(connect, 1000);
  };
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  const wait = Math.max(60, app.holdUntil - Date.now());
  refreshTimer = setTimeout(() => refresh().catch((error) => announce(`Could not refresh: ${error.message}`)), wait);
}

async function refresh() {
  if (app.stopped) return;
  if (app.holdUntil > Date.now()) { scheduleRefresh(); return; }
  app.held = null;
  const before = app.match;
  const match = await api(`/api/matches/${app.matchId}`);
  if (app.stopped) return;
  const changed = !before || match.version !== before.version;
  app.match = match;
  if (["invited", "declined", "withdrawn", "expired"].includes(match.status)) {
    $("#turn-line").textContent = match.status === "invited"
      ? (myColor() === "white" ? `Waiting for ${match.players.black} to accept the challenge.` : `${match.players.white} invites you: accept it in the lobby.`)
      : `The challenge was ${match.status}.`;
    $("#status").textContent = cap(lengthText(match.length)) + ".";
    for (const button of document.querySelectorAll(".controls button")) button.hidden = true;
    invitationButtons(match);
    return;
  }
  if (match.status === "playing" && $("#summary")) $("#summary").hidden = true;  // an invitation no more
  if (changed && !(myTurn() && match.dice)) { app.pending = []; app.selected = null; }
  if (changed) turnMoved(before, match);
  await loadBoard(app.pending);
  if (match.status === "finished") showSummary();
  if (myTurn() && match.dice && app.board.forced && $("#auto-forced") && $("#auto-forced").checked && !app.busy && match.legal.length === 1) {
    app.busy = true;
    try { await send({ action: "play", play: match.legal[0] }); } finally { app.busy = false; }
  }
}

/** An invitation opened as a page: the invited accept or decline it here, the challenger withdraws it. */
function invitationButtons(match) {
  const box = $("#summary");
  if (!box || !myColor()) return;
  box.hidden = match.status !== "invited";
  if (box.hidden) return;
  const again = () => { box.dataset.version = ""; refresh(); };
  box.replaceChildren(el("h2", { id: "summary-heading", text: "An invitation" }),
    el("p", { id: "invitation-terms", text: `${cap(termsText(match))}.` }), el("p", { class: "actions" },
    myColor() === "black"
      ? [el("button", { type: "button", class: "primary", id: "do-accept", text: "Accept",
        onclick: async () => { await post(`/api/matches/${match.id}/accept`, { seed: ownSeed() }); box.hidden = true; await refresh(); focusCell(app.cursor); } }),
      el("button", { type: "button", id: "do-decline", text: "Decline", onclick: async () => { await post(`/api/matches/${match.id}/decline`); again(); } })]
      : el("button", { type: "button", id: "do-withdraw", text: "Withdraw the invitation",
        onclick: async () => { await post(`/api/matches/${match.id}/withdraw`); announce("You withdrew the invitation."); again(); } })));
}

/** What a new version of the match clears: the hint of an earlier roll, the resignation chosen. */
function turnMoved(before, match) {
  if (before && (before.to_act !== match.to_act || String(before.dice) !== String(match.dice))) {
    $("#hints").hidden = true;  // a hint is for the roll it was asked for
    $("#hints").replaceChildren();
    if (myTurn() && !match.dice) sound("turn");
  }
  if ($("#resign-kind")) $("#resign-kind").value = "1";
}

async function loadBoard(moves = app.pending) {
  const query = new URLSearchParams({ view: app.view });
  if (moves.length && myTurn()) query.set("moves", moves.join(","));
  const board = await api(`/api/matches/${app.matchId}/board?${query}`);
  app.board = board;
  app.pending = board.moves;
  render();
  return board;
}

// -- drawing ---------------------------------------------------------------------------------------
function shownDice() {
  const match = app.match, board = app.board;
  if (app.held) return { dice: spread(app.held.dice), color: app.held.color, used: spread(app.held.dice).map(() => true) };
  if (match.dice && match.to_act) {
    const dice = spread(match.dice);
    const left = [...(board.remaining || [])];
    const used = dice.map(() => true);
    // the dice still to play are the server's `remaining`; the others are drawn used
    for (let i = dice.length - 1; i >= 0; i--) {
      const at = left.indexOf(dice[i]);
      if (at >= 0) { used[i] = false; left.splice(at, 1); }
    }
    return { dice, color: match.to_act, used };
  }
  if (match.status !== "playing") return null;
  // between turns: the last roll of this game, faded, on its roller's side
  const roll = [...app.history].reverse().find((e) => (e.kind === "roll" || e.kind === "opening") && e.game === match.game);
  if (!roll || !roll.data || !roll.data.dice) return null;
  const dice = spread(roll.data.dice);
  return { dice, color: roll.color, used: dice.map(() => true) };
}

function spread(dice) { return dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [dice[0], dice[1]]; }

function render() {
  const match = app.match, board = app.board;
  if (!board) return;
  const dice = shownDice();
  const last = board.last_play && !app.pending.length ? playPoints(board.last_play.play, board.last_play.color === app.view) : { from: [], to: [] };
  const pendingTo = app.pending.map((step) => step.replace(/\*/g, "").split("/").pop()).filter((p) => /^\d+$/.test(p)).map(Number);
  drawBoard($("#board-svg"), {
    view: app.view, cells: board.cells, bar: board.bar, off: board.off,
    dice: dice ? dice.dice : null, diceColor: dice ? dice.color : null, used: dice ? dice.used : null,
    cube: { value: match.cube.value, owner: match.cube.owner, shown: match.length !== 1 },
    selected: app.selected, targets: targets(), lastFrom: last.from, lastTo: last.to, pendingTo,
  });
  for (const cell of board.cells) {
    const node = $(`#cell-${cell.point}`);
    node.setAttribute("aria-label", pointLabel(cell));
    node.setAttribute("aria-selected", app.selected === cell.point ? "true" : "false");
    node.classList.toggle("target", app.selected !== null && targets().includes(cell.point));
  }
  drawPlayers();
  const you = myColor() || app.view, them = other(you);
  const score = match.length ? `Score ${nameOf(you)} ${match.score[you]}, ${nameOf(them)} ${match.score[them]} in a ${match.length}-point match${match.crawford ? " (Crawford game)" : ""}.` : "Money game.";
  const cube = match.length === 1 ? "" : ` Cube ${match.cube.value}${match.cube.owner ? `, ${match.cube.owner === myColor() ? "yours" : `${nameOf(match.cube.owner)}'s`}` : ", in the middle"}.`;
  $("#status").textContent = score + cube + ` Pips: ${nameOf(you)} ${board.pips[you]}, ${nameOf(them)} ${board.pips[them]}.`;
  $("#turn-line").textContent = turnText();
  if (!myColor()) return;
  const actions = match.actions || [];
  const can = (name) => myTurn() && actions.includes(name);
  const show = (id, on) => { const node = $(`#${id}`); if (node) node.hidden = !on; };
  show("do-roll", can("roll") && !app.held);
  show("do-confirm", myTurn() && board.complete);
  show("do-double", can("double") && !app.held);
  show("do-take", can("take") || can("accept"));
  show("do-drop", can("drop") || can("reject"));
  show("do-undo", myTurn() && app.pending.length > 0);
  show("do-hint", myTurn() && Boolean(match.dice) && Boolean(match.options.hints));
  show("do-cubehint", myTurn() && !match.dice && Boolean(match.options.cube_hints) && match.length !== 1);
  $("#do-resign").disabled = !can("resign");
  $("#typed").hidden = !(myTurn() && match.dice);
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused.hidden || focused.closest("[hidden]")) focusCell(app.cursor);  // focus is never lost
}

function drawPlayers() {
  const match = app.match, board = app.board;
  for (const [id, color] of [["player-bottom", app.view], ["player-top", other(app.view)]]) {
    const box = $(`#${id}`);
    const name = shownName(match.players[color], app.titles);
    const acting = match.status === "playing" && match.to_act === color;
    box.classList.toggle("acting", acting);
    box.replaceChildren(...[
      el("span", { class: `swatch ${color}`, "aria-hidden": "true", text: color === "white" ? "X" : "O" }),  // the letters of the text boards
      el("span", { class: "visually-hidden", text: `${color}, ${color === "white" ? "X" : "O"}: ` }),
      el("span", { class: "who" }, el("strong", { class: "name", text: name }), match.bots[color] ? el("span", { class: "tag", text: "bot" }) : null, color === myColor() ? el("span", { class: "visually-hidden", text: " (you)" }) : null),
      acting ? el("span", { class: "to-act", text: "to play" }) : null,
      match.length ? el("span", { class: "score" }, el("strong", { text: String(match.score[color]) }), el("span", { class: "muted", text: ` of ${match.length}` })) : null,
      el("span", { class: "pips" }, `${board.pips[color]} `, el("span", { class: "muted", text: "pips" })),
      el("span", { class: "clock", id: `clock-${color}` }),
    ].filter(Boolean));
  }
  drawClocks();
}

function drawClocks() {
  const match = app.match;
  if (!match || !match.clock) return;
  const { delay, reserve, since } = match.clock;
  const waiting = match.clock.waiting || [];
  // a player not yet present since the acceptance: their turn's time does not count until they come
  const running = waiting.includes(match.clock.running) ? null : match.clock.running;
  const elapsed = running && since ? Math.max(0, (Date.now() - Date.parse(since)) / 1000) : 0;
  for (const color of ["white", "black"]) {
    const node = document.getElementById(`clock-${color}`);
    if (!node) continue;
    let left = reserve[color], grace = 0;
    if (running === color) {
      grace = Math.max(0, delay - elapsed);
      left = Math.max(0, reserve[color] - Math.max(0, elapsed - delay));
    }
    const mm = Math.floor(left / 60), ss = Math.floor(left % 60);
    const awaited = waiting.includes(color) && match.clock.running === color;
    node.textContent = `${mm}:${String(ss).padStart(2, "0")}${running === color && grace > 0 ? ` +${Math.ceil(grace)}` : ""}${awaited ? " (waits)" : ""}`;
    node.classList.toggle("low", left <= 30);
    node.classList.toggle("running", running === color);
    node.setAttribute("aria-label", `${match.players[color]}'s time: ${mm} minutes ${ss} seconds${awaited ? ", not counting until they come" : ""}`);
    const key = `${color}:${match.version}`;
    if (running === color && left <= 30 && grace === 0 && !app.lowTold.has(key)) {
      app.lowTold.add(key);
      announce(`${color === myColor() ? "You have" : `${match.players[color]} has`} ${Math.round(left)} seconds left.`);
    }
  }
}

function turnText() {
  const match = app.match;
  if (app.held) return app.held.text;
  if (match.status === "finished") return `The match is over: ${match.winner === (app.me && app.me.name) ? "you won" : `${match.winner} won`}.`;
  if (!match.to_act) return "Waiting for the next game.";
  const who = match.to_act;
  if (!myTurn()) {
    return match.bots && match.bots[who] ? `${shownName(match.players[who], app.titles)} is thinking…` : `${subject(who)} to act.`;
  }
  if (match.cube.offered) return `You are doubled to ${match.cube.value * 2}: Y takes, N drops.`;
  if (match.resignation) return `${subject(match.resignation.by)} offers to resign ${KIND_WORDS[match.resignation.value]}: Y accepts, N rejects.`;
  if (!match.dice) return "Your turn: Enter rolls" + (match.actions.includes("double") ? ", Shift+D doubles." : ".");
  if (app.board && app.board.complete) return `Play ${app.board.pending} complete: Enter confirms, U undoes.`;
  const left = app.board ? app.board.remaining.join(" ") : "";
  return `You rolled ${match.dice[0]}-${match.dice[1]}; to play ${left}.` + (app.selected !== null ? ` Holding the checker from ${app.selected}.` : "");
}

function pointLabel(cell) {
  const mine = myColor() || app.view;
  let text = `${cell.point}: `;
  if (!cell.color) text += "empty";
  else {
    const whose = cell.color === mine ? (myColor() ? "yours" : app.match.players[cell.color]) : `${app.match.players[cell.color]}'s`;
    text += `${cell.count} ${cell.color} checker${cell.count === 1 ? "" : "s"}, ${whose}`;
    if (cell.count === 1 && cell.color !== mine) text += ", a blot";
  }
  if (app.selected === cell.point) text += ", picked up";
  else if (app.selected !== null && targets().includes(cell.point)) text += ", a place to move to";
  return text;
}

// -- what a player does ----------------------------------------------------------------------------
function sources() { return app.board ? Object.keys(app.board.next).map(Number).filter((p) => p !== 25) : []; }
function targets() {
  if (!app.board || app.selected === null) return [];
  return (app.board.next[String(app.selected)] || []).map((t) => (t === 0 ? app.selected : t));
}

function cycle(direction) {
  if (!myTurn() || !app.match.dice) return announce("Nothing to move now.");
  let points;
  if (app.selected !== null) points = targets();
  else if (app.board.next["25"]) points = app.board.next["25"];
  else points = sources();
  if (!points.length) return announce(app.selected !== null ? "That checker cannot move: Ctrl+Backspace puts it back." : "Nothing to move now.");
  const at = points.indexOf(app.cursor);
  const next = at < 0 ? points[direction > 0 ? 0 : points.length - 1] : points[(at + direction + points.length) % points.length];
  return focusCell(next);
}

function deselect() {
  if (app.selected === null) return announce("Nothing is picked up.");
  app.selected = null;
  announce("Put back.");
  return render();
}

async function enter() {
  const match = app.match;
  if (!match || !app.board) return null;
  if (!myTurn()) return announce(match.status === "playing" ? "It is not your turn." : "The match is not being played.");
  if (match.cube.offered || match.resignation) return announce("Answer first: Y or N.");
  if (!match.dice) return act("roll");
  if (app.board.complete) return act("confirm");
  if (app.selected === null) {
    if (app.board.next["25"]) return addMove(`bar/${app.cursor}`);
    if (sources().includes(app.cursor)) {
      app.selected = app.cursor;
      announce(`Picked up a checker from ${app.cursor}.`);
      render();
      return focusCell(app.cursor);
    }
    return announce(`No checker of yours can move from ${app.cursor}; Ctrl+Right finds one.`);
  }
  const from = app.selected;
  app.selected = null;
  return addMove(`${from}/${app.cursor === from ? "off" : app.cursor}`);
}

async function addMove(move) {
  const before = app.pending.length;
  try {
    await loadBoard([...app.pending, move]);
    sound("move");
    const made = app.pending.slice(before).join(" ");
    announce(`You move ${made}.` + (app.board.complete ? ` Play ${app.board.pending} complete: Enter confirms, U undoes.` : ` To play ${app.board.remaining.join(" ")}.`));
  } catch (error) {
    announce(`Not possible: ${error.message}`);
    await loadBoard(app.pending.slice(0, before));
  }
  focusCell(app.cursor);
}

async function typedPlay(event) {
  event.preventDefault();
  const input = $("#typed-play");
  const text = input.value.trim();
  if (!text) return;
  if (!myTurn() || !app.match.dice) { announce("Not possible: there is no roll of yours to play."); return; }
  const steps = expand(text);
  if (!steps) { announce(`Not possible: ${text} is not a play; write it as 8/5 6/5, bar/22 or 6/off.`); return; }
  try {
    await loadBoard(steps);
    input.value = "";
    announce(`You move ${app.board.pending}.` + (app.board.complete ? " Enter confirms, U undoes." : ` To play ${app.board.remaining.join(" ")}.`));
  } catch (error) {
    announce(`Not possible: ${error.message}`);
    await loadBoard([]);
  }
}

function expand(text) {
  // standard notation to single checker moves for the server to check: 13/8/5 and 8/5(2) become steps
  const out = [];
  for (const word of text.toLowerCase().replace(/\*/g, "").split(/[\s,]+/).filter(Boolean)) {
    const found = word.match(/^((?:bar|\d{1,2})(?:\/(?:off|\d{1,2}))+)(?:\((\d)\))?$/);
    if (!found) return null;
    const points = found[1].split("/");
    for (let repeat = 0; repeat < Number(found[2] || 1); repeat++) {
      for (let i = 0; i + 1 < points.length; i++) out.push(`${points[i]}/${points[i + 1]}`);
    }
  }
  return out.length ? out : null;
}

async function send(body) {
  if (app.sending) return;  // one action at a time: a second Enter does not send it twice
  app.sending = true;
  try {
    const answer = await post(`/api/matches/${app.matchId}/actions`, { ...body, version: app.match.version });
    const before = app.match;
    app.match = answer;
    turnMoved(before, answer);
    app.pending = []; app.selected = null;
    hear(answer.events);
    if (app.holdUntil > Date.now()) { render(); scheduleRefresh(); } else await loadBoard([]);
    if (answer.status === "finished") showSummary();
  } catch (error) {
    announce(`Not possible: ${error.message}`);
    if (error.status === 409) await refresh();
  } finally {
    app.sending = false;
  }
}

async function act(name) {
  const match = app.match;
  if (!match || !app.board) return null;
  const mine = myColor();
  const you = mine || app.view, them = other(you);
  const board = app.board;
  switch (name) {
    case "status": return announce(`Bar: ${nameOf(you)} ${board.bar[you]}, ${nameOf(them)} ${board.bar[them]}. Borne off: ${nameOf(you)} ${board.off[you]}, ${nameOf(them)} ${board.off[them]}.`);
    case "cube": return announce(match.length === 1 ? "No doubling cube in a 1-point match." : `The cube is at ${match.cube.value}, ${match.cube.owner ? (match.cube.owner === mine ? "yours" : `${nameOf(match.cube.owner)}'s`) : "in the middle"}.${match.cube.offered ? " A double is offered." : ""}${match.crawford ? " Crawford game: no doubling." : ""}`);
    case "pips": return announce(`Pips: ${nameOf(you)} ${board.pips[you]}, ${nameOf(them)} ${board.pips[them]}.`);
    case "score": return announce(match.length ? `Score: ${nameOf(you)} ${match.score[you]}, ${nameOf(them)} ${match.score[them]}, in a ${match.length}-point match.` : "Money game.");
    case "dice": return announce(match.dice ? `${subject(match.to_act)} rolled ${match.dice[0]}-${match.dice[1]}` + (myTurn() ? `; to play ${board.remaining.join(" ") || "nothing"}.` : ".") : "The dice have not been rolled.");
    case "turn": return announce(match.to_act ? (myTurn() ? "Your turn." : `${subject(match.to_act)}'s turn.`) : "No one is to act.");
    default: break;
  }
  if (!myTurn()) return announce("It is not your turn.");
  switch (name) {
    case "roll": return match.dice ? announce("You have rolled already.") : send({ action: "roll" });
    case "double":
      if (!match.actions.includes("double")) return announce(match.length === 1 ? "Not possible: there is no doubling cube in a 1-point match." : "Not possible: you may not double now.");
      return send({ action: "double" });
    case "take":
      if (match.cube.offered) return send({ action: "take" });
      if (match.resignation) return send({ action: "accept" });
      return announce("Nothing is offered to you.");
    case "drop":
      if (match.cube.offered) return send({ action: "drop" });
      if (match.resignation) return send({ action: "reject" });
      return announce("Nothing is offered to you.");
    case "undo": {
      if (!app.pending.length) return announce("No checker move to undo.");
      const undone = app.pending[app.pending.length - 1];
      await loadBoard(app.pending.slice(0, -1));
      return announce(`Undone: ${undone}. To play ${app.board.remaining.join(" ")}.`);
    }
    case "confirm":
      if (!app.board.complete) return announce(`Not possible: the play is not complete; to play ${app.board.remaining.join(" ")}.`);
      return send({ action: "play", play: app.board.pending });
    case "hint": return hint("hint");
    case "cubehint": return hint("cube_hint");
    case "resign": {
      const value = Number($("#resign-kind").value || 1);
      const ok = window.confirm(`Resign ${KIND_WORDS[value]}?`);
      $("#resign-kind").value = "1";
      if (!ok) return announce("You play on.");
      return send({ action: "resign", value });
    }
    default: return null;
  }
}

async function hint(kind) {
  const panel = $("#hints");
  if (kind === "hint" && !app.match.options.hints) return announce("Hints are off in this match.");
  if (kind === "cube_hint" && !app.match.options.cube_hints) return announce("Cube hints are off in this match.");
  announce("Thinking…");
  try {
    const answer = await api(`/api/matches/${app.matchId}/${kind}`);
    panel.hidden = false;
    if (kind === "hint") {
      const ply = answer.plays.length ? answer.plays[0].ply : 0;
      const plays = answer.plays.filter((p) => p.ply === ply).slice(0, 6);  // one look-ahead: rows of one kind
      const best = plays.length ? plays[0].equity : 0;
      panel.replaceChildren(el("h2", { id: "hint-heading", text: "Best plays" }),
        el("table", { class: "hint-table", "aria-labelledby": "hint-heading" },
          el("thead", {}, el("tr", {}, ["Play", "Equity", "Difference"].map((h) => el("th", { scope: "col", text: h })))),
          el("tbody", {}, plays.map((p, i) => el("tr", { class: i === 0 ? "best" : "" }, el("th", { scope: "row", class: "play", text: p.play }),
            el("td", { class: "num", text: p.equity.toFixed(3) }), el("td", { class: "num", text: i === 0 ? "best" : (p.equity - best).toFixed(3) }))))),
        el("p", { class: "muted small", text: `${ply ? `Looking ${ply} ${ply === 1 ? "roll" : "rolls"} ahead` : "No look-ahead"}; equity in points a game, for you.` }));
      announce(plays.length ? `Hint: ${plays[0].play} is best${plays[1] ? `; next ${plays[1].play}, ${(best - plays[1].equity).toFixed(3)} worse` : ""}.` : "No play to hint.");
    } else {
      panel.replaceChildren(el("h2", { text: "Cube hint" }), el("p", { class: "cube-advice", text: answer.action }),
        el("table", { class: "hint-table" }, el("tbody", {},
          [["No double", answer.no_double], ["Double, take", answer.double_take], ["Double, pass", answer.double_pass]]
            .map(([label, value]) => el("tr", {}, el("th", { scope: "row", text: label }), el("td", { class: "num", text: value.toFixed(3) }))))));
      announce(`Cube hint: ${answer.action}.`);
    }
  } catch (error) { announce(`Not possible: ${error.message}`); }
}

// -- the end of a match ----------------------------------------------------------------------------
function showSummary() {
  const match = app.match;
  const box = $("#summary");
  if (!box || box.dataset.version === String(match.version)) return;
  box.dataset.version = String(match.version);
  const mine = myColor();
  const you = mine || "white", them = other(you);
  const won = mine && match.winner && match.winner.toLowerCase() === app.me.name.toLowerCase();
  const headline = mine ? (won ? "You won the match" : `${match.winner} won the match`) : `${match.winner} won the match`;
  const parts = [el("h2", { id: "summary-heading", text: headline }),
    el("p", { class: "final-score", text: match.length ? `${match.players[you]} ${match.score[you]} – ${match.score[them]} ${match.players[them]}` : "Money game" })];
  if (match.ratings) {
    const rows = ["white", "black"].map((color) => {
      const r = match.ratings[color];
      if (!r) return null;
      const change = r.after - r.before;
      return el("li", {}, `${color === mine ? "Your rating" : `${match.players[color]}'s rating`}: ${r.before.toFixed(1)} → ${r.after.toFixed(1)} `,
        el("span", { class: change >= 0 ? "gain" : "loss", text: `(${change >= 0 ? "+" : "−"}${Math.abs(change).toFixed(1)})` }));
    }).filter(Boolean);
    parts.push(el("ul", { class: "plain" }, rows));
  } else if (!match.rated) parts.push(el("p", { class: "muted", text: "This match was not rated." }));
  const buttons = el("p", { class: "actions" });
  if (mine) buttons.append(el("button", { type: "button", class: "primary", id: "do-rematch", text: "Rematch", onclick: rematch }));
  buttons.append(el("a", { href: `#/replay/${match.id}`, class: "button-link", text: "Replay" }));
  parts.push(buttons, el("div", { id: "analysis" }));
  box.replaceChildren(...parts);
  box.hidden = false;
  if (mine) for (const node of document.querySelectorAll(".controls button, #typed, #more")) node.hidden = true;
  analysisPanel(match.id);
}

async function rematch() {
  try {
    const next = await post(`/api/matches/${app.matchId}/rematch`, await withOwnSeed());  // our seed after the server's commitment
    location.hash = `#/match/${next.id}`;
  } catch (error) { announce(`Not possible: ${error.message}`); }
}

async function analysisPanel(id) {
  const box = $("#analysis");
  if (!box) return;
  let state = null;
  try { state = await api(`/api/matches/${id}/analysis`); } catch { state = null; }
  const show = (current) => {
    if (!document.body.contains(box)) return;
    if (current && current.status === "done") {
      box.replaceChildren(el("p", {}, el("a", { href: `/api/matches/${id}/analysis.html`, class: "button-link", text: "Open the analysis" })));
      announce("The analysis is ready.");
    } else if (current && (current.status === "queued" || current.status === "running")) {
      box.replaceChildren(el("p", { class: "muted", role: "status", text: current.status === "queued" ? "Analysis queued…" : "Analysing…" }));
      analysisTimer = setTimeout(async () => show(await api(`/api/matches/${id}/analysis`).catch(() => null)), 2000);
    } else if (!app.me) {
      box.replaceChildren();  // asking for an analysis needs an account
    } else {
      box.replaceChildren(el("button", { type: "button", id: "do-analyse", text: current && current.status === "failed" ? "Analyse again" : "Analyse this match",
        onclick: async () => {
          try { show(await post(`/api/matches/${id}/analysis`)); } catch (error) { announce(`Not possible: ${error.message}`); }
        } }));
    }
  };
  show(state);
}
