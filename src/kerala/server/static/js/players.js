// Profiles (#/player/HANDLE) and leaderboards (#/leaderboard?group=2p|3-5p), docs/ratings.md.
// A profile shows a player's rating per group (one number, "?" while provisional), its history
// as a small plot, results by player count and favourite colors; a leaderboard lists the
// settled ratings of a group, best first. Both read public data only.

import { h, api } from "./ui.js";
import { t } from "./i18n.js";
import { colorWord } from "./tiles.js";

const SVG = "http://www.w3.org/2000/svg";
const GROUPS = ["2p", "3-5p"];

const ratingText = (r) => `${r.display}${r.provisional ? "?" : ""}`;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

// The rating after each rated game of a group, as a line (no axes library: a few SVG lines).
function plot(points, group) {
  const W = 320;
  const H = 120;
  const P = 24;
  if (points.length === 0) return h("p", { class: "muted" }, t("players.noHistory"));
  const ys = points.map((p) => p.display);
  const lo = Math.min(...ys, 1500) - 20;
  const hi = Math.max(...ys, 1500) + 20;
  const x = (i) => P + (points.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (points.length - 1));
  const y = (v) => H - P - ((v - lo) * (H - 2 * P)) / (hi - lo);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.display).toFixed(1)}`).join(" ");
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "rating-plot", id: `plot-${group}`, role: "img", "aria-label": t("players.plotLabel", { group: t(`players.group.${group}`) }) },
    svg("line", { x1: P, x2: W - P, y1: y(1500), y2: y(1500), stroke: "currentColor", "stroke-opacity": 0.25, "stroke-dasharray": "4 4" }),
    svg("path", { d: line, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    ...points.map((p, i) => svg("circle", { cx: x(i), cy: y(p.display), r: 3, fill: "currentColor" }, svg("title", {}, `${ratingText(p)} · ${t("players.rankOf", { rank: p.rank, n: p.players })}`))),
    svg("text", { x: 2, y: y(hi - 20) + 4, "font-size": 10, fill: "currentColor" }, String(Math.round(hi - 20))),
    svg("text", { x: 2, y: y(lo + 20) + 4, "font-size": 10, fill: "currentColor" }, String(Math.round(lo + 20))),
  );
  return chart;
}

export function mountProfile(root, handle) {
  const page = h("div", { class: "profile" }, h("h1", {}, handle), h("p", { class: "muted" }, "…"));
  root.append(page);
  let stopped = false;
  (async () => {
    let p;
    try {
      p = await api("GET", `/api/players/${encodeURIComponent(handle)}`);
    } catch (e) {
      if (!stopped) page.replaceChildren(h("h1", {}, handle), h("p", { class: "error-box", role: "alert" }, e.message));
      return;
    }
    if (stopped) return;
    const groups = GROUPS.map((g) =>
      h(
        "section",
        { class: "panel", id: `rating-${g}`, "data-group": g },
        h("h2", {}, t(`players.group.${g}`)),
        h("p", { class: "big-number" }, h("strong", { class: "rating" }, ratingText(p.ratings[g])), " ", h("span", { class: "muted" }, t("players.games", { n: p.ratings[g].games }))),
        p.ratings[g].provisional ? h("p", { class: "muted" }, t("players.provisional")) : null,
        plot(p.history.filter((x) => x.group === g), g),
      ),
    );
    const results = p.results.length
      ? h(
          "table",
          { id: "results" },
          h("thead", {}, h("tr", {}, h("th", {}, t("players.players")), h("th", {}, t("players.played")), h("th", {}, t("players.won")))),
          h("tbody", {}, p.results.map((r) => h("tr", {}, h("td", {}, String(r.players)), h("td", {}, String(r.games)), h("td", {}, String(r.won))))),
        )
      : h("p", { class: "muted" }, t("players.noGames"));
    page.replaceChildren(
      h("h1", {}, p.display_name, " ", h("span", { class: "muted" }, `@${p.handle}`)),
      h("div", { class: "profile-groups" }, groups),
      h(
        "section",
        { class: "panel" },
        h("h2", {}, t("players.results")),
        results,
        p.colors.length ? h("p", { id: "colors" }, t("players.colors", { colors: p.colors.slice(0, 3).map(colorWord).join(", ") })) : null,
        h("h3", {}, t("players.recent")),
        h(
          "ul",
          { id: "recent" },
          p.history
            .slice(-10)
            .reverse()
            .map((x) => h("li", {}, h("a", { href: `#/replay?game=${encodeURIComponent(x.game)}` }, t("players.rankOf", { rank: x.rank, n: x.players })), ` · ${ratingText(x)}`)),
        ),
      ),
      h("p", {}, h("a", { href: "#/leaderboard" }, t("players.toLeaderboard"))),
    );
  })();
  return () => {
    stopped = true;
  };
}

export function mountLeaderboard(root, group) {
  const g = GROUPS.includes(group) ? group : "2p";
  const page = h("div", { class: "leaderboard" });
  root.append(page);
  let stopped = false;
  (async () => {
    let board;
    try {
      board = await api("GET", `/api/leaderboard?group=${encodeURIComponent(g)}`);
    } catch (e) {
      if (!stopped) page.replaceChildren(h("p", { class: "error-box", role: "alert" }, e.message));
      return;
    }
    if (stopped) return;
    page.replaceChildren(
      h("h1", {}, t("players.leaderboard")),
      h(
        "nav",
        { class: "row", "aria-label": t("players.groups") },
        GROUPS.map((x) => h("a", { class: x === g ? "button primary" : "button", href: `#/leaderboard?group=${x}`, "aria-current": x === g ? "page" : null }, t(`players.group.${x}`))),
      ),
      board.players.length
        ? h(
            "table",
            { id: "leaderboard" },
            h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("players.name")), h("th", {}, t("players.rating")), h("th", {}, t("players.played")))),
            h(
              "tbody",
              {},
              board.players.map((r) =>
                h("tr", {}, h("td", {}, String(r.rank)), h("td", {}, h("a", { href: `#/player/${encodeURIComponent(r.handle)}` }, r.display_name)), h("td", {}, ratingText(r)), h("td", {}, String(r.games))),
              ),
            ),
          )
        : h("p", { class: "muted", id: "leaderboard-empty" }, t("players.empty")),
      h("p", { class: "muted" }, t("players.leaderboardNote")),
    );
  })();
  return () => {
    stopped = true;
  };
}
