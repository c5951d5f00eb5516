// The replay viewer: steps through a finished game of this server, or any record file the
// user opens. The server replays through the rules (one place for the rules); this page asks
// it for the position after K decisions and draws it. It opens at the start; the arrow keys
// step; each step's change is outlined; any grounds can be enlarged. A timed game's clock
// events (a seat's time ran out, a player handed it to a bot, its player took it back) are
// told at the step they followed.

import { h, api } from "./ui.js";
import { t } from "./i18n.js";
import { renderGrounds, panZoom, tileSvg } from "./grounds.js";
import { decisionWords, decisionCells, decisionMoves, clockWords } from "./words.js";
import { scoreSheet, colorVar } from "./sheet.js";
import { mountAnalysis } from "./analysis.js";
import { colorWord } from "./tiles.js";
import { heldSeats, tabSeats } from "./session.js";

export function mountReplay(root, { game }) {
  const st = { source: null, players: [], events: [], total: 0, at: 0, cache: new Map(), pos: null, timer: null, error: null, zoom: null };
  const page = h("div", { class: "replay-page" });
  root.append(page);

  const fetchAt = async (k) => {
    if (st.cache.has(k)) return st.cache.get(k);
    let r;
    if (st.source.kind === "game") r = await api("GET", `/api/games/${encodeURIComponent(st.source.id)}/replay?at=${k}`);
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
    if (st.at >= st.total) st.at = 0;
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
      st.events = (g.clock && g.clock.events) || [];
      st.total = g.decision_number;
      st.cache.clear();
      loadChat(id);
      await go(0);
    } catch (e) {
      st.error = e.message;
      render();
    }
  };

  // The game's chat, for its players (a seat of this tab, or one the account holds).
  const loadChat = async (id) => {
    st.chat = null;
    try {
      const seats = tabSeats().filter((s) => s.game === id);
      const mine = seats.length ? seats[0] : (await heldSeats(id))[0];
      if (!mine) return;
      st.chat = (await api("GET", `/api/games/${encodeURIComponent(id)}/chat`, undefined, { Authorization: `Bearer ${mine.token}` })).messages;
      render();
    } catch {
      /* no chat for this page: the replay works without it */
    }
  };

  const chatSection = () =>
    st.chat && st.chat.length
      ? h(
          "section",
          { class: "panel", id: "replay-chat" },
          h("h2", {}, t("chat.open")),
          h(
            "ol",
            { class: "chat-list" },
            st.chat.map((m) => h("li", { class: `chat-msg ${m.channel}` }, h("strong", {}, m.name), " ", m.phrase ? t(`chat.phrase.${m.phrase}`) : m.text)),
          ),
        )
      : null;

  const openRecord = async (text, name) => {
    let record;
    try {
      record = JSON.parse(text);
    } catch (e) {
      st.error = t("replay.notJson", { name, error: e.message });
      render();
      return;
    }
    try {
      const r = await api("POST", "/api/records/check?at=0", record);
      st.source = { kind: "record", record, name };
      st.players = r.players;
      st.events = (record.clock && Array.isArray(record.clock.events) && record.clock.events) || [];
      st.total = r.decision_number;
      st.cache.clear();
      st.cache.set(0, r);
      await go(0);
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
    else if (ev.key === "Escape" && st.zoom !== null) {
      st.zoom = null;
      render();
    } else return;
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

  function board(i, size) {
    const v = st.pos.view;
    const gr = v.grounds[i];
    const result = st.at === st.total ? st.pos.result : null;
    const d = st.pos.decision;
    const removed = result ? (result.scores.find((x) => x.seat === i) || result.scores[i]).removed_cells : [];
    const changed = d && d.seat === i ? decisionCells(d) : [];
    const svg = renderGrounds(gr, { removed, recent: changed, fresh: changed.filter((c) => c.kind !== "from").map((c) => c.at), moves: d && d.seat === i ? decisionMoves(d) : [], label: t("board.label", { name: st.players[i].name, color: colorWord(gr.color) }) });
    const box = h("div", { class: `grounds-box ${size}`, "data-seat": i }, svg);
    panZoom(svg, box);
    return box;
  }

  /** The clock's events after this step's decision (a timeout, a hand-over, a take-back), or nothing. */
  function clockNote(names) {
    const here = st.events.filter((e) => e.at === st.at);
    if (!here.length) return null;
    const nameOf = (seat) => names[seat] ?? t("words.seat", { n: seat + 1 });
    const text = here.map((e) => clockWords(e, nameOf(e.seat), Number.isInteger(e.by) ? nameOf(e.by) : undefined)).join(" · ");
    return h("p", { id: "replay-clock", class: "clock-event", "aria-live": "polite" }, text);
  }

  function render() {
    const head = h(
      "section",
      { class: "panel" },
      h("h1", {}, t("replay.title")),
      h("p", { class: "muted" }, t("replay.intro")),
      h("button", { type: "button", id: "replay-open", onclick: () => file.click() }, t("replay.open")),
      file,
    );
    file.style.display = "none";
    const parts = [head];
    if (st.error) parts.push(h("div", { class: "error-box", id: "replay-error", role: "alert" }, st.error));
    let dlg = null;
    if (st.source && st.pos) {
      const v = st.pos.view;
      const btn = (label, title, fn, id) => h("button", { type: "button", title, "aria-label": title, onclick: fn, id }, label);
      const slider = h("input", { type: "range", min: 0, max: st.total, value: st.at, id: "replay-slider", "aria-label": t("replay.slider"), oninput: (e) => go(Number(e.target.value)) });
      const names = st.players.map((p) => p.name);
      const d = st.pos.decision;
      parts.push(
        h(
          "section",
          { class: "panel" },
          h(
            "div",
            { class: "replay-controls" },
            btn("|◀", t("replay.first"), () => go(0), "replay-first"),
            btn("◀", t("replay.prev"), () => go(st.at - 1), "replay-prev"),
            btn(st.timer ? t("replay.pause") : t("replay.play"), st.timer ? t("replay.pause") : t("replay.play"), play, "replay-play"),
            btn("▶", t("replay.next"), () => go(st.at + 1), "replay-next"),
            btn("▶|", t("replay.last"), () => go(st.total), "replay-last"),
            slider,
            h("span", { id: "replay-at" }, `${st.at} / ${st.total}`),
          ),
          h("p", { id: "replay-decision", "aria-live": "polite" }, d ? decisionWords(d, names[d.seat] ?? t("words.seat", { n: d.seat + 1 })) : t("replay.start")),
          clockNote(names),
          h("p", { class: "muted" }, t("replay.keys")),
          h("p", { id: "replay-running" }, t("replay.running", { scores: (st.pos.running_totals || []).map((n, i) => `${names[i]} ${n}`).join(" · ") })),
          h("div", { class: "row" }, h("span", {}, t("replay.where", { round: v.round + 1, bag: v.bag_count })), h("span", { class: "display" }, v.display.map((x) => tileSvg(x, 40)))),
        ),
      );
      if (st.pos.result && st.at === st.total)
        parts.push(
          h(
            "section",
            { class: "panel", id: "replay-result" },
            h("h2", {}, t("end.title")),
            scoreSheet(st.players, st.players.map((_, i) => st.pos.result.scores.find((x) => x.seat === i) || st.pos.result.scores[i]), st.pos.result.ranks),
          ),
        );
      parts.push(
        h(
          "div",
          { class: "replay-boards" },
          v.grounds.map((gr, i) =>
            h(
              "section",
              { class: `panel other ${d && d.seat === i ? "changed" : ""}`, "data-seat": i },
              h(
                "h3",
                {},
                h("span", {}, h("span", { class: "swatch", style: `background:${colorVar(gr.color)}` }), ` ${names[i]} · ${t("seat.passes", { n: 2 - gr.passes })}`),
                h("button", { type: "button", class: "small enlarge", "data-enlarge": i, "aria-label": t("seat.enlargeAria", { name: names[i] }), onclick: () => { st.zoom = i; render(); } }, "⤢"),
              ),
              board(i, "medium"),
            ),
          ),
        ),
      );
      if (st.zoom !== null && v.grounds[st.zoom]) {
        dlg = h(
          "dialog",
          { class: "zoom-dialog", id: "zoom", oncancel: (e) => { e.preventDefault(); st.zoom = null; render(); } },
          h("div", { class: "zoom-head" }, h("strong", {}, names[st.zoom]), h("button", { type: "button", id: "zoom-close", onclick: () => { st.zoom = null; render(); } }, t("action.close"))),
          board(st.zoom, "zoom"),
        );
      }
    }
    const hadFocus = document.activeElement && document.activeElement.id;
    const old = page.querySelector("#zoom");
    if (old && old.open) old.close();
    const chat = chatSection();
    page.replaceChildren(...parts, ...(chat ? [chat] : []), ...(dlg ? [dlg] : []));
    mountAnalysis(page, st, go);
    if (dlg) dlg.showModal();
    if (hadFocus && document.getElementById(hadFocus)) document.getElementById(hadFocus).focus();
  }

  render();
  if (game) openGame(game);
  return () => {
    clearInterval(st.timer);
    document.removeEventListener("keydown", onKey);
  };
}
