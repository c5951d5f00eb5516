// What the player does: pick a tile, a cell, an elephant, turn an arch, pass or skip, go back,
// confirm. Every decision, skip included, goes through the same confirm step. Keys: 1–5 pick a
// display tile, R turns an arch, Enter confirms, Escape goes back.

import { toast } from "../ui.js";
import { t } from "../i18n.js";
import { parseTile, sameCell } from "../tiles.js";
import { analyse, chosen, edgesFor, moveOf, myTurn, placesFor, uniq } from "./state.js";

export function input(st, { render, accept, conn }) {
  const fixEdge = () => {
    const s = st.sel;
    if (!s || !s.tile || !parseTile(s.tile).archColor) return;
    const edges = edgesFor(st, s.tile, s.to, s.from);
    if (!edges.includes(s.edge)) s.edge = edges[0] || null;
  };

  // Where the keyboard focus goes after a step (render.js, placeFocus): "step" is the next
  // thing to do, a selector names an element.
  const pickTile = (tile) => {
    if (st.sel && st.sel.tile === tile) st.sel = null;
    else {
      st.sel = { tile, edge: edgesFor(st, tile)[0] || null, to: null, from: null };
      st.focusNext = "step";
    }
    st.hint = null;
    render();
  };

  const aim = (c) => {
    const s = st.sel;
    const here = placesFor(st, s.tile).filter((d) => sameCell(d.to, c));
    if (!here.length) return false;
    s.to = c;
    const froms = uniq(here.map((d) => d.from));
    s.from = froms.length === 1 ? froms[0] : null;
    fixEdge();
    return true;
  };

  const onMyCell = (c) => {
    const g = st.game;
    if (!myTurn(st) || st.busy) return;
    const s = st.sel;
    const a = analyse(g.legal);
    if (s && s.tile) {
      if (s.to && !s.from) {
        // Choosing the elephant: one of the elephants' cells.
        const froms = uniq(placesFor(st, s.tile).filter((d) => sameCell(d.to, s.to)).map((d) => d.from));
        if (froms.some((f) => sameCell(f, c))) {
          s.from = c;
          fixEdge();
          st.focusNext = "step";
          render();
          return;
        }
      }
      if (aim(c)) {
        st.focusNext = "step";
        render();
      }
      return;
    }
    if (a.follow.length) {
      if (s && s.source && !s.dest && a.follow.some((d) => sameCell(moveOf(d).from, s.source) && sameCell(moveOf(d).to, c))) {
        s.dest = c;
        st.focusNext = "step";
        render();
        return;
      }
      if (uniq(a.follow.map((d) => moveOf(d).from)).some((x) => sameCell(x, c))) {
        st.sel = { source: c, dest: null };
        st.focusNext = "step";
        render();
      }
    }
  };

  const chooseFrom = (f) => {
    st.sel.from = f;
    st.focusNext = "step";
    fixEdge();
    render();
  };

  const turnArch = () => {
    const s = st.sel;
    if (!s || !s.tile) return;
    const edges = edgesFor(st, s.tile, s.to, s.from);
    if (!edges.length) return;
    s.edge = edges[(edges.indexOf(s.edge) + 1) % edges.length];
    render();
  };

  const pass = () => {
    st.sel = { pass: true };
    render();
  };
  const skip = () => {
    st.sel = { skip: true };
    render();
  };
  const back = () => {
    // Back to where the decision began: the tile that was picked, else the next thing to do.
    const tile = st.sel && st.sel.tile;
    const i = tile && st.game ? st.game.view.display.indexOf(tile) : -1;
    st.focusNext = i >= 0 ? `#display button[data-index="${i}"]` : "step";
    st.sel = null;
    st.hint = null;
    render();
  };

  const confirm = async () => {
    const d = chosen(st);
    if (!d || st.busy || !st.game) return;
    st.busy = true;
    const sent = conn.submit(d); // on its way before the page draws "Sending…"
    render();
    try {
      const g = await sent;
      st.busy = false;
      st.sel = null;
      accept(g, true);
    } catch (e) {
      st.busy = false;
      toast(e.message);
      if (e.status === 409 || e.status === 0) await conn.load();
      render();
    }
  };

  const hint = async () => {
    if (!st.hintRoute || st.hinting) return; // one question at a time (the server refuses more)
    st.hinting = true;
    render();
    try {
      const r = await conn.askHint(st.hintRoute);
      const first = r && Array.isArray(r.suggestions) ? r.suggestions[0] : null;
      const d = first ? first.decision || first : r && (r.decision || r.hint || r);
      const same = ((st.game && st.game.legal) || []).find((x) => JSON.stringify(x) === JSON.stringify(d));
      if (!same) toast(t("hint.none"), "info");
      else {
        st.hint = same;
        if (same.take) st.sel = { tile: same.take, edge: same.arch || null, to: same.to, from: same.from };
        else if (moveOf(same)) st.sel = { source: moveOf(same).from, dest: moveOf(same).to };
        else if (same.pass) st.sel = { pass: true };
        else if (same.skip) st.sel = { skip: true };
      }
    } catch (e) {
      toast(e.message);
    } finally {
      st.hinting = false;
      render();
    }
  };

  const onKey = (ev) => {
    if (ev.target && /INPUT|TEXTAREA|SELECT/.test(ev.target.tagName)) return;
    if (document.querySelector("dialog[open]")) return;
    if (ev.key === "Escape" && st.sel) back();
    else if ((ev.key === "r" || ev.key === "R") && st.sel && st.sel.tile) turnArch();
    else if (/^[1-5]$/.test(ev.key) && st.game && myTurn(st)) {
      const i = Number(ev.key) - 1;
      const tile = st.game.view.display[i];
      const btn = tile && document.querySelector(`#display button[data-index="${i}"]`);
      if (btn && !btn.disabled) pickTile(tile);
    }
  };

  return { pickTile, onMyCell, chooseFrom, turnArch, pass, skip, back, confirm, hint, onKey };
}
