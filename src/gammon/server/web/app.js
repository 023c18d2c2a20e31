// gammon's web client: the pages of `gammon serve`, by mouse, keyboard (seed 004's keys) or
// screen reader. Every rule is the server's: the board, legal moves and checker moves entered
// come from GET /api/matches/{id}/board; this page only draws, listens and announces.
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
const app = {
  me: null, matchId: null, match: null, board: null, view: "white", pending: [], selected: null,
  cursor: 6, ws: null, lastSeq: -1, told: new Set(), stopped: true, busy: false, replayAt: -1,
};
const BOT_LEVELS = ["bot:nn:0:beginner", "bot:nn:0:casual", "bot:nn:0:intermediate", "bot:nn:0:advanced",
  "bot:nn:0:expert", "bot:nn:2", "bot:pubeval", "bot:simple", "bot:random"];
const GRID = [[13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24], [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]];
const KIND_WORDS = { 1: "a single game", 2: "a gammon", 3: "a backgammon" };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", headers: { "Content-Type": "application/json" }, ...options });
  let body = null;
  try { body = await response.json(); } catch (error) { body = null; }
  if (!response.ok) {
    const detail = body && body.detail;
    const error = new Error(typeof detail === "string" ? detail : detail ? JSON.stringify(detail) : `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

function announce(text) {
  const log = $("#log");
  log.append(el("p", { text }));
  while (log.children.length > 400) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function cap(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

// -- pages ---------------------------------------------------------------------------------------
async function route() {
  stopGame();
  const hash = location.hash || "#/";
  const main = $("#main");
  main.replaceChildren();
  await whoAmI();
  const [, page, arg] = hash.split("/");
  try {
    if (page === "login" || page === "register") return loginPage(page);
    if (page === "top") return topPage();
    if (page === "user" && arg) return userPage(decodeURIComponent(arg));
    if (page === "replay" && arg) return replayPage(Number(arg));
    if (page === "match" && arg) return gamePage(Number(arg));
    if (!app.me) return loginPage("login");
    return lobbyPage();
  } catch (error) {
    main.append(el("h1", { text: "Something went wrong" }), el("p", { class: "error", role: "alert", text: error.message }));
  }
}

async function whoAmI() {
  try { app.me = await api("/api/users/me"); } catch (error) { app.me = null; }
  const item = $("#nav-me");
  item.replaceChildren(app.me
    ? el("a", { href: `#/user/${encodeURIComponent(app.me.name)}`, text: `${app.me.name} (${Math.round(app.me.rating)})` })
    : el("a", { href: "#/login", text: "Log in" }));
  if (app.me) {
    item.append(" ", el("button", { type: "button", onclick: logOut, text: "Log out" }));
  }
}

async function logOut() {
  await api("/api/sessions", { method: "DELETE" }).catch(() => null);
  location.hash = "#/login";
  route();
}

function title(text) {
  document.title = `${text} · gammon`;
  const heading = el("h1", { text });
  $("#main").append(heading);
  return heading;
}

function loginPage(mode) {
  title(mode === "register" ? "Register" : "Log in");
  const error = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "stack" },
    el("label", { for: "name", text: "Name" }), el("input", { id: "name", name: "name", autocomplete: "username", required: true }),
    el("label", { for: "password", text: "Password (8 characters or more)" }),
    el("input", { id: "password", name: "password", type: "password", autocomplete: mode === "register" ? "new-password" : "current-password", required: true }),
    el("p", {}, el("button", { type: "submit", text: mode === "register" ? "Register" : "Log in" })), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = JSON.stringify({ name: $("#name").value, password: $("#password").value });
    try {
      if (mode === "register") await api("/api/users", { method: "POST", body });
      await api("/api/sessions", { method: "POST", body });
      location.hash = "#/lobby";
    } catch (failure) { error.textContent = failure.message; }
  });
  $("#main").append(form, el("p", {}, mode === "register"
    ? el("a", { href: "#/login", text: "I have an account: log in" })
    : el("a", { href: "#/register", text: "New here? Register" })));
  $("#name").focus();
}

async function lobbyPage() {
  title("Lobby");
  const main = $("#main");
  const error = el("p", { class: "error", role: "alert" });
  const lengths = [el("option", { value: "0", text: "Money game" })];
  for (let n = 1; n <= 25; n++) lengths.push(el("option", { value: String(n), selected: n === 5, text: `${n}-point match` }));
  const form = el("form", { class: "stack", "aria-labelledby": "challenge-heading" },
    el("h2", { id: "challenge-heading", text: "Challenge" }),
    el("label", { for: "opponent", text: "Opponent: a player's name or a bot" }),
    el("input", { id: "opponent", list: "bots", value: "bot:nn:0:intermediate", required: true }),
    el("datalist", { id: "bots" }, BOT_LEVELS.map((name) => el("option", { value: name }))),
    el("label", { for: "length", text: "Length" }), el("select", { id: "length" }, lengths),
    el("fieldset", {}, el("legend", { text: "Options" }),
      ...[["hints", "Hints", true], ["cube_hints", "Cube hints", true], ["verbose", "Verbose commentary", false]]
        .map(([key, label, on]) => el("label", {}, el("input", { type: "checkbox", id: `opt-${key}`, checked: on }), ` ${label}`))),
    el("p", {}, el("button", { type: "submit", text: "Challenge" })), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const options = {};
    for (const key of ["hints", "cube_hints", "verbose"]) options[key] = $(`#opt-${key}`).checked;
    try {
      // the server commits to its dice seed before this page chooses its own: neither can pick the dice
      const { token } = await api("/api/commitments", { method: "POST" });
      const match = await api("/api/matches", { method: "POST", body: JSON.stringify({ opponent: $("#opponent").value.trim(), length: Number($("#length").value), options, seed: ownSeed(), commitment: token }) });
      location.hash = `#/match/${match.id}`;
    } catch (failure) { error.textContent = failure.message; }
  });
  const lists = el("section", { "aria-labelledby": "mine-heading" });
  main.append(el("div", { class: "columns" }, form, lists));
  await lobbyLists(lists);
  clearInterval(app.lobbyTimer);
  app.lobbyTimer = setInterval(() => {  // invitations and matches as they come
    if (!document.body.contains(lists)) { clearInterval(app.lobbyTimer); return; }
    if (!lists.contains(document.activeElement)) lobbyLists(lists).catch(() => null);
  }, 3000);
}

async function lobbyLists(section) {
  const mine = await api(`/api/matches?user=${encodeURIComponent(app.me.name)}&limit=30`);
  const running = await api("/api/matches?status=playing&limit=20");
  const list = (matches, empty, extra) => matches.length ? el("ul", {}, matches.map((m) => el("li", {},
    el("a", { href: m.status === "finished" ? `#/replay/${m.id}` : `#/match/${m.id}`, text: describeSummary(m) }), extra ? extra(m) : null)))
    : el("p", { text: empty });
  const invitations = mine.filter((m) => m.status === "invited");
  const answer = (m) => m.players.black === app.me.name ? [" ",
    el("button", { type: "button", text: `Accept match ${m.id}`, onclick: async () => { await api(`/api/matches/${m.id}/accept`, { method: "POST", body: JSON.stringify({ seed: ownSeed() }) }); location.hash = `#/match/${m.id}`; } }),
    el("button", { type: "button", text: `Decline match ${m.id}`, onclick: async () => { await api(`/api/matches/${m.id}/decline`, { method: "POST" }); route(); } })] : null;
  section.replaceChildren(el("h2", { id: "mine-heading", text: "Your matches" }),
    list(mine.filter((m) => m.status !== "invited"), "No matches yet: challenge someone."),
    el("h2", { text: "Invitations" }), list(invitations, "No open invitations.", answer),
    el("h2", { text: "Running now (spectate)" }), list(running, "Nobody is playing."));
}

function describeSummary(m) {
  const length = m.length ? `${m.length}-point match` : "money game";
  const score = `${m.score.white}-${m.score.black}`;
  const where = m.status === "playing" ? (m.to_act ? `${m.to_act} to act` : "playing") : m.status === "finished" ? `won by ${m.winner}` : m.status;
  return `Match ${m.id}: ${m.players.white} against ${m.players.black}, ${length}, ${score}, ${where}`;
}

async function topPage() {
  title("Top lists");
  for (const [period, label] of [["all", "All time"], ["week", "Last 7 days"]]) {
    const rows = await api(`/api/toplist?period=${period}&limit=50`);
    const table = el("table", {}, el("caption", { text: label }),
      el("thead", {}, el("tr", {}, ["Rank", "Player", "Rating", period === "all" ? "Experience" : "Gained"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", {}, el("td", { text: String(r.rank) }),
        el("td", {}, el("a", { href: `#/user/${encodeURIComponent(r.name)}`, text: r.name })),
        el("td", { text: r.rating.toFixed(1) }), el("td", { text: String(period === "all" ? r.experience : r.gained) })))));
    $("#main").append(el("h2", { text: label }), rows.length ? table : el("p", { text: "No rated match finished yet." }));
  }
}

async function userPage(name) {
  const user = await api(`/api/users/${encodeURIComponent(name)}`);
  title(user.name);
  $("#main").append(el("p", { text: `Rating ${user.rating.toFixed(1)}, experience ${user.experience}; won ${user.record.won}, lost ${user.record.lost}.` }),
    el("h2", { text: "Recent matches" }),
    user.recent_matches.length ? el("ul", {}, user.recent_matches.map((m) => el("li", {}, el("a", { href: m.status === "finished" ? `#/replay/${m.id}` : `#/match/${m.id}`, text: describeSummary(m) }))))
      : el("p", { text: "No matches yet." }),
    el("h2", { text: "Rating history" }),
    user.rating_history.length ? el("ul", {}, user.rating_history.map((c) => el("li", { text: `Match ${c.match}: ${c.before.toFixed(1)} to ${c.after.toFixed(1)} (${c.won ? "won" : "lost"})` })))
      : el("p", { text: "No rated matches yet." }));
}

// -- the game --------------------------------------------------------------------------------------
function myColor() {
  if (!app.me || !app.match) return null;
  const players = app.match.players;
  if (players.white.toLowerCase() === app.me.name.toLowerCase()) return "white";
  if (players.black.toLowerCase() === app.me.name.toLowerCase()) return "black";
  return null;
}
function other(color) { return color === "white" ? "black" : "white"; }
function nameOf(color) {
  const mine = myColor();
  if (color === mine) return "you";
  return app.match.players[color];
}
function verb(color, word) { return color === myColor() ? word : `${word}s`; }
function myTurn() { return app.match && app.match.status === "playing" && app.match.to_act === myColor() && myColor() !== null; }

async function gamePage(id) {
  app.matchId = id; app.pending = []; app.selected = null; app.lastSeq = -1; app.told = new Set(); app.stopped = false; app.board = null;
  app.history = [];
  app.match = await api(`/api/matches/${id}?history=all`);
  learn(app.match.history);
  app.view = myColor() || "white";
  if (app.match.status === "finished") { location.hash = `#/replay/${id}`; return; }
  title(`Match ${id}: ${app.match.players.white} (white) against ${app.match.players.black} (black)`);
  const main = $("#main");
  const auto = localStorage.getItem("gammon.autoForced") !== "off";
  main.append(
    el("p", { id: "status", class: "status-line" }),
    el("div", { class: "board-wrap", id: "board-wrap" }, el("div", { id: "board-svg" }),
      el("div", { id: "grid", role: "grid", "aria-label": "Board, from your side: points 13 to 24 on the top row, 12 to 1 on the bottom row", "aria-describedby": "status" })),
    el("p", { id: "turn-line", class: "status-line" }),
    el("div", { class: "controls", role: "group", "aria-label": "Actions" },
      ...[["roll", "Roll (Enter)"], ["double", "Double (Shift+D)"], ["take", "Take (Y)"], ["drop", "Drop (N)"],
        ["undo", "Undo (U)"], ["confirm", "Confirm play (Enter)"], ["hint", "Hint (H)"], ["cubehint", "Cube hint (Shift+H)"]]
        .map(([key, label]) => el("button", { type: "button", id: `do-${key}`, text: label, onclick: () => act(key) })),
      el("label", {}, " Resign ", el("select", { id: "resign-kind", "aria-label": "Resign" },
        el("option", { value: "", text: "..." }), el("option", { value: "1", text: "a single game" }),
        el("option", { value: "2", text: "a gammon" }), el("option", { value: "3", text: "a backgammon" }))),
      el("button", { type: "button", id: "do-resign", text: "Offer resignation", onclick: () => act("resign") }),
      el("label", {}, el("input", { type: "checkbox", id: "auto-forced", checked: auto,
        onchange: (e) => localStorage.setItem("gammon.autoForced", e.target.checked ? "on" : "off") }), " Play forced moves for me")),
    el("form", { id: "typed", class: "controls" },
      el("label", { for: "typed-play", text: "Type a play: " }), el("input", { id: "typed-play", autocomplete: "off", placeholder: "8/5 6/5" }),
      el("button", { type: "submit", text: "Enter it" })),
    el("div", { id: "hints", class: "panel", hidden: true }),
    el("p", {}, el("a", { href: `/api/matches/${id}/record.mat`, text: "Download the match (.mat)" }), " · ",
      el("a", { href: `#/replay/${id}`, text: "Replay" })));
  $("#typed").addEventListener("submit", typedPlay);
  $("#grid").addEventListener("keydown", onKey);
  document.addEventListener("keydown", onPageKey);
  buildGrid();
  for (const event of app.history) app.told.add(event.seq);
  announce(myColor() ? `Match ${id} against ${app.match.players[other(myColor())]}. You play ${myColor()}; your checkers move from 24 down to 1.`
    : `You are watching match ${id}.`);
  await refresh();
  connect();
  focusCell(app.cursor);
}

function stopGame() {
  app.stopped = true;
  document.removeEventListener("keydown", onPageKey);
  if (app.ws) { app.ws.onclose = null; app.ws.close(); app.ws = null; }
}

function connect() {
  if (app.stopped) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${app.matchId}/events?after=${app.lastSeq}`;
  const ws = new WebSocket(url);
  app.ws = ws;
  ws.onmessage = async (message) => {
    const event = JSON.parse(message.data);
    if (event.seq === undefined) return;
    learn([event]);
    if (!app.told.has(event.seq)) {
      app.told.add(event.seq);
      const sentence = describe(event);
      if (sentence) announce(sentence);
    }
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

let refreshTimer = null;
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refresh().catch((error) => announce(`Could not refresh: ${error.message}`)), 60);
}

async function refresh() {
  if (app.stopped) return;
  const match = await api(`/api/matches/${app.matchId}`);
  const turnChanged = !app.match || match.version !== app.match.version;
  app.match = match;
  if (match.status === "invited" || match.status === "declined") {
    $("#turn-line").textContent = match.status === "invited" ? `Waiting for ${match.players.black} to accept the challenge.` : "The challenge was declined.";
    $("#status").textContent = describeSummary(match);
    return;
  }
  if (turnChanged && !(myTurn() && match.dice)) { app.pending = []; app.selected = null; }
  await loadBoard();
  if (myTurn() && match.dice && app.board.forced && $("#auto-forced").checked && !app.busy && match.legal.length === 1) {
    app.busy = true;
    try { await send({ action: "play", play: match.legal[0] }); } finally { app.busy = false; }
  }
}

async function loadBoard(moves = app.pending) {
  const query = new URLSearchParams({ view: app.view });
  if (moves.length && myTurn()) query.set("moves", moves.join(","));
  const board = await api(`/api/matches/${app.matchId}/board?${query}`);
  app.board = board;
  app.pending = board.moves;
  drawBoard();
  return board;
}

function drawBoard() {
  const match = app.match, board = app.board;
  $("#board-svg").innerHTML = board.svg.replace(/ id="/g, ' id="svg-').replace(/aria-labelledby="title desc"/, 'aria-labelledby="svg-title svg-desc"');
  const { width, height, points } = board.boxes;
  for (const cell of board.cells) {
    const node = $(`#cell-${cell.point}`);
    const [x, y, w, h] = points[cell.point];
    Object.assign(node.style, { left: `${(100 * x) / width}%`, top: `${(100 * y) / height}%`, width: `${(100 * w) / width}%`, height: `${(100 * h) / height}%` });
    node.setAttribute("aria-label", pointLabel(cell));
    node.setAttribute("aria-selected", app.selected === cell.point ? "true" : "false");
    node.classList.toggle("target", app.selected !== null && targets().includes(cell.point));
  }
  const mine = myColor();
  const you = mine || "white", them = other(you);
  const score = match.length ? `Score ${nameOf(you)} ${match.score[you]}, ${nameOf(them)} ${match.score[them]} in a ${match.length}-point match${match.crawford ? " (Crawford game)" : ""}.` : "Money game.";
  const cube = match.length === 1 ? "" : ` Cube ${match.cube.value}${match.cube.owner ? `, ${nameOf(match.cube.owner) === "you" ? "yours" : `${nameOf(match.cube.owner)}'s`}` : ", in the middle"}.`;
  const pips = ` Pips: ${nameOf(you)} ${board.pips[you]}, ${nameOf(them)} ${board.pips[them]}.`;
  $("#status").textContent = score + cube + pips;
  $("#turn-line").textContent = turnText();
  const actions = match.actions || [];
  const can = (name) => myTurn() && actions.includes(name);
  $("#do-roll").disabled = !can("roll");
  $("#do-double").disabled = !can("double");
  $("#do-take").disabled = !(can("take") || can("accept"));
  $("#do-drop").disabled = !(can("drop") || can("reject"));
  $("#do-undo").disabled = !(myTurn() && app.pending.length);
  $("#do-confirm").disabled = !(myTurn() && board.complete);
  $("#do-hint").disabled = !(myTurn() && match.dice && match.options.hints);
  $("#do-cubehint").disabled = !(myTurn() && !match.dice && match.options.cube_hints && match.length !== 1);
  $("#do-resign").disabled = !can("resign");
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused.disabled) focusCell(app.cursor);  // focus is never lost
}

function turnText() {
  const match = app.match;
  if (match.status === "finished") return `The match is over: ${match.winner} won.`;
  if (!match.to_act) return "Waiting for the next game.";
  const who = match.to_act;
  if (!myTurn()) {
    const name = match.players[who];
    return name.startsWith("bot:") ? `${name} is thinking…` : `${cap(nameOf(who))} to act.`;
  }
  if (match.cube.offered) return `You are doubled to ${match.cube.value * 2}: Y takes, N drops.`;
  if (match.resignation) return `${cap(nameOf(match.resignation.by))} offers to resign ${KIND_WORDS[match.resignation.value]}: Y accepts, N rejects.`;
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
    const whose = cell.color === mine ? (myColor() ? "yours" : cell.color) : (myColor() ? `${app.match.players[cell.color]}'s` : cell.color);
    text += `${cell.count} ${cell.color} checker${cell.count === 1 ? "" : "s"}, ${whose}`;
    if (cell.count === 1 && cell.color !== mine) text += ", a blot";
  }
  if (app.selected === cell.point) text += ", picked up";
  return text;
}

function buildGrid() {
  const grid = $("#grid");
  grid.replaceChildren(...GRID.map((row, index) => el("div", { role: "row", "aria-label": index === 0 ? "Top row, points 13 to 24" : "Bottom row, points 12 to 1" },
    row.map((point) => {
      const cell = el("div", { role: "gridcell", id: `cell-${point}`, class: "grid-cell", tabindex: point === app.cursor ? "0" : "-1" });
      cell.addEventListener("click", () => { focusCell(point); enter(); });
      cell.addEventListener("pointerdown", () => { app.dragFrom = point; });
      cell.addEventListener("pointerup", () => {
        if (app.dragFrom !== undefined && app.dragFrom !== point && app.selected === null && sources().includes(app.dragFrom)) {
          app.selected = app.dragFrom; focusCell(point); enter();
        }
        app.dragFrom = undefined;
      });
      return cell;
    }))));
}

function focusCell(point) {
  app.cursor = point;
  for (const node of document.querySelectorAll(".grid-cell")) node.setAttribute("tabindex", "-1");
  const node = $(`#cell-${point}`);
  if (node) { node.setAttribute("tabindex", "0"); node.focus(); }
}

function sources() { return app.board ? Object.keys(app.board.next).map(Number).filter((p) => p !== 25) : []; }
function targets() {
  if (!app.board || app.selected === null) return [];
  return (app.board.next[String(app.selected)] || []).map((t) => (t === 0 ? app.selected : t));
}

function onPageKey(event) {
  if (event.target.closest && event.target.closest("input, select, textarea, #grid")) return;
  if (["Enter", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key) && event.target.closest && event.target.closest("button, a")) return;
  onKey(event);
}

function onKey(event) {
  const key = event.key, arrows = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"];
  let handled = true;
  if (event.ctrlKey && key === "Backspace") deselect();
  else if (event.ctrlKey && arrows.includes(key)) cycle(key === "ArrowRight" || key === "ArrowDown" ? 1 : -1);
  else if (event.altKey && arrows.includes(key)) edge(key);
  else if (key === "Home") edge("ArrowLeft");
  else if (key === "End") edge("ArrowRight");
  else if (arrows.includes(key)) step(key);
  else if (key === "Enter") enter();
  else if (event.ctrlKey || event.altKey || event.metaKey) handled = false;
  else if (key === "D") act("double");
  else if (key === "H") act("cubehint");
  else {
    const action = { y: "take", n: "drop", u: "undo", h: "hint", e: "status", d: "cube", p: "pips", s: "score", c: "dice", t: "turn" }[key.toLowerCase()];
    if (action) act(action); else handled = false;
  }
  if (handled) event.preventDefault();
}

function step(key) {
  let row = app.cursor >= 13 ? 0 : 1;
  let column = GRID[row].indexOf(app.cursor);
  if (key === "ArrowLeft") column = Math.max(0, column - 1);
  if (key === "ArrowRight") column = Math.min(11, column + 1);
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  focusCell(GRID[row][column]);
}

function edge(key) {
  let row = app.cursor >= 13 ? 0 : 1;
  let column = GRID[row].indexOf(app.cursor);
  if (key === "ArrowLeft") column = 0;
  if (key === "ArrowRight") column = 11;
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  focusCell(GRID[row][column]);
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
  focusCell(next);
}

function deselect() {
  if (app.selected === null) return announce("Nothing is picked up.");
  app.selected = null;
  announce("Put back.");
  drawBoard();
}

async function enter() {
  const match = app.match;
  if (!myTurn()) return announce(match.status === "playing" ? "It is not your turn." : "The match is not being played.");
  if (match.cube.offered || match.resignation) return announce("Answer first: Y or N.");
  if (!match.dice) return act("roll");
  if (app.board.complete) return act("confirm");
  if (app.selected === null) {
    if (app.board.next["25"]) return addMove(`bar/${app.cursor}`);
    if (sources().includes(app.cursor)) {
      app.selected = app.cursor;
      announce(`Picked up a checker from ${app.cursor}.`);
      drawBoard();
      return;
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
  // standard notation to single checker moves: 13/8/5, 8/5(2) and 6/off* become steps
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
    app.match = await api(`/api/matches/${app.matchId}/actions`, { method: "POST", body: JSON.stringify({ ...body, version: app.match.version }) });
    learn(app.match.events);
    app.pending = []; app.selected = null;
    await loadBoard([]);
  } catch (error) {
    announce(`Not possible: ${error.message}`);
    if (error.status === 409) await refresh();
  } finally {
    app.sending = false;
  }
}

async function act(name) {
  const match = app.match;
  if (!match) return;
  const mine = myColor();
  const you = mine || "white", them = other(you);
  switch (name) {
    case "status": return announce(`Bar: ${nameOf(you)} ${app.board.bar[you]}, ${nameOf(them)} ${app.board.bar[them]}. Borne off: ${nameOf(you)} ${app.board.off[you]}, ${nameOf(them)} ${app.board.off[them]}.`);
    case "cube": return announce(match.length === 1 ? "No doubling cube in a 1-point match." : `The cube is at ${match.cube.value}, ${match.cube.owner ? (match.cube.owner === mine ? "yours" : `${nameOf(match.cube.owner)}'s`) : "in the middle"}.${match.cube.offered ? " A double is offered." : ""}${match.crawford ? " Crawford game: no doubling." : ""}`);
    case "pips": return announce(`Pips: ${nameOf(you)} ${app.board.pips[you]}, ${nameOf(them)} ${app.board.pips[them]}.`);
    case "score": return announce(match.length ? `Score: ${nameOf(you)} ${match.score[you]}, ${nameOf(them)} ${match.score[them]}, in a ${match.length}-point match.` : "Money game.");
    case "dice": return announce(match.dice ? `${cap(nameOf(match.to_act))} rolled ${match.dice[0]}-${match.dice[1]}` + (myTurn() ? `; to play ${app.board.remaining.join(" ") || "nothing"}.` : ".") : "The dice have not been rolled.");
    case "turn": return announce(match.to_act ? (myTurn() ? "Your turn." : `${cap(nameOf(match.to_act))}'s turn.`) : "No one is to act.");
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
      const value = Number($("#resign-kind").value || 0);
      if (!value) return announce("Choose what to resign first.");
      if (!window.confirm(`Resign ${KIND_WORDS[value]}?`)) return announce("You play on.");
      return send({ action: "resign", value });
    }
    default: return null;
  }
}

async function hint(kind) {
  const panel = $("#hints");
  announce("Thinking…");
  try {
    const answer = await api(`/api/matches/${app.matchId}/${kind}`);
    panel.hidden = false;
    if (kind === "hint") {
      panel.replaceChildren(el("h2", { text: "Hint" }), el("ol", {}, answer.plays.slice(0, 8).map((p) =>
        el("li", { text: `${p.play}: equity ${p.equity.toFixed(3)}${p.rank > 1 ? ` (${(-p.loss).toFixed(3)})` : ""}, ply ${p.ply}` }))));
      announce(answer.plays.length ? `Hint: ${answer.plays[0].play}, equity ${answer.plays[0].equity.toFixed(3)}.` : "No play to hint.");
    } else {
      panel.replaceChildren(el("h2", { text: "Cube hint" }), el("p", { text: `${answer.action}. No double ${answer.no_double.toFixed(3)}, double/take ${answer.double_take.toFixed(3)}, double/pass ${answer.double_pass.toFixed(3)}.` }));
      announce(`Cube hint: ${answer.action}.`);
    }
  } catch (error) { announce(`Not possible: ${error.message}`); }
}

// -- one sentence an event, in the reader's terms and numbering -----------------------------------
function ownSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function learn(events) {
  for (const event of events || []) {
    if (app.history.some((known) => known.seq === event.seq)) continue;
    app.history.push(event);
    app.lastSeq = Math.max(app.lastSeq, event.seq);
  }
  app.history.sort((a, b) => a.seq - b.seq);
}

function describe(event) {
  // The server tells every event for whoever asks (you, in your numbering): the page says what it says.
  const c = event.color;
  const prompt = c && myColor() && c !== myColor();
  if (event.kind === "double") return event.description + (prompt ? " Y takes, N drops." : "");
  if (event.kind === "resign") return event.description + (prompt ? " Y accepts, N rejects." : "");
  return event.description;
}

// -- replay of a finished match ------------------------------------------------------------------
async function replayPage(id) {
  const match = await api(`/api/matches/${id}?history=all`);
  app.match = match; app.matchId = id;
  title(`Replay of match ${id}: ${match.players.white} against ${match.players.black}`);
  const events = match.history;
  const proof = match.dice_proof;
  const main = $("#main");
  main.append(el("p", { id: "status", class: "status-line", text: describeSummary({ ...match, to_act: null }) }),
    el("div", { class: "board-wrap" }, el("div", { id: "board-svg" })),
    el("p", { id: "replay-line", class: "status-line", "aria-live": "polite" }),
    el("div", { class: "controls", role: "group", "aria-label": "Replay" },
      el("button", { type: "button", id: "replay-first", text: "First", onclick: () => show(0) }),
      el("button", { type: "button", id: "replay-prev", text: "Previous", onclick: () => show(app.replayAt - 1) }),
      el("button", { type: "button", id: "replay-next", text: "Next", onclick: () => show(app.replayAt + 1) }),
      el("button", { type: "button", id: "replay-last", text: "Last", onclick: () => show(events.length - 1) })),
    el("section", { class: "panel", "aria-labelledby": "proof-heading" }, el("h2", { id: "proof-heading", text: "Dice proof" }),
      el("p", { text: `Commitment (SHA-256 of the seed): ${proof.commitment}` }),
      el("p", { text: proof.seed ? `Seed: ${proof.seed}. Check every roll with: gammon verify-dice --url ${location.origin}/api/matches/${id}` : "The seed is shown when the match is over." })),
    el("p", {}, el("a", { href: `/api/matches/${id}/record.mat`, text: "Download the match (.mat)" })),
    el("h2", { text: "Every event" }), el("ol", {}, events.map((e) => el("li", { text: e.description }))));
  async function show(index) {
    if (!events.length) return;
    app.replayAt = Math.max(0, Math.min(events.length - 1, index));
    const event = events[app.replayAt];
    const board = await api(`/api/matches/${id}/board?view=white&upto=${event.seq}`);
    $("#board-svg").innerHTML = board.svg.replace(/ id="/g, ' id="svg-').replace(/aria-labelledby="title desc"/, 'aria-labelledby="svg-title svg-desc"');
    $("#replay-line").textContent = `Event ${app.replayAt + 1} of ${events.length}: ${event.description}`;
  }
  await show(events.length - 1);
}

window.addEventListener("hashchange", route);
window.gammon = app;
route();
