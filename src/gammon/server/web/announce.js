// The live region: one log a match, labelled, hidden on other pages. Sentences come from the
// server's narrator (told to this reader, in their numbering); nothing here says a hash or an id.

import { $ } from "./dom.js";

const HASH = /\b[0-9a-f]{16,}\b/gi;

export function announce(text) {
  const log = $("#log");
  const clean = String(text || "").replace(HASH, "").replace(/\s{2,}/g, " ").trim();
  if (!clean) return;
  const line = document.createElement("p");
  line.textContent = clean;
  log.append(line);
  while (log.children.length > 400) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

/** Show the log inside ``container`` under ``label`` (a match page), emptied. */
export function attachLog(container, label) {
  const section = $("#announcements");
  $("#log").replaceChildren();
  $("#log-heading").textContent = label;
  container.append(section);
  section.hidden = false;
}

/** Leaving a match: its log goes with it. */
export function detachLog() {
  const section = $("#announcements");
  $("#log").replaceChildren();
  section.hidden = true;
  document.body.append(section);
}
