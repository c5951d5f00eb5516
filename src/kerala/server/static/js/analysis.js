// Post-game analysis on the replay page. An "Analyse" button asks the server to
// review every decision with the strongest bot, each from its player's view at the time
// (POST /api/games/{id}/analysis, or /api/records/analysis for a record file), shows the
// progress, then marks the mistakes on a timeline under the replay controls; at each reviewed
// step it says which decision the bot preferred and outlines its cell on the board.
// A record file that already holds an analysis (`kerala analyse --out`) shows it at once.
//
// The replay page calls mountAnalysis(page, st, go) after each of its renders.

import { h, api } from "./ui.js";
import { decisionWords } from "./words.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const states = new WeakMap();
const flagWord = (f) => t(`analysis.flag.${f}`);

function sourceKey(st) {
  return st.source.kind === "game" ? `game:${st.source.id}` : `record:${st.source.name}`;
}

function stateOf(st) {
  let a = states.get(st);
  const key = sourceKey(st);
  if (!a || a.key !== key) {
    const given = st.source.kind === "record" && st.source.record && st.source.record.analysis;
    a = { key, status: given ? "done" : "idle", job: null, analysis: given || null, error: null, timer: null };
    states.set(st, a);
  }
  return a;
}

const pct = (x) => `${Math.round(100 * x)}%`;

async function start(page, st, go, a) {
  a.status = "running";
  a.error = null;
  const time = localStorage.getItem("kerala.analysisTime");
  const q = time ? `?time=${encodeURIComponent(time)}` : "";
  try {
    a.job =
      st.source.kind === "game"
        ? await api("POST", `/api/games/${encodeURIComponent(st.source.id)}/analysis${q}`)
        : await api("POST", `/api/records/analysis${q}`, st.source.record);
  } catch (e) {
    a.status = "failed";
    a.error = e.message;
    return draw(page, st, go);
  }
  poll(page, st, go, a);
}

function poll(page, st, go, a) {
  const key = a.key;
  const step = async () => {
    if (states.get(st) !== a || a.key !== key) return;
    try {
      a.job = await api("GET", `/api/analysis/${encodeURIComponent(a.job.id)}`);
    } catch (e) {
      a.status = "failed";
      a.error = e.message;
      return draw(page, st, go);
    }
    if (a.job.status === "done") {
      a.status = "done";
      a.analysis = a.job.analysis;
    } else if (a.job.status === "failed" || a.job.status === "cancelled") {
      a.status = "failed";
      a.error = a.job.error || t("analysis.failed");
    }
    draw(page, st, go);
    if (a.status === "running") a.timer = setTimeout(step, 400);
  };
  draw(page, st, go);
  a.timer = setTimeout(step, 200);
}

function names(st) {
  return st.players.map((p, i) => (p && p.name) || t("words.seat", { n: i + 1 }));
}

function timeline(st, go, analysis) {
  const bar = h("div", { class: "analysis-timeline", id: "analysis-timeline", role: "list", "aria-label": t("analysis.timeline") });
  bar.style.cssText = "position:relative;height:22px;margin:6px 0 10px;border-radius:4px;background:var(--panel-2, #eee);overflow:hidden";
  const total = Math.max(1, st.total);
  const color = { blunder: "#c62828", mistake: "#ef6c00", inaccuracy: "#f9a825" };
  const z = { blunder: 3, mistake: 2, inaccuracy: 1 };
  for (const d of analysis.decisions) {
    if (!d.flag) continue;
    const step = d.at + 1;
    const who = names(st)[d.seat] ?? t("words.seat", { n: d.seat + 1 });
    const mark = h(
      "button",
      {
        type: "button",
        class: `analysis-mark ${d.flag}`,
        role: "listitem",
        "data-flag": d.flag,
        "data-at": step,
        title: t("analysis.mark", { flag: flagWord(d.flag), name: who, n: step }),
        "aria-label": t("analysis.mark", { flag: flagWord(d.flag), name: who, n: step }),
        onclick: () => go(step),
      },
      "",
    );
    // One step wide (3 to 10 px), centred on its step; worse flags drawn on top.
    const w = `max(3px, min(10px, ${100 / total}%))`;
    mark.style.cssText = `position:absolute;top:2px;width:${w};min-width:0;height:18px;min-height:0;padding:0;margin:0;border:0;border-radius:2px;cursor:pointer;background:${color[d.flag]};left:calc(${(100 * step) / total}% - ${w} / 2);z-index:${z[d.flag]}`;
    bar.append(mark);
  }
  const here = h("span", { class: "analysis-here", "aria-hidden": "true" });
  here.style.cssText = `position:absolute;top:0;width:2px;height:22px;background:currentColor;left:${(100 * st.at) / total}%`;
  bar.append(here);
  return bar;
}

const SEVERITY = { blunder: 3, mistake: 2, inaccuracy: 1 };

// The few decisions that mattered, first: a seat's costliest flagged decisions, worst first.
function costliest(analysis, seat, k = 3) {
  return analysis.decisions
    .filter((d) => d.flag && d.seat === seat)
    .sort((a, b) => SEVERITY[b.flag] - SEVERITY[a.flag] || b.cost.win - a.cost.win || b.cost.points - a.cost.points)
    .slice(0, k);
}

// The judging bot in player words ("expert, 0.2 s a decision"), from its spec.
function botName(analysis) {
  const [level, ...opts] = String(analysis.bot || "").split(":");
  const time = (opts.find((o) => o.startsWith("time=")) || "").slice(5);
  const name = t(`level.${level}`);
  return time ? t("analysis.botName", { level: name, time }) : name;
}

function summary(st, go, analysis) {
  const n = names(st);
  return h(
    "ul",
    { class: "analysis-summary", id: "analysis-summary" },
    Object.entries(analysis.summary).map(([seat, s]) => {
      const worst = costliest(analysis, Number(seat));
      return h(
        "li",
        { "data-seat": seat },
        t("analysis.summary", {
          name: n[Number(seat)] ?? t("words.seat", { n: Number(seat) + 1 }),
          decisions: s.decisions,
          agreed: s.agreed,
          blunders: s.blunders,
          mistakes: s.mistakes,
          inaccuracies: s.inaccuracys,
        }),
        worst.length
          ? h(
              "ol",
              { class: "analysis-worst", "aria-label": t("analysis.worstTitle") },
              worst.map((d) =>
                h(
                  "li",
                  {},
                  h(
                    "button",
                    { type: "button", class: "small", "data-at": d.at + 1, "data-flag": d.flag, onclick: () => go(d.at + 1) },
                    t("analysis.worst", { flag: flagWord(d.flag), n: d.at + 1 }),
                  ),
                ),
              ),
            )
          : "",
      );
    }),
  );
}

// A flagged decision names a better one by the figure its flag rests on, so that the
// figures shown always differ; an unflagged one that the bot would not have played is
// called close, with no claim that it was worse.
function stepNote(st, analysis) {
  const d = analysis.decisions.find((x) => x.at + 1 === st.at);
  if (!d) return h("p", { id: "analysis-step", class: "muted" }, t("analysis.noReview"));
  const who = names(st)[d.seat] ?? t("words.seat", { n: d.seat + 1 });
  if (JSON.stringify(d.played) === JSON.stringify(d.best))
    return h("p", { id: "analysis-step", "data-flag": "" }, t("analysis.agreed", { name: who, win: pct(d.win.best) }));
  const better = h("strong", { id: "analysis-better" }, decisionWords(d.best, who));
  const win = { best: pct(d.win.best), played: pct(d.win.played) };
  if (!d.flag) return h("p", { id: "analysis-step", "data-flag": "" }, t("analysis.close"), better, t("analysis.closeWhy", win));
  const byPoints = d.by ? d.by === "points" : win.best === win.played;
  const figures = byPoints
    ? t("analysis.costPoints", { best: d.points.best.toFixed(1), played: d.points.played.toFixed(1) })
    : t("analysis.costWin", win);
  return h("p", { id: "analysis-step", "data-flag": d.flag, "data-by": byPoints ? "points" : "win" }, `${flagWord(d.flag)}. `, t("analysis.better"), better, figures);
}

function cellOf(d) {
  if (d.take) return d.to;
  const m = d.move_elephant || d.move_stack;
  return m ? m.to : null;
}

function markBoard(page, st, analysis) {
  const d = analysis.decisions.find((x) => x.at + 1 === st.at);
  if (!d || JSON.stringify(d.played) === JSON.stringify(d.best) || !st.pos) return;
  const at = cellOf(d.best);
  const gr = st.pos.view.grounds[d.seat];
  if (!at || !gr) return;
  for (const svg of page.querySelectorAll(`.grounds-box svg[data-color="${gr.color}"]`)) {
    const r = document.createElementNS(SVG, "rect");
    const S = 100;
    for (const [k, v] of Object.entries({ class: "analysis-better", "data-x": at[0], "data-y": at[1], x: at[0] * S + 4, y: at[1] * S + 4, width: S - 8, height: S - 8, rx: 10, fill: "none", stroke: "#2e7d32", "stroke-width": 8, "stroke-dasharray": "14 8", "pointer-events": "none" }))
      r.setAttribute(k, String(v));
    const title = document.createElementNS(SVG, "title");
    title.textContent = t("analysis.botChoice");
    r.append(title);
    svg.append(r);
    // Make room for a cell outside the drawn grounds (an empty neighbour at the edge).
    const vb = (svg.getAttribute("viewBox") || "").split(/[ ,]+/).map(Number);
    if (vb.length === 4 && vb.every(Number.isFinite)) {
      const x0 = Math.min(vb[0], at[0] * S - 10);
      const y0 = Math.min(vb[1], at[1] * S - 10);
      const x1 = Math.max(vb[0] + vb[2], at[0] * S + S + 10);
      const y1 = Math.max(vb[1] + vb[3], at[1] * S + S + 10);
      svg.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
    }
  }
}

function draw(page, st, go) {
  if (!st.source) return;
  const a = stateOf(st);
  const parts = [h("h2", {}, t("analysis.title"))];
  if (a.status === "idle") {
    parts.push(
      h("p", { class: "muted" }, t("analysis.intro")),
      h("button", { type: "button", id: "analyse-button", onclick: () => start(page, st, go, a) }, t("analysis.start")),
    );
  } else if (a.status === "running") {
    const done = a.job ? a.job.done : 0;
    const total = a.job ? a.job.total : 0;
    parts.push(
      h("p", { id: "analysis-status", "aria-live": "polite" }, t("analysis.running", { done, total })),
      h("progress", { id: "analysis-progress", value: done, max: Math.max(1, total) }),
    );
  } else if (a.status === "failed") {
    parts.push(
      h("div", { class: "error-box", id: "analysis-error", role: "alert" }, a.error || t("analysis.failed")),
      h("button", { type: "button", id: "analyse-button", onclick: () => start(page, st, go, a) }, t("analysis.again")),
    );
  } else if (a.analysis) {
    const flagged = a.analysis.decisions.filter((d) => d.flag);
    const next = flagged.find((d) => d.at + 1 > st.at) || flagged[0];
    parts.push(
      h("p", { id: "analysis-status" }, t("analysis.done", { n: flagged.length, bot: botName(a.analysis) })),
      summary(st, go, a.analysis),
      timeline(st, go, a.analysis),
      next ? h("button", { type: "button", id: "analysis-next", onclick: () => go(next.at + 1) }, t("analysis.next")) : "",
      stepNote(st, a.analysis),
    );
  }
  const panel = h("section", { class: "panel analysis", id: "analysis", "data-status": a.status }, parts);
  const old = page.querySelector("#analysis");
  if (old) old.replaceWith(panel);
  else {
    const controls = page.querySelector(".replay-controls");
    const host = controls && controls.closest("section");
    if (host) host.after(panel);
    else page.append(panel);
  }
  if (a.status === "done" && a.analysis) markBoard(page, st, a.analysis);
}

export function mountAnalysis(page, st, go) {
  if (!st.source || !st.pos) return;
  draw(page, st, go);
}
