// Game clocks: every seat's time, counting down locally between server updates.
//
// The server keeps time; this only shows it. Each game snapshot carries `clock`: every seat's
// seconds left (`remaining`), the seat whose clock runs (`running`) and since when (`since`,
// by the server's clock). The page learns its offset to the server's clock once
// (GET /api/time, halfway through the request), so a running clock shows
// `remaining - (server now - since)` and counts down four times a second.
// A seat whose time ran out is played by a bot; its own player gets a "Take my seat back"
// button (POST /api/games/{id}/seats/{seat}/back with the seat's token).
// Its words come from the catalogues (static/i18n/<lang>.json, keys clock.*).

import { t } from "./i18n.js";

/** Seconds as `m:ss`, `h:mm:ss`, or days and hours for a correspondence clock. */
export function formatClock(sec) {
  const s = Math.max(0, Math.floor(sec));
  if (s >= 86400) return `${Math.floor(s / 86400)}d ${String(Math.floor((s % 86400) / 3600)).padStart(2, "0")}h`;
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** Seconds seat `seat` has left at server time `nowMs` (what the server would say). */
export function secondsLeft(clock, seat, nowMs) {
  let t = Number(clock.remaining[seat]);
  if (clock.running === seat && clock.since) t -= (nowMs - Date.parse(clock.since)) / 1000;
  return Math.max(0, t);
}

export function mountClock(root, { id, token, onGame }) {
  // A stylesheet file, not a <style> element: the Content-Security-Policy refuses inline styles.
  if (!document.getElementById("clock-style")) {
    const link = document.createElement("link");
    link.id = "clock-style";
    link.rel = "stylesheet";
    link.href = "/static/css/clock.css";
    document.head.append(link);
  }
  const box = document.createElement("div");
  box.id = "clock";
  box.className = "clock";
  box.hidden = true;
  box.setAttribute("role", "timer");
  box.setAttribute("aria-label", t("clock.label"));
  root.prepend(box);
  let offset = 0; // server clock minus this page's clock, in ms
  let game = null;
  const t0 = Date.now();
  fetch("/api/time")
    .then((r) => r.json())
    .then((j) => {
      const t1 = Date.now();
      offset = Date.parse(j.now) - (t0 + t1) / 2;
      draw();
    })
    .catch(() => {});

  const takeBack = async (seat) => {
    const r = await fetch(`/api/games/${encodeURIComponent(id)}/seats/${seat}/back`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
    });
    if (r.ok && onGame) onGame(await r.json());
  };

  function draw() {
    const c = game && game.clock;
    if (!c) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const now = Date.now() + offset;
    const rows = game.players.map((p, i) => {
      const row = document.createElement("span");
      row.className = "clock-seat" + (c.running === i ? " running" : "") + (p.kind === "bot" ? " bot" : "");
      row.dataset.seat = String(i);
      const left = secondsLeft(c, i, now);
      if (left < 10 && c.running === i) row.classList.add("low");
      const name = document.createElement("span");
      name.className = "clock-name";
      name.textContent = p.name + (p.kind === "bot" && p.handed_to_bot ? ` (${t("clock.bot")})` : "");
      const time = document.createElement("span");
      time.className = "clock-time";
      time.textContent = formatClock(left);
      row.append(name, " ", time);
      if (token && game.seat === i && p.kind === "bot" && p.handed_to_bot && game.status === "playing") {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "clock-back";
        b.textContent = t("clock.back");
        b.title = t("clock.out");
        b.onclick = () => takeBack(i);
        row.append(" ", b);
      }
      return row;
    });
    box.replaceChildren(...rows);
  }

  const timer = setInterval(() => game && game.clock && game.clock.running !== null && draw(), 250);
  return {
    update(g) {
      game = g;
      draw();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
