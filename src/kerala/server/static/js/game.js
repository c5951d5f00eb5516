// The game page: a seat (invite link with its token) or a watcher. Everything it offers comes
// from the server's list of legal decisions: the page picks one of those objects and sends it
// back unchanged, so it can never offer an illegal decision. The parts: game/state.js (what the
// selection means), game/input.js (what the player does), game/render.js (the table),
// game/socket.js (the server). This module wires them together.

import { h, api, toast, copyText } from "./ui.js";
import { t } from "./i18n.js";
import { newState, allDecisions, myTurn } from "./game/state.js";
import { connection } from "./game/socket.js";
import { input } from "./game/input.js";
import { renderer } from "./game/render.js";
import { decisionCells, decisionMoves } from "./words.js";
import { mountClock, secondsLeft } from "./clock.js";
import { mountChat } from "./game/chat.js";

export { analyse } from "./game/state.js";

/** How long a placed tile grows and a moved elephant walks (kerala.css, k-pop and k-walk). */
const ANIMATION_MS = 420;

/** A short tone when it becomes the player's turn (off unless switched on; remembered). */
function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    const ctx = new Ctx();
    const o = ctx.createOscillator();
    const gain = ctx.createGain();
    o.frequency.value = 660;
    gain.gain.setValueAtTime(0.12, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.35);
    o.connect(gain).connect(ctx.destination);
    o.start();
    o.stop(ctx.currentTime + 0.36);
    o.onended = () => ctx.close();
  } catch {
    /* no sound here */
  }
}

export function mountGame(root, { id, token, seat }) {
  void seat;
  const st = newState();
  const banner = document.getElementById("conn");
  const page = h("div", { class: "game-page", id: "game" });
  root.append(page);
  const clock = mountClock(root, { id, token, onGame: (g) => accept(g, true) });

  const showBanner = (text, cls, ms) => {
    banner.hidden = false;
    banner.className = `conn ${cls}`;
    banner.textContent = text;
    if (ms) setTimeout(() => !st.lost && hideBanner(), ms);
  };
  const hideBanner = () => {
    banner.hidden = true;
  };

  let render = () => {};
  let patchScores = () => {};
  let scoreTimer = null;
  // In-tab notifications (docs/web.md): only while the tab is hidden, only when this person
  // turned them on (the bell asks the browser's permission then), for what concerns them.
  const notifyOn = () => localStorage.getItem("kerala.notify") === "1" && "Notification" in window && Notification.permission === "granted";
  const notify = (key, params) => {
    if (!notifyOn() || !document.hidden || seat === null || seat === undefined) return;
    try {
      new Notification(t("notify.title"), { body: t(key, params), tag: `kerala-${id}` });
    } catch {
      /* a browser without page notifications (some phones): the title and sound remain */
    }
  };
  const notifyChange = (before, wasMine) => {
    const g = st.game;
    if (!before || !g) return;
    if (before.status === "open" && g.status === "playing") notify("notify.started");
    else if (before.status !== "over" && g.status === "over") notify("notify.over");
    else if (!wasMine && myTurn(st)) notify("notify.yourTurn");
  };
  const toggleNotify = async () => {
    if (localStorage.getItem("kerala.notify") === "1") localStorage.setItem("kerala.notify", "0");
    else if ("Notification" in window) {
      const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      if (answer === "granted") localStorage.setItem("kerala.notify", "1");
      else toast(t("notify.refused"));
    } else toast(t("notify.unsupported"));
    render();
  };

  const accept = (g, force = false) => {
    if (!g) return render();
    const cur = st.game;
    // An older answer arriving late, or nothing new: draw only when asked (the page's own
    // state changed, e.g. a decision's answer ended the "Sending…" state).
    if (cur && (g.event_number < cur.event_number || (g.event_number === cur.event_number && !force))) {
      if (force) render();
      return;
    }
    const moved = !cur || g.decision_number !== cur.decision_number || g.status !== cur.status;
    const wasMine = myTurn(st);
    // Decisions new since the last drawing animate on their grounds.
    const ds = allDecisions(g.view);
    if (st.seenDecisions !== null && ds.length > st.seenDecisions) {
      // Each change animates once, from the moment it was first seen: a redraw within its
      // animation (the bot's reply, a new score) carries it on where it is, never anew.
      const now = performance.now();
      const running = (list) => new Map([...list].map(([seat, es]) => [seat, es.filter((e) => now - e.since < ANIMATION_MS)]));
      const fresh = running(st.fresh);
      const moves = running(st.moves);
      const add = (m, seat, e) => m.set(seat, [...(m.get(seat) || []), { ...e, since: now }]);
      for (const d of ds.slice(st.seenDecisions)) {
        for (const c of decisionCells(d)) if (c.kind !== "from") add(fresh, d.seat, { at: c.at });
        for (const m of decisionMoves(d)) add(moves, d.seat, m);
      }
      st.fresh = fresh;
      st.moves = moves;
    }
    st.seenDecisions = ds.length;
    st.game = g;
    clock.update(g);
    if (moved) {
      st.sel = null;
      st.hint = null;
    }
    if (!wasMine && myTurn(st) && cur && sound()) beep();
    notifyChange(cur, wasMine);
    render();
    lookForRematch(g);
    // Score the new position once updates pause (bots may move in quick succession), so the
    // request never competes with the player's own move.
    clearTimeout(scoreTimer);
    if (g.status !== "over") scoreTimer = setTimeout(() => !st.busy && conn.scoreLive(), 0);
  };

  // The rematch: the old game's `rematch` event says its id, live; a page that
  // opens (or catches up with) a finished game looks among its last events for it.
  const onEvent = (e) => {
    if (e.kind === "rematch") st.rematch = { game: e.game, by: e.by };
  };
  let rematchChecked = -1;
  const lookForRematch = async (g) => {
    if (g.status !== "over" || st.rematch || g.event_number <= rematchChecked) return;
    rematchChecked = g.event_number;
    try {
      const e = await conn.findRematch(g.event_number);
      if (e && !st.rematch) {
        onEvent(e);
        render();
      }
    } catch {
      /* the offer comes with the event, or the next time the page is opened */
    }
  };

  let chat = null;
  const early = []; // chat messages that arrive before the panel is mounted
  const onChat = (m) => (chat ? chat.receive(m) : early.push(m));
  const conn = connection(st, { id, token, accept, onEvent, onScores: () => patchScores(), onChat, banner: showBanner, hideBanner });
  const act = input(st, { render: () => render(), accept, conn });

  const sound = () => localStorage.getItem("kerala.sound") === "1";
  const coords = () => localStorage.getItem("kerala.coords") === "1";
  const createdLinks = (r) =>
    h(
      "div",
      { class: "links", id: "created" },
      h("p", {}, t("home.linksIntro")),
      r.invites.map((inv) => {
        const url = inv.url || location.origin + inv.path;
        const box = h("input", { type: "text", readonly: true, value: url, "aria-label": t("home.invite", { name: inv.name }), id: `invite-${inv.seat}` });
        return h("div", { class: "link-row" }, h("span", { class: "link-label" }, t("home.invite", { name: inv.name })), box, h("button", { type: "button", onclick: () => copyText(url, box) }, t("home.copy")), h("a", { class: "button", href: inv.path }, t("home.open")));
      }),
    );

  const ui = {
    id,
    recordPath: conn.recordPath,
    act,
    sound,
    toggleSound: () => {
      localStorage.setItem("kerala.sound", sound() ? "0" : "1");
      if (sound()) beep();
      render();
    },
    notifyOn,
    toggleNotify,
    chatUnread: () => (chat ? chat.unread() : 0),
    openChat: () => chat && chat.open(),
    coords,
    toggleCoords: () => {
      localStorage.setItem("kerala.coords", coords() ? "0" : "1");
      render();
    },
    toggleLog: () => {
      st.showLog = !st.showLog;
      render();
    },
    enlarge: (i) => {
      st.zoomSeat = i;
      render();
    },
    handOver: async (s) => {
      try {
        accept(await conn.handOver(s), true);
      } catch (e) {
        toast(e.message);
      }
    },
    createdLinks,
    /** Take this page's seat back from the bot that plays it (a time-out or a hand-over). */
    takeBack: async () => {
      try {
        const path = `/api/games/${encodeURIComponent(id)}/seats/${st.game.seat}/back`;
        accept(await api("POST", path, undefined, { Authorization: `Bearer ${token}` }), true);
      } catch (e) {
        toast(e.message);
      }
    },
    /** The rematch, asked of the server with this page's token (the first ask makes it, later
     * asks answer the same game): the page opens this person's seat there, same token. */
    rematch: async () => {
      if (st.asking) return;
      st.asking = true;
      render();
      try {
        const r = await conn.rematch();
        location.assign(r.path);
      } catch (e) {
        st.asking = false;
        render();
        toast(e.message);
      }
    },
    /** A new game with the same players and settings, made here: new invite links. */
    again: async () => {
      const g = st.game;
      const seats = g.players.map((p) => (p.kind === "bot" ? { name: p.name, color: p.color, kind: "bot", level: p.bot || undefined } : { name: p.name, color: p.color, kind: "human" }));
      const body = { seats, removal: g.view.removal === "chosen" ? "chosen" : "random", first: 0, rated: Boolean(g.rated) };
      if (body.removal === "chosen" && g.view.removed) body.removed = g.view.removed;
      // The same time control too (docs/api.md, "Clocks"): only its settings, full clocks.
      if (g.clock) {
        const c = g.clock;
        body.clock = c.kind === "realtime" ? { kind: c.kind, minutes: c.minutes, increment: c.increment, bot: c.bot } : { kind: c.kind, hours: c.hours, bot: c.bot };
      }
      try {
        const r = await api("POST", "/api/games", body);
        const humans = r.invites;
        const mine = g.seat !== null ? humans.find((x) => x.name === g.players[g.seat].name && x.color === g.players[g.seat].color) : null;
        if (mine && humans.length === 1) location.assign(mine.path);
        else {
          st.created = r;
          render();
        }
      } catch (e) {
        toast(e.message);
      }
    },
  };
  ({ render, patchScores } = renderer(st, page, ui));

  let couldHand = false;
  let lowTold = -1;
  const tick = setInterval(() => {
    // The hand-over button appears once the silent seat's time is up.
    if (!st.game || st.game.status === "over") return;
    const g = st.game;
    const p = g.to_move !== null ? g.players[g.to_move] : null;
    const can =
      g.seat !== null && !!p && g.to_move !== g.seat && p.kind !== "bot" && !p.handed_to_bot &&
      Date.now() - Date.parse(g.turn_started_at || "") >= (g.seat_timeout || 0) * 1000;
    if (can !== couldHand) render();
    couldHand = can;
    // Time running low on this page's own turn: told once per turn (a fifth of the time per
    // move left in correspondence, 30 seconds in real time). Page time is close enough here.
    const c = g.clock;
    if (c && g.seat !== null && c.running === g.seat && lowTold !== g.decision_number) {
      const left = secondsLeft(c, g.seat, Date.now());
      const low = c.kind === "correspondence" ? 0.2 * c.hours * 3600 : 30;
      if (left < low) {
        lowTold = g.decision_number;
        notify("notify.timeLow");
      }
    }
  }, 2000);

  document.addEventListener("keydown", act.onKey);
  (async () => {
    await conn.load();
    if (!st.game) return;
    chat = mountChat(root, { id, seat: st.game.seat, send: conn.sendChat, onUnread: () => render() });
    for (const m of early.splice(0)) chat.receive(m);
    conn.connect();
    st.hintRoute = await conn.findHintRoute();
    render();
  })();

  return () => {
    conn.close();
    clearInterval(tick);
    clearTimeout(scoreTimer);
    document.removeEventListener("keydown", act.onKey);
    hideBanner();
  };
}
