// The game page's state and what follows from it, without the DOM: the legal list grouped the
// way a player picks, the decision the current selection names, the rings to draw, each
// player's last turn. Every choice is one of the server's legal decisions, sent back unchanged.

import { key, sameCell, parseTile, tileWords } from "../tiles.js";
import { decisionCells } from "../words.js";
import { t } from "../i18n.js";

export const uniq = (cells) => {
  const seen = new Map();
  for (const c of cells) seen.set(key(c), c);
  return [...seen.values()];
};

export const moveOf = (d) => d.move_elephant || d.move_stack;

/** What the legal list allows, grouped the way the player picks it. */
export function analyse(legal) {
  const L = legal || [];
  return {
    places: L.filter((d) => d.take),
    pass: L.find((d) => d.pass) || null,
    skip: L.find((d) => d.skip) || null,
    follow: L.filter((d) => d.move_elephant || d.move_stack),
  };
}

export function newState() {
  return {
    game: null,
    sel: null, // place: {tile, edge, to, from}; follow-up: {source, dest}; {pass}; {skip}
    hint: null,
    busy: false,
    closed: false,
    lost: false,
    hintRoute: null,
    hinting: false,
    loadError: null,
    scores: null, // live scores per seat (from the server), for the current grounds
    scoreKey: "",
    seenDecisions: null, // decisions drawn so far: newer ones animate
    fresh: new Map(), // seat -> [{at, since}]: cells placed lately (they grow into place)
    moves: new Map(), // seat -> [{from, to, since}]: elephants moved lately (they walk)
    views: new Map(), // seat -> kept viewBox across redraws
    showLog: false,
    zoomSeat: null,
    rematch: null, // {game, by}: the rematch of this finished game, once made
    asking: false, // the rematch is being asked for
  };
}

export const myTurn = (st) => !!(st.game && st.game.legal && st.game.legal.length > 0 && st.game.seat !== null);

export const placesFor = (st, tile) => analyse(st.game.legal).places.filter((d) => d.take === tile);

export const edgesFor = (st, tile, to = null, from = null) => [
  ...new Set(
    placesFor(st, tile)
      .filter((d) => (!to || sameCell(d.to, to)) && (!from || sameCell(d.from, from)))
      .map((d) => d.arch)
      .filter(Boolean),
  ),
];

/** The one legal decision the current selection names, or null while incomplete. */
export function chosen(st) {
  const g = st.game;
  if (!g || !g.legal || !st.sel) return null;
  const a = analyse(g.legal);
  const s = st.sel;
  if (s.pass) return a.pass;
  if (s.skip) return a.skip;
  if (s.tile) {
    if (!s.to || !s.from) return null;
    return (
      a.places.find(
        (d) => d.take === s.tile && sameCell(d.to, s.to) && sameCell(d.from, s.from) && (d.arch || null) === (s.edge || null),
      ) || null
    );
  }
  if (s.source && s.dest) return a.follow.find((d) => sameCell(moveOf(d).from, s.source) && sameCell(moveOf(d).to, s.dest)) || null;
  return null;
}

export function canTurn(st) {
  const s = st.sel;
  return !!(s && s.tile && parseTile(s.tile).archColor && edgesFor(st, s.tile, s.to, s.from).length > 1);
}

/** The rings on the player's own grounds for the current selection. */
export function myMarks(st) {
  const g = st.game;
  if (!myTurn(st) || st.busy) return [];
  const a = analyse(g.legal);
  const s = st.sel;
  const marks = [];
  const xy = (c) => ({ x: c[0], y: c[1] });
  if (s && s.tile) {
    const opts = placesFor(st, s.tile);
    for (const c of uniq(opts.map((d) => d.to)))
      marks.push({ at: c, cls: s.to && sameCell(s.to, c) ? "chosen" : "target", label: t("mark.place", { tile: tileWords(s.tile), ...xy(c) }) });
    if (s.to) {
      const froms = uniq(opts.filter((d) => sameCell(d.to, s.to)).map((d) => d.from));
      if (froms.length > 1)
        for (const f of froms)
          marks.push({ at: f, cls: s.from && sameCell(s.from, f) ? "chosen" : "source", label: t("mark.from", xy(f)) });
    }
  } else if (a.follow.length) {
    const srcs = uniq(a.follow.map((d) => moveOf(d).from));
    if (s && s.source) {
      marks.push({ at: s.source, cls: "chosen", label: t("mark.chosen", xy(s.source)) });
      for (const d of a.follow.filter((d) => sameCell(moveOf(d).from, s.source)))
        marks.push({ at: moveOf(d).to, cls: s.dest && sameCell(s.dest, moveOf(d).to) ? "chosen" : "dest", label: t("mark.to", xy(moveOf(d).to)) });
      for (const c of srcs) if (!sameCell(c, s.source)) marks.push({ at: c, cls: "source", label: t("mark.instead", xy(c)) });
    } else
      for (const c of srcs)
        marks.push({ at: c, cls: "source", label: t(g.view.pending === "move-elephant" ? "mark.moveElephant" : "mark.moveStack", xy(c)) });
  }
  return marks;
}

/** Every decision of the view in order ({seat, ...}). */
export const allDecisions = (view) => view.decisions.flatMap((r) => r.turns);

/** Each seat's last turn (a placement or pass and its follow-up): what stays outlined. */
export function lastTurns(view, n) {
  const out = Array.from({ length: n }, () => []);
  for (const d of allDecisions(view)) {
    if (d.take || d.pass) out[d.seat] = [d];
    else out[d.seat].push(d);
  }
  return out.map((ds) => ds.flatMap(decisionCells));
}

/** The tiles drawn this round, each with who took it (null: still in the display). */
export function displayTiles(view) {
  const r = view.decisions[view.decisions.length - 1];
  const left = [...view.display];
  if (!r) return left.map((tile, i) => ({ tile, index: i, by: null }));
  const taken = r.turns.filter((d) => d.take).map((d) => ({ tile: d.take, seat: d.seat }));
  const out = [];
  const avail = left.map((tile, i) => ({ tile, index: i, used: false }));
  for (const tile of r.drawn) {
    const a = avail.find((x) => !x.used && x.tile === tile);
    if (a) {
      a.used = true;
      out.push({ tile, index: a.index, by: null });
      continue;
    }
    const k = taken.findIndex((x) => x.tile === tile);
    if (k >= 0) out.push({ tile, index: null, by: taken.splice(k, 1)[0].seat });
  }
  // Anything in the display not matched (it should not happen): still offered.
  for (const a of avail) if (!a.used) out.push({ tile: a.tile, index: a.index, by: null });
  return out;
}
