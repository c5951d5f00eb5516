// Tile names (NOTATION.md "Tiles"): parsing, colors, words. No rules live here.

export const COLORS = ["blue", "black", "green", "red", "purple"];
export const EDGES = ["N", "E", "S", "W"];
export const EDGE_DELTA = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

/** Tile face colors: chosen to stay apart for the common color-vision deficiencies. */
export const COLOR_FILL = {
  blue: "#2b6cc4",
  black: "#2b2b2b",
  green: "#2f9a4a",
  red: "#d1452f",
  purple: "#8d4fb8",
};

/** The color-blind mode's letter per color (K for black, as in print: B is blue). */
export const COLOR_LETTER = { blue: "B", black: "K", green: "G", red: "R", purple: "P" };

const SYMBOLS = { e1: 1, e2: 2, e3: 3, start: 1 };

/**
 * Parse "green:arch-red@E" into its parts.
 * @param {string} name
 */
export function parseTile(name) {
  const [base, edge] = name.split("@");
  const [color, kind] = base.split(":");
  const archColor = kind && kind.startsWith("arch-") ? kind.slice(5) : null;
  return {
    name: base,
    color,
    kind,
    edge: edge || null,
    symbols: SYMBOLS[kind] || 0,
    archColor,
    special: kind === "move-elephant" || kind === "move-tile" ? kind : null,
  };
}

/** A tile in words: "green 2-elephant", "blue tile with a red arch", "red move-elephant". */
export function tileWords(name) {
  const t = parseTile(name);
  if (t.symbols && t.kind !== "start") return `${t.color} ${t.symbols}-elephant`;
  if (t.kind === "start") return `${t.color} start tile`;
  if (t.archColor)
    return `${t.color} tile with a ${t.archColor} arch${t.edge ? ` facing ${edgeWord(t.edge)}` : ""}`;
  if (t.kind === "move-elephant") return `${t.color} move-elephant`;
  if (t.kind === "move-tile") return `${t.color} move-tile`;
  return name;
}

export function edgeWord(e) {
  return { N: "north", E: "east", S: "south", W: "west" }[e] || e;
}

export function cellWords(c) {
  return `(${c[0]}, ${c[1]})`;
}

/** Every tile type of the standard set, in engine order (for the score calculator's palette). */
export function allTileTypes() {
  const out = [];
  for (const c of COLORS) {
    out.push(`${c}:e1`, `${c}:e2`, `${c}:e3`);
    for (const o of COLORS) if (o !== c) out.push(`${c}:arch-${o}`);
    out.push(`${c}:move-elephant`, `${c}:move-tile`);
  }
  return out;
}

/** The standard tile set's count of a type (RULES.md "Components"). */
export function standardCount(name) {
  const t = parseTile(name);
  return { e1: 6, e2: 5, e3: 3, "move-elephant": 1, "move-tile": 1, start: 1 }[t.kind] ?? 1;
}

export const key = (c) => `${c[0]},${c[1]}`;
export const sameCell = (a, b) => a[0] === b[0] && a[1] === b[1];
