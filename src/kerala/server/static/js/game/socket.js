// The game's connection to the server: the first load over HTTP, live updates over the game's
// WebSocket (reconnecting with backoff, catching up over HTTP first), decisions sent over HTTP,
// and the live scores of the grounds on show (scored by the server: POST /api/rules/scores).

import { api, toast, readableError } from "../ui.js";
import { t } from "../i18n.js";

/**
 * Create the connection for game `id` with seat token `token`; `accept(game)` is told every new
 * snapshot, `onEvent(event)` every live event first, `onScores()` when live scores arrive,
 * `banner(text, cls, ms)` shows the connection.
 */
export function connection(st, { id, token, accept, onEvent, onScores, onChat, banner, hideBanner }) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const path = `/api/games/${encodeURIComponent(id)}`;
  let ws = null;
  let tries = 0;

  const load = async (quiet = false) => {
    try {
      accept(await api("GET", path, undefined, headers));
      st.loadError = null;
    } catch (e) {
      st.loadError = e.message;
      if (!st.game) accept(null);
      else if (!(quiet && e.status === 0)) toast(e.message); // the banner already says it
      return false;
    }
    return true;
  };

  const connect = () => {
    if (st.closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const q = new URLSearchParams();
    if (st.game) q.set("since", String(st.game.event_number));
    const sock = new WebSocket(`${proto}://${location.host}${path}/ws?${q}`);
    ws = sock;
    let ping = null;
    sock.onopen = () => {
      // The seat's token goes in the first message, never in the URL (docs/api.md).
      sock.send(JSON.stringify({ type: "hello", token: token || null }));
      tries = 0;
      ping = setInterval(() => sock.readyState === 1 && sock.send(JSON.stringify({ type: "ping" })), 20000);
      if (st.lost) {
        st.lost = false;
        banner(t("conn.back"), "ok", 2500);
      } else hideBanner();
    };
    sock.onmessage = (ev) => {
      let m;
      try {
        m = JSON.parse(ev.data);
      } catch {
        return;
      }
      if ((m.type === "chat" || m.type === "chat_history") && onChat) return onChat(m);
      if (m.type === "event" && m.event && onEvent) onEvent(m.event);
      if (m.type === "sync" || m.type === "event") accept(m.game);
      else if (m.type === "error") {
        toast(m.detail || m.code ? readableError(m.status || 400, m) : t("error.refused"));
        if (m.status === 404 || m.status === 403) st.closed = true;
      }
    };
    sock.onclose = () => {
      clearInterval(ping);
      if (st.closed || ws !== sock) return;
      st.lost = true;
      const wait = Math.min(500 * 2 ** tries, 5000);
      tries++;
      banner(t("conn.lost"), "lost");
      setTimeout(async () => {
        if (st.closed) return;
        await load(true); // the page is right even before the socket is back
        connect();
      }, wait);
    };
  };

  /** Send one legal decision; resolves with the new snapshot (the caller accepts it). */
  const submit = (decision) => api("POST", `${path}/decisions`, { decision, expected: st.game.decision_number }, headers);

  const handOver = (seat) => api("POST", `${path}/seats/${seat}/bot`, {}, headers);

  const findHintRoute = async () => {
    try {
      const spec = await api("GET", "/openapi.json");
      for (const [p, ops] of Object.entries(spec.paths || {}))
        if (/hint|suggest/.test(p)) return { path: p, method: ops.post ? "POST" : "GET" };
    } catch {
      /* no hint button without the route */
    }
    return null;
  };

  const askHint = async (route) =>
    api(route.method, route.path.replace(/\{[^}]*\}/, encodeURIComponent(id)), route.method === "POST" ? {} : undefined, headers);

  /** Ask the server for the live scores of the grounds on show (once per change of grounds). */
  const scoreLive = async () => {
    const g = st.game;
    if (!g) return;
    const grounds = g.view.grounds;
    const k = `${g.event_number}:${JSON.stringify(grounds)}`;
    if (k === st.scoreKey) return;
    st.scoreKey = k;
    try {
      const r = await api("POST", "/api/rules/scores", { grounds });
      if (st.scoreKey !== k) return; // a newer position is being scored
      st.scores = r.scores;
      st.scoredGrounds = grounds.map((x) => JSON.stringify(x));
      onScores();
    } catch (e) {
      st.scoreKey = "";
      toast(e.message);
    }
  };

  /** The rematch of a finished game, when one was made: the old game's `rematch` event, the
   * one event that can follow the end, so it is among the last few (docs/api.md). */
  const findRematch = async (upTo) => {
    const r = await api("GET", `${path}/events?since=${Math.max(0, upTo - 4)}`);
    return r.events.find((e) => e.kind === "rematch") || null;
  };

  /** Ask for the rematch with this page's token: `{id, seat, path}` of its seat there. */
  const rematch = () => api("POST", `${path}/rematch`, undefined, headers);

  const close = () => {
    st.closed = true;
    if (ws) ws.close();
  };

  /** A chat message on the game's socket (docs/server.md, "Chat"); false when offline. */
  const sendChat = (body) => {
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify({ type: "chat", ...body }));
    return true;
  };

  return { load, connect, submit, sendChat, handOver, findHintRoute, askHint, scoreLive, findRematch, rematch, close, recordPath: `${path}/record` };
}
