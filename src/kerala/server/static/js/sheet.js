// The scoring pad: a column per player, a row per color's symbols, then standing elephants,
// arches, surplus, missing colors, total and rank. Every number comes from the server's scoring.

import { h } from "./ui.js";
import { COLORS, COLOR_LETTER, COLOR_FILL, colorWord } from "./tiles.js";
import { t, currentLang } from "./i18n.js";

/**
 * players: [{name, color}], scores: [{total, surplus, missing, standing, arches, symbols,
 * symbols_by_color}], ranks: [int] or null.
 */
export function scoreSheet(players, scores, ranks = null) {
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, ""),
    players.map((p) =>
      h("th", { scope: "col", "data-color": p.color }, h("span", { class: "swatch", style: `background:${colorVar(p.color)}` }), " ", p.name),
    ),
  );
  const row = (label, cells, cls = "", key = "") =>
    h("tr", { class: cls, "data-row": key }, h("th", { scope: "row" }, label), cells.map((c) => h("td", {}, fmt(c))));
  const rows = [];
  for (const c of COLORS)
    rows.push(
      row(
        h(
          "span",
          {},
          h("span", { class: "swatch", style: `background:${colorVar(c)}` }),
          ` ${t("sheet.symbols", { color: colorWord(c) })} `,
          h("span", { class: "cbmark-text" }, `(${COLOR_LETTER[c]})`),
        ),
        scores.map((sc) => (sc.symbols_by_color ? sc.symbols_by_color[c] : "")),
        "sym",
        `symbols-${c}`,
      ),
    );
  rows.push(row(t("sheet.standing"), scores.map((x) => x.standing), "", "standing"));
  rows.push(row(t("sheet.arches"), scores.map((x) => x.arches), "", "arches"));
  rows.push(row(t("sheet.surplus"), scores.map((x) => x.surplus), "", "surplus"));
  rows.push(row(t("sheet.missing"), scores.map((x) => x.missing), "", "missing"));
  rows.push(row(t("sheet.total"), scores.map((x) => x.total), "total", "total"));
  if (ranks) rows.push(row(t("sheet.rank"), ranks.map((r) => placeWord(r, ranks)), "rank", "rank"));
  return h(
    "div",
    { class: "sheet-wrap" },
    h("table", { class: "sheet", "aria-label": t("sheet.label") }, h("thead", {}, head), h("tbody", {}, rows)),
  );
}

/** A score with its sign: +3, -4, 0. */
export function fmt(v) {
  if (typeof v !== "number") return v;
  return v > 0 ? `+${v}` : String(v);
}

function placeWord(r, ranks) {
  const shared = ranks.filter((x) => x === r).length > 1;
  const place = t(`sheet.ord.${new Intl.PluralRules(currentLang(), { type: "ordinal" }).select(r)}`, { n: r });
  return shared ? t("sheet.shared", { place }) : place;
}

export function colorVar(c) {
  return COLOR_FILL[c] || "#999";
}
