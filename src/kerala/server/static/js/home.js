// Home / new game: one click to play against a bot, or a full setup (2–5 seats, names,
// colors, human or bot level, removal mode, who holds the bag first). After creating a game
// it shows the invite link per human seat and the watch link, each with a copy button.

import { h, api, toast, copyText } from "./ui.js";
import { COLORS, allTileTypes, parseTile, standardCount, colorWord } from "./tiles.js";
import { rules } from "./rules.js";
import { t } from "./i18n.js";
import { account, known } from "./session.js";

/** The name a new game gives this person's seat: the account's, else the one they typed last,
 * else "Player 1". Never the word "You": the others would read "You's turn". */
export function myName() {
  const me = known();
  if (me.signed_in) return me.account.display_name;
  const saved = localStorage.getItem("kerala.name");
  if (saved && saved !== t("home.you")) return saved;
  return t("home.playerN", { n: 1 });
}

/** The time controls the setup offers (docs/web.md): presets, then a custom one. */
const CLOCK_PRESETS = {
  none: null,
  realtime: { kind: "realtime", minutes: 10, increment: 10 },
  fast: { kind: "realtime", minutes: 3, increment: 5 },
  day: { kind: "correspondence", hours: 24 },
  "3days": { kind: "correspondence", hours: 72 },
};

/** How many tiles are taken out before play for `n` players (from the server's rules). */
const removeCount = (n) => rules().removal_count[String(n)];

/** A bot level's name and description in the player's language (the server's words otherwise). */
const levelName = (name) => (t(`level.${name}`) === `level.${name}` ? name : t(`level.${name}`));
const levelTip = (l) => (t(`level.${l.name}.tip`) === `level.${l.name}.tip` ? l.description || "" : t(`level.${l.name}.tip`));

export function mountHome(root) {
  const st = {
    levels: [{ name: "easy", description: "" }],
    defaultLevel: "easy",
    seats: [
      { name: myName(), color: "blue", kind: "human", level: null },
      { name: t("home.bot"), color: "red", kind: "bot", level: null },
    ],
    removal: "random",
    removed: "",
    first: 0,
    hints: null, // null: the default rule (hintsAllowed)
    rated: null, // null: the default rule (ratedByDefault)
    clock: "none", // a preset of CLOCK_PRESETS, or "custom"
    custom: { kind: "realtime", minutes: 5, increment: 5, hours: 48 },
    created: null,
    busy: false,
  };
  const quickLevel = h("select", { id: "quick-level", "aria-label": t("home.botLevel") });
  const page = h("div", { class: "home" });
  root.append(page);

  const quickPlay = async () => {
    if (st.busy) return;
    st.busy = true;
    render();
    const me = myName().slice(0, 40);
    try {
      const r = await api("POST", "/api/games", {
        seats: [
          { name: me, color: "blue", kind: "human" },
          { name: t("home.bot"), color: "red", kind: "bot", level: quickLevel.value || st.defaultLevel },
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
        : s.kind === "open"
          ? { color: s.color, kind: "open" }
          : { name: s.name, color: s.color, kind: "human" },
    );
    const body = { seats, removal: st.removal, first: st.first, hints: hintsAllowed(), rated: isRated() };
    const clock = clockBody();
    if (clock) body.clock = clock;
    if (st.removal === "chosen")
      body.removed = st.removed
        .split(/[\s,]+/)
        .map((x) => x.trim())
        .filter(Boolean);
    const human = st.seats.find((s) => s.kind === "human");
    if (human && !known().signed_in) localStorage.setItem("kerala.name", human.name);
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

  // Hints: the server's default rule (on when every seat but one is a bot's) until the
  // checkbox is touched (docs/security.md, "Fair play").
  const hintsAllowed = () => (st.hints === null ? st.seats.filter((s) => s.kind !== "bot").length <= 1 : st.hints);
  const clockBody = () => {
    if (st.clock !== "custom") return CLOCK_PRESETS[st.clock];
    const c = st.custom;
    return c.kind === "realtime" ? { kind: "realtime", minutes: Number(c.minutes), increment: Number(c.increment) } : { kind: "correspondence", hours: Number(c.hours) };
  };
  const num = (field, min, max) =>
    h("input", { type: "number", min, max, step: "any", value: st.custom[field], "data-field": field, id: `clock-${field}`, oninput: (e) => (st.custom[field] = e.target.value) });
  const clockControls = () =>
    h(
      "label",
      {},
      t("home.clock"),
      " ",
      h(
        "select",
        {
          id: "clock-preset",
          onchange: (e) => {
            st.clock = e.target.value;
            render();
          },
        },
        [...Object.keys(CLOCK_PRESETS), "custom"].map((k) => h("option", { value: k, selected: st.clock === k }, t(`home.clock.${k}`))),
      ),
      st.clock === "custom"
        ? h(
            "span",
            { class: "row", id: "clock-custom" },
            h(
              "select",
              {
                id: "clock-kind",
                onchange: (e) => {
                  st.custom.kind = e.target.value;
                  render();
                },
              },
              ["realtime", "correspondence"].map((k) => h("option", { value: k, selected: st.custom.kind === k }, t(`home.clockKind.${k}`))),
            ),
            st.custom.kind === "realtime"
              ? [h("label", {}, t("home.minutes"), " ", num("minutes", 1, 10080)), h("label", {}, t("home.increment"), " ", num("increment", 0, 3600))]
              : h("label", {}, t("home.hours"), " ", num("hours", 1, 2160)),
          )
        : null,
    );
  // Rated: the server's default rule (one person against bots) until the checkbox is touched
  // (docs/ratings.md); a rated game moves the ratings of the seats held by accounts.
  const isRated = () => (st.rated === null ? st.seats.filter((s) => s.kind !== "bot").length === 1 : st.rated);

  const suggestRemoved = () => {
    // A valid choice for S3: the right count, none of a played color.
    const played = new Set(st.seats.map((s) => s.color));
    const want = removeCount(st.seats.length);
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
      h("strong", {}, t("home.seat", { n: i + 1 })),
      h(
        "label",
        {},
        t("home.name"),
        h("input", {
          type: "text",
          value: s.kind === "open" ? "" : s.name,
          placeholder: s.kind === "open" ? t("home.openName") : "",
          disabled: s.kind === "open",
          maxlength: 40,
          required: s.kind !== "open",
          "data-field": "name",
          oninput: (e) => (s.name = e.target.value),
        }),
      ),
      h(
        "label",
        {},
        t("home.color"),
        h(
          "select",
          {
            "data-field": "color",
            onchange: (e) => {
              s.color = e.target.value;
              render();
            },
          },
          COLORS.map((c) => h("option", { value: c, selected: c === s.color, disabled: used.has(c) }, colorWord(c))),
        ),
      ),
      h(
        "label",
        {},
        t("home.player"),
        h(
          "select",
          {
            "data-field": "kind",
            onchange: (e) => {
              s.kind = e.target.value;
              render();
            },
          },
          h("option", { value: "human", selected: s.kind === "human" }, t("home.human")),
          h("option", { value: "bot", selected: s.kind === "bot" }, t("home.botKind")),
          h("option", { value: "open", selected: s.kind === "open" }, t("home.openKind")),
        ),
      ),
      s.kind === "bot"
        ? h(
            "label",
            {},
            t("home.botLevel"),
            h(
              "select",
              { "data-field": "level", onchange: (e) => (s.level = e.target.value) },
              st.levels.map((l) =>
                h("option", { value: l.name, selected: l.name === (s.level || st.defaultLevel), title: levelTip(l) }, levelName(l.name)),
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
        h("button", { type: "button", onclick: () => copyText(url, input) }, t("home.copy")),
        h("a", { class: "button", href: path }, t("home.open")),
      );
    };
    return h(
      "section",
      { class: "panel", id: "created" },
      h("h2", {}, t("home.created")),
      h("p", {}, t("home.linksIntro")),
      h(
        "div",
        { class: "links" },
        r.invites.map((inv) => row(t("home.inviteColor", { name: inv.name, color: colorWord(inv.color) }), inv.url || location.origin + inv.path, inv.path, `invite-${inv.seat}`)),
        row(t("home.watch"), r.watch.url || location.origin + r.watch.path, r.watch.path, "watch-link"),
      ),
    );
  }

  function render() {
    const focus = document.activeElement;
    const focusKey = focus && focus.closest && focus.closest("[data-seat]") ? [focus.closest("[data-seat]").dataset.seat, focus.dataset.field] : null;
    quickLevel.replaceChildren(
      ...st.levels.map((l) => h("option", { value: l.name, selected: l.name === (quickLevel.value || st.defaultLevel) }, levelName(l.name))),
    );
    const n = st.seats.length;
    page.replaceChildren(
      ...[
      h(
        "section",
        { class: "hero panel" },
        h("h1", {}, t("home.title")),
        h("p", {}, t("home.intro")),
        h(
          "div",
          { class: "row", style: "justify-content:center" },
          h("button", { type: "button", class: "primary big", id: "quick-play", disabled: st.busy, onclick: quickPlay }, t("home.quick")),
          h("a", { class: "button big", href: "#/play", id: "play-now-link" }, t("home.playNow")),
          h("a", { class: "button big", href: "#/lobby", id: "lobby-link" }, t("home.lobby")),
          h("label", { class: "muted" }, t("home.botLevel"), quickLevel),
        ),
        h("p", { class: "learn-link" }, h("a", { href: "#/learn", id: "learn-link" }, t("home.learn"))),
      ),
      linksPanel(),
      h(
        "section",
        { class: "panel", id: "setup" },
        h("h2", {}, t("home.setup")),
        h(
          "div",
          { class: "row" },
          h(
            "label",
            {},
            t("home.players"),
            h(
              "select",
              {
                id: "seat-count",
                onchange: (e) => {
                  const want = Number(e.target.value);
                  while (st.seats.length < want) {
                    const used = new Set(st.seats.map((s) => s.color));
                    st.seats.push({ name: t("home.playerN", { n: st.seats.length + 1 }), color: COLORS.find((c) => !used.has(c)), kind: "human", level: null });
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
            t("home.first"),
            h(
              "select",
              { id: "first", onchange: (e) => (st.first = Number(e.target.value)) },
              st.seats.map((s, i) => h("option", { value: i, selected: i === st.first }, t("home.seatName", { n: i + 1, name: s.name }))),
            ),
          ),
          h(
            "label",
            {},
            t("home.removal"),
            h(
              "select",
              {
                id: "removal",
                onchange: (e) => {
                  st.removal = e.target.value;
                  render();
                },
              },
              h("option", { value: "random", selected: st.removal === "random" }, t("home.removalRandom", { n: removeCount(n) })),
              h("option", { value: "chosen", selected: st.removal === "chosen" }, t("home.removalChosen", { n: removeCount(n) })),
            ),
          ),
          h(
            "label",
            { title: t("home.hintsTip") },
            h("input", {
              type: "checkbox",
              id: "hints-allowed",
              checked: hintsAllowed(),
              onchange: (e) => (st.hints = e.target.checked),
            }),
            t("home.hints"),
          ),
          clockControls(),
          h(
            "label",
            { title: t("home.ratedTip") },
            h("input", {
              type: "checkbox",
              id: "rated",
              checked: isRated(),
              onchange: (e) => (st.rated = e.target.checked),
            }),
            t("home.rated"),
          ),
        ),
        st.removal === "chosen"
          ? h(
              "div",
              {},
              h(
                "label",
                { style: "display:flex" },
                t("home.removedLabel", { n: removeCount(n) }),
                h("textarea", { id: "removed", oninput: (e) => (st.removed = e.target.value) }, st.removed),
              ),
              h("button", { type: "button", onclick: suggestRemoved }, t("home.fill")),
            )
          : null,
        h("div", { class: "seats" }, st.seats.map(seatRow)),
        h("p", {}, h("button", { type: "button", class: "primary", id: "create", disabled: st.busy, onclick: create }, t("home.create"))),
      ),
      h("section", { class: "panel" }, h("h2", {}, t("home.inProgress")), recent),
      h(
        "section",
        { class: "panel muted" },
        h("h2", {}, t("home.howTo")),
        h("ol", {}, [1, 2, 3, 4, 5].map((k) => h("li", {}, t(`home.how${k}`)))),
        h("p", {}, h("a", { href: "#/rules", id: "rules-link" }, t("home.allRules"))),
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
                  h("a", { href: `/?game=${encodeURIComponent(g.id)}` }, g.players.map((p) => p.name).join(t("home.vs"))),
                  h("span", { class: "muted" }, ` · ${t("home.decisions", { n: g.decision_number })}`),
                ),
              ),
            )
          : h("p", { class: "muted" }, t("home.none")),
      );
    } catch (e) {
      recent.replaceChildren(h("p", { class: "muted" }, e.message));
    }
  };

  // Signed in after the page was drawn: the first seat takes the account's name.
  const drawnName = st.seats[0].name;
  account().then(() => {
    if (st.seats[0].name === drawnName && myName() !== drawnName) {
      st.seats[0].name = myName();
      render();
    }
  });
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

