// The replay viewer: steps through a finished game of this server, or any record file
// (NOTATION.md) the user opens. The server replays through the rules (one place for the
// rules); this page asks it for the position after K decisions and draws it.

import { h, api } from "./ui.js";
import { renderGrounds, panZoom, tileSvg } from "./grounds.js";
import { decisionWords } from "./words.js";
import { scoreSheet, colorVar } from "./sheet.js";
import { mountAnalysis } from "./analysis.js";

export function mountReplay(root, { game }) {
  const st = { source: null, players: [], total: 0, at: 0, cache: new Map(), pos: null, timer: null, error: null };
  const page = h("div", { class: "replay-page" });
  root.append(page);

  const fetchAt = async (k) => {
    if (st.cache.has(k)) return st.cache.get(k);
    let r;
    if (st.source.kind === "game")
      r = await api("GET", `/api/games/${encodeURIComponent(st.source.id)}/replay?at=${k}`);
    else r = await api("POST", `/api/records/check?at=${k}`, st.source.record);
    st.cache.set(k, r);
    return r;
  };

  const go = async (k) => {
    k = Math.max(0, Math.min(st.total, k));
    try {
      const r = await fetchAt(k);
      st.at = k;
      st.pos = r;
      st.error = null;
    } catch (e) {
      st.error = e.message;
      stop();
    }
    render();
  };

  const play = () => {
    if (st.timer) return stop();
    st.timer = setInterval(() => {
      if (st.at >= st.total) return stop();
      go(st.at + 1);
    }, 700);
    render();
  };
  const stop = () => {
    clearInterval(st.timer);
    st.timer = null;
    render();
  };

  const openGame = async (id) => {
    try {
      const g = await api("GET", `/api/games/${encodeURIComponent(id)}`);
      st.source = { kind: "game", id };
      st.players = g.players;
      st.total = g.decision_number;
      st.cache.clear();
      await go(st.total);
    } catch (e) {
      st.error = e.message;
      render();
    }
  };

  const openRecord = async (text, name) => {
    let record;
    try {
      record = JSON.parse(text);
    } catch (e) {
      st.error = `${name} is not JSON: ${e.message}`;
      render();
      return;
    }
    try {
      const r = await api("POST", "/api/records/check?at=0", record);
      st.source = { kind: "record", record, name };
      st.players = r.players;
      st.total = r.decision_number;
      st.cache.clear();
      st.cache.set(0, r);
      await go(st.total);
    } catch (e) {
      st.error = `${name}: ${e.message}`;
      render();
    }
  };

  const onKey = (ev) => {
    if (!st.source || (ev.target && /INPUT|TEXTAREA|SELECT/.test(ev.target.tagName) && ev.target.type !== "range")) return;
    if (ev.key === "ArrowRight") go(st.at + 1);
    else if (ev.key === "ArrowLeft") go(st.at - 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(st.total);
    else return;
    ev.preventDefault();
  };
  document.addEventListener("keydown", onKey);

  const file = h("input", {
    type: "file",
    accept: ".json,application/json",
    id: "replay-file",
    onchange: async () => {
      const f = file.files[0];
      if (f) await openRecord(await f.text(), f.name);
      file.value = "";
    },
  });

  function render() {
    const head = h(
      "section",
      { class: "panel" },
      h("h1", {}, "Replay"),
      h("p", { class: "muted" }, "Open a game record (a .json file in the Kerala notation) to step through it, or use “Replay this game” at the end of a game."),
      h("button", { type: "button", id: "replay-open", onclick: () => file.click() }, "Open a record file…"),
      file,
    );
    file.style.display = "none";
    const parts = [head];
    if (st.error) parts.push(h("div", { class: "error-box", id: "replay-error", role: "alert" }, st.error));
    if (st.source && st.pos) {
      const v = st.pos.view;
      const btn = (label, title, fn, id) => h("button", { type: "button", title, "aria-label": title, onclick: fn, id }, label);
      const slider = h("input", {
        type: "range",
        min: 0,
        max: st.total,
        value: st.at,
        id: "replay-slider",
        "aria-label": "decision number",
        oninput: (e) => go(Number(e.target.value)),
      });
      const names = st.players.map((p) => p.name);
      const d = st.pos.decision;
      parts.push(
        h(
          "section",
          { class: "panel" },
          h(
            "div",
            { class: "replay-controls" },
            btn("|◀", "first", () => go(0), "replay-first"),
            btn("◀", "previous decision", () => go(st.at - 1), "replay-prev"),
            btn(st.timer ? "Pause" : "Play", st.timer ? "pause" : "play", play, "replay-play"),
            btn("▶", "next decision", () => go(st.at + 1), "replay-next"),
            btn("▶|", "last", () => go(st.total), "replay-last"),
            slider,
            h("span", { id: "replay-at" }, `${st.at} / ${st.total}`),
          ),
          h("p", { id: "replay-decision", "aria-live": "polite" }, d ? decisionWords(d, names[d.seat] ?? `Seat ${d.seat}`) : "Start of the game."),
          h(
            "div",
            { class: "row" },
            h("span", {}, `Round ${v.round + 1} · bag ${v.bag_count}`),
            h("span", { class: "display" }, v.display.map((t) => tileSvg(t, 40))),
          ),
        ),
      );
      if (st.pos.result)
        parts.push(
          h(
            "section",
            { class: "panel", id: "replay-result" },
            h("h2", {}, "Final scores"),
            scoreSheet(
              st.players,
              st.players.map((_, i) => st.pos.result.scores.find((x) => x.seat === i) || st.pos.result.scores[i]),
              st.pos.result.ranks,
              v.grounds,
            ),
          ),
        );
      const result = st.pos.result;
      parts.push(
        h(
          "div",
          { class: "others" },
          v.grounds.map((gr, i) => {
            const removed = result ? (result.scores.find((x) => x.seat === i) || result.scores[i]).removed_cells : [];
            const svg = renderGrounds(gr, { removed, label: `${names[i]}'s grounds` });
            const box = h("div", { class: "grounds-box small" }, svg);
            panZoom(svg, box);
            return h(
              "section",
              { class: "panel other" },
              h("h3", {}, h("span", {}, h("span", { class: "swatch", style: `background:${colorVar(gr.color)}` }), ` ${names[i]} · passes left ${2 - gr.passes}`)),
              box,
            );
          }),
        ),
      );
    }
    const hadFocus = document.activeElement && document.activeElement.id;
    page.replaceChildren(...parts);
    mountAnalysis(page, st, go);
    if (hadFocus && document.getElementById(hadFocus)) document.getElementById(hadFocus).focus();
  }

  render();
  if (game) openGame(game);
  return () => {
    clearInterval(st.timer);
    document.removeEventListener("keydown", onKey);
  };
}
