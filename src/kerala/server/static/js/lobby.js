// The lobby (#/lobby, docs/web.md): the open games and their free seats, live. The server
// pushes the list over a WebSocket (/api/lobby/ws) whenever it changes, so the page never
// polls; filters (player count, time control, rated or casual) apply in the page. Taking a
// seat is one click when the page knows your name (your account's, or the one you typed last):
// it joins (POST /api/games/{id}/seats/{seat}/join) and opens the seat's page with its token.
// `data-loaded` on #lobby says the list has arrived once.

import { t } from "./i18n.js";
import { colorWord } from "./tiles.js";
import { api, h, toast } from "./ui.js";
import { known } from "./session.js";

const COUNTS = ["any", "2", "3", "4", "5"];
const CLOCKS = ["any", "none", "realtime", "correspondence"];
const RATED = ["any", "rated", "casual"];

/** A game's time control in words ("10 min + 10 s", "1 day a move", "no clock"). */
function clockWords(c) {
  if (!c) return t("lobby.noClock");
  if (c.kind === "realtime") return t("lobby.realtime", { minutes: c.minutes, increment: c.increment || 0 });
  const days = c.hours / 24;
  return Number.isInteger(days) ? t("lobby.days", { n: days }) : t("lobby.hours", { n: c.hours });
}

function matches(g, f) {
  if (f.count !== "any" && String(g.count) !== f.count) return false;
  if (f.clock !== "any" && (g.clock ? g.clock.kind : "none") !== f.clock) return false;
  if (f.rated !== "any" && g.rated !== (f.rated === "rated")) return false;
  return true;
}

export function mountLobby(root) {
  const box = h("section", { class: "lobby panel", id: "lobby", "aria-labelledby": "lobby-title" });
  root.append(box);
  const f = { count: "any", clock: "any", rated: "any" };
  let games = [];
  let stopped = false;
  let sock = null;
  let retry = 500;
  const name = h("input", {
    id: "lobby-name",
    type: "text",
    maxlength: 40,
    autocomplete: "nickname",
    value: known().signed_in ? known().account.display_name : localStorage.getItem("kerala.name") || "",
  });

  async function take(gameId, seat) {
    const me = name.value.trim();
    if (!me) {
      name.focus();
      toast(t("lobby.needName"));
      return;
    }
    try {
      const r = await api("POST", `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/join`, { name: me });
      if (!known().signed_in) localStorage.setItem("kerala.name", me);
      location.assign(r.path);
    } catch (e) {
      toast(e.message);
    }
  }

  const select = (id, values, key) =>
    h(
      "label",
      {},
      t(`lobby.filter.${key}`),
      " ",
      h(
        "select",
        {
          id,
          onchange: (e) => {
            f[key] = e.target.value;
            render();
          },
        },
        values.map((v) => h("option", { value: v, selected: f[key] === v }, t(`lobby.${key}.${v}`))),
      ),
    );

  function item(g) {
    const seated = g.players.filter((p) => p.kind !== "open").map((p) => p.name);
    const range = g.ratings && g.ratings.length ? (g.ratings.length > 1 ? `${g.ratings[0]}–${g.ratings[g.ratings.length - 1]}` : String(g.ratings[0])) : null;
    return h(
      "li",
      { class: "lobby-game", "data-game": g.id },
      h("strong", {}, t("lobby.players", { n: g.count })),
      " · ",
      h("span", {}, clockWords(g.clock)),
      " · ",
      h("span", { class: g.rated ? "rated" : "casual" }, t(g.rated ? "lobby.rated.rated" : "lobby.rated.casual")),
      range ? h("span", { class: "muted" }, ` · ${t("lobby.range", { range })}`) : null,
      h("div", { class: "muted" }, seated.length ? t("lobby.with", { names: seated.join(", ") }) : t("lobby.nobody")),
      h(
        "div",
        { class: "row" },
        g.players
          .filter((p) => p.kind === "open")
          .map((p) =>
            h(
              "button",
              { type: "button", class: "take-seat primary", "data-seat": p.seat, onclick: () => take(g.id, p.seat) },
              t("lobby.take", { color: colorWord(p.color) }),
            ),
          ),
      ),
    );
  }

  function render() {
    const shown = games.filter((g) => matches(g, f));
    box.replaceChildren(
      h("h1", { id: "lobby-title" }, t("lobby.title")),
      h("p", { class: "muted" }, t("lobby.hint")),
      h("div", { class: "row lobby-filters" }, select("lobby-count", COUNTS, "count"), select("lobby-clock", CLOCKS, "clock"), select("lobby-rated", RATED, "rated")),
      h("label", { for: "lobby-name" }, t("lobby.name"), " "),
      name,
      shown.length ? h("ul", { class: "lobby-games" }, shown.map(item)) : h("p", { class: "muted", id: "lobby-empty" }, t(games.length ? "lobby.noneMatch" : "lobby.none")),
      h("p", {}, h("a", { href: "#/" }, t("lobby.makeOne")), " · ", h("a", { href: "#/play" }, t("home.playNow"))),
    );
  }

  function connect() {
    if (stopped) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    sock = new WebSocket(`${proto}://${location.host}/api/lobby/ws`);
    sock.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type !== "lobby") return;
      retry = 500;
      games = msg.games;
      render();
      box.dataset.loaded = "true";
    };
    sock.onclose = () => {
      if (stopped) return;
      setTimeout(connect, retry); // the server restarted or a proxy dropped it: back soon
      retry = Math.min(retry * 2, 10000);
    };
  }

  render();
  connect();
  return () => {
    stopped = true;
    if (sock) sock.close();
  };
}
