// Mouse and keyboard on the board: the 24 points as an ARIA grid over the picture, and
// seed 004's keys. What a key does in the game is the match page's (``controller``); here
// only where the cursor goes.

import { $, $$, el } from "./dom.js";
import { pointBox, WIDTH, HEIGHT } from "./board.js";
import { app } from "./state.js";

export const GRID = [[13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24], [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]];
const ARROWS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"];

/** The grid of points laid over the board, in ``grid``; clicks and drags go to ``controller``. */
export function buildGrid(grid, controller) {
  grid.replaceChildren(...GRID.map((row, index) => el("div", { role: "row",
    "aria-label": index === 0 ? "Top row, points 13 to 24" : "Bottom row, points 12 to 1" },
  row.map((point) => {
    const box = pointBox(point);
    const cell = el("div", { role: "gridcell", id: `cell-${point}`, class: "grid-cell", tabindex: point === app.cursor ? "0" : "-1",
      "aria-selected": "false", style: `left:${(100 * box.x) / WIDTH}%;top:${(100 * box.y) / HEIGHT}%;width:${(100 * box.w) / WIDTH}%;height:${(100 * box.h) / HEIGHT}%` });
    cell.addEventListener("click", () => { focusCell(point); controller.enter(); });
    cell.addEventListener("pointerdown", () => { app.dragFrom = point; });
    cell.addEventListener("pointerup", () => {
      if (app.dragFrom !== undefined && app.dragFrom !== point && app.selected === null && controller.sources().includes(app.dragFrom)) {
        app.selected = app.dragFrom;
        focusCell(point);
        controller.enter();
      }
      app.dragFrom = undefined;
    });
    return cell;
  }))));
  grid.addEventListener("keydown", (event) => onKey(event, controller));
}

export function focusCell(point) {
  app.cursor = point;
  for (const node of $$(".grid-cell")) node.setAttribute("tabindex", "-1");
  const node = $(`#cell-${point}`);
  if (node) { node.setAttribute("tabindex", "0"); node.focus(); }
}

/** Keys pressed anywhere on the match page but in a field, button or link go to the board. */
export function pageKeys(controller) {
  return (event) => {
    const target = event.target;
    if (!target.closest) return;
    if (target.closest("input, select, textarea, #grid, details, summary")) return;
    if (["Enter", " ", ...ARROWS, "Home", "End"].includes(event.key) && target.closest("button, a")) return;
    onKey(event, controller);
  };
}

export function onKey(event, controller) {
  const key = event.key;
  let handled = true;
  if (event.ctrlKey && key === "Backspace") controller.deselect();
  else if (event.ctrlKey && ARROWS.includes(key)) controller.cycle(key === "ArrowRight" || key === "ArrowDown" ? 1 : -1);
  else if (event.altKey && ARROWS.includes(key)) edge(key);
  else if (key === "Home") edge("ArrowLeft");
  else if (key === "End") edge("ArrowRight");
  else if (ARROWS.includes(key)) step(key);
  else if (key === "Enter") controller.enter();
  else if (event.ctrlKey || event.altKey || event.metaKey) handled = false;
  else if (key === "D") controller.act("double");
  else if (key === "H") controller.act("cubehint");
  else {
    const action = { y: "take", n: "drop", u: "undo", h: "hint", e: "status", d: "cube", p: "pips", s: "score", c: "dice", t: "turn" }[key.toLowerCase()];
    if (action) controller.act(action); else handled = false;
  }
  if (handled) event.preventDefault();
}

function where() {
  const row = app.cursor >= 13 ? 0 : 1;
  return [row, GRID[row].indexOf(app.cursor)];
}

function step(key) {
  let [row, column] = where();
  if (key === "ArrowLeft") column = Math.max(0, column - 1);
  if (key === "ArrowRight") column = Math.min(11, column + 1);
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  focusCell(GRID[row][column]);
}

function edge(key) {
  let [row, column] = where();
  if (key === "ArrowLeft") column = 0;
  if (key === "ArrowRight") column = 11;
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  focusCell(GRID[row][column]);
}
