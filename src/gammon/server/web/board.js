// The board as the page draws it: an SVG made from the server's position (GET .../board:
// cells in the viewer's numbering, bar, borne off), dice, cube and marks. It knows where
// things are drawn, never what is legal. Checkers that changed place slide from where they
// were (unless the reader asked for reduced motion).

import { svg, reducedMotion } from "./dom.js";

export const WIDTH = 960;
export const HEIGHT = 800;
const FRAME = 28, PW = 64, BAR_X = 412, BAR_W = 56, TRAY_X = 866, TRAY_W = 64, PH = 312, R = 29;
const TOP = FRAME, BOTTOM = HEIGHT - FRAME, MID = HEIGHT / 2;
const COLORS = {
  frame: "#5b3a21", frameEdge: "#3e2714", felt: "#ead9b5", feltShade: "#e0cca3", dark: "#2f5a4a", light: "#b4533a",
  tray: "#4a2f1a", number: "#f6e8cc", white: "#fbf6ea", whiteRim: "#8f7d5f", black: "#2a2421", blackRim: "#8a7560",
  mark: "#1456b8", last: "#f2b51d",
};

/** Where point ``p`` (the viewer's numbering) is drawn: its left edge and whether it hangs from the top. */
export function pointBox(p) {
  const top = p >= 13;
  const index = top ? p - 13 : 12 - p;  // 0..11, left to right
  const x = index < 6 ? FRAME + index * PW : BAR_X + BAR_W + (index - 6) * PW;
  return { x, y: top ? TOP : BOTTOM - PH, w: PW, h: PH, top };
}

function stackStep(count) { return count <= 5 ? 2 * R : (PH - 2 * R) / (count - 1); }

/** The centre of the ``k``-th checker (from the edge) of a stack of ``count`` on point ``p``. */
function pointChecker(p, k, count) {
  const box = pointBox(p);
  const step = stackStep(count);
  return { x: box.x + PW / 2, y: box.top ? TOP + R + k * step : BOTTOM - R - k * step };
}

function barChecker(mine, k) {
  const y = mine ? MID + 48 + R + k * 30 : MID - 48 - R - k * 30;
  return { x: BAR_X + BAR_W / 2, y };
}

function offSlab(mine, k) {
  const h = 18, gap = 2.4;
  return { x: TRAY_X + 6, y: mine ? BOTTOM - 6 - (k + 1) * (h + gap) + gap : TOP + 6 + k * (h + gap), w: TRAY_W - 12, h };
}

function checker(color, x, y, extra = {}) {
  const fill = COLORS[color], rim = COLORS[`${color}Rim`];
  return svg("g", { class: `checker ${color}`, ...extra },
    svg("circle", { cx: x, cy: y, r: R - 1, fill, stroke: rim, "stroke-width": 2.5 }),
    svg("circle", { cx: x, cy: y, r: R - 9, fill: "none", stroke: rim, "stroke-width": 1.5, opacity: 0.7 }));
}

const PIPS = { 1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]], 6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]] };

function die(value, x, y, size, color, used) {
  const face = color === "black" ? "#2a2421" : "#fffaf0", pip = color === "black" ? "#fbf6ea" : "#2a2421";
  const group = svg("g", { class: `die${used ? " used" : ""}`, opacity: used ? 0.35 : 1 },
    svg("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: size * 0.18, fill: face,
      stroke: "#1b1510", "stroke-width": 2 }));
  for (const [dx, dy] of PIPS[value] || []) {
    group.append(svg("circle", { cx: x + dx * size * 0.26, cy: y + dy * size * 0.26, r: size * 0.09, fill: pip }));
  }
  return group;
}

/**
 * Draw ``model`` into ``host`` (replacing what was there), animating checkers that moved
 * since the last drawing in the same host. ``model``: {view, cells, bar, off, dice, diceColor,
 * used, cube: {value, owner, shown}, selected, targets, lastFrom, lastTo, pendingTo, label}.
 */
export function drawBoard(host, model) {
  const mineColor = model.view, theirColor = mineColor === "white" ? "black" : "white";
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "board", role: model.label ? "img" : null,
    "aria-label": model.label || null, "aria-hidden": model.label ? null : "true", focusable: "false" });
  // frame, felt, bar and tray
  root.append(svg("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, rx: 18, fill: COLORS.frame }),
    svg("rect", { x: FRAME - 4, y: TOP - 4, width: BAR_X + BAR_W + 6 * PW - FRAME + 8, height: PH * 2 + 120 + 8, rx: 6, fill: COLORS.frameEdge }),
    svg("rect", { x: FRAME, y: TOP, width: 6 * PW, height: BOTTOM - TOP, fill: COLORS.felt }),
    svg("rect", { x: BAR_X + BAR_W, y: TOP, width: 6 * PW, height: BOTTOM - TOP, fill: COLORS.felt }),
    svg("rect", { x: BAR_X, y: TOP - 4, width: BAR_W, height: BOTTOM - TOP + 8, fill: COLORS.frame, stroke: COLORS.frameEdge, "stroke-width": 3 }),
    svg("rect", { x: TRAY_X, y: TOP, width: TRAY_W, height: PH, rx: 4, fill: COLORS.tray }),
    svg("rect", { x: TRAY_X, y: BOTTOM - PH, width: TRAY_W, height: PH, rx: 4, fill: COLORS.tray }));
  const lastFrom = new Set(model.lastFrom || []), lastTo = new Set(model.lastTo || []);
  for (let p = 1; p <= 24; p++) {
    const { x, top } = pointBox(p);
    const index = top ? p - 13 : 12 - p;
    const dark = (index % 2 === 0) === top;
    const tipY = top ? TOP + PH : BOTTOM - PH, baseY = top ? TOP : BOTTOM;
    const shape = `M${x + 1},${baseY} L${x + PW - 1},${baseY} L${x + PW / 2},${tipY} Z`;
    root.append(svg("path", { d: shape, fill: dark ? COLORS.dark : COLORS.light }));
    // the last play: where it went from (dashed) and to (solid), no arrows across the board
    if (lastTo.has(p)) root.append(svg("path", { d: shape, fill: COLORS.last, "fill-opacity": 0.22, stroke: COLORS.last, "stroke-width": 5, "stroke-linejoin": "round", class: "last-to" }));
    if (lastFrom.has(p)) root.append(svg("path", { d: shape, fill: "none", stroke: COLORS.last, "stroke-width": 4, "stroke-dasharray": "10 7", "stroke-linejoin": "round", class: "last-from" }));
    root.append(svg("text", { x: x + PW / 2, y: top ? TOP - 7 : BOTTOM + 21, "text-anchor": "middle", class: "point-number",
      fill: COLORS.number, "font-size": 19, "font-weight": 700, text: String(p) }));
  }
  // checkers: where each one is, by colour and place, so that a later drawing can slide it
  const places = new Map();
  const layer = svg("g", { class: "checkers" });
  const put = (color, where, k, x, y) => {
    const node = checker(color, x, y);
    layer.append(node);
    places.set(`${color}:${where}:${k}`, { x, y, node });
  };
  for (const cell of model.cells) {
    for (let k = 0; k < cell.count; k++) {
      const { x, y } = pointChecker(cell.point, k, cell.count);
      put(cell.color, `p${cell.point}`, k, x, y);
    }
  }
  for (const color of [mineColor, theirColor]) {
    for (let k = 0; k < (model.bar[color] || 0); k++) {
      const { x, y } = barChecker(color === mineColor, k);
      put(color, "bar", k, x, y);
    }
    for (let k = 0; k < (model.off[color] || 0); k++) {
      const s = offSlab(color === mineColor, k);
      const node = svg("rect", { x: s.x, y: s.y, width: s.w, height: s.h, rx: 4, fill: COLORS[color], stroke: COLORS[`${color}Rim`], "stroke-width": 2, class: `slab ${color}` });
      layer.append(node);
      places.set(`${color}:off:${k}`, { x: s.x + s.w / 2, y: s.y + s.h / 2, node });
    }
  }
  root.append(layer);
  // marks: the picked-up checker, where it may go, the moves entered and not yet sent
  const counts = new Map(model.cells.map((c) => [c.point, c]));
  const topOf = (p) => {
    const cell = counts.get(p);
    const n = cell && cell.count ? cell.count : 1;
    return pointChecker(p, n - 1, n);
  };
  if (model.selected) {
    const { x, y } = topOf(model.selected);
    root.append(svg("circle", { cx: x, cy: y, r: R + 5, fill: "none", stroke: "#ffffff", "stroke-width": 9, class: "selected-mark" }),
      svg("circle", { cx: x, cy: y, r: R + 5, fill: "none", stroke: COLORS.mark, "stroke-width": 5 }));
  }
  for (const p of model.targets || []) {
    if (p === model.selected) {  // the same point again bears the checker off
      root.append(svg("rect", { x: TRAY_X + 2, y: BOTTOM - PH + 2, width: TRAY_W - 4, height: PH - 4, rx: 6, fill: "rgba(20,86,184,.25)",
        stroke: COLORS.mark, "stroke-width": 4, "stroke-dasharray": "8 6", class: "target-mark" }));
      continue;
    }
    const cell = counts.get(p);
    const mine = cell && cell.color === mineColor ? cell.count : 0;
    const { x, y } = pointChecker(p, mine, Math.max(mine + 1, 1));
    root.append(svg("circle", { cx: x, cy: y, r: R - 3, fill: "rgba(20,86,184,.28)", stroke: COLORS.mark, "stroke-width": 4,
      "stroke-dasharray": "7 5", class: "target-mark" }));
  }
  for (const p of model.pendingTo || []) {
    if (!counts.get(p) || !counts.get(p).count) continue;
    const { x, y } = topOf(p);
    root.append(svg("circle", { cx: x, cy: y, r: R - 14, fill: COLORS.mark, opacity: 0.85, class: "pending-mark" }));
  }
  // cube: in the middle of the bar, or in the tray beside its owner
  if (model.cube && model.cube.shown) {
    const size = 50;
    const owner = model.cube.owner;
    const cx = owner ? TRAY_X + TRAY_W / 2 : BAR_X + BAR_W / 2;
    const cy = owner ? (owner === mineColor ? MID + 40 : MID - 40) : MID;
    root.append(svg("g", { class: "cube" },
      svg("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 7, fill: "#fffaf0", stroke: "#1b1510", "stroke-width": 2.5 }),
      svg("text", { x: cx, y: cy + 9, "text-anchor": "middle", "font-size": 26, "font-weight": 700, fill: "#1b1510",
        text: String(owner || model.cube.value > 1 ? model.cube.value : 64) })));
  }
  // dice: on the roller's half of the board, used ones faded
  if (model.dice && model.dice.length) {
    const many = model.dice.length === 4;
    const size = many ? 46 : 56, gap = 12;
    const centre = model.diceColor === mineColor ? BAR_X + BAR_W + 3 * PW : FRAME + 3 * PW;
    const total = model.dice.length * size + (model.dice.length - 1) * gap;
    model.dice.forEach((value, i) => {
      root.append(die(value, centre - total / 2 + size / 2 + i * (size + gap), MID, size, model.diceColor, model.used && model.used[i]));
    });
  }
  const before = host.__places;
  host.replaceChildren(root);
  host.__places = places;
  if (before && !reducedMotion()) slide(before, places, model);
}

function slide(before, after, model) {
  // For each colour: the places that lost checkers give them to the places that gained some.
  for (const color of ["white", "black"]) {
    const lost = [], gained = [];
    const count = (map, where) => { let n = 0; while (map.has(`${color}:${where}:${n}`)) n++; return n; };
    const wheres = ["bar", "off", ...Array.from({ length: 24 }, (_, i) => `p${i + 1}`)];
    for (const where of wheres) {
      const was = count(before, where), now = count(after, where);
      for (let k = now; k < was; k++) lost.push(before.get(`${color}:${where}:${k}`));
      for (let k = was; k < now; k++) gained.push(after.get(`${color}:${where}:${k}`));
    }
    if (!lost.length || !gained.length || lost.length > 4) continue;  // a new game is set up, not slid
    gained.forEach((to, i) => {
      const from = lost[Math.min(i, lost.length - 1)];
      to.node.animate([{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px)` }, { transform: "translate(0, 0)" }],
        { duration: 320, delay: i * 140, easing: "cubic-bezier(.3,.7,.3,1)", fill: "backwards" });
    });
  }
}

/** The from and to points of a play written in its mover's numbering, in the viewer's. */
export function playPoints(play, moverIsViewer) {
  const from = [], to = [];
  const flip = (n) => (moverIsViewer ? n : 25 - n);
  for (const word of String(play || "").replace(/\*/g, "").split(/\s+/).filter(Boolean)) {
    const parts = word.replace(/\(\d\)$/, "").split("/");
    const first = parts[0], last = parts[parts.length - 1];
    if (/^\d+$/.test(first)) from.push(flip(Number(first)));
    if (/^\d+$/.test(last)) to.push(flip(Number(last)));
  }
  return { from, to };
}
