// The game page: a seat (invite link with its token) or a watcher. Everything it offers comes
// from the server's list of legal decisions: the UI picks one of those objects and sends it
// back unchanged, so it can never offer an illegal decision. Live updates over the game's
// WebSocket; REST for the first load, for submissions and after a refusal.

import { h, api, toast } from "./ui.js";
import { renderGrounds, panZoom, tileSvg } from "./grounds.js";
import { tileWords, cellWords, edgeWord, parseTile, key, sameCell } from "./tiles.js";
import { logLines, decisionQuestion } from "./words.js";
import { scoreSheet, colorVar } from "./sheet.js";

const uniq = (cells) => {
  const seen = new Map();
  for (const c of cells) seen.set(key(c), c);
  return [...seen.values()];
};

/** What the legal list allows, grouped the way the player picks it. */
export function analyse(legal) {
  const L = legal || [];
  return {
    places: L.filter((d) => d.take),
    pass: L.find((d) => d.pass) || null,
    skip: L.find((d) => d.skip) || null,
    follow: L.filter((d) => d.move_elephant || d.move_stack),
  };
}

const moveOf = (d) => d.move_elephant || d.move_stack;

export function mountGame(root, { id, token, seat }) {
  const st = {
    game: null,
    sel: null, // place: {tile, edge, to, from}; follow-up: {source, dest}
    hint: null,
    busy: false,
    ws: null,
    wsTries: 0,
    closed: false,
    lost: false,
    enlarged: new Set(),
    hintRoute: null,
    hinting: false,
    loadError: null,
  };
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const banner = document.getElementById("conn");

  const page = h("div", { class: "game-page", id: "game" });
  root.append(page);

  // ---- data ---------------------------------------------------------------------------
  const accept = (g) => {
    if (!g) return;
    const cur = st.game;
    if (cur && g.event_number < cur.event_number) return; // an older answer arriving late
    const moved = !cur || g.decision_number !== cur.decision_number || g.status !== cur.status;
    st.game = g;
    if (moved) {
      st.sel = null;
      st.hint = null;
    }
    render();
  };

  const load = async (quiet = false) => {
    try {
      accept(await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, headers));
      st.loadError = null;
    } catch (e) {
      st.loadError = e.message;
      if (!st.game) render();
      else if (!(quiet && e.status === 0)) toast(e.message); // the banner already says it
      return false;
    }
    return true;
  };

  const connect = () => {
    if (st.closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const q = new URLSearchParams();
    if (token) q.set("token", token);
    if (st.game) q.set("since", String(st.game.event_number));
    const ws = new WebSocket(`${proto}://${location.host}/api/games/${encodeURIComponent(id)}/ws?${q}`);
    st.ws = ws;
    let ping = null;
    ws.onopen = () => {
      st.wsTries = 0;
      ping = setInterval(() => ws.readyState === 1 && ws.send(JSON.stringify({ type: "ping" })), 20000);
      if (st.lost) {
        st.lost = false;
        showBanner("Connected again.", "ok", 2500);
      } else hideBanner();
    };
    ws.onmessage = (ev) => {
      let m;
      try {
        m = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (m.type === "sync" || m.type === "event") accept(m.game);
      else if (m.type === "error") {
        toast(`${m.detail || "The server refused."}`);
        if (m.status === 404 || m.status === 403) st.closed = true;
      }
    };
    ws.onclose = () => {
      clearInterval(ping);
      if (st.closed || st.ws !== ws) return;
      st.lost = true;
      const wait = Math.min(500 * 2 ** st.wsTries, 5000);
      st.wsTries++;
      showBanner("Connection lost — reconnecting…", "lost");
      setTimeout(async () => {
        if (st.closed) return;
        // Catch up over HTTP first so the page is right even before the socket is back.
        await load(true);
        connect();
      }, wait);
    };
  };

  const submit = async (decision) => {
    if (st.busy || !st.game) return;
    st.busy = true;
    render();
    try {
      const g = await api(
        "POST",
        `/api/games/${encodeURIComponent(id)}/decisions`,
        { decision, expected: st.game.decision_number },
        headers,
      );
      st.busy = false;
      st.sel = null;
      accept(g);
      render(); // accept() ignores an answer older than what the socket already brought
    } catch (e) {
      st.busy = false;
      toast(e.message);
      if (e.status === 409 || e.status === 0) await load();
      render();
    }
  };

  const findHintRoute = async () => {
    try {
      const spec = await api("GET", "/openapi.json");
      for (const [path, ops] of Object.entries(spec.paths || {}))
        if (/hint|suggest/.test(path)) {
          st.hintRoute = { path, method: ops.post ? "POST" : "GET" };
          render();
          return;
        }
    } catch {
      /* no hint button without the route */
    }
  };

  const askHint = async () => {
    if (!st.hintRoute || st.hinting) return; // one question at a time (the server refuses more)
    st.hinting = true;
    toast("Thinking about a suggestion…", "info", 1500);
    try {
      const r = await api(
        st.hintRoute.method,
        st.hintRoute.path.replace(/\{[^}]*\}/, encodeURIComponent(id)),
        st.hintRoute.method === "POST" ? {} : undefined,
        headers,
      );
      const first = r && Array.isArray(r.suggestions) ? r.suggestions[0] : null;
      const d = first ? first.decision || first : r && (r.decision || r.hint || r);
      const legal = (st.game && st.game.legal) || [];
      const same = legal.find((x) => JSON.stringify(x) === JSON.stringify(d));
      if (!same) {
        toast("No suggestion right now.", "info");
        return;
      }
      st.hint = same;
      if (same.take) st.sel = { tile: same.take, edge: same.arch || null, to: same.to, from: same.from };
      else if (moveOf(same)) st.sel = { source: moveOf(same).from, dest: moveOf(same).to };
      else if (same.pass) st.sel = { pass: true };
      else if (same.skip) st.sel = { skip: true };
      else st.sel = null;
      render();
    } catch (e) {
      toast(e.message);
    } finally {
      st.hinting = false;
    }
  };

  // ---- selection ----------------------------------------------------------------------
  const myTurn = () => st.game && st.game.legal && st.game.legal.length > 0 && st.game.seat !== null;

  /** The one legal decision the current selection names, or null while incomplete. */
  const chosen = () => {
    const g = st.game;
    if (!g || !g.legal || !st.sel) return null;
    const a = analyse(g.legal);
    const s = st.sel;
    if (s.tile) {
      if (!s.to || !s.from) return null;
      return (
        a.places.find(
          (d) =>
            d.take === s.tile &&
            sameCell(d.to, s.to) &&
            sameCell(d.from, s.from) &&
            (d.arch || null) === (s.edge || null),
        ) || null
      );
    }
    if (s.source && s.dest)
      return a.follow.find((d) => sameCell(moveOf(d).from, s.source) && sameCell(moveOf(d).to, s.dest)) || null;
    return null;
  };

  const pickTile = (t) => {
    if (st.sel && st.sel.tile === t) {
      st.sel = null;
    } else {
      const edges = edgesFor(t);
      st.sel = { tile: t, edge: edges[0] || null, to: null, from: null };
    }
    st.hint = null;
    render();
  };

  const placesFor = (t) => analyse(st.game.legal).places.filter((d) => d.take === t);
  const edgesFor = (t, to = null, from = null) => [
    ...new Set(
      placesFor(t)
        .filter((d) => (!to || sameCell(d.to, to)) && (!from || sameCell(d.from, from)))
        .map((d) => d.arch)
        .filter(Boolean),
    ),
  ];

  const onMyCell = (c) => {
    const g = st.game;
    if (!myTurn() || st.busy) return;
    const s = st.sel;
    const a = analyse(g.legal);
    if (s && s.tile) {
      const opts = placesFor(s.tile);
      if (!s.to || (s.to && !s.from)) {
        // A target, or (choosing the elephant) one of the elephants' cells.
        if (s.to && !s.from) {
          const froms = uniq(opts.filter((d) => sameCell(d.to, s.to)).map((d) => d.from));
          if (froms.some((f) => sameCell(f, c))) {
            s.from = c;
            fixEdge();
            render();
            return;
          }
        }
        const here = opts.filter((d) => sameCell(d.to, c));
        if (!here.length) return;
        s.to = c;
        const froms = uniq(here.map((d) => d.from));
        s.from = froms.length === 1 ? froms[0] : null;
        fixEdge();
        render();
        return;
      }
      // Confirm stage: clicking another target moves the choice there.
      const here = opts.filter((d) => sameCell(d.to, c));
      if (here.length) {
        s.to = c;
        const froms = uniq(here.map((d) => d.from));
        s.from = froms.length === 1 ? froms[0] : null;
        fixEdge();
        render();
      }
      return;
    }
    if (a.follow.length) {
      const srcs = uniq(a.follow.map((d) => moveOf(d).from));
      if (s && s.source && !s.dest) {
        const ok = a.follow.some((d) => sameCell(moveOf(d).from, s.source) && sameCell(moveOf(d).to, c));
        if (ok) {
          s.dest = c;
          render();
          return;
        }
      }
      if (srcs.some((x) => sameCell(x, c))) {
        st.sel = { source: c, dest: null };
        render();
      }
    }
  };

  const fixEdge = () => {
    const s = st.sel;
    if (!s || !s.tile || !parseTile(s.tile).archColor) return;
    const edges = edgesFor(s.tile, s.to, s.from);
    if (!edges.includes(s.edge)) s.edge = edges[0] || null;
  };

  const turnArch = () => {
    const s = st.sel;
    if (!s || !s.tile) return;
    const edges = edgesFor(s.tile, s.to, s.from);
    if (!edges.length) return;
    const i = edges.indexOf(s.edge);
    s.edge = edges[(i + 1) % edges.length];
    render();
  };

  const canTurn = () => {
    const s = st.sel;
    return !!(s && s.tile && parseTile(s.tile).archColor && edgesFor(s.tile, s.to, s.from).length > 1);
  };
  const turnButton = () =>
    h(
      "button",
      { type: "button", id: "turn-arch", onclick: turnArch, title: "turn the arch (R)" },
      `↻ Turn arch (faces ${edgeWord(st.sel.edge)})`,
    );

  const cancel = () => {
    st.sel = null;
    st.hint = null;
    render();
  };

  // ---- rendering ----------------------------------------------------------------------
  const names = () => (st.game ? st.game.players.map((p) => p.name) : []);
  const nameOf = (seatNo) => (st.game && st.game.players[seatNo] ? st.game.players[seatNo].name : `Seat ${seatNo}`);

  function prompt() {
    const g = st.game;
    if (g.status === "over") return "The game is over.";
    if (g.seat === null) return `You are watching. ${nameOf(g.to_move)} is to move.`;
    if (g.players[g.seat] && g.players[g.seat].handed_to_bot)
      return "Your seat was handed to a bot: it plays for you for the rest of the game.";
    if (!myTurn()) {
      const p = g.players[g.to_move];
      return p && p.kind === "bot"
        ? `${p.name} (bot) is thinking…`
        : `Waiting for ${nameOf(g.to_move)}.`;
    }
    const a = analyse(g.legal);
    const s = st.sel;
    if (st.busy) return "Sending…";
    if (a.follow.length || a.skip) {
      const what = g.view.pending === "move-elephant" ? "an elephant" : "a stack";
      if (!s || !s.source)
        return g.view.pending === "move-elephant"
          ? "Special tile: pick an elephant to move (blue dashed rings), or skip."
          : "Special tile: pick a stack to move (blue dashed rings), or skip.";
      if (!s.dest) return `Now pick where ${what} goes (yellow rings).`;
      return "Confirm the move.";
    }
    if (s && s.pass) return "Pass this turn? Confirm below.";
    if (!s || !s.tile) return "Your turn: pick a tile from the display" + (a.pass ? ", or pass." : ".");
    if (!s.to) return `Pick a yellow cell for ${tileWords(s.tile)}.`;
    if (!s.from) return "Two elephants can move there: pick which one (blue dashed rings).";
    return "Check and confirm your move.";
  }

  function myMarks() {
    const g = st.game;
    if (!myTurn() || st.busy) return [];
    const a = analyse(g.legal);
    const s = st.sel;
    const marks = [];
    if (s && s.tile) {
      const opts = placesFor(s.tile);
      for (const c of uniq(opts.map((d) => d.to)))
        marks.push({
          at: c,
          cls: s.to && sameCell(s.to, c) ? "chosen" : "target",
          label: `place ${tileWords(s.tile)} at (${c[0]}, ${c[1]})`,
        });
      if (s.to) {
        const froms = uniq(opts.filter((d) => sameCell(d.to, s.to)).map((d) => d.from));
        if (froms.length > 1)
          for (const f of froms)
            marks.push({
              at: f,
              cls: s.from && sameCell(s.from, f) ? "chosen" : "source",
              label: `move the elephant from (${f[0]}, ${f[1]})`,
            });
      }
    } else if (a.follow.length) {
      const srcs = uniq(a.follow.map((d) => moveOf(d).from));
      if (s && s.source) {
        marks.push({ at: s.source, cls: "chosen", label: `chosen (${s.source[0]}, ${s.source[1]})` });
        for (const d of a.follow.filter((d) => sameCell(moveOf(d).from, s.source)))
          marks.push({
            at: moveOf(d).to,
            cls: s.dest && sameCell(s.dest, moveOf(d).to) ? "chosen" : "dest",
            label: `to (${moveOf(d).to[0]}, ${moveOf(d).to[1]})`,
          });
        for (const c of srcs)
          if (!sameCell(c, s.source)) marks.push({ at: c, cls: "source", label: `pick (${c[0]}, ${c[1]}) instead` });
      } else
        for (const c of srcs)
          marks.push({
            at: c,
            cls: "source",
            label:
              g.view.pending === "move-elephant"
                ? `move the elephant on (${c[0]}, ${c[1]})`
                : `move the stack at (${c[0]}, ${c[1]})`,
          });
    }
    return marks;
  }

  const boxes = new Map(); // seat -> {box, vb}

  function groundsBox(i, size) {
    const g = st.game;
    const gr = g.view.grounds[i];
    const p = g.players[i];
    const removed = g.result && g.result.scores ? (g.result.scores.find((x) => x.seat === i) || g.result.scores[i] || {}).removed_cells || [] : [];
    const mine = g.seat === i;
    const sel = st.sel;
    const ghost = mine && sel && sel.tile && sel.to ? { at: sel.to, tile: sel.edge ? `${sel.tile}@${sel.edge}` : sel.tile } : null;
    const svg = renderGrounds(gr, {
      marks: mine ? myMarks() : [],
      onCell: mine ? onMyCell : null,
      removed,
      ghost,
      label: `${p.name}'s festival grounds (${gr.color})`,
    });
    const prev = boxes.get(i);
    const box = h("div", { class: `grounds-box ${size}`, "data-seat": i });
    box.append(svg);
    panZoom(svg, box);
    if (prev && prev.vb && prev.base === svg.dataset.baseViewbox) svg.setAttribute("viewBox", prev.vb);
    const obs = { vb: null, base: svg.dataset.baseViewbox };
    boxes.set(i, obs);
    new MutationObserver(() => {
      const v = svg.getAttribute("viewBox");
      obs.vb = v !== obs.base ? v : null;
    }).observe(svg, { attributes: true, attributeFilter: ["viewBox"] });
    return box;
  }

  function playerChip(i) {
    const g = st.game;
    const p = g.players[i];
    const gr = g.view.grounds[i];
    const left = 2 - gr.passes;
    return h(
      "li",
      { class: `player ${g.to_move === i ? "to-move" : ""}`, "data-seat": i },
      h(
        "span",
        { class: "seat-chip" },
        h("span", { class: "swatch", style: `background:${colorVar(p.color)}` }),
        `${p.name}`,
      ),
      ` (${p.color}${p.kind === "bot" ? `, bot ${p.bot || ""}` : ""}${p.handed_to_bot ? ", handed to a bot" : ""})`,
      g.seat === i ? h("strong", {}, " — you") : "",
      h("span", { class: "passes muted" }, ` · passes left: ${left}`),
      g.to_move === i && g.status !== "over" ? h("strong", {}, " ◀ to move") : "",
    );
  }

  function render() {
    const g = st.game;
    if (!g) {
      page.replaceChildren(
        st.loadError
          ? h("div", { class: "error-box", id: "game-error" }, st.loadError, " ", h("a", { href: "#/" }, "Back to the home page"))
          : h("p", {}, "Loading the game…"),
      );
      return;
    }
    const v = g.view;
    const a = analyse(g.legal);
    const over = g.status === "over";
    const me = g.seat;
    // State for people's tools and tests: what the page currently shows.
    page.dataset.decisionNumber = String(g.decision_number);
    page.dataset.status = g.status;
    page.dataset.myTurn = myTurn() && !st.busy ? "1" : "0";
    page.dataset.phase = v.phase;
    document.title = over ? "Kerala — game over" : myTurn() ? "Kerala — your turn" : "Kerala";

    const status = h(
      "div",
      { class: "status-bar panel", id: "status" },
      h(
        "span",
        { class: `turn ${myTurn() ? "you" : ""}`, id: "turn" },
        over ? "Game over" : myTurn() ? "Your turn" : `${nameOf(g.to_move)}'s turn`,
      ),
      h("span", {}, `Round ${v.round + 1}`),
      h("span", { id: "bag" }, `Bag: ${v.bag_count} tile${v.bag_count === 1 ? "" : "s"}`),
      me !== null
        ? h("span", {}, "You are ", h("strong", {}, g.players[me].name), ` (${g.players[me].color})`)
        : h("span", { class: "muted" }, "Watching"),
    );

    // The display
    const canPick = myTurn() && !st.busy && a.places.length > 0;
    const takeable = new Set(a.places.map((d) => d.take));
    const display = h(
      "div",
      { class: "display", id: "display", role: "group", "aria-label": "the display" },
      v.display.length
        ? v.display.map((t, i) => {
            const selected = st.sel && st.sel.tile === t;
            const edge = selected && st.sel.edge ? st.sel.edge : "N";
            return h(
              "button",
              {
                type: "button",
                class: "tile-btn",
                "data-tile": t,
                "data-index": i,
                "aria-pressed": String(!!selected),
                "aria-label": `${tileWords(t)}${parseTile(t).archColor ? `, arch facing ${edgeWord(edge)}` : ""}`,
                disabled: !(canPick && takeable.has(t)),
                onclick: () => pickTile(t),
              },
              tileSvg(t, 64, { edge }),
            );
          })
        : h("span", { class: "muted" }, over ? "" : "The display is empty."),
    );

    // Controls
    const sel = st.sel;
    const choice = chosen();
    const controls = h("div", { class: "controls" });
    if (myTurn()) {
      if (a.pass)
        controls.append(
          h(
            "button",
            {
              type: "button",
              id: "pass",
              disabled: st.busy,
              onclick: () => {
                st.sel = { pass: true };
                render();
              },
            },
            `Pass (${2 - v.grounds[me].passes} left)`,
          ),
        );
      else if (a.places.length)
        controls.append(h("span", { class: "muted", id: "no-pass" }, "No passes left."));
      if (a.skip)
        controls.append(
          h("button", { type: "button", id: "skip", disabled: st.busy, onclick: () => submit(a.skip) }, "Skip"),
        );
      if (canTurn() && !choice) controls.append(turnButton());
      if (st.hintRoute)
        controls.append(h("button", { type: "button", id: "hint", onclick: askHint }, "Suggest a move"));
      if (sel) controls.append(h("button", { type: "button", id: "cancel", onclick: cancel }, "Cancel"));
    }
    let confirm = null;
    if (myTurn() && sel && (choice || (sel.pass && a.pass) || (sel.skip && a.skip))) {
      const d = sel.pass ? a.pass : sel.skip ? a.skip : choice;
      confirm = h(
        "div",
        { class: "confirm", id: "confirm" },
        h("span", { id: "confirm-text" }, st.hint === d ? "Suggested: " : "", decisionQuestion(d)),
        canTurn() ? turnButton() : null,
        h(
          "button",
          { type: "button", class: "primary", id: "confirm-btn", disabled: st.busy, onclick: () => submit(d) },
          "Confirm",
        ),
        h("button", { type: "button", onclick: cancel }, "Back"),
      );
    }
    if (myTurn() && sel && sel.tile && sel.to && !sel.from) {
      const froms = uniq(placesFor(sel.tile).filter((d) => sameCell(d.to, sel.to)).map((d) => d.from));
      controls.append(
        h(
          "span",
          { class: "row", id: "elephant-choice" },
          "Which elephant moves? ",
          froms.map((f) =>
            h(
              "button",
              {
                type: "button",
                "data-from": key(f),
                onclick: () => {
                  sel.from = f;
                  fixEdge();
                  render();
                },
              },
              `the one on ${cellWords(f)}`,
            ),
          ),
        ),
      );
    }

    const playPanel = h(
      "section",
      { class: "panel", "aria-label": "your move" },
      h("h2", {}, "Display ", h("span", { class: "muted passes" }, `(drawn by ${nameOf(v.round % g.players.length)})`)),
      display,
      h("p", { class: "prompt", id: "prompt", "aria-live": "polite" }, prompt()),
      controls,
      confirm,
    );

    // Grounds
    const mineBox =
      me !== null
        ? h(
            "section",
            { class: "panel", "aria-label": "your grounds" },
            h("h2", {}, "Your festival grounds ", h("span", { class: "muted passes" }, `(passes left: ${2 - v.grounds[me].passes})`)),
            groundsBox(me, "mine"),
          )
        : null;
    const others = h(
      "div",
      { class: "others" },
      g.players
        .map((p, i) => i)
        .filter((i) => i !== me)
        .map((i) => {
          const big = st.enlarged.has(i);
          return h(
            "section",
            { class: `other panel ${big ? "enlarged" : ""}`, "data-seat": i },
            h(
              "h3",
              {},
              h("span", {}, h("span", { class: "swatch", style: `background:${colorVar(g.players[i].color)}` }), ` ${g.players[i].name}`, h("span", { class: "muted passes" }, ` · passes left ${2 - v.grounds[i].passes}`)),
              h(
                "button",
                {
                  type: "button",
                  "aria-expanded": String(big),
                  onclick: () => {
                    if (big) st.enlarged.delete(i);
                    else st.enlarged.add(i);
                    render();
                  },
                },
                big ? "Smaller" : "Enlarge",
              ),
            ),
            groundsBox(i, big ? "big" : me === null ? "medium" : "small"),
          );
        }),
    );

    // Side: players, end of game, log
    const side = h("aside", { class: "side" });
    side.append(
      h("section", { class: "panel" }, h("h2", {}, "Players"), h("ul", { class: "players" }, g.players.map((_, i) => playerChip(i))), handOver()),
    );
    const lines = logLines(v.decisions, names());
    const log = h(
      "ol",
      { class: "log", id: "log", "aria-label": "game log" },
      lines.map((l) => h("li", { class: l.round ? "round muted" : "" }, l.text)),
    );
    side.append(
      h(
        "section",
        { class: "panel" },
        h("h2", {}, "Game log"),
        log,
        h("p", {}, h("a", { href: `/api/games/${encodeURIComponent(id)}/record`, download: `kerala-${id}.json`, id: "record-link" }, "Download the record")),
      ),
    );

    const focusId = document.activeElement && document.activeElement.id;
    const focusCell = document.activeElement && document.activeElement.dataset && document.activeElement.dataset.x !== undefined ? [document.activeElement.dataset.x, document.activeElement.dataset.y] : null;
    // Keep the log where the reader left it, unless they were following its end.
    const oldLog = page.querySelector("#log");
    const follow = !oldLog || oldLog.scrollHeight - oldLog.scrollTop - oldLog.clientHeight < 40;
    const oldTop = oldLog ? oldLog.scrollTop : 0;
    page.replaceChildren(
      h("h1", { class: "visually-hidden" }, "Kerala game"),
      status,
      h("div", { class: "game" }, h("div", { class: "main-col" }, over ? (g.result ? endPanel() : null) : playPanel, mineBox, others), side),
    );
    log.scrollTop = follow ? log.scrollHeight : oldTop;
    // Keep keyboard focus where it was across re-renders.
    if (focusId && document.getElementById(focusId)) document.getElementById(focusId).focus();
    else if (focusCell) {
      const el = page.querySelector(`.grounds-box.mine [data-x="${focusCell[0]}"][data-y="${focusCell[1]}"][role=button]`);
      if (el) el.focus();
    }
    if (confirm && !focusId) confirm.querySelector("#confirm-btn").focus({ preventScroll: true });
  }

  function handOver() {
    const g = st.game;
    if (g.status === "over" || g.seat === null || g.to_move === null || g.to_move === g.seat) return null;
    const p = g.players[g.to_move];
    if (!p || p.kind === "bot" || p.handed_to_bot) return null;
    const since = Date.parse(g.turn_started_at || "");
    const wait = (g.seat_timeout || 0) * 1000 - (Date.now() - since);
    if (!(wait <= 0)) return null;
    return h(
      "p",
      {},
      `${p.name} has been silent a while. `,
      h(
        "button",
        {
          type: "button",
          id: "hand-over",
          onclick: async () => {
            try {
              accept(await api("POST", `/api/games/${encodeURIComponent(id)}/seats/${g.to_move}/bot`, {}, headers));
            } catch (e) {
              toast(e.message);
            }
          },
        },
        `Let a bot play for ${p.name}`,
      ),
    );
  }

  function endPanel() {
    const g = st.game;
    const r = g.result;
    const scores = g.players.map((_, i) => r.scores.find((x) => x.seat === i) || r.scores[i]);
    const best = Math.min(...r.ranks);
    const winners = g.players.filter((_, i) => r.ranks[i] === best).map((p) => p.name);
    return h(
      "section",
      { class: "panel", id: "end" },
      h("h2", {}, "Final scores"),
      h("p", { id: "winner" }, winners.length > 1 ? `Shared first place: ${winners.join(" and ")}.` : `${winners[0]} wins!`),
      scoreSheet(g.players, scores, r.ranks, g.view.grounds),
      h("p", { class: "muted" }, "Crossed-out cells on the grounds are surplus areas removed in scoring (SC1)."),
      h(
        "p",
        { class: "row" },
        h("a", { class: "button", href: `/api/games/${encodeURIComponent(id)}/record`, download: `kerala-${id}.json` }, "Download the record"),
        h("a", { class: "button", href: `#/replay?game=${encodeURIComponent(id)}`, id: "replay-link" }, "Replay this game"),
        h("a", { class: "button primary", href: "#/" }, "New game"),
      ),
    );
  }

  // ---- keyboard -----------------------------------------------------------------------
  const onKey = (ev) => {
    if (ev.target && /INPUT|TEXTAREA|SELECT/.test(ev.target.tagName)) return;
    if (ev.key === "Escape" && st.sel) cancel();
    else if ((ev.key === "r" || ev.key === "R") && st.sel && st.sel.tile) turnArch();
    else if (/^[1-5]$/.test(ev.key) && st.game && myTurn()) {
      const t = st.game.view.display[Number(ev.key) - 1];
      const btn = t && page.querySelector(`#display button[data-index="${Number(ev.key) - 1}"]`);
      if (btn && !btn.disabled) pickTile(t);
    }
  };
  document.addEventListener("keydown", onKey);

  function showBanner(text, cls, ms) {
    banner.hidden = false;
    banner.className = `conn ${cls}`;
    banner.textContent = text;
    banner.id = "conn";
    if (ms) setTimeout(() => !st.lost && hideBanner(), ms);
  }
  function hideBanner() {
    banner.hidden = true;
  }

  let couldHand = false;
  const tick = setInterval(() => {
    // The hand-over button appears once the silent seat's time is up.
    if (!st.game || st.game.status === "over") return;
    const can = !!handOver();
    if (can !== couldHand) render();
    couldHand = can;
  }, 2000);

  (async () => {
    await load();
    if (!st.game) return;
    connect();
    findHintRoute();
  })();

  return () => {
    st.closed = true;
    clearInterval(tick);
    document.removeEventListener("keydown", onKey);
    if (st.ws) st.ws.close();
    hideBanner();
  };
}
