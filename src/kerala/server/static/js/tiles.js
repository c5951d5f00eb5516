// Tile names (the notation's "color:kind@edge"): parsing, the look of colors, words. The rules'
// facts (colors, symbols per kind, the tile set's counts) come from the server (rules.js).

import { rules } from "./rules.js";
import { t } from "./i18n.js";

/** The colors and edges in engine order; filled from GET /api/rules at startup (useRules). */
export let COLORS = [];
export let EDGES = [];
export const EDGE_DELTA = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

/** Take the colors and edges from the server's rules (app.js calls it once at startup). */
export function useRules(r) {
  COLORS = r.colors;
  EDGES = r.edges;
}

/** Tile face colors: the box's colors, their lightness spread so that the fills alone stay
 * apart under deuteranopia, protanopia and tritanopia (CIEDE2000 of 10 or more, Machado et
 * al. 2009 simulation; tests/web/test_web_color_vision.py), with white symbols readable on
 * each (contrast 3:1 or more). Each also has its texture and letter (grounds.js). */
export const COLOR_FILL = {
  blue: "#2258b5",
  black: "#2b2b2b",
  green: "#186a31",
  red: "#ee6a2f",
  purple: "#b873d6",
};

/** The letter on every tile of a color (K for black, as in print: B is blue). */
export const COLOR_LETTER = { blue: "B", black: "K", green: "G", red: "R", purple: "P" };

/**
 * Parse "green:arch-red@E" into its parts; symbols and specials are the server's.
 * @param {string} name
 */
export function parseTile(name) {
  const [base, edge] = name.split("@");
  const [color, kind] = base.split(":");
  const info = rules().byName[base] || {};
  return {
    name: base,
    color,
    kind,
    edge: edge || null,
    symbols: info.symbols || 0,
    archColor: info.arch || null,
    special: info.special || null,
  };
}

export const colorWord = (c) => t(`color.${c}`);

/** A tile in words: "green 2-elephant tile", "blue arch (red)", "red move-elephant tile". */
export function tileWords(name) {
  const p = parseTile(name);
  const color = colorWord(p.color);
  if (p.kind === "start") return t("tile.start", { color });
  if (p.archColor) {
    const base = t("tile.arch", { color, arch: colorWord(p.archColor) });
    return p.edge ? `${base}, ${t("tile.facing", { edge: edgeWord(p.edge) })}` : base;
  }
  if (p.special) return t(`tile.${p.special}`, { color });
  return t(p.symbols === 1 ? "tile.symbols1" : "tile.symbols", { color, n: p.symbols });
}

/** What a tile is worth and does, for tooltips. */
export function tileTip(name) {
  const p = parseTile(name);
  const pts = rules().points;
  let what;
  if (p.archColor) what = t("tip.arch", { arch: colorWord(p.archColor), n: pts.arch });
  else if (p.special) what = t(`tip.${p.special}`);
  else what = t("tip.symbols", { n: p.symbols });
  return `${tileWords(name)}: ${what}`;
}

export function edgeWord(e) {
  return t(`edge.${e}`);
}

export function cellWords(c) {
  return `(${c[0]}, ${c[1]})`;
}

/** Every game tile type of the standard set, in engine order (the calculator's palette). */
export function allTileTypes() {
  return rules()
    .tile_types.filter((x) => x.kind !== "start")
    .map((x) => x.name);
}

/** The standard tile set's count of a type (start tiles: one per color). */
export function standardCount(name) {
  const p = parseTile(name);
  if (p.kind === "start") return 1;
  return rules().tileset.counts[p.name] ?? 0;
}

export const key = (c) => `${c[0]},${c[1]}`;
export const sameCell = (a, b) => a[0] === b[0] && a[1] === b[1];
