// A player's page: rating, record, recent matches, rating history.

import { api } from "../api.js";
import { $, el } from "../dom.js";
import { describeSummary, title } from "../page.js";
import { app } from "../state.js";

export async function profilePage(name) {
  const user = await api(`/api/users/${encodeURIComponent(name)}`);
  title(user.name);
  const me = app.me && app.me.name;
  $("#main").append(
    el("p", { class: "lead", text: `Rating ${user.rating.toFixed(1)}${user.provisional ? " (provisional)" : ""} · ${user.experience} ${user.experience === 1 ? "match" : "matches"} · won ${user.record.won}, lost ${user.record.lost}` }),
    el("div", { class: "columns" },
      el("section", { class: "card", "aria-labelledby": "recent-heading" }, el("h2", { id: "recent-heading", text: "Recent matches" }),
        user.recent_matches.length ? el("ul", { class: "plain" }, user.recent_matches.map((m) => el("li", {},
          el("a", { href: m.status === "finished" ? `#/replay/${m.id}` : `#/match/${m.id}`, text: describeSummary(m, me) }))))
          : el("p", { text: "No matches yet." })),
      el("section", { class: "card", "aria-labelledby": "history-heading" }, el("h2", { id: "history-heading", text: "Rating history" }),
        user.rating_history.length ? el("ul", { class: "plain" }, user.rating_history.map((c) => el("li", {},
          el("a", { href: `#/replay/${c.match}`, text: `${c.won ? "Won" : "Lost"}: ${c.before.toFixed(1)} → ${c.after.toFixed(1)}` }))))
          : el("p", { text: "No rated matches yet." }))));
  return null;
}
