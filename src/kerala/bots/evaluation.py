"""The bots' position evaluation: how good one festival grounds is, with rounds still to come.

Every player's score depends on their own grounds only (docs/rules.md SC1–SC6), so a position is
judged grounds by grounds. :func:`evaluate` is the final score where the rules fix it, plus
weighted guesses where the future can still change it:

- symbols on the areas that would stay (SC5), +5 per scoring arch (SC4), +1 per standing
  elephant (SC3) plus the option value of a pass still in hand (G3);
- surplus areas (SC1, −2 per tile) and missing colors (SC2, −5 each), discounted early in the
  game, when a surplus area can still be covered, joined or moved away and a color still be
  found;
- arches facing an empty cell or a stack that can be built over (a chance to score later);
- elephant mobility: the colors whose areas the elephants can still extend (P1–P4).

With no round left every guess weighs zero and the value is the rules' score, except that SC1's
choice of the area to keep ignores arches (the engine's exact choice can only be higher).

This module also applies decisions to bare :class:`~kerala.grounds.Grounds` (the bots' cheap
look-ahead, no game state needed) and lists the SP1/SP2 follow-ups a special tile would allow.

>>> from kerala.grounds import Grounds
>>> g = Grounds.start("blue")
>>> evaluate(g, 0.0)  # the start: 1 symbol, 2 standing elephants, 4 colors missing
-17.0
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from kerala.actions import Decision, MoveStack
from kerala.game import apply_to_grounds, follow_up_decisions
from kerala.grounds import EDGE_KEY_DELTA, NEIGHBOURS, Grounds, KeyObject, key, neighbour_keys
from kerala.scoring import Area, color_areas
from kerala.tiles import MOVE_ELEPHANT, START_TILES
from kerala.views import PlayerView


@dataclass(frozen=True)
class Weights:
    """The evaluation's tunable weights; ``left`` is the share of the game still to play."""

    #: Share of the surplus penalty (SC1) counted at the start; all of it at the end.
    surplus_early: float = 0.55
    #: Share of the missing-color penalty (SC2) counted at the start.
    missing_early: float = 0.5
    #: Extra value of each standing elephant at the start (a pass kept for a bad display).
    pass_option: float = 1.5
    #: Value of an arch facing an empty cell / a stack that could be covered, at the start.
    arch_open: float = 2.0
    arch_cover: float = 1.0
    #: Value of each color whose area an elephant can extend next turn, at the start.
    mobility: float = 0.6
    #: Value of each standing elephant's reachable empty neighbour, at the start.
    room: float = 0.15
    #: Learned from self-play (:func:`load_learned`): per feature of :data:`FEATURES` a
    #: coefficient of ``feature * left``, then one of ``feature * left**2``; when set, it
    #: replaces the weights above: the value is the rules' score now plus these corrections,
    #: a prediction of the final score.
    linear: tuple[float, ...] | None = None


#: The features of :func:`evaluate`'s learned form, in the order of ``Weights.linear``.
FEATURES: Final = (
    "symbols",
    "arch_points",
    "standing",
    "surplus_tiles",
    "missing",
    "arch_open",
    "arch_cover",
    "reach",
    "room",
    "cells",
)


DEFAULT_WEIGHTS: Final = Weights()


def game_left(view: PlayerView) -> float:
    """Share of the game's tiles still in the bag (1 at the start, 0 in the last round)."""
    total = sum(n for _, n in view.tileset_counts) - view.to_remove
    return view.bag_count / total if total > 0 else 0.0


def evaluate(g: Grounds, left: float, w: Weights = DEFAULT_WEIGHTS) -> float:
    """Value of grounds ``g`` with ``left`` (0..1) of the game still to play.

    Long because it is the bots' innermost loop: after the rules' areas, the surplus choice,
    the arches and the mobility are computed in one pass over plain locals, without calls.
    """
    stacks = g.stacks
    # The rules' areas (SC1), found by the one flood fill (kerala.scoring.color_areas).
    areas, area_of, arch_cells = color_areas(g, ordered=False)

    # SC1: per color keep the best area (two of the own color); the rest is surplus. Colors
    # are taken by hue (a list index, not a hashed name): the sums are the same in any order.
    by_hue: list[list[Area]] = [[], [], [], [], []]
    for a in areas:
        by_hue[a.hue].append(a)
    own = START_TILES[g.color].hue
    kept = [True] * len(areas)
    symbols = 0
    surplus_tiles = 0
    missing = 0
    for hue, group in enumerate(by_hue):
        if not group:
            missing += 1
            continue
        if len(group) <= (2 if hue == own else 1):
            for a in group:
                symbols += a.symbols
            continue
        # The best area by worth (its -2 per tile saved and its symbols) and the next best,
        # each the first of equals: what a stable sort by worth would put first, in one pass.
        top = group[0]
        top_worth = 2 * top.tiles + top.symbols
        second = top
        second_worth = -1
        for a in group[1:]:
            worth = 2 * a.tiles + a.symbols
            if worth > top_worth:
                second, second_worth = top, top_worth
                top, top_worth = a, worth
            elif worth > second_worth:
                second, second_worth = a, worth
        if hue != own:
            second = top
        for a in group:
            if a is top or a is second:
                symbols += a.symbols
            else:
                kept[a.index] = False
                surplus_tiles += a.tiles

    arches = 0.0
    n_open = 0
    n_cover = 0
    els = g.elephants
    for k in arch_cells:
        t, edge = stacks[k][-1]
        if edge is None:
            continue
        f = k + EDGE_KEY_DELTA[edge]
        fa = area_of.get(f)
        if fa is None:
            n_open += 1
        elif areas[fa].color == t.arch_color:
            if kept[area_of[k]] and kept[area_of[f]]:
                arches += 5
        elif f not in els:
            n_cover += 1

    # Mobility: colors of the areas next to the cells an elephant can place on (P1, P4).
    # Keys stay objects read from the neighbour cache (grounds.KeyObject): compiled, a key
    # computed anew is boxed into a new int at each lookup.
    reach = 0
    room = 0
    e0: KeyObject
    e1: KeyObject
    e0, e1 = els
    # The elephants' cells as ints too: compared as machine words when compiled, where
    # ``tk in (e0, e1)`` compared int objects.
    i0: int = e0
    i1: int = e1
    for e in (e0,) if i0 == i1 else (e0, e1):
        for tk in neighbour_keys(e):
            tn: int = tk
            if tn in (i0, i1):
                continue
            if tk not in stacks:
                room += 1
            for n in neighbour_keys(tk):
                na = area_of.get(n)
                if na is not None:
                    reach |= 1 << areas[na].hue
    n_reach = bin(reach).count("1")
    standing = 2 - g.passes
    lin = w.linear
    if lin is not None:
        feats = (
            symbols,
            arches,
            standing,
            surplus_tiles,
            missing,
            n_open,
            n_cover,
            n_reach,
            room,
            len(stacks),
        )
        # The rules' score now, plus learned corrections that fade out with ``left``.
        v = 0.0
        if left > 0:
            m = len(feats)
            for i, x in enumerate(feats):
                if x:
                    v += (lin[i] + lin[m + i] * left) * x
        return float(symbols + arches + standing - 2 * surplus_tiles - 5 * missing + v * left)
    potential = w.arch_open * n_open + w.arch_cover * n_cover + w.mobility * n_reach + w.room * room
    surplus_w = w.surplus_early + (1 - w.surplus_early) * (1 - left)
    missing_w = w.missing_early + (1 - w.missing_early) * (1 - left)
    return float(
        symbols
        + arches
        + standing * (1 + w.pass_option * left)
        - 2 * surplus_tiles * surplus_w
        - 5 * missing * missing_w
        + potential * left
    )


def value_after(g: Grounds, d: Decision, left: float, w: Weights = DEFAULT_WEIGHTS) -> float:
    """The value (:func:`evaluate`) of grounds ``g`` after decision ``d``, on a copy."""
    h = g.copy()
    apply_to_grounds(h, d)
    return evaluate(h, left, w)


def best_after(
    g: Grounds, decisions: Sequence[Decision], left: float, w: Weights = DEFAULT_WEIGHTS
) -> Decision:
    """The first of ``decisions`` after which grounds ``g`` is worth most (:func:`value_after`).

    The rollouts' inner loop, here so that it runs compiled with the evaluation it calls.
    """
    best = decisions[0]
    best_val = -math.inf
    for d in decisions:
        v = value_after(g, d, left, w)
        if v > best_val:
            best_val = v
            best = d
    return best


def features(g: Grounds) -> tuple[float, list[float]]:
    """The rules' score of ``g`` now (SC1 without arches in its choice) and :data:`FEATURES`.

    The learned evaluation is that score plus ``left * (a + b * left) * feature`` summed over
    the features (``a``, ``b``: ``Weights.linear``): at the end it is the rules' score.
    """
    m = len(FEATURES)
    base = evaluate(g, 1.0, Weights(linear=(0.0,) * (2 * m)))
    out = []
    for i in range(m):
        unit = [0.0] * (2 * m)
        unit[i] = 1.0
        out.append(evaluate(g, 1.0, Weights(linear=tuple(unit))) - base)
    return base, out


def load_learned(name: str = "eval_weights.json") -> Weights:
    """The evaluation weights learned from self-play, shipped in ``kerala/bots/data``.

    ``benchmarks/bots_train_eval.py`` made them (and retrains them: see ``docs/bots.md``).
    """
    from importlib import resources

    doc = json.loads(resources.files("kerala.bots").joinpath("data", name).read_text())
    if doc.get("features") != list(FEATURES):
        raise ValueError(f"{name}: features {doc.get('features')} are not {list(FEATURES)}")
    coef = [float(x) for x in doc["coef"]] + [float(x) for x in doc["coef_left"]]
    return Weights(linear=tuple(coef))


# -- decisions on bare grounds -----------------------------------------------------------
# The rules of what a decision does to a grounds, and of which follow-ups a special tile
# allows, live in the engine (kerala.game); the bots only choose among them.


def follow_ups(
    g: Grounds, seat: int, special: str, *, useful_only: bool = False
) -> Iterator[Decision]:
    """The SP1 or SP2 follow-ups on grounds ``g`` (after the special tile was placed).

    The engine's own list (:func:`kerala.game.follow_up_decisions`); ``useful_only`` keeps only
    the SP2 moves :func:`useful_move_stacks` keeps.
    """
    moves = follow_up_decisions(g, seat, special)
    if useful_only and special != MOVE_ELEPHANT:
        yield moves[0]
        yield from useful_move_stacks(g, moves[1:])
        return
    yield from moves


def useful_move_stacks(g: Grounds, moves: Sequence[Decision]) -> list[Decision]:
    """SP2 moves worth a look: a stack moved next to a stack of its top color.

    Moving a stack anywhere else can only leave or make a surplus area; this cuts the
    hundreds of SP2 moves of a large grounds down to a handful.
    """
    stacks = g.stacks
    out: list[Decision] = []
    for m in moves:
        if type(m) is not MoveStack:
            out.append(m)
            continue
        fk, tk = key(m.from_), key(m.to)
        color = stacks[fk][-1][0].color
        for d in NEIGHBOURS:
            n = tk + d
            if n != fk and n in stacks and stacks[n][-1][0].color == color:
                out.append(m)
                break
    return out


__all__ = [
    "DEFAULT_WEIGHTS",
    "FEATURES",
    "Weights",
    "apply_to_grounds",
    "best_after",
    "evaluate",
    "features",
    "follow_ups",
    "game_left",
    "load_learned",
    "useful_move_stacks",
    "value_after",
]
