// Draws festival grounds (the `grounds` JSON of a view or a grounds document) as SVG.
// Owns the look of tiles, stacks, arches, special icons, elephant figures and the
// highlighting of clickable cells; knows nothing of the rules or the server.

import { COLOR_FILL, COLOR_LETTER, COLORS, parseTile, tileWords, tileTip, key, cellWords } from "./tiles.js";
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

/** Create an SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes (docs/security.md).
    if (k === "style") el.style.cssText = String(v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}

const PATTERNS = {
  // One texture per color, always shown with the color's letter, so that no color has to be
  // told by its hue (docs/web.md, "Color vision"). Drawn in an 8-unit cell scaled to 20 units
  // of a 100-unit tile: four or five lines a tile, still a texture on a 20-pixel tile.
  blue: (p) => p.append(s("path", { d: "M0 8 L8 0", stroke: "#fff", "stroke-width": 1.6 })),
  black: (p) => p.append(s("circle", { cx: 4, cy: 4, r: 1.4, fill: "#fff" })),
  green: (p) => p.append(s("path", { d: "M0 4 H8", stroke: "#fff", "stroke-width": 1.4 })),
  red: (p) =>
    p.append(s("path", { d: "M0 0 L8 8 M8 0 L0 8", stroke: "#fff", "stroke-width": 1.1 })),
  purple: (p) => p.append(s("path", { d: "M4 0 V8", stroke: "#fff", "stroke-width": 1.4 })),
};

/** Install the shared <defs> (elephant symbol, patterns) once per document. */
export function ensureDefs() {
  if (document.getElementById("kerala-defs")) return;
  const defs = s("defs");
  const ele = s(
    "symbol",
    { id: "k-elephant", viewBox: "0 0 100 100" },
    s("ellipse", { cx: 44, cy: 50, rx: 30, ry: 21 }),
    s("circle", { cx: 74, cy: 40, r: 16 }),
    s("path", { d: "M84 40 Q100 58 92 84 L84 82 Q90 62 74 50 Z" }),
    s("rect", { x: 20, y: 58, width: 10, height: 24, rx: 3 }),
    s("rect", { x: 34, y: 60, width: 10, height: 22, rx: 3 }),
    s("rect", { x: 50, y: 60, width: 10, height: 22, rx: 3 }),
    s("rect", { x: 62, y: 58, width: 10, height: 24, rx: 3 }),
    s("path", { d: "M14 44 Q6 52 10 62", fill: "none", stroke: "currentColor", "stroke-width": 4 }),
  );
  defs.append(ele);
  for (const c of COLORS) {
    const p = s("pattern", {
      id: `pat-${c}`,
      width: 8,
      height: 8,
      patternUnits: "userSpaceOnUse",
      patternTransform: "scale(2.5)",
    });
    PATTERNS[c](p);
    defs.append(p);
  }
  const hatch = s("pattern", { id: "pat-surplus", width: 10, height: 10, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  hatch.append(s("rect", { width: 10, height: 10, fill: "#fff", opacity: 0.35 }), s("path", { d: "M0 0 V10", stroke: "#c00", "stroke-width": 3, opacity: 0.7 }));
  defs.append(hatch);
  const holder = s(
    "svg",
    { id: "kerala-defs", width: 0, height: 0, "aria-hidden": "true", style: "position:absolute" },
    defs,
  );
  document.body.prepend(holder);
}

const elephantIcon = (x, y, size, fill, extra = {}) =>
  s("use", { href: "#k-elephant", x, y, width: size, height: size, fill, color: fill, ...extra });

/** Draw one tile face in a unit square of side `S` with its top-left corner at (0, 0). */
export function tileFace(name, S, opts = {}) {
  const t = parseTile(name);
  const g = s("g", { class: `tile tile-${t.color}` });
  g.append(
    s("rect", {
      x: 1,
      y: 1,
      width: S - 2,
      height: S - 2,
      rx: S * 0.08,
      fill: COLOR_FILL[t.color] || "#999",
      stroke: "#0008",
      "stroke-width": 1.5,
    }),
    s("rect", {
      class: "cbmark pattern",
      x: 1,
      y: 1,
      width: S - 2,
      height: S - 2,
      rx: S * 0.08,
      fill: `url(#pat-${t.color})`,
    }),
  );
  const ink = "#fff";
  if (t.kind === "start") {
    g.append(
      s("rect", {
        x: S * 0.1,
        y: S * 0.1,
        width: S * 0.8,
        height: S * 0.8,
        rx: S * 0.06,
        fill: "none",
        stroke: "#fff",
        "stroke-width": S * 0.035,
        "stroke-dasharray": `${S * 0.06} ${S * 0.05}`,
      }),
    );
  }
  if (t.symbols) {
    const sz = S * (t.symbols === 1 ? 0.46 : t.symbols === 2 ? 0.38 : 0.32);
    const spots = {
      1: [[0.5, 0.52]],
      2: [
        [0.3, 0.52],
        [0.7, 0.52],
      ],
      3: [
        [0.28, 0.36],
        [0.72, 0.36],
        [0.5, 0.7],
      ],
    }[t.symbols];
    for (const [cx, cy] of spots) g.append(elephantIcon(cx * S - sz / 2, cy * S - sz / 2, sz, ink));
  }
  if (t.archColor) {
    const edge = t.edge || opts.edge || "N";
    const rot = { N: 0, E: 90, S: 180, W: 270 }[edge];
    const a = s("g", { transform: `rotate(${rot} ${S / 2} ${S / 2})`, class: "arch" });
    const fill = COLOR_FILL[t.archColor];
    // The arch stands on its edge: a band on the edge and the gate's curve, outlined in white.
    a.append(
      s("path", {
        d: `M${S * 0.18} ${S * 0.5} L${S * 0.18} ${S * 0.3} A${S * 0.32} ${S * 0.26} 0 0 1 ${S * 0.82} ${S * 0.3} L${S * 0.82} ${S * 0.5}`,
        fill: "none",
        stroke: "#fff",
        "stroke-width": S * 0.17,
        "stroke-linecap": "round",
      }),
      s("path", {
        d: `M${S * 0.18} ${S * 0.5} L${S * 0.18} ${S * 0.3} A${S * 0.32} ${S * 0.26} 0 0 1 ${S * 0.82} ${S * 0.3} L${S * 0.82} ${S * 0.5}`,
        fill: "none",
        stroke: fill,
        "stroke-width": S * 0.11,
        "stroke-linecap": "round",
      }),
      s("rect", {
        x: S * 0.06,
        y: 1,
        width: S * 0.88,
        height: S * 0.1,
        rx: S * 0.04,
        fill,
        stroke: "#fff",
        "stroke-width": 1.5,
      }),
    );
    g.append(a);
    // The arch color's letter sits in the middle so it never rotates.
    g.append(
      s(
        "text",
        {
          x: S / 2,
          y: S * 0.64,
          "text-anchor": "middle",
          "font-size": S * 0.26,
          "font-weight": 700,
          fill: "#fff",
          class: "cbmark",
        },
        COLOR_LETTER[t.archColor],
      ),
    );
  }
  if (t.kind === "move-elephant") {
    g.append(elephantIcon(S * 0.2, S * 0.18, S * 0.44, "none", { stroke: ink, "stroke-width": 6 }));
    g.append(arrow(S, ink));
  }
  if (t.kind === "move-tile") {
    g.append(
      s("rect", {
        x: S * 0.18,
        y: S * 0.2,
        width: S * 0.34,
        height: S * 0.34,
        rx: S * 0.04,
        fill: "none",
        stroke: ink,
        "stroke-width": S * 0.05,
      }),
      s("rect", {
        x: S * 0.42,
        y: S * 0.42,
        width: S * 0.34,
        height: S * 0.34,
        rx: S * 0.04,
        fill: ink,
        opacity: 0.85,
      }),
      arrow(S, ink, true),
    );
  }
  if (opts.letter !== false) {
    g.append(
      s(
        "text",
        {
          x: S * 0.9,
          y: S * 0.92,
          "text-anchor": "end",
          "font-size": S * 0.2,
          "font-weight": 700,
          fill: "#fff",
          class: "cbmark",
        },
        COLOR_LETTER[t.color] || "?",
      ),
    );
  }
  return g;
}

function arrow(S, ink, low = false) {
  const y = low ? S * 0.86 : S * 0.8;
  return s("path", {
    d: `M${S * 0.22} ${y} H${S * 0.74} m-${S * 0.1} -${S * 0.08} l${S * 0.1} ${S * 0.08} l-${S * 0.1} ${S * 0.08}`,
    fill: "none",
    stroke: ink,
    "stroke-width": S * 0.05,
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
  });
}

/** A standalone SVG of one tile (display, palettes). */
export function tileSvg(name, size = 56, opts = {}) {
  ensureDefs();
  const S = 100;
  const svg = s("svg", {
    viewBox: `0 0 ${S} ${S}`,
    width: size,
    height: size,
    class: "tile-svg",
    role: "img",
    "aria-label": tileWords(name),
  });
  svg.append(tileFace(opts.edge && !name.includes("@") ? `${name}@${opts.edge}` : name, S));
  return svg;
}

/**
 * An elephant figure on a plate: standing is an upright figure on a tall plate with a solid
 * outline; lying (a pass used, G3) is the figure on its side on a wide grey plate with a dashed
 * outline. The two shapes differ at every zoom, even where the figure itself is a few pixels.
 */
function figure(color, x, y, S, lying) {
  // The figure's place is the outer group's transform attribute; an animation moves the inner
  // group (a CSS transform on the outer one would replace its place for the animation's time).
  const outer = s("g", { class: lying ? "figure lying" : "figure standing", transform: `translate(${x} ${y})` });
  const g = s("g", { class: "motion" });
  outer.append(g);
  if (lying) {
    const w = S * 0.6,
      hh = S * 0.34;
    g.append(
      s("rect", { x: -w / 2, y: -hh / 2, width: w, height: hh, rx: hh * 0.3, fill: "#e4ddcb", stroke: "#111", "stroke-width": S * 0.03, "stroke-dasharray": `${S * 0.07} ${S * 0.035}` }),
      s("g", { transform: `translate(${-w * 0.14} 0) rotate(90)` }, elephantIcon(-hh * 0.46, -hh * 0.46, hh * 0.92, COLOR_FILL[color])),
      s("text", { x: w * 0.28, y: hh * 0.12, "text-anchor": "middle", "font-size": S * 0.17, "font-weight": 800, fill: "#111" }, "z"),
      s("text", { x: w * 0.38, y: -hh * 0.06, "text-anchor": "middle", "font-size": S * 0.12, "font-weight": 800, fill: "#111" }, "z"),
    );
    g.append(s("title", {}, t("board.lying")));
  } else {
    const w = S * 0.36,
      hh = S * 0.44;
    g.append(
      s("rect", { x: -w / 2, y: -hh / 2, width: w, height: hh, rx: w * 0.22, fill: "#fffbe8", stroke: "#111", "stroke-width": S * 0.03 }),
      elephantIcon(-w * 0.46, -hh * 0.4, w * 0.92, COLOR_FILL[color]),
      s("rect", { x: -w * 0.34, y: hh * 0.26, width: w * 0.68, height: hh * 0.1, rx: 2, fill: "#111" }),
    );
    g.append(s("title", {}, t("board.standing")));
  }
  return outer;
}

/**
 * Render a grounds JSON ({color, passes, elephants, stacks}) to an <svg>.
 *
 * opts.marks: [{at:[x,y], cls:"target"|"source"|"dest"|"chosen", label}] cells to highlight;
 *   marked cells (and, with opts.emptyRing, the empty cells around the grounds) are clickable.
 * opts.onCell(cell, mark): called on click / Enter / Space.
 * opts.removed: cells removed as surplus (SC1), drawn crossed out (the final score).
 * opts.surplus: cells that would be removed if the game ended now (the live score), hatched.
 * opts.recent: [{at, kind: "placed"|"to"|"from"}] the owner's last turn, outlined until their next.
 * opts.fresh: cells placed lately ([x, y], or {at, since} with the performance.now() at which
 *   the change was first drawn): the tile grows into place once, carried on over redraws.
 * opts.moves: [{from, to, since?}] elephants moved lately: each walks from its old cell.
 * opts.ghost: {at, tile} a tile previewed on a cell (the pending placement).
 * opts.coords: label every cell with its coordinates, "(x, y)" as the log writes them.
 */
export function renderGrounds(g, opts = {}) {
  ensureDefs();
  const S = opts.cell || 100;
  const marks = new Map((opts.marks || []).map((m) => [key(m.at), m]));
  const stacks = new Map(g.stacks.map((st) => [key(st.at), st]));
  // The drawn area: the stacks, the marked cells and the cells of the last turn (a stack or an
  // elephant may have left a cell at the edge).
  const cells = [...g.stacks.map((st) => st.at), ...(opts.marks || []).map((m) => m.at), ...(opts.recent || []).map((r) => r.at)];
  if (opts.emptyRing) {
    for (const st of g.stacks)
      for (const [dx, dy] of [
        [0, -1],
        [1, 0],
        [0, 1],
        [-1, 0],
      ]) {
        const c = [st.at[0] + dx, st.at[1] + dy];
        if (!stacks.has(key(c))) cells.push(c);
      }
  }
  const xs = cells.map((c) => c[0]);
  const ys = cells.map((c) => c[1]);
  const pad = opts.pad ?? 0.25;
  const minX = Math.min(...xs) - pad,
    maxX = Math.max(...xs) + 1 + pad;
  const minY = Math.min(...ys) - pad,
    maxY = Math.max(...ys) + 1 + pad;
  const vb = [minX * S, minY * S, (maxX - minX) * S, (maxY - minY) * S];
  const svg = s("svg", {
    viewBox: vb.join(" "),
    class: "grounds-svg",
    role: "group",
    "aria-label": opts.label || `${g.color} festival grounds`,
    "data-color": g.color,
  });
  svg.dataset.baseViewbox = vb.join(" ");
  const removed = new Set((opts.removed || []).map(key));
  const surplus = new Set((opts.surplus || []).map(key));
  const now = performance.now();
  // How far into its animation a change is: a redraw carries the animation on. The delay
  // places it; once the drawing is on the page, the start time is fixed too (at the end): left to
  // the browser, a new animation waits a frame to start, and on a slow machine it starts in
  // a later frame's time, which drew the figure at its end for a frame before it walked on.
  const carried = [];
  const late = (el, since) => {
    if (since === undefined || since === null) return;
    el.style.animationDelay = `${-Math.max(0, now - since)}ms`;
    carried.push(el);
  };
  const freshSince = new Map((opts.fresh || []).map((f) => (Array.isArray(f) ? [key(f), null] : [key(f.at), f.since])));
  const fresh = freshSince;
  const moved = new Map((opts.moves || []).map((m) => [key(m.to), m]));

  const activate = (c, m) => opts.onCell && opts.onCell(c, m);
  const addInteractive = (el, c, m, label) => {
    // A roving tabindex (as in a grid widget): one cell is in the Tab order, the arrow keys
    // move among the others (rove() below picks which one).
    el.setAttribute("tabindex", "-1");
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", label);
    el.dataset.x = c[0];
    el.dataset.y = c[1];
    el.addEventListener("click", (ev) => {
      if (svg.dataset.dragged === "1") return;
      ev.stopPropagation();
      activate(c, m);
    });
    el.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        activate(c, m);
      } else if (ARROWS[ev.key]) {
        ev.preventDefault();
        const next = nextCell(svg, c, ARROWS[ev.key]);
        if (next) {
          for (const o of svg.querySelectorAll('[role="button"][tabindex="0"]')) o.setAttribute("tabindex", "-1");
          next.setAttribute("tabindex", "0");
          next.focus();
        }
      }
    });
    // The focus ring is drawn last, over the target rings and the figures, so it is never
    // hidden; only for keyboard focus (:focus-visible), as the browser does for buttons.
    el.addEventListener("focus", () => {
      for (const old of svg.querySelectorAll(".focus-ring, .focus-under")) old.remove();
      if (!el.matches(":focus-visible")) return;
      const box = { x: c[0] * S - 3, y: c[1] * S - 3, width: S + 6, height: S + 6, rx: S * 0.12, "pointer-events": "none", "data-x": c[0], "data-y": c[1] };
      svg.append(s("rect", { class: "focus-under", ...box }), s("rect", { class: "focus-ring", ...box }));
    });
    el.addEventListener("blur", () => {
      for (const old of svg.querySelectorAll(".focus-ring, .focus-under")) old.remove();
    });
  };

  // Empty clickable cells first (underneath).
  const emptyDrawn = new Set();
  for (const c of cells) {
    const k = key(c);
    if (stacks.has(k) || emptyDrawn.has(k)) continue;
    emptyDrawn.add(k);
    const m = marks.get(k);
    const el = s("g", {
      class: `cell empty ${m ? `mark ${m.cls}` : ""}`,
      transform: `translate(${c[0] * S} ${c[1] * S})`,
    });
    el.append(
      s("rect", {
        x: 3,
        y: 3,
        width: S - 6,
        height: S - 6,
        rx: S * 0.08,
        class: "slot",
      }),
    );
    // A free cell that can be picked says where it is, as the log and the confirm step do.
    if (m || opts.coords) el.append(s("text", { class: "coord", x: S / 2, y: S * 0.56, "text-anchor": "middle", "font-size": S * 0.16, fill: "#6b6257", "pointer-events": "none" }, cellWords(c)));
    if (opts.ghost && key(opts.ghost.at) === k) {
      const gh = tileFace(opts.ghost.tile, S);
      gh.setAttribute("opacity", "0.75");
      el.append(gh);
    }
    if (m || opts.emptyRing) addInteractive(el, c, m, (m && m.label) || t("board.empty", { x: c[0], y: c[1] }));
    svg.append(el);
  }

  for (const st of g.stacks) {
    const c = st.at;
    const k = key(c);
    const m = marks.get(k);
    const h = st.tiles.length;
    const top = st.tiles[h - 1];
    const el = s("g", {
      class: `cell stack ${m ? `mark ${m.cls}` : ""} ${removed.has(k) ? "removed" : ""} ${surplus.has(k) ? "surplus" : ""} ${fresh.has(k) ? "fresh" : ""}`,
      transform: `translate(${c[0] * S} ${c[1] * S})`,
      "data-x": c[0],
      "data-y": c[1],
      "data-height": h,
      "data-top": top,
    });
    // Covered tiles peek out below the top one, one edge per layer (at most 3 drawn).
    for (let i = Math.min(h - 1, 3); i >= 1; i--) {
      const under = parseTile(st.tiles[h - 1 - i]);
      el.append(
        s("rect", {
          x: 1 + i * 2.5,
          y: 1 + i * 2.5,
          width: S - 2,
          height: S - 2,
          rx: S * 0.08,
          fill: COLOR_FILL[under.color],
          stroke: "#0009",
          "stroke-width": 1,
        }),
      );
    }
    const showGhost = opts.ghost && key(opts.ghost.at) === k;
    el.append(tileFace(showGhost ? opts.ghost.tile : top, S));
    if (fresh.has(k)) late(el.lastChild, freshSince.get(k));
    if (showGhost) el.lastChild.setAttribute("opacity", "0.8");
    if (h > 1) {
      el.append(
        s(
          "g",
          { class: "height", transform: `translate(${S * 0.04} ${S * 0.04})` },
          s("rect", {
            width: S * 0.3,
            height: S * 0.22,
            rx: S * 0.05,
            fill: "#fff",
            stroke: "#000",
            "stroke-width": 1.2,
          }),
          s(
            "text",
            {
              x: S * 0.15,
              y: S * 0.175,
              "text-anchor": "middle",
              "font-size": S * 0.17,
              "font-weight": 700,
              fill: "#000",
            },
            `×${h}`,
          ),
        ),
      );
    }
    if (removed.has(k)) {
      el.append(
        s("rect", { x: 0, y: 0, width: S, height: S, fill: "#fff", opacity: 0.55 }),
        s("path", {
          d: `M${S * 0.15} ${S * 0.15} L${S * 0.85} ${S * 0.85} M${S * 0.85} ${S * 0.15} L${S * 0.15} ${S * 0.85}`,
          stroke: "#b00",
          "stroke-width": S * 0.07,
          "stroke-linecap": "round",
        }),
      );
    }
    if (surplus.has(k) && !removed.has(k)) el.append(surplusMark(S));
    // Coordinates on demand: a light label at the top right, clear of the height badge (top
    // left), the elephants (bottom left) and the color's letter (bottom right).
    if (opts.coords)
      el.append(
        s(
          "g",
          { class: "coord-tag", "pointer-events": "none" },
          s("rect", { x: S * 0.44, y: S * 0.05, width: S * 0.52, height: S * 0.2, rx: S * 0.05, fill: "#fffd", stroke: "#000", "stroke-width": 1 }),
          s("text", { class: "coord", x: S * 0.7, y: S * 0.205, "text-anchor": "middle", "font-size": S * 0.15, "font-weight": 700, fill: "#111" }, cellWords(c)),
        ),
      );
    const words = t("board.stack", { x: c[0], y: c[1], n: h, top: tileWords(top) });
    const tip = [words, tileTip(top), h > 1 ? t("board.under", { tiles: st.tiles.map(tileWords).join(", ") }) : null];
    if (surplus.has(k)) tip.push(t("board.surplusTip", { n: h * 2 }));
    el.append(s("title", {}, tip.filter(Boolean).join("\n")));
    if (m || opts.clickStacks) addInteractive(el, c, m, (m && m.label) || words);
    svg.append(el);
  }

  // The owner's last turn: a black-and-white outline that shows on every tile color.
  for (const r of opts.recent || []) {
    const at = r.at;
    svg.append(
      s("rect", { class: `recent-under ${r.kind}`, x: at[0] * S + 2, y: at[1] * S + 2, width: S - 4, height: S - 4, rx: S * 0.1, "pointer-events": "none" }),
      s("rect", { class: `recent ${r.kind}`, "data-x": at[0], "data-y": at[1], x: at[0] * S + 2, y: at[1] * S + 2, width: S - 4, height: S - 4, rx: S * 0.1, "pointer-events": "none" }),
    );
  }

  // Highlight rings on top of the tiles so they are always visible: a dark band under each
  // ring keeps it readable on every tile color.
  for (const m of opts.marks || []) {
    svg.append(
      s("rect", {
        class: `ring-under ${m.cls}`,
        x: m.at[0] * S + 4,
        y: m.at[1] * S + 4,
        width: S - 8,
        height: S - 8,
        rx: S * 0.1,
        "pointer-events": "none",
      }),
    );
    svg.append(
      s("rect", {
        class: `ring ${m.cls}`,
        x: m.at[0] * S + 4,
        y: m.at[1] * S + 4,
        width: S - 8,
        height: S - 8,
        rx: S * 0.1,
        "pointer-events": "none",
      }),
    );
  }

  // Elephant figures; the last `passes` of them lie down.
  const els = g.elephants || [];
  const same = els.length === 2 && key(els[0]) === key(els[1]);
  els.forEach((c, i) => {
    const lying = i >= els.length - (g.passes || 0);
    // Bottom left of the cell (the color-blind letter sits bottom right, the height top left);
    // two elephants on the start tile stand side by side.
    const x = c[0] * S + (same ? (i === 0 ? S * 0.27 : S * 0.73) : lying ? S * 0.34 : S * 0.24);
    const y = c[1] * S + (lying ? S * 0.78 : S * 0.72);
    const f = figure(g.color, x, y, S, lying);
    const m = moved.get(key(c));
    if (m && !lying) {
      const walk = f.querySelector(".motion");
      walk.classList.add("fresh");
      walk.style.setProperty("--dx", `${(m.from[0] - c[0]) * S}px`);
      walk.style.setProperty("--dy", `${(m.from[1] - c[1]) * S}px`);
      late(walk, m.since);
    }
    f.setAttribute("pointer-events", "none");
    f.dataset.x = c[0];
    f.dataset.y = c[1];
    svg.append(f);
  });
  rove(svg, opts.marks || []);
  // The caller puts the drawing on the page before this task ends.
  if (carried.length)
    queueMicrotask(() => {
      for (const el of carried) if (el.isConnected) for (const a of el.getAnimations()) a.startTime = now;
    });
  return svg;
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** The Tab stop of a grounds: the chosen cell, else the first marked cell in reading order
 * (top row first), else the first clickable cell. */
function rove(svg, marks) {
  const cells = [...svg.querySelectorAll('[role="button"]')];
  if (!cells.length) return;
  const at = (m) => svg.querySelector(`[role="button"][data-x="${m.at[0]}"][data-y="${m.at[1]}"]`);
  const order = [...marks].sort((a, b) => (a.cls === "chosen") - (b.cls === "chosen") || a.at[1] - b.at[1] || a.at[0] - b.at[0]);
  const chosenMark = marks.find((m) => m.cls === "chosen");
  const first = (chosenMark && at(chosenMark)) || (order.length && at(order[0])) || cells[0];
  first.setAttribute("tabindex", "0");
}

/** The clickable cell nearest to `c` in direction `d` (a step along it counts less than a
 * step across it), as arrow keys move in a grid; null at the edge. */
function nextCell(svg, c, d) {
  let best = null;
  let bestCost = Infinity;
  for (const el of svg.querySelectorAll('[role="button"]')) {
    const dx = Number(el.dataset.x) - c[0];
    const dy = Number(el.dataset.y) - c[1];
    const along = dx * d[0] + dy * d[1];
    if (along <= 0) continue;
    const across = Math.abs(dx * d[1] - dy * d[0]);
    if (across > along * 2) continue; // clearly in another direction
    const cost = along + 2 * across;
    if (cost < bestCost) {
      bestCost = cost;
      best = el;
    }
  }
  return best;
}

/** The cell of a grounds to focus when the player's attention moves to the board. */
export function focusTarget(svg) {
  return svg ? svg.querySelector('[role="button"][tabindex="0"]') : null;
}

const surplusMark = (S) =>
  s("rect", { class: "surplus-mark", x: 3, y: 3, width: S - 6, height: S - 6, rx: S * 0.08, fill: "url(#pat-surplus)", stroke: "#c00", "stroke-width": S * 0.05, "stroke-dasharray": `${S * 0.1} ${S * 0.06}` });

/** Mark on a drawn grounds the cells that would be removed as surplus now (the live score). */
export function markSurplus(svg, cells, S = 100) {
  for (const el of svg.querySelectorAll(".cell.surplus")) el.classList.remove("surplus");
  for (const el of svg.querySelectorAll(".surplus-mark")) el.remove();
  for (const c of cells) {
    const el = svg.querySelector(`.cell.stack[data-x="${c[0]}"][data-y="${c[1]}"]`);
    if (!el || el.classList.contains("removed")) continue;
    el.classList.add("surplus");
    // Under the height badge and the ghost, over the tile.
    const face = el.querySelector(".tile");
    if (face) face.after(surplusMark(S));
    else el.append(surplusMark(S));
  }
}

/** An outline on one cell (a log line's cells while it is hovered). */
export function hlRing(at, S = 100) {
  return s("rect", { class: "hl-ring", "data-x": at[0], "data-y": at[1], x: at[0] * S + 1, y: at[1] * S + 1, width: S - 2, height: S - 2, rx: S * 0.1, "pointer-events": "none" });
}

/**
 * Make a grounds SVG pannable (drag) and zoomable (wheel, pinch, buttons) inside `host`.
 * onChange(viewBox) is told each change (callers keep the zoom across redraws with it).
 * Returns {fit, zoom(f)}.
 */
export function panZoom(svg, host, onChange = null) {
  const base = svg.dataset.baseViewbox.split(" ").map(Number);
  let vb = (svg.getAttribute("viewBox") || "").split(" ").map(Number);
  if (vb.length !== 4 || vb.some((v) => !Number.isFinite(v))) vb = [...base];
  const set = () => {
    svg.setAttribute("viewBox", vb.join(" "));
    if (onChange) onChange(vb.join(" "));
  };
  const zoom = (f, cx = vb[0] + vb[2] / 2, cy = vb[1] + vb[3] / 2) => {
    const w = Math.min(Math.max(vb[2] * f, base[2] * 0.25), base[2] * 3 + 400);
    const h = (w / vb[2]) * vb[3];
    vb = [cx - ((cx - vb[0]) * w) / vb[2], cy - ((cy - vb[1]) * h) / vb[3], w, h];
    set();
  };
  const fit = () => {
    vb = [...base];
    set();
  };
  const pointers = new Map();
  let start = null;
  svg.addEventListener("pointerdown", (ev) => {
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    start = { x: ev.clientX, y: ev.clientY, vb: [...vb], dist: pinchDist() };
    svg.dataset.dragged = "0";
  });
  const pinchDist = () => {
    if (pointers.size < 2) return 0;
    const [a, b] = [...pointers.values()];
    return Math.hypot(a[0] - b[0], a[1] - b[1]);
  };
  svg.addEventListener("pointermove", (ev) => {
    if (!pointers.has(ev.pointerId) || !start) return;
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    const rect = svg.getBoundingClientRect();
    const scale = start.vb[2] / Math.max(rect.width, 1);
    if (pointers.size >= 2) {
      const d = pinchDist();
      if (start.dist && d) {
        vb = [...start.vb];
        zoom(start.dist / d);
        svg.dataset.dragged = "1";
      }
      return;
    }
    const dx = ev.clientX - start.x;
    const dy = ev.clientY - start.y;
    if (Math.abs(dx) + Math.abs(dy) > 6) {
      svg.dataset.dragged = "1";
      vb = [start.vb[0] - dx * scale, start.vb[1] - dy * scale, start.vb[2], start.vb[3]];
      set();
    }
  });
  const up = (ev) => {
    pointers.delete(ev.pointerId);
    if (pointers.size === 0) {
      start = null;
      // Let the click that ends a drag be ignored, then clear the flag.
      setTimeout(() => (svg.dataset.dragged = "0"), 0);
    }
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  svg.addEventListener(
    "wheel",
    (ev) => {
      ev.preventDefault();
      const rect = svg.getBoundingClientRect();
      const cx = vb[0] + ((ev.clientX - rect.left) / rect.width) * vb[2];
      const cy = vb[1] + ((ev.clientY - rect.top) / rect.height) * vb[3];
      zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
    },
    { passive: false },
  );
  if (host) {
    const bar = document.createElement("div");
    bar.className = "zoombar";
    for (const [label, title, fn] of [
      ["+", t("zoom.in"), () => zoom(1 / 1.25)],
      ["−", t("zoom.out"), () => zoom(1.25)],
      ["⤢", t("zoom.fit"), fit],
    ]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.setAttribute("aria-label", title);
      b.addEventListener("click", fn);
      bar.append(b);
    }
    host.append(bar);
  }
  return { fit, zoom };
}
