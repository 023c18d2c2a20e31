// The header: who is logged in, with their rating, and the sounds switch.

import { api } from "./api.js";
import { $, el } from "./dom.js";
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

