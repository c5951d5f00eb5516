// Home / new game: one click to play against a bot, or a full setup (2–5 seats, names,
// colors, human or bot level, removal mode, who holds the bag first). After creating a game
// it shows the invite link per human seat and the watch link, each with a copy button.

import { h, api, toast, copyText } from "./ui.js";
import { COLORS, allTileTypes, parseTile, standardCount } from "./tiles.js";

const REMOVE = { 2: 20, 3: 10, 4: 4, 5: 0 }; // RULES.md S3

export function mountHome(root) {
  const st = {
    levels: [{ name: "easy", description: "" }],
    defaultLevel: "easy",
    seats: [
      { name: localStorage.getItem("kerala.name") || "You", color: "blue", kind: "human", level: null },
      { name: "Bot", color: "red", kind: "bot", level: null },
    ],
    removal: "random",
    removed: "",
    first: 0,
    created: null,
    busy: false,
  };
  const quickLevel = h("select", { id: "quick-level", "aria-label": "bot level" });
  const page = h("div", { class: "home" });
  root.append(page);

  const quickPlay = async () => {
    if (st.busy) return;
    st.busy = true;
    render();
    const me = (localStorage.getItem("kerala.name") || "You").slice(0, 40);
    try {
      const r = await api("POST", "/api/games", {
        seats: [
          { name: me, color: "blue", kind: "human" },
          { name: "Bot", color: "red", kind: "bot", level: quickLevel.value || st.defaultLevel },
        ],
        removal: "random",
        first: 0,
      });
      const inv = r.invites.find((i) => i.seat === 0) || r.invites[0];
      location.assign(inv.path);
    } catch (e) {
      st.busy = false;
      toast(e.message);
      render();
    }
  };

  const create = async () => {
    if (st.busy) return;
    const seats = st.seats.map((s) =>
      s.kind === "bot"
        ? { name: s.name, color: s.color, kind: "bot", level: s.level || st.defaultLevel }
        : { name: s.name, color: s.color, kind: "human" },
    );
    const body = { seats, removal: st.removal, first: st.first };
    if (st.removal === "chosen")
      body.removed = st.removed
        .split(/[\s,]+/)
        .map((x) => x.trim())
        .filter(Boolean);
    const human = st.seats.find((s) => s.kind === "human");
    if (human) localStorage.setItem("kerala.name", human.name);
    st.busy = true;
    render();
    try {
      st.created = await api("POST", "/api/games", body);
    } catch (e) {
      toast(e.message);
    }
    st.busy = false;
    render();
  };

  const suggestRemoved = () => {
    // A valid choice for S3: the right count, none of a played color.
    const played = new Set(st.seats.map((s) => s.color));
    const want = REMOVE[st.seats.length];
    const pool = [];
    for (const t of allTileTypes()) {
      if (played.has(parseTile(t).color)) continue;
      for (let i = 0; i < standardCount(t); i++) pool.push(t);
    }
    const pick = [];
    const step = pool.length / Math.max(want, 1);
    for (let i = 0; i < want; i++) pick.push(pool[Math.floor(i * step)]);
    st.removed = pick.join(", ");
    render();
  };

  function seatRow(s, i) {
    const used = new Set(st.seats.filter((_, j) => j !== i).map((x) => x.color));
    return h(
      "div",
      { class: "seat-row", "data-seat": i },
      h("strong", {}, `Seat ${i + 1}`),
      h(
        "label",
        {},
        "Name",
        h("input", {
          type: "text",
          value: s.name,
          maxlength: 40,
          required: true,
          "data-field": "name",
          oninput: (e) => (s.name = e.target.value),
        }),
      ),
      h(
        "label",
        {},
        "Color",
        h(
          "select",
          {
            "data-field": "color",
            onchange: (e) => {
              s.color = e.target.value;
              render();
            },
          },
          COLORS.map((c) => h("option", { value: c, selected: c === s.color, disabled: used.has(c) }, c)),
        ),
      ),
      h(
        "label",
        {},
        "Player",
        h(
          "select",
          {
            "data-field": "kind",
            onchange: (e) => {
              s.kind = e.target.value;
              render();
            },
          },
          h("option", { value: "human", selected: s.kind === "human" }, "human"),
          h("option", { value: "bot", selected: s.kind === "bot" }, "bot"),
        ),
      ),
      s.kind === "bot"
        ? h(
            "label",
            {},
            "Bot level",
            h(
              "select",
              { "data-field": "level", onchange: (e) => (s.level = e.target.value) },
              st.levels.map((l) =>
                h("option", { value: l.name, selected: l.name === (s.level || st.defaultLevel), title: l.description || "" }, l.name),
              ),
            ),
          )
        : null,
    );
  }

  function linksPanel() {
    const r = st.created;
    if (!r) return null;
    const row = (label, url, path, id) => {
      const input = h("input", { type: "text", readonly: true, value: url, "aria-label": label, id });
      return h(
        "div",
        { class: "link-row" },
        h("span", { class: "link-label" }, label),
        input,
        h("button", { type: "button", onclick: () => copyText(url, input) }, "Copy"),
        h("a", { class: "button", href: path }, "Open"),
      );
    };
    return h(
      "section",
      { class: "panel", id: "created" },
      h("h2", {}, "Game created"),
      h("p", {}, "Send each player their own link: it lets them move for their seat only. Anyone with the watch link can follow the game."),
      h(
        "div",
        { class: "links" },
        r.invites.map((inv) => row(`${inv.name} (${inv.color}) — invite`, inv.url || location.origin + inv.path, inv.path, `invite-${inv.seat}`)),
        row("Watch", r.watch.url || location.origin + r.watch.path, r.watch.path, "watch-link"),
      ),
    );
  }

  function render() {
    const focus = document.activeElement;
    const focusKey = focus && focus.closest && focus.closest("[data-seat]") ? [focus.closest("[data-seat]").dataset.seat, focus.dataset.field] : null;
    quickLevel.replaceChildren(
      ...st.levels.map((l) => h("option", { value: l.name, selected: l.name === (quickLevel.value || st.defaultLevel) }, l.name)),
    );
    const n = st.seats.length;
    page.replaceChildren(
      ...[
      h(
        "section",
        { class: "hero panel" },
        h("h1", {}, "Kerala: The Way of the Elephant"),
        h(
          "p",
          {},
          "Build the finest festival grounds: take a tile, place it next to one of your two elephants, and try to keep one area per color. Most points wins.",
        ),
        h(
          "div",
          { class: "row", style: "justify-content:center" },
          h("button", { type: "button", class: "primary big", id: "quick-play", disabled: st.busy, onclick: quickPlay }, "▶ Play against a bot"),
          h("label", { class: "muted" }, "Bot level", quickLevel),
        ),
      ),
      linksPanel(),
      h(
        "section",
        { class: "panel", id: "setup" },
        h("h2", {}, "Set up a game"),
        h(
          "div",
          { class: "row" },
          h(
            "label",
            {},
            "Players",
            h(
              "select",
              {
                id: "seat-count",
                onchange: (e) => {
                  const want = Number(e.target.value);
                  while (st.seats.length < want) {
                    const used = new Set(st.seats.map((s) => s.color));
                    st.seats.push({ name: `Player ${st.seats.length + 1}`, color: COLORS.find((c) => !used.has(c)), kind: "human", level: null });
                  }
                  st.seats.length = want;
                  if (st.first >= want) st.first = 0;
                  render();
                },
              },
              [2, 3, 4, 5].map((k) => h("option", { value: k, selected: k === n }, String(k))),
            ),
          ),
          h(
            "label",
            {},
            "Holds the bag first",
            h(
              "select",
              { id: "first", onchange: (e) => (st.first = Number(e.target.value)) },
              st.seats.map((s, i) => h("option", { value: i, selected: i === st.first }, `Seat ${i + 1}: ${s.name}`)),
            ),
          ),
          h(
            "label",
            {},
            "Tiles taken out (S3)",
            h(
              "select",
              {
                id: "removal",
                onchange: (e) => {
                  st.removal = e.target.value;
                  render();
                },
              },
              h("option", { value: "random", selected: st.removal === "random" }, `at random, kept secret (${REMOVE[n]})`),
              h("option", { value: "chosen", selected: st.removal === "chosen" }, `chosen by you (${REMOVE[n]})`),
            ),
          ),
        ),
        st.removal === "chosen"
          ? h(
              "div",
              {},
              h(
                "label",
                { style: "display:flex" },
                `The ${REMOVE[n]} tiles to take out, none of a played color (e.g. “green:e1, green:arch-red”)`,
                h("textarea", { id: "removed", oninput: (e) => (st.removed = e.target.value) }, st.removed),
              ),
              h("button", { type: "button", onclick: suggestRemoved }, "Fill in a valid choice"),
            )
          : null,
        h("div", { class: "seats" }, st.seats.map(seatRow)),
        h("p", {}, h("button", { type: "button", class: "primary", id: "create", disabled: st.busy, onclick: create }, "Create game")),
      ),
      h("section", { class: "panel" }, h("h2", {}, "Games in progress"), recent),
      h(
        "section",
        { class: "panel muted" },
        h("h2", {}, "How to play"),
        h(
          "ol",
          {},
          h("li", {}, "On your turn pick a tile from the display, then a highlighted cell next to one of your elephants; confirm."),
          h("li", {}, "Arches score 5 when they face a tile of their color: turn them before placing."),
          h("li", {}, "Special tiles let you move an elephant or a whole stack right after placing them (or skip)."),
          h("li", {}, "You may pass twice: each pass lays an elephant down (standing elephants score 1 each)."),
          h("li", {}, "At the end keep one area per color (two of your own): every other area costs 2 per tile; each missing color costs 5."),
        ),
      ),
      ].filter(Boolean),
    );
    if (focusKey) {
      const el = page.querySelector(`[data-seat="${focusKey[0]}"] [data-field="${focusKey[1]}"]`);
      if (el) el.focus();
    }
  }

  const recent = h("div", { id: "recent" }, h("p", { class: "muted" }, "…"));
  const loadRecent = async () => {
    try {
      const r = await api("GET", "/api/games?status=playing&limit=10");
      recent.replaceChildren(
        r.games.length
          ? h(
              "ul",
              {},
              r.games.map((g) =>
                h(
                  "li",
                  {},
                  h("a", { href: `/?game=${encodeURIComponent(g.id)}` }, g.players.map((p) => p.name).join(" vs ")),
                  h("span", { class: "muted" }, ` · ${g.decision_number} decisions`),
                ),
              ),
            )
          : h("p", { class: "muted" }, "None right now."),
      );
    } catch (e) {
      recent.replaceChildren(h("p", { class: "muted" }, e.message));
    }
  };

  (async () => {
    try {
      const b = await api("GET", "/api/bots");
      if (b && Array.isArray(b.levels) && b.levels.length) {
        st.levels = b.levels;
        st.defaultLevel = b.default || b.levels[0].name;
        quickLevel.value = "";
      }
    } catch (e) {
      toast(e.message);
    }
    render();
  })();
  render();
  loadRecent();
  return () => {};
}

