// The game log in words: "Ada placed green 2-elephant at (1, 0)".

import { tileWords, cellWords, edgeWord } from "./tiles.js";

export function decisionWords(d, name) {
  if (d.pass) return `${name} passed and laid an elephant down`;
  if (d.skip) return `${name} skipped the special tile's move`;
  if (d.take) {
    const arch = d.arch ? `, arch facing ${edgeWord(d.arch)}` : "";
    return `${name} placed ${tileWords(d.take)} at ${cellWords(d.to)} (elephant from ${cellWords(d.from)}${arch})`;
  }
  if (d.move_elephant)
    return `${name} moved an elephant from ${cellWords(d.move_elephant.from)} to ${cellWords(d.move_elephant.to)}`;
  if (d.move_stack)
    return `${name} moved the stack at ${cellWords(d.move_stack.from)} to ${cellWords(d.move_stack.to)}`;
  return `${name}: ${JSON.stringify(d)}`;
}

/** Log lines from a view's `decisions` ([{drawn, turns}]) and the players' names. */
export function logLines(rounds, names) {
  const out = [];
  rounds.forEach((r, i) => {
    out.push({ round: true, text: `Round ${i + 1}: drawn ${r.drawn.map(tileWords).join(", ") || "nothing"}` });
    for (const d of r.turns) out.push({ text: decisionWords(d, names[d.seat] ?? `Seat ${d.seat}`) });
  });
  return out;
}

/** The confirm step's question for a decision the player is about to send. */
export function decisionQuestion(d) {
  if (d.pass) return "Pass this turn and lay an elephant down?";
  if (d.skip) return "Skip the special tile's move?";
  if (d.take) {
    const arch = d.arch ? `, arch facing ${edgeWord(d.arch)}` : "";
    return `Place ${tileWords(d.take)} at ${cellWords(d.to)}, moving the elephant from ${cellWords(d.from)}${arch}?`;
  }
  if (d.move_elephant)
    return `Move the elephant from ${cellWords(d.move_elephant.from)} to ${cellWords(d.move_elephant.to)}?`;
  if (d.move_stack)
    return `Move the stack at ${cellWords(d.move_stack.from)} to ${cellWords(d.move_stack.to)}?`;
  return JSON.stringify(d);
}
