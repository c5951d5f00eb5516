"""End-of-game scoring (docs/rules.md SC1–SC7) with the best choice of surplus areas.

SC1 lets the player choose which area of each color stays. Only arches (SC4) tie the choices of
two colors together, so the search is exact but small: per color, the areas linked by a scoring
arch plus the best unlinked ones are the only candidates worth keeping, and a branch-and-bound
over the five colors finds the best combination.

>>> from kerala.grounds import Grounds
>>> b = score_grounds(Grounds.start("blue"))
>>> b.total, b.missing, b.standing, b.symbols, b.removed_cells
(-17, -20, 2, 1, ())
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, cast

from mypy_extensions import mypyc_attr

from kerala.errors import IllegalRemovalError
from kerala.grounds import EDGE_KEY_DELTA, Grounds, KeyObject, Stack, cell, key, neighbour_keys
from kerala.pickled import Reduced, reduced
from kerala.tiles import COLORS

Cell = tuple[int, int]

#: SC1: tiles score -2 each in a removed area; SC2: -5 per missing color; SC4: +5 per arch.
REMOVED_TILE_POINTS = -2
MISSING_COLOR_POINTS = -5
ARCH_POINTS = 5


@dataclass(frozen=True)
class ScoreBreakdown:
    """One player's score in docs/notation.md's field names."""

    total: int
    surplus: int
    missing: int
    standing: int
    arches: int
    symbols: int
    removed_cells: tuple[Cell, ...] = field(default=())
    #: SC5 split by color, in COLORS order (the scoring pad's rows); not part of the JSON.
    symbols_by_color: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "surplus": self.surplus,
            "missing": self.missing,
            "standing": self.standing,
            "arches": self.arches,
            "symbols": self.symbols,
            "removed_cells": [list(c) for c in self.removed_cells],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ScoreBreakdown:
        return cls(
            total=d["total"],
            surplus=d["surplus"],
            missing=d["missing"],
            standing=d["standing"],
            arches=d["arches"],
            symbols=d["symbols"],
            removed_cells=tuple((c[0], c[1]) for c in d.get("removed_cells", [])),
        )

    def __reduce__(self) -> Reduced:
        return reduced(self)


@mypyc_attr(acyclic=True)
class Area:
    """One of SC1's areas: its number, color (and the color's place in ``COLORS``, its hue),
    cells, tiles and symbols (see :func:`color_areas`)."""

    __slots__ = ("cells", "color", "hue", "index", "symbols", "tiles")

    def __init__(self, index: int, color: str, hue: int) -> None:
        self.index = index
        self.color = color
        self.hue = hue
        self.cells: list[int] = []
        self.tiles = 0
        self.symbols = 0


def color_areas(
    g: Grounds, *, ordered: bool = True
) -> tuple[list[Area], dict[KeyObject, int], list[KeyObject]]:
    """SC1's areas: orthogonally connected cells whose top tiles share a color.

    Areas are numbered in the order of their smallest cell (x, then y), which makes the choice
    between equally good areas deterministic. Also returns the cells whose top tile is an arch.
    ``ordered=False`` numbers them in the order the stacks were laid instead, which skips a sort:
    for the bots' evaluation, which needs the areas and not the scoring's tie-break.
    """
    # Keys stay objects (grounds.KeyObject): compiled, each int key would be boxed anew.
    stacks: dict[KeyObject, Stack] = g.stacks
    # The cells not yet in an area, by their top's hue (a list index, not a hashed name).
    by_hue: list[set[KeyObject]] = [set(), set(), set(), set(), set()]
    for k, s in stacks.items():
        by_hue[s[-1][0].hue].add(k)
    area_of: dict[KeyObject, int] = {}
    areas: list[Area] = []
    arches: list[KeyObject] = []
    for start in sorted(stacks) if ordered else stacks:
        if start in area_of:
            continue
        t = stacks[start][-1][0]
        left = by_hue[t.hue]
        left.discard(start)
        a = Area(len(areas), t.color, t.hue)
        areas.append(a)
        index = a.index
        area_of[start] = index
        cells: list[KeyObject] = a.cells
        cells.append(start)
        tiles = symbols = 0
        i = 0
        while i < len(cells):
            k = cells[i]
            i += 1
            s = stacks[k]
            tiles += len(s)
            top = s[-1]
            symbols += top[0].symbols
            if top[1] is not None:
                arches.append(k)
            for n in neighbour_keys(k):
                if n in left:
                    left.discard(n)
                    area_of[n] = index
                    cells.append(n)
        a.tiles = tiles
        a.symbols = symbols
    return areas, area_of, arches


def _links(
    g: Grounds, area_of: dict[KeyObject, int], arch_cells: list[KeyObject]
) -> dict[tuple[int, int], int]:
    """SC4's arch links between areas: (area of the arch, area faced) -> scoring arches."""
    stacks = g.stacks
    links: dict[tuple[int, int], int] = {}
    for k in arch_cells:
        t, edge = stacks[k][-1]
        f = k + EDGE_KEY_DELTA[cast(str, edge)]  # color_areas collected the cells with an edge
        fs = stacks.get(f)
        if fs is not None and fs[-1][0].color == t.arch_color:
            pair = (area_of[k], area_of[f])
            links[pair] = links.get(pair, 0) + 1
    return links


def score_grounds(g: Grounds) -> ScoreBreakdown:
    """Score one festival grounds (SC1–SC6), choosing the surplus areas for the best total."""
    areas, area_of, arch_cells = color_areas(g)
    links = _links(g, area_of, arch_cells) if arch_cells else {}
    # Keeping an area saves its -2 per tile and scores its symbols.
    value = [-REMOVED_TILE_POINTS * a.tiles + a.symbols for a in areas]
    by_color: dict[str, list[int]] = {c: [] for c in COLORS}
    for a in areas:
        by_color[a.color].append(a.index)
    if not links:
        # Without a scoring arch each color keeps its best areas (on equal value, the lower
        # index: sorted() is stable).
        kept: set[int] = set()
        own = g.color
        for color, group in by_color.items():
            cap = 2 if color == own else 1
            kept.update(
                group
                if len(group) <= cap
                else sorted(group, key=value.__getitem__, reverse=True)[:cap]
            )
        return _breakdown(g, areas, links, kept)
    linked: set[int] = set()
    partner: dict[int, list[tuple[int, int]]] = {}
    for (ia, ib), cnt in links.items():
        linked.add(ia)
        linked.add(ib)
        partner.setdefault(ia, []).append((ib, cnt))
        partner.setdefault(ib, []).append((ia, cnt))

    # Candidate kept-sets per color (tuples of area indices, ascending).
    domains: list[list[tuple[int, ...]]] = []
    for color in COLORS:
        group = by_color[color]
        cap = 2 if color == g.color else 1
        if len(group) <= cap:
            domains.append([tuple(group)])
            continue
        # The best unlinked areas (on equal value, the lower index; sorted() is stable).
        unlinked = sorted(
            [i for i in group if i not in linked], key=value.__getitem__, reverse=True
        )[:cap]
        cands = [i for i in group if i in linked] + unlinked
        cands.sort()
        domains.append(list(combinations(cands, cap)))

    kept = {i for choice in _best(domains, value, partner) for i in choice}
    return _breakdown(g, areas, links, kept)


def _breakdown(
    g: Grounds, areas: list[Area], links: dict[tuple[int, int], int], kept: set[int]
) -> ScoreBreakdown:
    """SC1–SC6 once the kept areas are chosen."""
    surplus = 0
    removed: list[int] = []
    symbols = 0
    by_color_symbols = dict.fromkeys(COLORS, 0)
    present = set()
    for a in areas:
        present.add(a.color)
        if a.index in kept:
            symbols += a.symbols
            by_color_symbols[a.color] += a.symbols
        else:
            surplus += REMOVED_TILE_POINTS * a.tiles
            removed += a.cells
    arches = 0
    for (ia, ib), cnt in links.items():
        if ia in kept and ib in kept:
            arches += ARCH_POINTS * cnt
    # SC2: every color that has an area keeps one, so removal never makes a color missing.
    missing = MISSING_COLOR_POINTS * (len(COLORS) - len(present))
    standing = 2 - g.passes
    total = surplus + missing + standing + arches + symbols
    removed.sort()  # key order is (x, y) order
    return ScoreBreakdown(
        total=total,
        surplus=surplus,
        missing=missing,
        standing=standing,
        arches=arches,
        symbols=symbols,
        removed_cells=tuple(map(cell, removed)),
        symbols_by_color=tuple(by_color_symbols.items()),
    )


def score_removal(g: Grounds, removed: Iterable[Cell]) -> ScoreBreakdown:
    """SC1–SC6 for one given choice of surplus areas: ``removed`` are the cells taken off.

    The choice must be one that SC1 allows: cells of the grounds, whole areas, and for each
    color every area but the 1 kept (2 for the player's own color; all areas of a color when
    it has no more than that, none removed). Otherwise :class:`IllegalRemovalError` says what
    is wrong. Several choices can tie for the best total; :func:`score_grounds` picks one.

    >>> from kerala.grounds import Grounds
    >>> score_removal(Grounds.start("blue"), []).total
    -17
    >>> score_removal(Grounds.start("blue"), [(0, 0)])
    Traceback (most recent call last):
    kerala.errors.IllegalRemovalError: SC1: blue has 1 area and keeps 1, so 0 are removed, not 1
    """
    areas, area_of, arch_cells = color_areas(g)
    stacks = g.stacks
    cells = set()
    for c in removed:
        k = key(c)
        if k not in stacks:
            raise IllegalRemovalError(f"SC1: {list(c)} is not a cell of the grounds")
        cells.add(k)
    gone = {area_of[k] for k in cells}
    for i in sorted(gone):
        a = areas[i]
        if not cells.issuperset(a.cells):
            part = sorted(cell(k) for k in a.cells if k not in cells)
            raise IllegalRemovalError(
                f"SC1: areas are removed whole; {list(part[0])} is left of an area of {a.color}"
            )
    for color in COLORS:
        group = [a for a in areas if a.color == color]
        cap = 2 if color == g.color else 1
        due = max(0, len(group) - cap)
        got = sum(1 for a in group if a.index in gone)
        if got != due:
            n = len(group)
            raise IllegalRemovalError(
                f"SC1: {color} has {n} area{'s' * (n != 1)} and keeps {n - due}, "
                f"so {due} {'is' if due == 1 else 'are'} removed, not {got}"
            )
    kept = {a.index for a in areas} - gone
    return _breakdown(g, areas, _links(g, area_of, arch_cells), kept)


def _best(
    domains: list[list[tuple[int, ...]]],
    value: list[int],
    partner: dict[int, list[tuple[int, int]]],
) -> list[tuple[int, ...]]:
    """Exact maximum of sum(value of kept areas) + 5 x links between kept areas."""
    # Order: forced colors first, then by growing domain size (cheap bounds early).
    order = sorted(range(len(domains)), key=lambda i: len(domains[i]))

    def optimistic(choice: tuple[int, ...]) -> int:
        return sum(value[a] + ARCH_POINTS * sum(c for _, c in partner.get(a, ())) for a in choice)

    # Upper bound of what colors order[i:] can still add.
    rest = [0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        rest[i] = rest[i + 1] + max(optimistic(ch) for ch in domains[order[i]])

    search = _Search(domains, value, partner, order, rest)
    search.run(0, 0)
    return search.best


@mypyc_attr(acyclic=True)
class _Search:
    """Branch and bound over the colors' kept-sets (a class, not a closure: no ref cycle)."""

    __slots__ = (
        "best",
        "best_val",
        "current",
        "domains",
        "kept",
        "order",
        "partner",
        "rest",
        "value",
    )

    def __init__(
        self,
        domains: list[list[tuple[int, ...]]],
        value: list[int],
        partner: dict[int, list[tuple[int, int]]],
        order: list[int],
        rest: list[int],
    ) -> None:
        self.domains = domains
        self.value = value
        self.partner = partner
        self.order = order
        self.rest = rest
        self.best_val = -(10**9)
        self.best: list[tuple[int, ...]] = [d[0] for d in domains]
        self.current: list[tuple[int, ...]] = [()] * len(domains)
        self.kept: set[int] = set()

    def gain(self, choice: tuple[int, ...]) -> int:
        v = 0
        kept = self.kept
        for a in choice:
            v += self.value[a]
            for b, c in self.partner.get(a, ()):
                if b in kept:
                    v += ARCH_POINTS * c
        return v

    def run(self, i: int, acc: int) -> None:
        order = self.order
        if i == len(order):
            if acc > self.best_val:
                self.best_val = acc
                self.best = list(self.current)
            return
        if acc + self.rest[i] <= self.best_val:
            return
        ci = order[i]
        for choice in self.domains[ci]:
            g = self.gain(choice)
            self.current[ci] = choice
            self.kept.update(choice)
            self.run(i + 1, acc + g)
            self.kept.difference_update(choice)


def rank(totals: list[int]) -> list[int]:
    """SC7: ranks with shared placings.

    >>> rank([30, 41, 30, 12])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for o in totals if o > t) for t in totals]
