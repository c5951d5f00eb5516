// Draws the game table from the state: the status line, the display (with who took which tile),
// the action bar (prompt, or the confirm step in the same place, so the board never moves),
// every player's grounds with a header (name, color, to move, passes left, live score), the
// log (hovering a line outlines its cells) and the final screen.

import { h } from "../ui.js";
import { t } from "../i18n.js";
import { renderGrounds, panZoom, tileSvg, focusTarget } from "../grounds.js";
import { tileWords, tileTip, parseTile, edgeWord, cellWords, key, sameCell, colorWord } from "../tiles.js";
import { logLines, decisionQuestion, levelWords } from "../words.js";
import { scoreSheet, colorVar, fmt } from "../sheet.js";
import { hlRing, markSurplus } from "../grounds.js";
import { analyse, canTurn, chosen, displayTiles, lastTurns, myMarks, myTurn, placesFor, uniq } from "./state.js";

/** Where the pointer last was. The table is drawn anew at every update, and the browser sends
 * no mouseenter or mouseleave to the new elements under a pointer that has not moved, so the
 * log's hover outline is carried over a redraw by position (`moved` is the page's check). */
const pointer = { x: -1, y: -1, moved: null };
document.addEventListener(
  "mousemove",
  (e) => {
    pointer.x = e.clientX;
    pointer.y = e.clientY;
    if (pointer.moved) pointer.moved();
  },
  { passive: true },
);

/**
 * Short names that tell the seats apart where a full name has no room (the phone's strip of
 * the others, the display's takers): the first letter of each word (at most three), made
 * longer from the last word while two seats would read alike, the seat's number at worst.
 * >>> initials(["Player One", "Player Two", "Player Three"]) // ["PO", "PTw", "PTh"]
 */
export function initials(names) {
  const words = names.map((n) => String(n).trim().split(/\s+/).filter(Boolean));
  const short = (w, k) => {
    if (!w.length) return "?";
    const last = w[w.length - 1];
    const firsts = w.slice(0, -1).slice(0, 2).map((x) => [...x][0].toUpperCase()).join("");
    const l = [...last];
    return firsts + l[0].toUpperCase() + l.slice(1, k).join("").toLowerCase();
  };
  const out = words.map((w) => short(w, 1));
  for (let k = 2; k <= 4; k++) {
    const clash = out.map((x, i) => out.filter((y) => y === x).length > 1 && words[i].length);
    if (!clash.some(Boolean)) break;
    clash.forEach((c, i) => {
      if (c) out[i] = short(words[i], k);
    });
  }
  return out.map((x, i) => (out.filter((y) => y === x).length > 1 ? `${x}${i + 1}` : x));
}

/** Whether this page's seat is played by a bot now (timed out, or handed over). */
const handed = (g) => g.seat !== null && g.players[g.seat] && g.players[g.seat].handed_to_bot;

export function renderer(st, page, ui) {
  // The log line under the pointer (its index) and the log drawn last, kept over redraws.
  let hovered = null;
  let drawnLog = null;
  const underPointer = () => {
    const el = document.elementFromPoint(pointer.x, pointer.y);
    const li = el && el.closest ? el.closest("#log li") : null;
    return li && hovered !== null && Number(li.dataset.line) === hovered;
  };
  pointer.moved = () => {
    if (hovered !== null && drawnLog && !underPointer()) {
      drawnLog.highlight(drawnLog.lines[hovered], false);
      hovered = null;
    }
  };
  const initialsOf = (i) => initials(st.game.players.map((p) => p.name))[i];
  const badge = (i) => {
    const p = st.game.players[i];
    return h("span", { class: "seat-initials", title: p.name, "aria-hidden": "true", style: `background:${colorVar(p.color)}` }, initialsOf(i));
  };
  const nameOf = (i) => (st.game && st.game.players[i] ? st.game.players[i].name : t("words.seat", { n: i + 1 }));

  function prompt() {
    const g = st.game;
    if (g.status === "over") return t("prompt.over");
    if (g.seat === null) return t("prompt.watching", { name: nameOf(g.to_move) });
    if (handed(g)) return t("prompt.handed", { bot: levelWords(g.players[g.seat].bot || g.handover_bot) });
    if (!myTurn(st)) {
      const p = g.players[g.to_move];
      return p && p.kind === "bot" ? t("prompt.botThinking", { name: p.name }) : t("prompt.waiting", { name: nameOf(g.to_move) });
    }
    if (st.busy) return t("prompt.sending");
    const a = analyse(g.legal);
    const s = st.sel;
    if (a.follow.length || a.skip) {
      if (!s || !s.source) return t(g.view.pending === "move-elephant" ? "prompt.pickElephant" : "prompt.pickStack");
      return t("prompt.pickDest");
    }
    if (!s || !s.tile) return t(a.pass ? "prompt.yourTurnPass" : "prompt.yourTurn");
    if (!s.to) return t("prompt.pickCell", { tile: tileWords(s.tile) });
    return t("prompt.pickWhich");
  }

  // ---- the parts ------------------------------------------------------------------------
  function statusLine() {
    const g = st.game;
    const v = g.view;
    const over = g.status === "over";
    return h(
      "div",
      { class: "status-line", id: "status", "data-region": "status", tabindex: "-1" },
      h("span", { class: `turn ${myTurn(st) ? "you" : ""}`, id: "turn" }, over ? t("status.over") : myTurn(st) ? t("status.yourTurn") : t("status.theirTurn", { name: nameOf(g.to_move) })),
      h("span", { class: "muted" }, t("status.round", { n: v.round + 1 })),
      h("span", { id: "bag", class: "muted" }, t("status.bag", { n: v.bag_count })),
      h("span", { id: "rated-mark", class: "muted", "data-rated": String(Boolean(g.rated)), title: t(g.rated ? "status.ratedTip" : "status.casualTip") }, t(g.rated ? "status.rated" : "status.casual")),
      h(
        "span",
        { class: "status-tools" },
        h(
          "button",
          { type: "button", id: "sound", class: "small", "aria-pressed": String(ui.sound()), title: t("status.soundTip"), onclick: ui.toggleSound },
          h("span", { class: ui.sound() ? "sound-on" : "sound-off", "aria-hidden": "true" }, "♪"),
          h("span", { class: "visually-hidden" }, t("status.sound")),
        ),
        h(
          "button",
          { type: "button", id: "chat-toggle", class: "small", title: t("chat.open"), "aria-label": t("chat.open"), onclick: ui.openChat },
          "💬",
          ui.chatUnread() ? h("span", { class: "chat-unread", id: "chat-unread" }, String(ui.chatUnread())) : null,
        ),
        st.game.seat !== null
          ? h("button", { type: "button", id: "notify", class: "small", "aria-pressed": String(ui.notifyOn()), title: t("notify.tip"), "aria-label": t("notify.label"), onclick: ui.toggleNotify }, "🔔")
          : null,
        h("button", { type: "button", id: "coords", class: "small", "aria-pressed": String(ui.coords()), title: t("board.coordsTip"), "aria-label": t("board.coords"), onclick: ui.toggleCoords }, "(x, y)"),
        h("button", { type: "button", id: "show-log", class: "small phone-only", "aria-expanded": String(st.showLog), onclick: ui.toggleLog }, t("status.log")),
      ),
    );
  }

  function display() {
    const g = st.game;
    const v = g.view;
    const a = analyse(g.legal);
    const canPick = myTurn(st) && !st.busy && a.places.length > 0;
    const takeable = new Set(a.places.map((d) => d.take));
    const items = displayTiles(v);
    const owner = v.round % g.players.length;
    return h(
      "div",
      { class: "display-row", "data-region": "display", tabindex: "-1" },
      h("span", { class: "display-label muted" }, t("display.label", { name: nameOf(owner) })),
      h(
        "div",
        { class: "display", id: "display", role: "group", "aria-label": t("display.aria") },
        items.length
          ? items.map((it) => {
              if (it.by !== null) {
                const p = g.players[it.by];
                return h(
                  "div",
                  { class: "tile-taken", "data-tile": it.tile, "data-by": it.by, title: t("display.takenBy", { tile: tileWords(it.tile), name: p.name }) },
                  tileSvg(it.tile, 40),
                  h("span", { class: "taker" }, badge(it.by), h("span", { class: "visually-hidden" }, p.name)),
                );
              }
              const selected = st.sel && st.sel.tile === it.tile;
              const edge = selected && st.sel.edge ? st.sel.edge : "N";
              return h(
                "button",
                {
                  type: "button",
                  class: "tile-btn",
                  "data-tile": it.tile,
                  "data-index": it.index,
                  "data-focus": `tile:${it.index}`,
                  "aria-pressed": String(!!selected),
                  title: tileTip(it.tile),
                  "aria-label": `${tileWords(it.tile)}${parseTile(it.tile).archColor ? `, ${t("tile.facing", { edge: edgeWord(edge) })}` : ""}`,
                  disabled: !(canPick && takeable.has(it.tile)),
                  onclick: () => ui.act.pickTile(it.tile),
                  onkeydown: displayArrows,
                },
                tileSvg(it.tile, 56, { edge }),
              );
            })
          : h("span", { class: "muted" }, g.status === "over" ? "" : t("display.empty")),
      ),
    );
  }

  /** Left and right arrows step along the display's tiles that can be taken. */
  function displayArrows(ev) {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 }[ev.key];
    if (!step) return;
    ev.preventDefault();
    const all = [...page.querySelectorAll("#display button:not([disabled])")];
    const next = all[all.indexOf(ev.currentTarget) + step];
    if (next) next.focus();
  }

  function turnButton() {
    // The short label where the action bar is narrow (a phone), the long one elsewhere.
    const edge = edgeWord(st.sel.edge);
    return h(
      "button",
      { type: "button", id: "turn-arch", onclick: ui.act.turnArch, title: t("action.turnTip"), "aria-label": t("action.turn", { edge }) },
      h("span", { class: "wide-only" }, t("action.turn", { edge })),
      h("span", { class: "narrow-only", "aria-hidden": "true" }, t("action.turnShort", { edge })),
    );
  }

  function actionBar() {
    const g = st.game;
    const a = analyse(g.legal);
    const sel = st.sel;
    const d = chosen(st);
    const bar = h("div", { class: "actionbar", id: "actionbar", "data-region": "action", tabindex: "-1" });
    if (g.status === "over") {
      bar.append(h("p", { class: "prompt", id: "prompt" }, t("prompt.over")));
      return bar;
    }
    const mine = myTurn(st);
    if (mine && d) {
      bar.append(
        h(
          "div",
          { class: "confirm", id: "confirm" },
          h("span", { id: "confirm-text" }, st.hint === d ? t("hint.prefix") : "", decisionQuestion(d)),
          h(
            "span",
            { class: "buttons" },
            canTurn(st) ? turnButton() : null,
            h("button", { type: "button", id: "back", onclick: ui.act.back }, t("action.back")),
            h("button", { type: "button", class: "primary", id: "confirm-btn", disabled: st.busy, onclick: ui.act.confirm }, t("action.confirm")),
          ),
        ),
      );
      return bar;
    }
    bar.append(h("p", { class: "prompt", id: "prompt", "aria-live": "polite" }, prompt()));
    // Whoever's seat a bot plays can always take it back, clock or not, in one press.
    if (handed(st.game) && st.game.status === "playing") bar.append(h("button", { type: "button", id: "take-back", class: "primary", onclick: ui.takeBack }, t("clock.back")));
    const controls = h("div", { class: "controls" });
    if (mine) {
      if (sel && sel.tile && sel.to && !sel.from) {
        const froms = uniq(placesFor(st, sel.tile).filter((x) => sameCell(x.to, sel.to)).map((x) => x.from));
        controls.append(
          h(
            "span",
            { class: "row", id: "elephant-choice" },
            t("action.which"),
            froms.map((f) => h("button", { type: "button", "data-from": key(f), onclick: () => ui.act.chooseFrom(f) }, t("action.theOneOn", { cell: cellWords(f) }))),
          ),
        );
      }
      if (canTurn(st)) controls.append(turnButton());
      // While a placement is being made only its own buttons show (the bar keeps its height).
      const placing = !!(sel && sel.tile);
      if (placing) {
        controls.append(h("button", { type: "button", id: "back", onclick: ui.act.back }, t("action.back")));
        bar.append(controls);
        return bar;
      }
      if (a.pass) controls.append(h("button", { type: "button", id: "pass", disabled: st.busy, onclick: ui.act.pass }, t("action.pass", { n: 2 - g.view.grounds[g.seat].passes })));
      else if (a.places.length) controls.append(h("span", { class: "muted", id: "no-pass" }, t("action.noPass")));
      if (a.skip) controls.append(h("button", { type: "button", id: "skip", disabled: st.busy, onclick: ui.act.skip }, t("action.skip")));
      if (st.hintRoute && g.hints)
        controls.append(h("button", { type: "button", id: "hint", disabled: st.hinting, onclick: ui.act.hint }, st.hinting ? t("hint.thinking") : t("hint.ask")));
      if (sel) controls.append(h("button", { type: "button", id: "back", onclick: ui.act.back }, t("action.back")));
    } else {
      const ho = handOver();
      if (ho) controls.append(ho);
    }
    bar.append(controls);
    return bar;
  }

  function handOver() {
    const g = st.game;
    if (g.status === "over" || g.seat === null || g.to_move === null || g.to_move === g.seat) return null;
    const p = g.players[g.to_move];
    if (!p || p.kind === "bot" || p.handed_to_bot) return null;
    const since = Date.parse(g.turn_started_at || "");
    const wait = (g.seat_timeout || 0) * 1000 - (Date.now() - since);
    if (!(wait <= 0)) return null;
    return h(
      "span",
      { class: "row" },
      t("handover.silent", { name: p.name }),
      h("button", { type: "button", id: "hand-over", onclick: () => ui.handOver(g.to_move) }, t("handover.button", { name: p.name })),
    );
  }

  function scoreOf(i) {
    const g = st.game;
    if (g.status === "over" && g.result) return g.result.scores.find((x) => x.seat === i) || g.result.scores[i];
    // A score is shown only for the grounds it was computed for (never a stale one).
    if (!st.scores || !st.scoredGrounds || st.scoredGrounds[i] !== JSON.stringify(g.view.grounds[i])) return null;
    return st.scores[i];
  }

  function seatHeader(i, { enlarge = true } = {}) {
    const g = st.game;
    const p = g.players[i];
    const gr = g.view.grounds[i];
    const sc = scoreOf(i);
    const toMove = g.to_move === i && g.status !== "over";
    const parts = sc
      ? [
          t("score.symbols", { n: sc.symbols }),
          t("score.standing", { n: fmt(sc.standing) }),
          t("score.arches", { n: fmt(sc.arches) }),
          t("score.surplus", { n: fmt(sc.surplus) }),
          t("score.missing", { n: fmt(sc.missing) }),
        ]
      : [];
    return h(
      "header",
      { class: `seat-head ${toMove ? "to-move" : ""}`, "data-seat": i },
      h(
        "div",
        { class: "seat-line" },
        h("span", { class: "to-move-mark", "aria-hidden": String(!toMove), title: t("seat.toMove") }, toMove ? "▶" : ""),
        h("span", { class: "seat-chip", title: p.name }, badge(i), h("span", { class: "swatch", style: `background:${colorVar(p.color)}` }), h("span", { class: "seat-name" }, p.name)),
        h(
          "span",
          { class: "seat-meta muted" },
          [colorWord(p.color), p.kind === "bot" ? t("seat.bot") : null, p.handed_to_bot ? t("seat.handed") : null, g.seat === i ? t("seat.you") : null].filter(Boolean).join(" · "),
        ),
        toMove ? h("span", { class: "visually-hidden" }, t("seat.toMove")) : null,
        h("span", { class: "passes", title: t("seat.passesTip") }, t("seat.passes", { n: 2 - gr.passes })),
        h(
          "span",
          { class: "live-score", "data-score": sc ? sc.total : "", title: sc ? `${g.status === "over" ? t("score.final") : t("score.ifNow")}: ${parts.join(", ")}` : "" },
          sc ? t("score.points", { n: sc.total }) : "…",
        ),
        enlarge ? h("button", { type: "button", class: "small enlarge", "data-enlarge": i, "data-focus": `enlarge:${i}`, title: t("seat.enlarge"), "aria-label": t("seat.enlargeAria", { name: p.name }), onclick: () => ui.enlarge(i) }, "⤢") : null,
      ),
      // Each part keeps its words together; the parts wrap as lines, never cut with "…".
      h("div", { class: "breakdown muted", "data-breakdown": i }, sc ? parts.flatMap((x, k) => (k ? [" · ", h("span", {}, x)] : [h("span", {}, x)])) : "\u00a0"),
    );
  }

  function groundsBox(i, size) {
    const g = st.game;
    const gr = g.view.grounds[i];
    const mine = g.seat === i && size !== "zoom";
    const sel = st.sel;
    const over = g.status === "over";
    const sc = scoreOf(i);
    const ghost = mine && sel && sel.tile && sel.to ? { at: sel.to, tile: sel.edge ? `${sel.tile}@${sel.edge}` : sel.tile } : null;
    const svg = renderGrounds(gr, {
      marks: mine ? myMarks(st) : [],
      onCell: mine ? ui.act.onMyCell : null,
      removed: over && sc ? sc.removed_cells || [] : [],
      surplus: !over && sc ? sc.removed_cells || [] : [],
      recent: st.recent ? st.recent[i] : [],
      fresh: size === "zoom" ? [] : st.fresh.get(i) || [],
      moves: size === "zoom" ? [] : st.moves.get(i) || [],
      ghost,
      coords: ui.coords(),
      label: t("board.label", { name: g.players[i].name, color: colorWord(gr.color) }),
    });
    const box = h("div", { class: `grounds-box ${size}`, "data-seat": i });
    box.append(svg);
    const viewKey = `${size}:${i}`;
    const kept = st.views.get(viewKey);
    if (kept && kept.base === svg.dataset.baseViewbox) svg.setAttribute("viewBox", kept.vb);
    panZoom(svg, box, (vb) => st.views.set(viewKey, { base: svg.dataset.baseViewbox, vb }));
    box.querySelectorAll(".zoombar button").forEach((b, k) => (b.dataset.focus = `zoom:${viewKey}:${k}`));
    if (size === "small")
      box.addEventListener("click", (ev) => {
        if (svg.dataset.dragged !== "1" && !ev.target.closest("button")) ui.enlarge(i);
      });
    return box;
  }

  function seatPanel(i, size) {
    const g = st.game;
    return h(
      "section",
      { class: `seat-panel ${g.seat === i ? "mine-panel" : "other"} ${g.to_move === i && g.status !== "over" ? "to-move" : ""}`, "data-seat": i, "aria-label": t("board.label", { name: g.players[i].name, color: colorWord(g.players[i].color) }) },
      seatHeader(i),
      groundsBox(i, size),
    );
  }

  function logPanel() {
    const g = st.game;
    // A timed game's timeouts and take-backs (the clock's events) and every hint taken (public:
    // everyone sees who asked the engine) stand among the decisions.
    const hints = (g.hints_taken || []).map((e) => ({ ...e, kind: "hint" }));
    const lines = logLines(g.view.decisions, g.players.map((p) => p.name), [...((g.clock && g.clock.events) || []), ...hints]);
    const highlight = (l, on) => {
      for (const svg of page.querySelectorAll(`.grounds-box[data-seat="${l.seat}"] svg.grounds-svg`)) {
        for (const old of svg.querySelectorAll(".hl-ring")) old.remove();
        if (on) for (const c of l.cells || []) svg.append(hlRing(c.at));
      }
    };
    const log = h(
      "ol",
      { class: "log", id: "log", "aria-label": t("log.aria") },
      lines.map((l, i) =>
        h(
          "li",
          {
            class: l.round ? "round muted" : l.clock ? "clock-event" : "",
            "data-seat": l.seat ?? null,
            "data-line": i,
            "data-focus": `log:${i}`,
            onmouseenter: () => {
              hovered = i;
              highlight(l, true);
            },
            onmouseleave: () => {
              hovered = null;
              highlight(l, false);
            },
            onfocus: () => highlight(l, true),
            onblur: () => highlight(l, false),
            tabindex: l.round ? null : "-1",
          },
          l.text,
        ),
      ),
    );
    drawnLog = { lines, highlight };
    return h(
      "section",
      { class: `log-panel ${st.showLog ? "open" : ""}`, id: "log-panel" },
      h("h2", {}, t("log.title"), h("button", { type: "button", class: "small phone-only", "data-focus": "log-close", onclick: ui.toggleLog, "aria-label": t("action.close") }, "✕")),
      log,
      h("p", {}, h("a", { href: ui.recordPath, download: `kerala-${ui.id}.json`, id: "record-link" }, t("end.download")), " · ", plainRecordLink("")),
    );
  }

  /** The record without its optional fields (the clock's), which older programs read
   * (docs/notation.md, "The plain form"). */
  function plainRecordLink(cls) {
    return h("a", { class: cls || null, "data-focus": `plain:${cls}`, href: `${ui.recordPath}?extensions=none`, download: `kerala-${ui.id}-plain.json`, title: t("end.downloadPlainTip") }, t("end.downloadPlain"));
  }

  /** The rematch once someone asked for it: a seat plays it with its own token, a watcher
   * gets a link to watch it. */
  function rematchOffer() {
    const g = st.game;
    const r = st.rematch;
    if (!r) return null;
    // The person who asked reads that they did, not their own name as if someone else had.
    const by =
      g.seat !== null && r.by === g.seat
        ? t("end.rematchYours")
        : g.players[r.by]
          ? t("end.rematchBy", { name: g.players[r.by].name })
          : t("end.rematchOffered");
    return h(
      "p",
      { class: "row rematch-offer", id: "rematch-offer", role: "status" },
      h("span", {}, by),
      g.seat !== null
        ? h("button", { type: "button", class: "primary", id: "play-rematch", disabled: st.asking, onclick: ui.rematch }, t("end.playRematch"))
        : h("a", { class: "button primary", id: "watch-rematch", href: `/?game=${encodeURIComponent(r.game)}` }, t("end.watchRematch")),
    );
  }

  function endPanel() {
    const g = st.game;
    const r = g.result;
    const scores = g.players.map((_, i) => r.scores.find((x) => x.seat === i) || r.scores[i]);
    const best = Math.min(...r.ranks);
    const winners = g.players.filter((_, i) => r.ranks[i] === best).map((p) => p.name);
    const me = g.seat;
    return h(
      "section",
      { class: "end-panel", id: "end" },
      h("h2", {}, t("end.title")),
      h(
        "p",
        { id: "winner", class: "winner" },
        winners.length > 1 ? t("end.shared", { names: winners.join(t("end.and")) }) : me !== null && winners[0] === g.players[me].name && r.ranks[me] === best ? t("end.youWin") : t("end.wins", { name: winners[0] }),
      ),
      rematchOffer(),
      h(
        "p",
        { class: "row end-actions" },
        me !== null && !st.rematch ? h("button", { type: "button", class: "primary", id: "rematch", disabled: st.asking, onclick: ui.rematch }, t("end.rematch")) : null,
        h("button", { type: "button", id: "same-again", class: me === null && !st.rematch ? "primary" : "", onclick: () => ui.again() }, t("end.again")),
        h("a", { class: "button", href: `#/replay?game=${encodeURIComponent(ui.id)}`, id: "replay-link" }, t("end.replay")),
        h("a", { class: "button", href: ui.recordPath, download: `kerala-${ui.id}.json` }, t("end.download")),
        plainRecordLink("button"),
        h("a", { class: "button", href: "#/" }, t("end.home")),
      ),
      st.created ? ui.createdLinks(st.created) : null,
      scoreSheet(g.players, scores, r.ranks),
      h("p", { class: "muted" }, t("end.crossed")),
    );
  }

  function zoomDialog() {
    if (st.zoomSeat === null || !st.game) return null;
    const i = st.zoomSeat;
    const dlg = h(
      "dialog",
      { class: "zoom-dialog", id: "zoom", "aria-label": t("board.label", { name: nameOf(i), color: colorWord(st.game.players[i].color) }), oncancel: (e) => { e.preventDefault(); ui.enlarge(null); } },
      h("div", { class: "zoom-head" }, seatHeader(i, { enlarge: false }), h("button", { type: "button", id: "zoom-close", onclick: () => ui.enlarge(null) }, t("action.close"))),
      groundsBox(i, "zoom"),
    );
    return dlg;
  }

  /** New live scores: update the headers and the surplus marks in place (no full redraw). */
  function patchScores() {
    const g = st.game;
    if (!g || g.status === "over") return;
    g.players.forEach((_, i) => {
      for (const old of page.querySelectorAll(`.seat-head[data-seat="${i}"]`))
        old.replaceWith(seatHeader(i, { enlarge: !old.closest("dialog") }));
      const sc = scoreOf(i);
      for (const svg of page.querySelectorAll(`.grounds-box[data-seat="${i}"] svg.grounds-svg`)) markSurplus(svg, sc ? sc.removed_cells || [] : []);
    });
  }

  // ---- the page -------------------------------------------------------------------------
  function render() {
    const g = st.game;
    if (!g) {
      page.replaceChildren(
        st.loadError
          ? h("div", { class: "error-box", id: "game-error" }, st.loadError, " ", h("a", { href: "#/" }, t("error.home")))
          : h("p", {}, t("game.loading")),
      );
      return;
    }
    const v = g.view;
    const over = g.status === "over";
    const me = g.seat;
    st.recent = lastTurns(v, g.players.length);
    page.dataset.decisionNumber = String(g.decision_number);
    page.dataset.status = g.status;
    page.dataset.myTurn = myTurn(st) && !st.busy ? "1" : "0";
    page.dataset.phase = v.phase;
    page.dataset.players = String(g.players.length);
    document.title = over ? t("title.over") : myTurn(st) ? t("title.yourTurn") : t("app.title");

    const order = g.players.map((_, i) => i).filter((i) => i !== me);
    const fe = document.activeElement;
    const hadFocus = !!fe && fe !== document.body && page.contains(fe);
    const focusWas = hadFocus ? focusKey(fe) : null;
    const focusCell = hadFocus && fe.getAttribute("role") === "button" && fe.dataset.x !== undefined;
    const region = hadFocus && fe.closest("[data-region]") ? fe.closest("[data-region]").dataset.region : null;
    const hadConfirm = !!page.querySelector("#confirm-btn");
    const oldLog = page.querySelector("#log");
    const follow = !oldLog || oldLog.scrollHeight - oldLog.scrollTop - oldLog.clientHeight < 40;
    const oldTop = oldLog ? oldLog.scrollTop : 0;

    const main =
      me !== null ? seatPanel(me, "mine") : order.length ? seatPanel(order.shift(), "featured") : null;
    const table = h(
      "div",
      { class: `table ${over ? "over" : ""} others-${order.length}`, id: "table" },
      statusLine(),
      display(),
      actionBar(),
      main ? h("div", { class: "main-area", "data-region": "mine", tabindex: "-1" }, main) : null,
      h("div", { class: "others", id: "others", "data-region": "others", tabindex: "-1" }, order.map((i) => seatPanel(i, "small"))),
      h("aside", { class: "side", "data-region": "side", tabindex: "-1" }, over && g.result ? endPanel() : null, logPanel()),
    );
    const old = page.querySelector("#zoom");
    if (old && old.open) old.close();
    const dlg = zoomDialog();
    page.replaceChildren(h("h1", { class: "visually-hidden" }, t("game.heading")), table, ...(dlg ? [dlg] : []));
    if (dlg) dlg.showModal();
    const log = page.querySelector("#log");
    log.scrollTop = follow ? log.scrollHeight : oldTop;
    // A log line still under the still pointer keeps its outline (see `pointer`).
    if (hovered !== null) {
      if (drawnLog && drawnLog.lines[hovered] && underPointer()) drawnLog.highlight(drawnLog.lines[hovered], true);
      else hovered = null;
    }
    placeFocus({ hadFocus, focusWas, focusCell, region, hadConfirm });
  }

  /** A name for a focused element that survives a redraw (the table is drawn anew). */
  function focusKey(el) {
    if (el.id) return `#${CSS.escape(el.id)}`;
    if (el.dataset.focus) return `[data-focus="${CSS.escape(el.dataset.focus)}"]`;
    const box = el.closest(".grounds-box");
    if (box && el.dataset.x !== undefined)
      return `.grounds-box.${[...box.classList].filter((c) => c !== "grounds-box").join(".")}[data-seat="${box.dataset.seat}"] [role="button"][data-x="${el.dataset.x}"][data-y="${el.dataset.y}"]`;
    return null;
  }

  const usable = (el) => !!el && !el.disabled && el.getClientRects().length > 0;

  /** Where the player's next step is: the confirm step, the elephant to choose, the board's
   * cells, or the display's tiles. */
  function nextStep() {
    const g = st.game;
    if (!myTurn(st) || st.busy) return null;
    const cb = page.querySelector("#confirm-btn");
    if (cb) return cb;
    const s = st.sel;
    const board = focusTarget(page.querySelector(".grounds-box.mine svg"));
    if (s && s.tile && s.to && !s.from) return page.querySelector("#elephant-choice button") || board;
    if ((s && (s.tile || s.source)) || analyse(g.legal).follow.length) return board;
    return page.querySelector("#display button:not([disabled])");
  }

  /** Keep the keyboard focus where the player is: a redraw (a move of anyone's, a new live
   * score) puts it back on the same element, or on its part of the table, never on the top of
   * the page. A step the player took moves it on: picking a tile to the board, a complete
   * decision to Confirm, going back to the tile picked; a turn that starts while the focus
   * waits on a part of the table, to the first thing to do. */
  function placeFocus({ hadFocus, focusWas, focusCell, region, hadConfirm }) {
    const put = (el) => {
      el.focus({ preventScroll: true });
      return document.activeElement === el;
    };
    const cb = page.querySelector("#confirm-btn");
    const intent = st.focusNext;
    st.focusNext = null;
    if (intent === "step" && usable(nextStep()) && put(nextStep())) return;
    if (intent && intent !== "step") {
      const el = page.querySelector(intent);
      if (usable(el) && put(el)) return;
    }
    if (cb && usable(cb) && (!hadConfirm || focusCell || !hadFocus) && put(cb)) return;
    if (!hadFocus) return; // nothing was focused (a pointer user): leave it so
    const same = focusWas ? page.querySelector(focusWas) : null;
    const parked = !!same && same.dataset.region !== undefined;
    if (usable(same) && !parked && put(same)) return;
    // The element is gone (or disabled) or the focus waits on a part of the table: at the
    // start of the player's turn, the first thing to do; else that part of the table.
    if ((parked || !usable(same)) && ["display", "action", "mine"].includes(region)) {
      const next = nextStep();
      if (usable(next) && put(next)) return;
    }
    const part = region ? page.querySelector(`[data-region="${region}"]`) : null;
    if (part && put(part)) return;
    put(page.querySelector("#table"));
  }

  return { render, patchScores };
}
