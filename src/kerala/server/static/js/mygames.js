// My games (#/games, docs/accounts.md): the games whose seats the signed-in account holds,
// those where it is your turn first, then those under way, then the finished; each with the
// opponents, your time left and the result. A game opens as your seat on any device.

import { h, api } from "./ui.js";
import { t } from "./i18n.js";
import { formatClock } from "./clock.js";
import { account } from "./session.js";

const GROUPS = ["your_turn", "running", "finished"];

function result(g) {
  if (g.status !== "over") return g.status === "open" ? t("games.open") : t("games.decisions", { n: g.decision_number });
  if (g.rank === 1) return t("games.won");
  return t("games.rank", { rank: g.rank, n: g.players.length });
}

function entry(g) {
  const opponents = g.opponents.length ? g.opponents.join(", ") : t("games.alone");
  return h(
    "li",
    { class: `my-game ${g.group}`, "data-game": g.id, "data-group": g.group },
    h("a", { href: `/?game=${encodeURIComponent(g.id)}` }, t("games.against", { names: opponents })),
    h("span", { class: "muted" }, ` · ${result(g)}`),
    g.time_left !== null ? h("span", { class: "muted time-left" }, ` · ${t("games.timeLeft", { time: formatClock(g.time_left) })}`) : null,
  );
}

export function mountMyGames(root) {
  const page = h("div", { class: "my-games" }, h("h1", {}, t("games.title")), h("p", { class: "muted" }, "…"));
  root.append(page);
  let stopped = false;

  const load = async () => {
    const me = await account();
    if (stopped) return;
    if (!me.signed_in) {
      page.replaceChildren(h("h1", {}, t("games.title")), h("p", {}, t("games.signInFirst"), " ", h("a", { href: "#/account", id: "games-signin" }, t("nav.signIn"))));
      return;
    }
    let games;
    try {
      games = (await api("GET", "/api/account/games")).games;
    } catch (e) {
      page.replaceChildren(h("h1", {}, t("games.title")), h("p", {}, e.message));
      return;
    }
    if (stopped) return;
    const sections = GROUPS.map((group) => {
      const mine = games.filter((g) => g.group === group);
      if (!mine.length) return null;
      return h("section", { class: "panel", id: `games-${group}` }, h("h2", {}, t(`games.group.${group}`)), h("ul", {}, mine.map(entry)));
    }).filter(Boolean);
    const links = h(
      "p",
      { class: "row" },
      h("a", { href: `#/player/${encodeURIComponent(me.account.handle)}`, id: "my-profile" }, t("players.myProfile")),
      h("a", { href: "#/leaderboard", id: "to-leaderboard" }, t("players.leaderboard")),
    );
    page.replaceChildren(h("h1", {}, t("games.title")), links, ...(sections.length ? sections : [h("p", { class: "muted" }, t("games.none"))]));
  };

  load();
  const timer = setInterval(load, 10000);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
