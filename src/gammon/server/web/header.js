// The header: who is logged in, with their rating, and the sounds switch.

import { api } from "./api.js";
import { $, el } from "./dom.js";
import { opponentOf, termsText } from "./page.js";
import { app } from "./state.js";
import { soundsOn, setSounds } from "./sound.js";

/** Who is logged in, shown in the header with their rating (asked again after a match). */
export async function whoAmI() {
  try { app.me = await api("/api/users/me"); } catch { app.me = null; }
  const box = $("#nav-me");
  const sound = el("button", { type: "button", class: "quiet", id: "sound-toggle", "aria-pressed": soundsOn() ? "true" : "false",
    text: "Sounds", onclick: (event) => { setSounds(!soundsOn()); event.currentTarget.setAttribute("aria-pressed", soundsOn() ? "true" : "false"); } });
  if (app.me) {
    box.replaceChildren(sound,
      el("a", { href: `#/user/${encodeURIComponent(app.me.name)}`, class: "me-link" },
        el("span", { class: "me-name", text: app.me.name }), " ", el("span", { class: "rating", id: "my-rating", text: Math.round(app.me.rating) })),
      el("button", { type: "button", class: "quiet", onclick: logOut, text: "Log out" }));
  } else {
    box.replaceChildren(sound, el("a", { href: "#/login", text: "Log in" }), el("a", { href: "#/register", class: "button-link", text: "Register" }));
  }
}

async function logOut() {
  await api("/api/sessions", { method: "DELETE" }).catch(() => null);
  if (location.hash === "#/login") window.dispatchEvent(new HashChangeEvent("hashchange")); else location.hash = "#/login";
}


const seen = new Set();
let watching = false, first = true;

/** Invitations to you, looked for on every page (every 15 s, and when the window comes back):
 * counted beside "Play", and a new one said (the lobby says it itself). */
export function watchInvitations() {
  if (watching) return;
  watching = true;
  const look = async () => {
    if (!app.me || document.visibilityState === "hidden") return;
    let lobby;
    try { lobby = await api("/api/lobby"); } catch { return; }
    const waiting = lobby.invitations.to_me;
    const badge = $("#invite-count");
    badge.replaceChildren(...(waiting.length ? [el("span", { "aria-hidden": "true", text: String(waiting.length) }),
      el("span", { class: "visually-hidden", text: `, ${waiting.length} invitation${waiting.length > 1 ? "s" : ""}` })] : []));
    badge.hidden = !waiting.length;
    const fresh = waiting.filter((m) => !seen.has(m.id));
    for (const m of waiting) seen.add(m.id);
    if (fresh.length && !first && !location.hash.startsWith("#/lobby")) {
      $("#header-news").textContent = fresh.map((m) => `${opponentOf(m, app.me.name)} challenges you to a ${termsText(m)}: see Play.`).join(" ");
    }
    first = false;
  };
  setInterval(look, 15_000);
  window.addEventListener("focus", look);
  window.addEventListener("hashchange", look);
  look();
}
