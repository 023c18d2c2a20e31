// The top lists: all time and the last seven days.

import { api } from "../api.js";
import { $, el } from "../dom.js";
import { title } from "../page.js";

export async function topPage() {
  title("Top players");
  const wrap = el("div", { class: "columns" });
  $("#main").append(wrap);
  for (const [period, label] of [["all", "All time"], ["week", "Last 7 days"]]) {
    const rows = await api(`/api/toplist?period=${period}&limit=50`);
    const id = `top-${period}`;
    const table = el("table", { "aria-labelledby": id },
      el("thead", {}, el("tr", {}, ["Rank", "Player", "Rating", period === "all" ? "Matches" : "Gained"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", {}, el("td", { class: "num", text: String(r.rank) }),
        el("td", {}, el("a", { href: `#/user/${encodeURIComponent(r.name)}`, text: r.name })),
        el("td", { class: "num", text: r.rating.toFixed(1) }), el("td", { class: "num", text: String(period === "all" ? r.experience : r.gained) })))));
    wrap.append(el("section", { class: "card" }, el("h2", { id, text: label }), rows.length ? table : el("p", { text: "No rated match finished yet." })));
  }
  return null;
}
