// The game log and the confirm step in words, in the player's language.

import { tileWords, cellWords, edgeWord } from "./tiles.js";
import { t } from "./i18n.js";

const archPart = (d) => (d.arch ? t("words.archPart", { edge: edgeWord(d.arch) }) : "");

export function decisionWords(d, name) {
  if (d.pass) return t("words.pass", { name });
  if (d.skip) return t("words.skip", { name });
  if (d.take)
    return t("words.place", {
      name,
      tile: tileWords(d.take),
      to: cellWords(d.to),
      from: cellWords(d.from),
      arch: archPart(d),
    });
  if (d.move_elephant)
    return t("words.moveElephant", {
      name,
      from: cellWords(d.move_elephant.from),
      to: cellWords(d.move_elephant.to),
    });
  if (d.move_stack)
    return t("words.moveStack", { name, from: cellWords(d.move_stack.from), to: cellWords(d.move_stack.to) });
  return `${name}: ${JSON.stringify(d)}`;
}

/** The cells a decision touched, for highlights: [{at, kind: "placed"|"to"|"from"}]. */
/** The elephants a decision moves, each from its old cell to its new one: a placement's
 * elephant onto the tile, a moved elephant (the special tile). */
export function decisionMoves(d) {
  if (d.take && d.from) return [{ from: d.from, to: d.to }];
  if (d.move_elephant) return [{ from: d.move_elephant.from, to: d.move_elephant.to }];
  return [];
}

export function decisionCells(d) {
  if (d.take) return [{ at: d.to, kind: "placed" }];
  const m = d.move_elephant || d.move_stack;
  if (m) return [{ at: m.to, kind: "to" }, { at: m.from, kind: "from" }];
  return [];
}

/** A bot level in words: the catalogue's word, else the level's own name. */
export function levelWords(name) {
  const key = `level.${name}`;
  return t(key) === key ? String(name) : t(key);
}

/** A clock event of the game (`{at, seat, kind: "timeout", bot}`, `{at, seat, kind: "handover",
 * bot, by}` or `{at, seat, kind: "back"}`, docs/notation.md "Clock fields"), or a hint taken
 * (`{at, seat, kind: "hint"}`, the game's `hints_taken`), in words; `name` is the seat's player,
 * `byName` the player of seat `by` (a hand-over's). */
export function clockWords(e, name, byName) {
  if (e.kind === "timeout") return t("words.timeout", { name, bot: levelWords(e.bot) });
  if (e.kind === "handover") {
    const bot = levelWords(e.bot);
    if (e.by === e.seat) return t("words.handoverOwn", { name, bot });
    return t("words.handover", { by: byName ?? t("words.seat", { n: e.by + 1 }), name, bot });
  }
  if (e.kind === "back") return t("words.back", { name });
  if (e.kind === "hint") return t("words.hint", { name });
  return `${name}: ${JSON.stringify(e)}`;
}

/** Log lines from a view's `decisions` ([{drawn, turns}]), the players' names and the clock's
 * events (a timed game's `clock.events`): each event's line comes after `at` decisions. */
export function logLines(rounds, names, clockEvents = []) {
  const out = [];
  const nameOf = (seat) => names[seat] ?? t("words.seat", { n: seat + 1 });
  const events = [...clockEvents].sort((a, b) => a.at - b.at);
  let next = 0;
  let done = 0; // decisions listed so far
  const eventsUpTo = (k) => {
    for (; next < events.length && events[next].at <= k; next++) {
      const e = events[next];
      out.push({ seat: e.seat, clock: e.kind, text: clockWords(e, nameOf(e.seat), Number.isInteger(e.by) ? nameOf(e.by) : undefined) });
    }
  };
  rounds.forEach((r, i) => {
    out.push({
      round: true,
      text: t("words.round", { n: i + 1, tiles: r.drawn.map(tileWords).join(", ") || t("words.nothing") }),
    });
    for (const d of r.turns) {
      eventsUpTo(done);
      out.push({ seat: d.seat, cells: decisionCells(d), text: decisionWords(d, nameOf(d.seat)) });
      done += 1;
    }
  });
  eventsUpTo(Infinity);
  return out;
}

/** The confirm step's question for a decision the player is about to send. */
export function decisionQuestion(d) {
  if (d.pass) return t("ask.pass");
  if (d.skip) return t("ask.skip");
  if (d.take)
    return t("ask.place", { tile: tileWords(d.take), to: cellWords(d.to), from: cellWords(d.from), arch: archPart(d) });
  if (d.move_elephant)
    return t("ask.moveElephant", { from: cellWords(d.move_elephant.from), to: cellWords(d.move_elephant.to) });
  if (d.move_stack) return t("ask.moveStack", { from: cellWords(d.move_stack.from), to: cellWords(d.move_stack.to) });
  return JSON.stringify(d);
}
