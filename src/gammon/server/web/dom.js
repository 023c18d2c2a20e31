// Small helpers to build the pages' elements: no framework, no build step.

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** An element: attributes (`text` sets its text, `on...` adds a listener), then its children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with its attributes. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

/** A button whose visible hint names its key (the key is also told by aria-keyshortcuts). */
export function keyButton(id, label, key, onclick, extra = {}) {
  return el("button", { type: "button", id, "aria-keyshortcuts": key ? key.replace(/ /g, "+") : null, onclick, ...extra },
    el("span", { class: "label", text: label }), key ? el("kbd", { "aria-hidden": "true", text: key }) : null);
}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
