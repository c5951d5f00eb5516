"""Shared helpers of the engine tests: building positions by hand, snapshots, brute force.

Everything here is written from docs/rules.md's text, not from the engine's code, so that the tests
that compare the two check something: :func:`brute_force_score` scores a grounds by trying every
allowed choice of surplus areas, :func:`candidate_decisions` lists decisions far beyond the legal
ones so that a test can count which of them ``apply`` accepts.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from kerala.actions import Decision, FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.game import GameState, Phase, new_game
from kerala.grounds import Grounds, Placed
from kerala.tiles import COLORS, EDGES, GAME_TILE_TYPES, TileType, load_tileset, tile

Cell = tuple[int, int]
DELTAS: tuple[Cell, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
EDGE_OF = dict(zip(EDGES, DELTAS, strict=True))


def placed(spec: str) -> Placed:
    """``"blue:arch-red@E"`` -> (tile, "E"); ``"blue:e1"`` -> (tile, None)."""
    name, _, edge = spec.partition("@")
    return (tile(name), edge or None)


def make_grounds(
    color: str,
    stacks: Mapping[Cell, str | Sequence[str]],
    elephants: Sequence[Cell] = (),
    passes: int = 0,
) -> Grounds:
    """A grounds from ``{cell: "tile" | ["bottom", ..., "top"]}``."""
    built: list[tuple[Cell, list[Placed]]] = []
    for c, s in stacks.items():
        names = [s] if isinstance(s, str) else list(s)
        built.append((c, [placed(n) for n in names]))
    return Grounds.from_cells(color, built, elephants, passes)


def removal_for(colors: Sequence[str]) -> list[TileType]:
    """A valid ``chosen`` removal (S3) taken from the last unplayed colors, purple first."""
    k = {2: 20, 3: 10, 4: 4, 5: 0}[len(colors)]
    ts = load_tileset("standard")
    out: list[TileType] = []
    for color in reversed(COLORS):
        if color in colors:
            continue
        for t in ts.tiles({color}):
            if len(out) < k:
                out.append(t)
    return out


def position(
    colors: Sequence[str],
    display: Sequence[str],
    grounds: Mapping[int, Grounds] | None = None,
) -> GameState:
    """A state at the start of round 0 with ``display`` drawn and the given grounds put in."""
    s = new_game(list(colors), removal="chosen", removed=removal_for(colors))
    for name in display:
        s.apply_draw(tile(name))
    for seat, g in (grounds or {}).items():
        s.grounds[seat] = g
    return s


def sp2_hole_position() -> GameState:
    """Blue follows up a move-tile placed at (3, 0); the stack on (1, 1) has one empty side,
    (1, 2), so moving it there would leave (1, 1) enclosed (SP2: no hole)."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (2, 0): "green:e1",
            (0, 1): "black:e1",
            (1, 1): "red:e2",
            (2, 1): "green:e2",
            (0, 2): "purple:e1",
        },
        elephants=[(2, 0), (0, 2)],
    )
    s = position(["blue", "red"], ["blue:move-tile", "red:e1"], {0: g})
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 0), from_=(2, 0)))
    return s


def snapshot(s: GameState) -> Any:
    """Every field of a state, deep enough to see any change (bag order and RNG included)."""
    return (
        s.colors,
        s.n,
        s.removal,
        s.removal_known,
        s.to_remove,
        tuple(s.removed),
        tuple(s.pool),
        tuple(s.bag),
        tuple(
            (g.color, tuple(sorted(g.stacks.items())), tuple(g.elephants), g.passes)
            for g in s.grounds
        ),
        s.round,
        s.turn,
        tuple(s.display),
        s.phase,
        s.pending,
        tuple(s.log),
        s.rng.getstate() if s.rng is not None else None,
    )


def random_line(
    seed: int, colors: Sequence[str], *, stop: int | None = None
) -> Iterator[GameState]:
    """Play a seeded random game; yield the state at every player decision point."""
    rng = random.Random(seed)
    s = new_game(list(colors), seed=seed)
    steps = 0
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        yield s
        steps += 1
        if stop is not None and steps >= stop:
            return
        legal = s.legal_decisions()
        s.apply(legal[rng.randrange(len(legal))])


def state_after(seed: int, colors: Sequence[str], stop: int) -> GameState:
    """The state at the ``stop``-th decision point of :func:`random_line` (or its last one)."""
    last: GameState | None = None
    for s in random_line(seed, colors, stop=stop):
        last = s
    assert last is not None
    return last


def random_decisions(s: GameState, rng: random.Random) -> Iterator[GameState]:
    """Play ``s`` to its end, each decision picked by ``rng`` among the legal ones; yields
    ``s`` after every decision."""
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
        else:
            legal = s.legal_decisions()
            s.apply(legal[rng.randrange(len(legal))])
            yield s


def play_random(seed: int, colors: Sequence[str]) -> GameState:
    """A whole seeded random game (draws from the game's seed, choices from ``seed`` too)."""
    s = new_game(list(colors), seed=seed)
    for _ in random_decisions(s, random.Random(seed)):
        pass
    return s


# -- brute force from the rule text ---------------------------------------------------------


def connected(cells: Iterable[Cell]) -> bool:
    """Whether ``cells`` form one orthogonally connected group (an empty set does)."""
    cs = set(cells)
    if not cs:
        return True
    start = next(iter(cs))
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in DELTAS:
            n = (x + dx, y + dy)
            if n in cs and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cs


def areas_of(stacks: Mapping[Cell, Sequence[Placed]]) -> list[tuple[str, frozenset[Cell]]]:
    """Maximal orthogonally connected groups of cells whose top tiles share a color."""
    top = {c: s[-1][0].color for c, s in stacks.items()}
    seen: set[Cell] = set()
    out: list[tuple[str, frozenset[Cell]]] = []
    for c in sorted(top):
        if c in seen:
            continue
        group = {c}
        todo = [c]
        seen.add(c)
        while todo:
            x, y = todo.pop()
            for dx, dy in DELTAS:
                n = (x + dx, y + dy)
                if n in top and n not in seen and top[n] == top[c]:
                    seen.add(n)
                    group.add(n)
                    todo.append(n)
        out.append((top[c], frozenset(group)))
    return out


def score_with_removed(g: Grounds, removed: Iterable[Cell]) -> dict[str, int]:
    """SC1–SC6 as docs/rules.md words them, for a given set of removed cells."""
    stacks = {c: g.stack(c) for c in g.cells()}
    gone = set(removed)
    left = {c: s for c, s in stacks.items() if c not in gone}
    surplus = -2 * sum(len(stacks[c]) for c in gone)
    missing = -5 * sum(1 for col in COLORS if all(s[-1][0].color != col for s in left.values()))
    standing = 2 - g.passes
    arches = 0
    for (x, y), s in left.items():
        t, edge = s[-1]
        if t.arch_color is not None and edge is not None:
            dx, dy = EDGE_OF[edge]
            faced = left.get((x + dx, y + dy))
            if faced is not None and faced[-1][0].color == t.arch_color:
                arches += 5
    symbols = sum(s[-1][0].symbols for s in left.values())
    total = surplus + missing + standing + arches + symbols
    return {
        "total": total,
        "surplus": surplus,
        "missing": missing,
        "standing": standing,
        "arches": arches,
        "symbols": symbols,
    }


def keep_choices(g: Grounds) -> Iterator[frozenset[Cell]]:
    """Every SC1 choice: per color keep at most 1 area (2 of the own color); yield removed cells."""
    stacks = {c: g.stack(c) for c in g.cells()}
    areas = areas_of(stacks)
    per_color: list[list[tuple[frozenset[Cell], ...]]] = []
    for color in COLORS:
        group = [cells for col, cells in areas if col == color]
        cap = 2 if color == g.color else 1
        options: list[tuple[frozenset[Cell], ...]] = []
        for k in range(min(cap, len(group)) + 1):
            options.extend(itertools.combinations(group, k))
        per_color.append(options)
    all_cells = frozenset(stacks)
    for combo in itertools.product(*per_color):
        kept: set[Cell] = set()
        for choice in combo:
            for cells in choice:
                kept |= cells
        yield all_cells - kept


def brute_force_score(g: Grounds) -> dict[str, int]:
    """The best total over every SC1 choice."""
    best: dict[str, int] | None = None
    for removed in keep_choices(g):
        sc = score_with_removed(g, removed)
        if best is None or sc["total"] > best["total"]:
            best = sc
    assert best is not None
    return best


def rule_text_decisions(s: GameState) -> set[Decision]:
    """The legal decisions as docs/rules.md words them (G2, G3, P1–P6, SP1, SP2), generated
    independently of the engine's move generator."""
    if s.phase not in (Phase.PLACE, Phase.FOLLOW_UP):
        return set()
    seat = s.current_player
    g = s.grounds[seat]
    cells = set(g.cells())
    els = g.elephant_cells()
    out: set[Decision] = set()
    if s.phase == Phase.PLACE:
        if g.passes < 2:
            out.add(Pass(seat))
        for i, (x, y) in enumerate(els):
            other = els[1 - i]
            for dx, dy in DELTAS:
                to = (x + dx, y + dy)
                # P4: not onto the other elephant (both on the start tile: any neighbour).
                if to == other:
                    continue
                for t in set(s.display):
                    for arch in EDGES if t.is_arch else (None,):
                        out.add(Place(seat=seat, take=t, to=to, from_=(x, y), arch=arch))
        return out
    out.add(FollowUpSkip(seat))
    if s.pending == "move-elephant":
        for e in els:
            for c in cells:
                if c not in els:
                    out.add(MoveElephant(seat=seat, from_=e, to=c))
        return out
    for src in cells:
        if src in els:
            continue
        if all((src[0] + dx, src[1] + dy) in cells for dx, dy in DELTAS):
            continue
        rest = cells - {src}
        if not connected(rest):
            continue
        before = holes(cells)
        for c in rest:
            for dx, dy in DELTAS:
                dst = (c[0] + dx, c[1] + dy)
                if dst not in cells and holes(rest | {dst}) <= before:
                    out.add(MoveStack(seat=seat, from_=src, to=dst))
    return out


def holes(cells: Iterable[Cell]) -> set[Cell]:
    """docs/rules.md SP2's holes, by its words: the empty cells from which no path of orthogonally
    adjacent empty cells leads out of the grounds' bounding box."""
    cs = set(cells)
    xs = [x for x, _ in cs]
    ys = [y for _, y in cs]
    box_ = {
        (x, y)
        for x in range(min(xs), max(xs) + 1)
        for y in range(min(ys), max(ys) + 1)
        if (x, y) not in cs
    }
    out = set()
    for start in box_:
        seen = {start}
        todo = [start]
        escaped = False
        while todo and not escaped:
            x, y = todo.pop()
            for dx, dy in DELTAS:
                n = (x + dx, y + dy)
                if n in cs or n in seen:
                    continue
                if n not in box_:
                    escaped = True
                    break
                seen.add(n)
                todo.append(n)
        if not escaped:
            out.add(start)
    return out


# -- candidate decisions for brute-force legality counts ------------------------------------


def box(g: Grounds, margin: int = 1) -> list[Cell]:
    cells = g.cells()
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    return [
        (x, y)
        for x in range(min(xs) - margin, max(xs) + margin + 1)
        for y in range(min(ys) - margin, max(ys) + margin + 1)
    ]


def candidate_decisions(s: GameState, extra_tiles: int = 2, seed: int = 0) -> list[Decision]:
    """A superset of the legal decisions: every kind, every seat, the display's tile types plus
    a few others, every arch edge (and none), elephants' cells from a box around the grounds,
    targets up to 2 steps away (diagonals included), follow-up moves between any two cells of
    a wider box."""
    rng = random.Random(seed)
    seat = s.current_player
    g = s.grounds[seat]
    cells = box(g)
    wide = box(g, 2)
    types = list(dict.fromkeys(s.display))
    others = [t for t in GAME_TILE_TYPES if t not in types]
    types += rng.sample(others, extra_tiles)
    near = [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if abs(dx) + abs(dy) <= 2]
    out: list[Decision] = [*(Pass(p) for p in range(s.n)), *(FollowUpSkip(p) for p in range(s.n))]
    for t in types:
        for frm in cells:
            for dx, dy in near:
                to = (frm[0] + dx, frm[1] + dy)
                for arch in (None, *EDGES):
                    out.append(Place(seat=seat, take=t, to=to, from_=frm, arch=arch))
    for frm in wide:
        for to in wide:
            out.append(MoveElephant(seat=seat, from_=frm, to=to))
            out.append(MoveStack(seat=seat, from_=frm, to=to))
    # Decisions of the wrong seat with otherwise plausible content.
    other = (seat + 1) % s.n
    for d in s.legal_decisions():
        if isinstance(d, Place):
            out.append(Place(seat=other, take=d.take, to=d.to, from_=d.from_, arch=d.arch))
        elif isinstance(d, MoveElephant):
            out.append(MoveElephant(seat=other, from_=d.from_, to=d.to))
        elif isinstance(d, MoveStack):
            out.append(MoveStack(seat=other, from_=d.from_, to=d.to))
    return out


def accepted(s: GameState, candidates: Iterable[Decision]) -> set[Decision]:
    """The candidates that ``apply`` accepts, each tried on a copy of ``s``.

    A refused decision leaves its copy unchanged (tested on its own), so a copy is only
    renewed after a decision was accepted.
    """
    ok: set[Decision] = set()
    c = s.copy(with_rng=False)
    for d in candidates:
        try:
            c.apply(d)
        except ValueError:
            continue
        ok.add(d)
        c = s.copy(with_rng=False)
    return ok


def is_decision_point(s: GameState) -> bool:
    return s.phase in (Phase.PLACE, Phase.FOLLOW_UP)


def with_hidden(
    s: GameState,
    *,
    removed: Iterable[TileType] | None = None,
    bag: Iterable[TileType] | None = None,
    rng: random.Random | None = None,
) -> GameState:
    """A copy of ``s`` with another hidden part (the engine keeps it private, so the copy is
    made by the one constructor, as :meth:`GameState.copy` does)."""
    return GameState(
        s.colors,
        s.tileset,
        s.removal,
        s.to_remove,
        removed=s.removed if removed is None else removed,
        removal_known=s.removal_known,
        pool=s.pool,
        bag=s.bag if bag is None else bag,
        grounds=s.grounds,
        round=s.round,
        turn=s.turn,
        display=s.display,
        phase=s.phase,
        pending=s.pending,
        log=s.log,
        rng=rng,
    )
