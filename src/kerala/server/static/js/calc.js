// The score calculator for the physical game: build a grounds by clicking, see the scoring
// pad update live (scored by the server's POST /api/score: the engine's rules, SC1–SC6),
// import and export a grounds document (docs/notation.md), or paste a text grid (docs/terminal.md,
// "Text grid"), which the server reads (POST /api/grounds/from-text): one parser for all.

import { h, api, toast, download } from "./ui.js";
import { renderGrounds, panZoom, tileSvg } from "./grounds.js";
import { COLORS, EDGES, allTileTypes, parseTile, tileWords, key, standardCount, edgeWord, colorWord } from "./tiles.js";
import { scoreSheet } from "./sheet.js";
import { t } from "./i18n.js";

export function mountCalc(root) {
  const st = {
    color: "blue",
    passes: 0,
    elephants: null,
    stacks: new Map([["0,0", { at: [0, 0], tiles: ["blue:start"] }]]),
    tool: "place",
    tile: "green:e1",
    edge: "N",
    result: null,
    error: null,
  };
  let seq = 0;
  let timer = null;

  const doc = () => {
    const d = {
      format: "kerala-grounds",
      version: 1,
      color: st.color,
      passes: st.passes,
      stacks: [...st.stacks.values()].map((s) => ({ at: [...s.at], tiles: [...s.tiles] })),
    };
    if (st.elephants) d.elephants = st.elephants.map((c) => [...c]);
    return d;
  };

  const used = () => {
    const n = new Map();
    for (const s of st.stacks.values()) for (const tile of s.tiles) n.set(tile.split("@")[0], (n.get(tile.split("@")[0]) || 0) + 1);
    return n;
  };

  const scoreNow = async () => {
    const my = ++seq;
    try {
      const r = await api("POST", "/api/score", doc());
      if (my !== seq) return;
      st.result = r;
      st.error = null;
    } catch (e) {
      if (my !== seq) return;
      st.result = null;
      st.error = e.message;
    }
    render();
  };
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(scoreNow, 120);
    render();
  };

  const onCell = (c) => {
    const k = key(c);
    const s = st.stacks.get(k);
    if (st.tool === "place") {
      const name = parseTile(st.tile).archColor ? `${st.tile}@${st.edge}` : st.tile;
      if (s) s.tiles.push(name);
      else st.stacks.set(k, { at: [...c], tiles: [name] });
      announce(t("calc.placed", { tile: tileWords(name), x: c[0], y: c[1] }));
    } else if (st.tool === "remove") {
      if (!s) return;
      if (s.tiles.length === 1 && parseTile(s.tiles[0]).kind === "start") {
        toast(t("calc.startStays"));
        return;
      }
      const gone = s.tiles.pop();
      if (!s.tiles.length) st.stacks.delete(k);
      if (st.elephants && st.elephants.some((e) => !st.stacks.has(key(e)))) st.elephants = null;
      announce(t("calc.removed", { tile: tileWords(gone), x: c[0], y: c[1] }));
    } else if (st.tool === "turn") {
      if (!s) return;
      const top = s.tiles[s.tiles.length - 1];
      const p = parseTile(top);
      if (!p.archColor) {
        toast(t("calc.onlyArch"), "info");
        return;
      }
      const next = EDGES[(EDGES.indexOf(p.edge) + 1) % 4];
      s.tiles[s.tiles.length - 1] = `${p.name}@${next}`;
      announce(t("calc.turned", { x: c[0], y: c[1], edge: edgeWord(next) }));
    }
    changed();
  };

  const live = h("p", { class: "visually-hidden", "aria-live": "polite" });
  const announce = (m) => (live.textContent = m);

  const box = h("div", { class: "grounds-box mine calc", id: "calc-grounds" });
  const side = h("div", { id: "calc-score" });
  const palette = h("div", { class: "palette", role: "group", "aria-label": t("calc.tilesAria") });
  const toolsBox = h("div", { class: "tools" });
  const settings = h("div", { class: "row" });
  const io = h("div", {});
  const gridIo = h("div", {});

  root.append(
    h(
      "div",
      { class: "calc-page" },
      h("h1", {}, t("calc.title")),
      h(
        "p",
        { class: "muted" },
        t("calc.intro"),
      ),
      live,
      h(
        "div",
        { class: "calc-layout" },
        h("div", {}, h("div", { class: "panel" }, settings, toolsBox, palette), box),
        h(
          "div",
          {},
          h("div", { class: "panel" }, h("h2", {}, t("calc.pad")), side),
          h("div", { class: "panel" }, gridIo),
          h("div", { class: "panel" }, io),
        ),
      ),
    ),
  );

  let keepVb = null;
  function render() {
    // settings
    settings.replaceChildren(
      h(
        "label",
        {},
        t("calc.color"),
        h(
          "select",
          {
            id: "calc-color",
            onchange: (e) => {
              const c = e.target.value;
              for (const s of st.stacks.values())
                if (parseTile(s.tiles[0]).kind === "start") s.tiles[0] = `${c}:start`;
              st.color = c;
              changed();
            },
          },
          COLORS.map((c) => h("option", { value: c, selected: c === st.color }, colorWord(c))),
        ),
      ),
      h(
        "label",
        {},
        t("calc.passes"),
        h(
          "select",
          {
            id: "calc-passes",
            onchange: (e) => {
              st.passes = Number(e.target.value);
              changed();
            },
          },
          [0, 1, 2].map((n) => h("option", { value: n, selected: n === st.passes }, String(n))),
        ),
      ),
      h("button", {
        type: "button",
        id: "calc-clear",
        onclick: () => {
          st.stacks = new Map([["0,0", { at: [0, 0], tiles: [`${st.color}:start`] }]]);
          st.elephants = null;
          changed();
        },
      }, t("calc.clear")),
    );
    // tools
    const toolBtn = (id, label) =>
      h(
        "button",
        {
          type: "button",
          id: `tool-${id}`,
          "aria-pressed": String(st.tool === id),
          class: st.tool === id ? "active" : "",
          onclick: () => {
            st.tool = id;
            render();
          },
        },
        label,
      );
    const isArch = !!parseTile(st.tile).archColor;
    toolsBox.replaceChildren(
      toolBtn("place", t("calc.toolPlace")),
      toolBtn("remove", t("calc.toolRemove")),
      toolBtn("turn", t("calc.toolTurn")),
      h(
        "span",
        { class: "row", role: "group", "aria-label": t("calc.edgeAria") },
        h("span", { class: "muted" }, t("calc.archFaces")),
        EDGES.map((e) =>
          h(
            "button",
            {
              type: "button",
              class: `edge ${st.edge === e ? "active" : ""}`,
              "data-edge": e,
              "aria-pressed": String(st.edge === e),
              disabled: !isArch,
              title: t("calc.edgeTip", { edge: edgeWord(e) }),
              onclick: () => {
                st.edge = e;
                render();
              },
            },
            t(`calc.edgeShort.${e}`),
          ),
        ),
      ),
    );
    // palette
    const counts = used();
    palette.replaceChildren(
      ...allTileTypes().map((tile) => {
        const left = standardCount(tile) - (counts.get(tile) || 0);
        return h(
          "button",
          {
            type: "button",
            class: "tile-btn",
            "data-tile": tile,
            "aria-pressed": String(st.tile === tile),
            title: t("calc.tileTip", { tile: tileWords(tile), n: left }),
            "aria-label": t("calc.tileAria", { tile: tileWords(tile), n: left }),
            onclick: () => {
              st.tile = tile;
              st.tool = "place";
              render();
            },
          },
          tileSvg(tile, 40, { edge: st.edge }),
        );
      }),
    );
    // grounds
    const d = doc();
    const removed = st.result ? st.result.removed_cells : [];
    const old = box.querySelector("svg");
    if (old) keepVb = old.getAttribute("viewBox") !== old.dataset.baseViewbox ? old.getAttribute("viewBox") : null;
    const svg = renderGrounds(d, {
      onCell,
      emptyRing: st.tool === "place",
      clickStacks: true,
      removed,
      pad: 0.1,
      label: t("calc.groundsLabel"),
    });
    box.replaceChildren(svg);
    panZoom(svg, box);
    if (keepVb) svg.setAttribute("viewBox", keepVb);
    // score
    if (st.error) side.replaceChildren(h("div", { class: "error-box", id: "calc-error" }, st.error));
    else if (st.result)
      side.replaceChildren(
        scoreSheet([{ name: t("calc.yourGrounds"), color: st.color }], [st.result], null, [d]),
        removed.length
          ? h("p", { class: "muted" }, t("calc.crossed"))
          : "",
      );
    else side.replaceChildren(h("p", { class: "muted" }, t("calc.scoring")));
    // import / export
    if (!io.firstChild) buildIo();
    if (!gridIo.firstChild) buildGridIo();
    io.querySelector("textarea").value = JSON.stringify(d, null, 1);
  }

  function buildGridIo() {
    const ta = h("textarea", {
      id: "calc-grid",
      "aria-label": t("calc.gridAria"),
      spellcheck: "false",
      rows: "6",
      placeholder: "Bs@ B3 B2\nP^b P3 G1z\n.   .  B1/G1",
    });
    const err = h("p", { class: "error-box", id: "calc-grid-error", role: "alert", hidden: true });
    const read = async () => {
      err.hidden = true;
      try {
        const r = await api("POST", "/api/grounds/from-text", { text: ta.value });
        ta.value = r.text;
        loadDoc(r.grounds, t("calc.gridRead"));
      } catch (e) {
        err.textContent = e.message;
        err.hidden = false;
      }
    };
    gridIo.append(
      h("h2", {}, t("calc.gridTitle")),
      h(
        "p",
        { class: "muted" },
        t("calc.gridHelp"),
      ),
      ta,
      err,
      h("div", { class: "row" }, h("button", { type: "button", id: "calc-grid-read", onclick: read }, t("calc.gridButton"))),
    );
  }

  function buildIo() {
    const ta = h("textarea", { id: "calc-doc", "aria-label": t("calc.docAria"), spellcheck: "false" });
    const file = h("input", {
      type: "file",
      accept: ".json,application/json",
      id: "calc-file",
      onchange: async () => {
        const f = file.files[0];
        if (f) load(await f.text());
        file.value = "";
      },
    });
    io.append(
      h("h2", {}, t("calc.docTitle")),
      h("p", { class: "muted" }, t("calc.docHelp")),
      ta,
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", id: "calc-import", onclick: () => load(ta.value) }, t("calc.import")),
        h("button", { type: "button", onclick: () => file.click() }, t("calc.open")),
        file,
        h("button", { type: "button", id: "calc-export", onclick: () => download("grounds.json", doc()) }, t("calc.download")),
      ),
    );
    file.style.display = "none";
  }

  function load(text) {
    if (!text.trim().startsWith("{")) {
      // Not a JSON document: a text grid, read by the server like the text grid box.
      gridIo.querySelector("#calc-grid").value = text;
      gridIo.querySelector("#calc-grid-read").click();
      return;
    }
    let d;
    try {
      d = JSON.parse(text);
    } catch (e) {
      toast(t("calc.notJson", { error: e.message }));
      return;
    }
    loadDoc(d, t("calc.imported"));
  }

  function loadDoc(d, message) {
    const bad = (m) => toast(t("calc.cannot", { reason: m }));
    if (!d || d.format !== "kerala-grounds") return bad(t("calc.bad.format"));
    if (!COLORS.includes(d.color)) return bad(t("calc.bad.color", { colors: COLORS.join(", ") }));
    if (!Array.isArray(d.stacks) || !d.stacks.length) return bad(t("calc.bad.stacks"));
    const stacks = new Map();
    for (const [i, s] of d.stacks.entries()) {
      if (!s || !Array.isArray(s.at) || s.at.length !== 2 || !s.at.every(Number.isInteger))
        return bad(t("calc.bad.at", { i }));
      if (!Array.isArray(s.tiles) || !s.tiles.length || !s.tiles.every((x) => typeof x === "string"))
        return bad(t("calc.bad.tiles", { i }));
      stacks.set(key(s.at), { at: [...s.at], tiles: [...s.tiles] });
    }
    st.color = d.color;
    st.passes = Number.isInteger(d.passes) ? d.passes : 0;
    st.elephants = Array.isArray(d.elephants) ? d.elephants : null;
    st.stacks = stacks;
    const svg = box.querySelector("svg");
    if (svg) svg.dataset.baseViewbox = ""; // refit to the imported grounds
    keepVb = null;
    box.replaceChildren();
    toast(message, "info", 2000);
    changed();
  }

  render();
  scoreNow();
  return () => clearTimeout(timer);
}
