// The scoring pad (RULES.md SC1–SC7): a column per player, a row per color's symbols, then
// standing elephants, arches, surplus, missing colors, total and rank.

import { h } from "./ui.js";
import { COLORS, COLOR_LETTER } from "./tiles.js";
import { symbolsByColor } from "./grounds.js";

/**
 * players: [{name, color}], scores: [{total, surplus, missing, standing, arches, symbols,
 * removed_cells, symbols_by_color?}], ranks: [int] or null, grounds: [grounds JSON] (used
 * for the per-color symbol rows when the server did not send them).
 */
export function scoreSheet(players, scores, ranks = null, grounds = null) {
  const byColor = scores.map(
    (sc, i) =>
      sc.symbols_by_color ||
      (grounds && grounds[i] ? symbolsByColor(grounds[i], sc.removed_cells || []) : null),
  );
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, ""),
    players.map((p) =>
      h(
        "th",
        { scope: "col", "data-color": p.color },
        h("span", { class: "swatch", style: `background:${colorVar(p.color)}` }),
        " ",
        p.name,
      ),
    ),
  );
  const row = (label, cells, cls = "", key = "") =>
    h(
      "tr",
      { class: cls, "data-row": key },
      h("th", { scope: "row" }, label),
      cells.map((c) => h("td", {}, fmt(c))),
    );
  const rows = [];
  for (const c of COLORS)
    rows.push(
      row(
        h("span", {}, h("span", { class: "swatch", style: `background:${colorVar(c)}` }), ` ${c} symbols `, h("span", { class: "cbmark-text" }, `(${COLOR_LETTER[c]})`)),
        byColor.map((b) => (b ? b[c] : "")),
        "sym",
        `symbols-${c}`,
      ),
    );
  rows.push(row("standing elephants", scores.map((s) => s.standing), "", "standing"));
  rows.push(row("arches", scores.map((s) => s.arches), "", "arches"));
  rows.push(row("surplus areas", scores.map((s) => s.surplus), "", "surplus"));
  rows.push(row("missing colors", scores.map((s) => s.missing), "", "missing"));
  rows.push(row("total", scores.map((s) => s.total), "total", "total"));
  if (ranks) rows.push(row("rank", ranks.map((r) => placeWord(r, ranks)), "rank", "rank"));
  return h(
    "div",
    { class: "sheet-wrap" },
    h("table", { class: "sheet", "aria-label": "score sheet" }, h("thead", {}, head), h("tbody", {}, rows)),
  );
}

function fmt(v) {
  if (typeof v !== "number") return v;
  return v > 0 ? `+${v}` : String(v);
}

function placeWord(r, ranks) {
  const shared = ranks.filter((x) => x === r).length > 1;
  const ord = { 1: "1st", 2: "2nd", 3: "3rd" }[r] || `${r}th`;
  return shared ? `${ord} (shared)` : ord;
}

export function colorVar(c) {
  return (
    { blue: "#2b6cc4", black: "#2b2b2b", green: "#2f9a4a", red: "#d1452f", purple: "#8d4fb8" }[c] ||
    "#999"
  );
}
