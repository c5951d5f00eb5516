// The tutorial ("Learn to play", docs/web.md): an introduction, steps played on the real game
// table in scripted positions, two questions about the end scoring, then a first game against
// the easiest bot with hints on. The server holds the script and the rules
// (POST /api/tutorial/{step}/play replays the step with the learner's decisions and says
// whether the turn did what the step teaches; /answer checks a question against the engine's
// score). The table is the game page's own (game/render.js, game/input.js), so what is
// learned here is what a game looks like.

import { h, api, toast } from "./ui.js";
import { t } from "./i18n.js";
import { newState } from "./game/state.js";
import { input } from "./game/input.js";
import { renderer } from "./game/render.js";
import { connection } from "./game/socket.js";
import { renderGrounds } from "./grounds.js";
import { scoreSheet, fmt } from "./sheet.js";
import { myName } from "./home.js";

const noop = () => {};

export function mountTutorial(root, { step: startAt = null } = {}) {
  // at: -1 the introduction, 0..n-1 a step, n the end.
  const tut = { steps: [], at: -1, decisions: [], outcome: null, answer: null, checked: null, error: null, busy: false };
  const page = h("div", { class: "tutorial-page", id: "tutorial" });
  const lesson = h("section", { class: "panel lesson", id: "lesson", "data-region": "lesson", tabindex: "-1" });
  const tableHost = h("div", { class: "game-page tutorial-table", id: "game" });
  page.append(lesson, tableHost);
  root.append(page);

  let st = newState();
  let act = null;
  let draw = noop;
  let patchScores = noop;
  const step = () => tut.steps[tut.at] || null;

  /** The step's position in the learner's words: "You" and "Teacher" in the page's language. */
  const localise = (g) => {
    const names = [t("tutorial.you"), t("tutorial.teacher")];
    return { ...g, players: g.players.map((p, i) => ({ ...p, name: names[i] || p.name })) };
  };

  const playStep = async (decisions) => {
    const s = step();
    const r = await api("POST", `/api/tutorial/${encodeURIComponent(s.id)}/play`, { decisions });
    tut.decisions = decisions;
    tut.outcome = r.outcome;
    return localise(r.game);
  };

  // The table's connection: the game page's, with the step's replay in place of the game's
  // routes (a decision is sent with those before it; nothing is stored anywhere).
  const accept = (g) => {
    if (!g) return drawAll();
    st.game = g;
    st.sel = null;
    st.hint = null;
    drawAll();
    setTimeout(() => !st.busy && conn.scoreLive(), 0);
  };
  const base = connection(st, { id: "tutorial", token: null, accept, onEvent: noop, onScores: () => patchScores(), onChat: noop, banner: noop, hideBanner: noop });
  const conn = {
    ...base,
    load: async () => {
      try {
        accept(await playStep(tut.decisions));
      } catch (e) {
        toast(e.message);
      }
      return true;
    },
    submit: (d) => playStep([...tut.decisions, d]),
    findHintRoute: async () => null,
  };

  const ui = {
    id: "tutorial",
    recordPath: "#",
    act: null,
    sound: () => false,
    toggleSound: noop,
    notifyOn: () => false,
    toggleNotify: noop,
    chatUnread: () => 0,
    openChat: noop,
    coords: () => localStorage.getItem("kerala.coords") === "1",
    toggleCoords: () => {
      localStorage.setItem("kerala.coords", ui.coords() ? "0" : "1");
      draw();
    },
    toggleLog: () => {
      st.showLog = !st.showLog;
      draw();
    },
    enlarge: (i) => {
      st.zoomSeat = i;
      draw();
    },
    handOver: noop,
    createdLinks: () => null,
    takeBack: noop,
    rematch: noop,
    again: noop,
  };

  const startTable = () => {
    st = Object.assign(st, newState());
    act = input(st, { render: () => draw(), accept: (g) => accept(g), conn });
    ui.act = act;
    ({ render: draw, patchScores } = renderer(st, tableHost, ui));
  };

  const go = async (k) => {
    tut.at = k;
    tut.decisions = [];
    tut.outcome = null;
    tut.answer = null;
    tut.checked = null;
    tut.error = null;
    tableHost.replaceChildren();
    draw = noop;
    patchScores = noop;
    const s = step();
    if (s && s.kind === "play") {
      startTable();
      await conn.load();
    } else drawAll();
    lesson.focus({ preventScroll: true });
    lesson.scrollIntoView({ block: "start" });
  };

  const answer = async (value) => {
    if (tut.busy) return;
    tut.busy = true;
    try {
      const s = step();
      tut.checked = await api("POST", `/api/tutorial/${encodeURIComponent(s.id)}/answer`, { answer: value });
      tut.answer = value;
    } catch (e) {
      toast(e.message);
    } finally {
      tut.busy = false;
      drawAll();
      const next = lesson.querySelector("#tutorial-next, #tutorial-retry");
      if (next) next.focus();
    }
  };

  const firstGame = async () => {
    if (tut.busy) return;
    tut.busy = true;
    drawAll();
    try {
      // The easiest level: the server lists its levels from the easiest up.
      const levels = await api("GET", "/api/bots");
      const level = levels.levels.length ? levels.levels[0].name : levels.default;
      const r = await api("POST", "/api/games", {
        seats: [
          { name: myName().slice(0, 40), color: "blue", kind: "human" },
          { name: t("home.bot"), color: "red", kind: "bot", level },
        ],
        removal: "random",
        first: 0,
        hints: true,
        rated: false,
      });
      const inv = r.invites.find((i) => i.seat === 0) || r.invites[0];
      location.assign(inv.path);
    } catch (e) {
      tut.busy = false;
      toast(e.message);
      drawAll();
    }
  };

  const progress = () => {
    const n = tut.steps.length;
    return h(
      "p",
      { class: "tutorial-progress muted" },
      h("progress", { max: n, value: Math.max(0, tut.at) + (tut.outcome === "passed" || (tut.checked && tut.checked.correct) ? 1 : 0), "aria-hidden": "true" }),
      " ",
      h("span", { id: "tutorial-step" }, t("tutorial.stepOf", { n: tut.at + 1, of: n })),
    );
  };

  const nextButton = () => h("button", { type: "button", class: "primary", id: "tutorial-next", onclick: () => go(tut.at + 1) }, tut.at + 1 < tut.steps.length ? t("tutorial.next") : t("tutorial.finish"));

  function playLesson(s) {
    const parts = [h("p", { id: "tutorial-text" }, t(`tutorial.${s.id}.text`))];
    if (tut.outcome === "passed") {
      parts.push(h("p", { class: "tutorial-good", id: "tutorial-result", role: "status" }, "✓ ", t(`tutorial.${s.id}.done`)), nextButton());
    } else if (tut.outcome === "failed") {
      parts.push(
        h("p", { class: "tutorial-bad", id: "tutorial-result", role: "status" }, t(`tutorial.${s.id}.retry`)),
        h("button", { type: "button", class: "primary", id: "tutorial-retry", onclick: () => go(tut.at) }, t("tutorial.retry")),
      );
    }
    return parts;
  }

  function quizLesson(s) {
    const c = tut.checked;
    const removed = c ? c.score.removed_cells : [];
    const board = h("div", { class: "grounds-box medium quiz-board", "data-seat": 0 }, renderGrounds(s.grounds, { removed, label: t("tutorial.quizBoard") }));
    const options = h(
      "div",
      { class: "row quiz-options", role: "group", "aria-label": t(`tutorial.${s.id}.question`) },
      s.options.map((v) =>
        h(
          "button",
          {
            type: "button",
            class: `quiz-option ${c && v === tut.answer ? (c.correct ? "right" : "wrong") : ""}`,
            "data-answer": String(v),
            "aria-pressed": String(v === tut.answer),
            disabled: tut.busy || (c && c.correct),
            onclick: () => answer(v),
          },
          s.field === "total" ? t("tutorial.points", { n: v }) : fmt(v),
        ),
      ),
    );
    const parts = [h("p", { id: "tutorial-text" }, t(`tutorial.${s.id}.text`)), board, h("p", { class: "quiz-question" }, h("strong", {}, t(`tutorial.${s.id}.question`))), options];
    if (c) {
      parts.push(
        h("p", { class: c.correct ? "tutorial-good" : "tutorial-bad", id: "tutorial-result", role: "status" }, c.correct ? "✓ " : "", t(c.correct ? "tutorial.right" : "tutorial.wrong"), " ", t(`tutorial.${s.id}.explain`)),
        scoreSheet([{ name: t("tutorial.you"), color: "blue" }], [c.score]),
      );
      if (c.correct) parts.push(nextButton());
    }
    return parts;
  }

  function drawLesson() {
    const s = step();
    let parts;
    if (tut.at < 0) {
      parts = [
        h("h1", {}, t("tutorial.title")),
        h("p", {}, t("tutorial.intro")),
        h("p", { class: "muted" }, t("tutorial.introHow")),
        tut.error ? h("div", { class: "error-box", role: "alert" }, tut.error) : null,
        h("button", { type: "button", class: "primary big", id: "tutorial-start", disabled: !tut.steps.length, onclick: () => go(0) }, t("tutorial.start")),
      ];
    } else if (!s) {
      parts = [
        h("h1", {}, t("tutorial.endTitle")),
        h("p", {}, t("tutorial.endText")),
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", class: "primary big", id: "tutorial-play", disabled: tut.busy, onclick: firstGame }, t("tutorial.firstGame")),
          h("a", { class: "button", href: "#/rules" }, t("tutorial.readRules")),
          h("button", { type: "button", id: "tutorial-again", onclick: () => go(0) }, t("tutorial.again")),
        ),
      ];
    } else {
      parts = [h("h1", {}, t("tutorial.title"), ": ", h("span", { id: "tutorial-title" }, t(`tutorial.${s.id}.title`))), progress(), ...(s.kind === "play" ? playLesson(s) : quizLesson(s))];
    }
    lesson.replaceChildren(...parts.filter(Boolean));
  }

  function drawAll() {
    drawLesson();
    tableHost.dataset.done = tut.outcome && tut.outcome !== "playing" ? "1" : "0";
    if (step() && step().kind === "play" && st.game) draw();
    if (tut.outcome === "passed" || tut.outcome === "failed") {
      const b = lesson.querySelector("#tutorial-next, #tutorial-retry");
      if (b) b.focus({ preventScroll: true });
    }
  }

  const onKey = (ev) => act && step() && step().kind === "play" && act.onKey(ev);
  document.addEventListener("keydown", onKey);

  drawAll();
  api("GET", "/api/tutorial")
    .then((r) => {
      tut.steps = r.steps;
      // A link may open a step (`#/learn?step=arch`) or the end (`?step=end`).
      const k = startAt === "end" ? r.steps.length : r.steps.findIndex((x) => x.id === startAt);
      if (k >= 0) go(k);
      else drawAll();
    })
    .catch((e) => {
      tut.error = e.message;
      drawAll();
    });

  return () => {
    document.removeEventListener("keydown", onKey);
    st.closed = true;
  };
}
