// The top lists: people all time and over the last seven days, and the bots in a list of their own.

import { api } from "../api.js";
import { $, el } from "../dom.js";
import { title } from "../page.js";

const LISTS = [
  ["all", "people", "All time", "Experience"],
  ["week", "people", "Last 7 days", "Gained"],
  ["all", "bots", "Bots", "Experience"],
];

export async function topPage() {
  title("Top players");
  const wrap = el("div", { class: "columns" });
  $("#main").append(wrap);
  const bots = await api("/api/bots").catch(() => []);
  const titles = new Map(bots.map((bot) => [bot.name, bot.title]));
  for (const [period, kind, label, last] of LISTS) {
    const rows = await api(`/api/toplist?period=${period}&kind=${kind}&limit=50`);
    const id = `top-${kind}-${period}`;
    const table = el("table", { "aria-labelledby": id },
      el("thead", {}, el("tr", {}, ["Rank", kind === "bots" ? "Bot" : "Player", "Rating", last].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", {}, el("td", { class: "num", text: String(r.rank) }),
        el("td", {}, el("a", { href: `#/user/${encodeURIComponent(r.name)}`, text: titles.get(r.name) || r.name })),
        el("td", { class: "num", text: r.rating.toFixed(1) }),
        el("td", { class: "num", text: String(period === "all" ? r.experience : r.gained) })))));
    const empty = kind === "bots" ? "No bot has played a rated match yet." : "No rated match finished yet.";
    wrap.append(el("section", { class: "card" }, el("h2", { id, text: label }), rows.length ? table : el("p", { text: empty })));
  }
  return null;
}
