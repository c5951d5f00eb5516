"""The game state: setup, rounds, legal decisions, applying them, the end; chance explicit.

A :class:`GameState` is at one of five phases. ``REMOVAL`` and ``DRAW`` are chance nodes: the
state lists :meth:`~GameState.chance_outcomes` (one tile at a time, with its probability) and
takes a tile with :meth:`~GameState.apply_draw` (imposed, e.g. when replaying a record) or
draws one itself from a seeded RNG (:meth:`~GameState.advance_chance`). ``PLACE`` and
``FOLLOW_UP`` wait for a player's decision; ``OVER`` is the end.

Legality lives here and only here: :meth:`~GameState.legal_decisions` lists every legal decision
and :meth:`~GameState.apply` refuses anything else with :class:`IllegalDecisionError` naming the
rule broken, leaving the state unchanged.

Why this module is long: the rules of a decision stay in one place. Beside :class:`GameState`
(its constructor, chance, legality, apply, undo and replay, views) it holds the grounds-level
rules that look-ahead bots share (:func:`apply_to_grounds`, :func:`follow_up_decisions`) and the
caches that make the legal lists fast; splitting them off would split the rules.

>>> s = new_game(["blue", "red"], seed=7)
>>> s.phase, s.current_player
(<Phase.REMOVAL: 0>, -1)
>>> s.advance_chance()
>>> s.phase, s.current_player, len(s.bag)
(<Phase.PLACE: 2>, 0, 78)
>>> d = s.legal_decisions()[0]
>>> s.apply(d)
>>> s.current_player
1
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final, TypeVar, cast

from mypy_extensions import mypyc_attr

from kerala.actions import (
    Decision,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    cell_json,
    parse_decision,
)
from kerala.chance import shuffle
from kerala.errors import IllegalDecisionError, IllegalDrawError, SetupError, shown_as_json
from kerala.grounds import (
    LIMIT,
    NEIGHBOURS,
    OFFSET,
    STRIDE,
    Grounds,
    KeyObject,
    Stack,
    cell,
    key,
    key_object,
    sp2_move_makes_hole,
    sp2_plan,
)
from kerala.pickled import Reduced, reduced
from kerala.playerview import GroundsView, PlayerView
from kerala.scoring import ScoreBreakdown, rank, score_grounds
from kerala.tiles import (
    ALL_TILE_TYPES,
    COLORS,
    EDGES,
    MOVE_ELEPHANT,
    MOVE_TILE,
    TileSet,
    TileType,
    load_tileset,
)
from kerala.vocabulary import PHASE_NAMES, Removal, Special

#: docs/rules.md S3: how many tiles leave the game before play, by player count.
REMOVAL_COUNT: Final[dict[int, int]] = {2: 20, 3: 10, 4: 4, 5: 0}
#: G3: passes allowed per game.
MAX_PASSES: Final = 2
CHANCE: Final = -1
TERMINAL: Final = -2


class Phase(enum.IntEnum):
    REMOVAL = 0
    DRAW = 1
    PLACE = 2
    FOLLOW_UP = 3
    OVER = 4


# Reading a member off the enum class costs ~60 ns in CPython 3.11; these names cost ~5.
_REMOVAL: Final = Phase.REMOVAL
_DRAW: Final = Phase.DRAW
_PLACE: Final = Phase.PLACE
_FOLLOW_UP: Final = Phase.FOLLOW_UP
_OVER: Final = Phase.OVER
#: The members by value: a cheaper lookup than calling the enum.
_PHASES: Final = tuple(Phase)


_NEIGHBOUR_SET: Final = frozenset(NEIGHBOURS)
_F = TypeVar("_F", MoveElephant, MoveStack)


# Decisions are values, so the engine builds each one once and hands out the same object
# afterwards: the caches below are keyed by everything a decision depends on.


def _place(
    seat: int, t: TileType, to: tuple[int, int], frm: tuple[int, int], arch: str | None
) -> Place:
    return Place(seat=seat, take=t, to=to, from_=frm, arch=arch)


def _move_elephant(seat: int, frm: tuple[int, int], to: tuple[int, int]) -> MoveElephant:
    return MoveElephant(seat=seat, from_=frm, to=to)


def _move_stack(seat: int, frm: tuple[int, int], to: tuple[int, int]) -> MoveStack:
    return MoveStack(seat=seat, from_=frm, to=to)


@mypyc_attr(acyclic=True)
class _PlaceOptions:
    """Every placement of one tile type from one elephant cell, and the lists without a target.

    P1/P2/P4 leave one question per elephant: is the other elephant on one of the 4 targets?
    So an entry holds the whole list and, made on first use, the list without each target.
    (Few objects per entry: the caches hold many, and the cyclic GC walks them all.)
    """

    __slots__ = ("every", "without")

    def __init__(self, seat: int, t: TileType, fk: int) -> None:
        frm = cell(fk)
        targets = [cell(fk + d) for d in NEIGHBOURS]
        if t.is_arch:
            self.every = tuple([_place(seat, t, to, frm, e) for to in targets for e in EDGES])
        else:
            self.every = tuple([_place(seat, t, to, frm, None) for to in targets])
        self.without: dict[KeyObject, tuple[Place, ...]] | None = None

    def but(self, tk: KeyObject) -> tuple[Place, ...]:
        w = self.without
        if w is None:
            w = self.without = {}
        decs = w.get(tk)
        if decs is None:
            to = cell(tk)
            decs = w[tk] = tuple([p for p in self.every if p.to != to])
        return decs


class _FollowUps(dict[KeyObject, _F]):
    """Follow-up decisions of one seat from one source cell, by target key, made on demand.
    Keys stay the grounds' key objects (grounds.KeyObject), so the lookups hit by identity."""

    __slots__ = ("factory", "seat", "src")

    def __init__(self, factory: type[_F], seat: int, src: int) -> None:
        super().__init__()
        self.factory = _BUILDERS[factory]
        self.seat = seat
        self.src = cell(src)

    def __missing__(self, tk: KeyObject) -> _F:
        d: _F = self.factory(self.seat, self.src, cell(tk))
        self[tk] = d
        return d


# Per seat: by tile index, {from key: placements}; {source key: follow-ups by target}. The
# from keys are the grounds' key objects, so the lookups hit by identity (grounds.KeyObject).
_PLACE_CACHE: list[list[dict[KeyObject, _PlaceOptions]]] = [
    [{} for _ in ALL_TILE_TYPES] for _ in COLORS
]
_SP1_CACHE: list[dict[KeyObject, _FollowUps[MoveElephant]]] = [{} for _ in COLORS]
_SP2_CACHE: list[dict[KeyObject, _FollowUps[MoveStack]]] = [{} for _ in COLORS]
_BUILDERS: Final[dict[type, Callable[[int, tuple[int, int], tuple[int, int]], Any]]] = {
    MoveElephant: _move_elephant,
    MoveStack: _move_stack,
}
_PASS: Final = tuple(Pass(s) for s in range(len(COLORS)))
_SKIP: Final = tuple(FollowUpSkip(s) for s in range(len(COLORS)))
_CACHE_LIMIT: Final = 100_000
#: Per seat and tile type: about as many placements in all as :data:`_CACHE_LIMIT`.
_PLACE_LIMIT: Final = 2_000


def _place_options(seat: int, t: TileType, fk: KeyObject) -> _PlaceOptions:
    table = _PLACE_CACHE[seat][t.index]
    if len(table) > _PLACE_LIMIT:
        table.clear()
    opts = table[fk] = _PlaceOptions(seat, t, fk)
    return opts


def _follow_ups(
    table: list[dict[KeyObject, _FollowUps[_F]]], factory: type[_F], seat: int, src: KeyObject
) -> _FollowUps[_F]:
    per_seat = table[seat]
    d = per_seat.get(src)
    if d is None:
        if len(per_seat) > _CACHE_LIMIT:
            per_seat.clear()
        d = per_seat[src] = _FollowUps(factory, seat, src)
    return d


def place_decisions(g: Grounds, seat: int, tiles: Iterable[TileType]) -> list[Decision]:
    """Every legal placement (P1–P4) of each of ``tiles`` (distinct types) on grounds ``g``,
    and the pass when one is left (G3): a turn's decisions, whatever the display holds."""
    els: list[KeyObject] = g.elephants
    e0: KeyObject = els[0]
    e1: KeyObject = els[1]
    by_tile = _PLACE_CACHE[seat]
    out: list[Decision] = []
    # P4: a target must not hold the other elephant (a symmetric question).
    blocked = e1 - e0 in _NEIGHBOUR_SET
    for t in tiles:
        opts = by_tile[t.index].get(e0) or _place_options(seat, t, e0)
        out += opts.but(e1) if blocked else opts.every
    if e1 != e0:
        for t in tiles:
            opts = by_tile[t.index].get(e1) or _place_options(seat, t, e1)
            out += opts.but(e0) if blocked else opts.every
    if g.passes < MAX_PASSES:
        out.append(_PASS[seat])
    return out


def apply_to_grounds(g: Grounds, d: Decision) -> None:
    """What decision ``d`` (known to be legal) does to its player's grounds, in place.

    The one place that says how a placement (P3), a pass (G3), an SP1 or an SP2 move changes
    a grounds; :meth:`GameState.apply_unchecked` and look-ahead bots both use it.
    """
    if type(d) is Place:
        stacks = g.stacks
        to, frm = d.to, d.from_
        # key(), inlined; its shared object, held for its three uses (grounds.KeyObject).
        tk: KeyObject = key_object((to[0] + OFFSET) * STRIDE + to[1] + OFFSET)
        s = stacks.get(tk)
        stacks[tk] = (*s, (d.take, d.arch)) if s else ((d.take, d.arch),)
        els: list[KeyObject] = g.elephants
        if els[0] == (frm[0] + OFFSET) * STRIDE + frm[1] + OFFSET:
            els[0] = tk
        else:
            els[1] = tk
    elif type(d) is Pass:
        g.passes += 1
    elif type(d) is MoveElephant:
        els = g.elephants
        if els[0] == key(d.from_):
            els[0] = key_object(key(d.to))
        else:
            els[1] = key_object(key(d.to))
    elif type(d) is MoveStack:
        stacks = g.stacks
        stacks[key_object(key(d.to))] = stacks.pop(key(d.from_))


def sp1_moves(g: Grounds, seat: int) -> list[Decision]:
    """SP1: either elephant to any other stack without an elephant."""
    els: list[KeyObject] = g.elephants
    stacks: dict[KeyObject, Stack] = g.stacks
    targets = [k for k in stacks if k not in els]
    out: list[Decision] = []
    if not targets:
        return out
    pick = itemgetter(*targets)  # one target: the decision itself, not a tuple
    for ek in dict.fromkeys(els):
        got = pick(_follow_ups(_SP1_CACHE, MoveElephant, seat, ek))
        if len(targets) > 1:
            out += got
        else:
            out.append(got)
    return out


def sp2_sources(g: Grounds) -> list[int]:
    """SP2 sources (cell keys): no elephant, not built around, not splitting the grounds, and
    leaving no hole where the stack stood."""
    return sp2_plan(g)[1]


def sp2_moves(g: Grounds, seat: int) -> list[Decision]:
    """SP2: every legal move of a whole stack from a source to an empty destination that
    touches another stack and makes no hole."""
    frontier, sources, drops = sp2_plan(g)
    # The frontier never has fewer than 4 cells, so the getter returns a tuple.
    pick = itemgetter(*frontier)
    per_seat = _SP2_CACHE[seat]
    out: list[Decision] = []
    for src, drop in zip(sources, drops, strict=True):
        moves = per_seat.get(src)
        if moves is None:
            moves = _follow_ups(_SP2_CACHE, MoveStack, seat, src)
        if drop:
            start = len(out)
            out += pick(moves)
            while drop:  # highest index first, so the lower ones stay put
                i = drop.bit_length() - 1
                del out[start + i]
                drop ^= 1 << i
        else:
            out += pick(moves)
    return out


def follow_up_decisions(g: Grounds, seat: int, special: str) -> list[Decision]:
    """Skip, then every SP1 (``special="move-elephant"``) or SP2 (``"move-tile"``) move."""
    out: list[Decision] = [_SKIP[seat]]
    out += sp1_moves(g, seat) if special == MOVE_ELEPHANT else sp2_moves(g, seat)
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: each seat's total and rank (1 is first; SC7 shares places) and the
    seats ranked first. See :meth:`GameState.outcome`."""

    totals: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]

    def __reduce__(self) -> Reduced:
        return reduced(self)


#: The fields of a :class:`GameState` (its ``__slots__``), named once for both builds: a class
#: compiled by mypyc has no ``__slots__`` to read.
_STATE_FIELDS: Final = (
    "_bag",
    "_pool",
    "_removed",
    "_rng",
    "colors",
    "display",
    "grounds",
    "log",
    "n",
    "pending",
    "phase",
    "removal",
    "removal_known",
    "round",
    "tileset",
    "to_remove",
    "turn",
)


@mypyc_attr(acyclic=True)
class GameState:
    """The whole state of one game, hidden information included. See the module docstring."""

    # The hidden part (bag order, the pool of the removal, the removed tiles, the RNG of the
    # chance nodes) is private: read through the properties below, changed only by the
    # engine's own methods (apply, advance_chance, redrawn, use_rng).
    __slots__ = _STATE_FIELDS

    tileset: TileSet
    colors: tuple[str, ...]
    n: int
    removal: Removal
    _removed: list[TileType]
    removal_known: bool
    to_remove: int
    _pool: list[TileType]
    _bag: list[TileType]
    grounds: list[Grounds]
    round: int
    turn: int
    display: list[TileType]
    phase: Phase
    pending: Special | None
    log: list[TileType | Decision]
    _rng: random.Random | None

    def __init__(
        self,
        colors: Sequence[str],
        tileset: TileSet,
        removal: Removal,
        to_remove: int,
        *,
        removed: Iterable[TileType] = (),
        removal_known: bool = True,
        pool: Iterable[TileType] = (),
        bag: Iterable[TileType] = (),
        grounds: Iterable[Grounds] | None = None,
        round: int = 0,
        turn: int = 0,
        display: Iterable[TileType] = (),
        phase: Phase = Phase.DRAW,
        pending: Special | None = None,
        log: Iterable[TileType | Decision] = (),
        rng: random.Random | None = None,
    ) -> None:
        """A state holding these facts; its lists and grounds are its own copies.

        The one way every state is made: :func:`new_game` (which checks a setup against
        docs/rules.md S1–S4 first), :meth:`copy` and :func:`kerala.views.sample_state` call it. It
        trusts its arguments; ``grounds=None`` gives every seat its start grounds (S2).
        """
        self.colors = tuple(colors)
        self.n = len(self.colors)
        self.tileset = tileset
        self.removal = removal
        self.to_remove = to_remove
        self._removed = list(removed)
        self.removal_known = removal_known
        self._pool = list(pool)
        self._bag = list(bag)
        if grounds is None:
            self.grounds = [Grounds.start(c) for c in self.colors]
        else:
            self.grounds = [g.copy() for g in grounds]
        self.round = round
        self.turn = turn
        self.display = list(display)
        self.phase = _PHASES[phase]  # a member, so that phases compare by identity
        self.pending = pending
        self.log = list(log)
        self._rng = rng

    # -- the hidden part, read only ----------------------------------------------------

    @property
    def bag(self) -> tuple[TileType, ...]:
        """The bag in drawing order (hidden from every seat, I2: views show only its size)."""
        return tuple(self._bag)

    @property
    def bag_size(self) -> int:
        """How many tiles are in the bag (what every seat may know)."""
        return len(self._bag)

    @property
    def bag_count(self) -> int:
        """The bag's size as every seat may know it (a view's ``bag_count``): during the
        removal, the bag that will be once the removal is done."""
        return len(self._bag) + len(self._pool) - (self.to_remove - len(self._removed))

    @property
    def pool(self) -> tuple[TileType, ...]:
        """The tiles the removal draws from (S3), until it is done; empty afterwards."""
        return tuple(self._pool)

    @property
    def removed(self) -> tuple[TileType, ...]:
        """The tiles removed at setup (S3; hidden from every seat under random removal)."""
        return tuple(self._removed)

    @property
    def rng(self) -> random.Random | None:
        """The RNG that draws the chance nodes (:meth:`use_rng` sets it), or ``None``."""
        return self._rng

    # -- who is to act -----------------------------------------------------------------

    @property
    def current_player(self) -> int:
        """The seat to decide, or :data:`CHANCE` at a draw, or :data:`TERMINAL` at the end."""
        phase = self.phase
        if phase >= _PLACE:
            if phase is _OVER:
                return TERMINAL
            return (self.round + self.turn) % self.n
        return CHANCE

    @property
    def to_move(self) -> int | None:
        """The seat whose decision is awaited, or ``None`` at chance nodes and at the end."""
        p = self.current_player
        return p if p >= 0 else None

    @property
    def owner(self) -> int:
        """G1: the bag owner of the current round."""
        return self.round % self.n

    def is_chance(self) -> bool:
        return self.phase < _PLACE

    def is_over(self) -> bool:
        return self.phase is _OVER

    # -- chance ------------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[TileType, float]]:
        """At a chance node, each tile type that can come next with its probability."""
        if self.phase is _REMOVAL:
            src = self._pool
        elif self.phase is _DRAW:
            src = self._bag
        else:
            return []
        counts = Counter(src)
        total = len(src)
        return [(t, counts[t] / total) for t in sorted(counts, key=lambda t: t.index)]

    def apply_draw(self, t: TileType) -> None:
        """Take tile type ``t`` as the next chance outcome (removal or display draw).

        Raises :class:`IllegalDrawError` if the bag (or the removal pool) holds no such tile.
        """
        if self.phase is _REMOVAL:
            src = self._pool
        elif self.phase is _DRAW:
            src = self._bag
        else:
            raise IllegalDrawError("no draw is due: the state waits for a player's decision")
        try:
            i = src.index(t)
        except ValueError:
            where = "the tiles that may be removed" if self.phase is _REMOVAL else "the bag"
            raise IllegalDrawError(f"{t.name} is not in {where}") from None
        src[i] = src[-1]
        src.pop()
        self._after_draw(t)

    def sample_draw(self, rng: random.Random) -> TileType:
        """Draw a uniformly random tile at this chance node using ``rng`` and apply it."""
        src = self._pool if self.phase is _REMOVAL else self._bag
        if self.phase > _DRAW or not src:
            raise IllegalDrawError("no draw is due")
        i = int(rng.random() * len(src))
        t = src[i]
        src[i] = src[-1]
        src.pop()
        self._after_draw(t)
        return t

    def advance_chance(self, rng: random.Random | None = None) -> None:
        """Resolve chance nodes until a player must decide (or the game is over)."""
        r = rng if rng is not None else self._rng
        if r is None:
            raise IllegalDrawError("no RNG to draw with: pass one, or create the game with a seed")
        while self.phase < _PLACE:
            self.sample_draw(r)

    def _after_draw(self, t: TileType) -> None:
        if self.phase is _REMOVAL:
            self._removed.append(t)
            if len(self._removed) == self.to_remove:
                self._bag.extend(self._pool)
                self._pool = []
                self.phase = _DRAW
            return
        self.display.append(t)
        self.log.append(t)
        if len(self.display) == self.n:
            self.phase = _PLACE
            self.turn = 0

    # -- legal decisions ---------------------------------------------------------------

    def legal_decisions(self) -> list[Decision]:
        """Every legal decision of the player to move; empty at chance nodes and at the end.

        Identical tile types in the display give one decision; two elephants on one cell give
        one decision per target.
        """
        phase = self.phase
        if phase is _PLACE:
            seat = (self.round + self.turn) % self.n
            display = self.display
            return place_decisions(
                self.grounds[seat], seat, dict.fromkeys(display) if len(display) > 1 else display
            )
        if phase is _FOLLOW_UP:
            seat = (self.round + self.turn) % self.n
            g = self.grounds[seat]
            return follow_up_decisions(g, seat, self.pending or MOVE_TILE)
        return []

    # Decisions from outside are typed ``object`` here: the compiled build checks annotated
    # types at call time, and anything that is not a decision must get the rules' refusal
    # (IllegalDecisionError), not a TypeError.

    def is_legal(self, d: object) -> bool:
        try:
            self._check(d)
        except IllegalDecisionError:
            return False
        return True

    # -- applying ----------------------------------------------------------------------

    def _seat_to_decide(self) -> int:
        """The seat to decide; :class:`IllegalDecisionError` when no decision is due."""
        phase = self.phase
        if phase is _OVER:
            raise IllegalDecisionError("the game is over", "G4")
        if phase < _PLACE:
            raise IllegalDecisionError("a tile must be drawn first", "G1")
        return (self.round + self.turn) % self.n

    def _check(self, d: object) -> None:
        """Raise :class:`IllegalDecisionError` unless ``d`` is legal now. Changes nothing."""
        phase = self.phase
        seat = self._seat_to_decide()
        if not isinstance(d, Pass | Place | MoveElephant | MoveStack | FollowUpSkip):
            raise IllegalDecisionError(f"not a decision: {d!r}")
        if d.seat != seat:
            raise IllegalDecisionError(f"it is seat {seat}'s turn, not seat {d.seat}'s", "G2")
        if not isinstance(d, Pass | FollowUpSkip):
            # Cells beyond LIMIT would alias other cells' keys (a grounds never gets near it).
            for c in (d.from_, d.to):
                if not all(type(v) is int and -LIMIT <= v <= LIMIT for v in c):
                    raise IllegalDecisionError(
                        f"{shown_as_json(c)} is outside the coordinate range", "P6"
                    )
        g = self.grounds[seat]
        if phase is _PLACE:
            if isinstance(d, Pass):
                if g.passes >= MAX_PASSES:
                    raise IllegalDecisionError("both elephants already lie: no passes left", "G3")
                return
            if not isinstance(d, Place):
                raise IllegalDecisionError("no special tile was placed: take a tile or pass", "G2")
            if d.take not in self.display:
                raise IllegalDecisionError(f"{d.take.name} is not in the display", "G2")
            if d.take.is_arch != (d.arch is not None) or (
                d.arch is not None and d.arch not in EDGES
            ):
                raise IllegalDecisionError(
                    "an arch tile needs an edge N/E/S/W and other tiles none", "P6"
                )
            fk, tk = key(d.from_), key(d.to)
            if fk not in g.elephants:
                raise IllegalDecisionError(
                    f"no elephant of seat {seat} stands on {cell_json(d.from_)}", "P1"
                )
            if tk - fk not in _NEIGHBOUR_SET:
                raise IllegalDecisionError(
                    f"{cell_json(d.to)} is not orthogonally adjacent to {cell_json(d.from_)}", "P1"
                )
            if tk in g.elephants:
                raise IllegalDecisionError(f"{cell_json(d.to)} holds the other elephant", "P4")
            return
        # FOLLOW_UP
        if isinstance(d, FollowUpSkip):
            return
        if self.pending == MOVE_ELEPHANT:
            if not isinstance(d, MoveElephant):
                raise IllegalDecisionError(
                    "after a move-elephant tile: move an elephant or skip", "SP1"
                )
            fk, tk = key(d.from_), key(d.to)
            if fk not in g.elephants:
                raise IllegalDecisionError(f"no elephant stands on {cell_json(d.from_)}", "SP1")
            if tk not in g.stacks:
                raise IllegalDecisionError(f"{cell_json(d.to)} holds no tile", "SP1")
            if tk in g.elephants:
                raise IllegalDecisionError(
                    f"an elephant already stands on {cell_json(d.to)}", "SP1"
                )
            return
        if not isinstance(d, MoveStack):
            raise IllegalDecisionError("after a move-tile tile: move a stack or skip", "SP2")
        fk, tk = key(d.from_), key(d.to)
        if fk not in g.stacks:
            raise IllegalDecisionError(f"{cell_json(d.from_)} holds no stack", "SP2")
        if fk in g.elephants:
            raise IllegalDecisionError(f"an elephant stands on {cell_json(d.from_)}", "SP2")
        if all(fk + dd in g.stacks for dd in NEIGHBOURS):
            raise IllegalDecisionError(
                f"{cell_json(d.from_)} is built around on all four sides", "SP2"
            )
        if not g.is_connected(without=fk):
            raise IllegalDecisionError(
                f"moving the stack on {cell_json(d.from_)} would split the grounds", "SP2"
            )
        if tk == fk:
            raise IllegalDecisionError("the destination must differ from the source", "SP2")
        if tk in g.stacks:
            raise IllegalDecisionError(f"{cell_json(d.to)} is not empty", "SP2")
        if not any(tk + dd != fk and tk + dd in g.stacks for dd in NEIGHBOURS):
            raise IllegalDecisionError(
                f"{cell_json(d.to)} is not adjacent to a stack other than the one moved", "SP2"
            )
        made = sp2_move_makes_hole(g.stacks, fk, tk)
        if made:
            where = ", ".join(cell_json(cell(k)) for k in sorted(made, key=cell))
            raise IllegalDecisionError(
                f"moving the stack on {cell_json(d.from_)} to {cell_json(d.to)} would leave "
                f"a hole at {where}",
                "SP2",
            )

    def apply(self, d: object) -> None:
        """Apply a decision after checking it; an illegal one raises and changes nothing."""
        self._check(d)
        self.apply_unchecked(cast(Decision, d))

    def apply_unchecked(self, d: Decision) -> None:
        """Apply a decision known to be legal (one from :meth:`legal_decisions`)."""
        self.log.append(d)
        apply_to_grounds(self.grounds[d.seat], d)
        if type(d) is Place:
            t = d.take
            self.display.remove(t)
            if t.special is not None:
                self.phase = _FOLLOW_UP
                self.pending = t.special
                return
        # The turn ends.
        self.pending = None
        turn = self.turn + 1
        if turn < self.n:
            self.turn = turn
            self.phase = _PLACE
            return
        # G3: tiles left in the display leave the game.
        self.display.clear()
        if not self._bag:
            self.turn = turn
            self.phase = _OVER  # G4
        else:
            self.round += 1
            self.turn = 0
            self.phase = _DRAW

    # -- copies, results, views ----------------------------------------------------------

    def copy(self, with_rng: bool = True) -> GameState:
        """An independent copy (for search). ``with_rng=False`` leaves the copy without RNG."""
        rng = None
        if with_rng and self._rng is not None:
            rng = random.Random()
            rng.setstate(self._rng.getstate())
        args, kwargs = self._made_of(rng)
        return GameState(*args, **kwargs)

    def __reduce__(self) -> Reduced:
        # Pickled as its constructor's arguments, its RNG included (kerala.pickled says why).
        return _state_rebuilt, self._made_of(self._rng)

    def _made_of(self, rng: random.Random | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The constructor's arguments that make this state again, with ``rng``."""
        args = (self.colors, self.tileset, self.removal, self.to_remove)
        return args, dict(
            removed=self._removed,
            removal_known=self.removal_known,
            pool=self._pool,
            bag=self._bag,
            grounds=self.grounds,
            round=self.round,
            turn=self.turn,
            display=self.display,
            phase=self.phase,
            pending=self.pending,
            log=self.log,
            rng=rng,
        )

    def __copy__(self) -> GameState:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> GameState:
        return self.copy()

    def scores(self) -> list[ScoreBreakdown]:
        """SC1–SC6 for every seat, as the grounds stand now (final once the game is over)."""
        return [score_grounds(g) for g in self.grounds]

    def ranks(self) -> list[int]:
        """SC7: 1-based ranks with shared placings."""
        return rank([s.total for s in self.scores()])

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see (docs/rules.md I1, I2); ``None`` gives a watcher's public view."""
        if seat is not None and not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is not in this {self.n}-player game")
        # The bag count is public; under random removal it is only known once removal is done,
        # and then it is the bag's size. During removal the view shows the bag that will be.
        bag_count = self.bag_count
        grounds = []
        for g in self.grounds:
            stacks = tuple(sorted((cell(k), s) for k, s in g.stacks.items()))
            e0, e1 = (cell(k) for k in g.elephants)
            grounds.append(GroundsView(g.color, stacks, (e0, e1), g.passes))
        return PlayerView(
            seat=seat,
            colors=self.colors,
            tileset=self.tileset.name,
            tileset_counts=tuple(self.tileset.counts.items()),
            removal=self.removal,
            removed=tuple(self._removed) if self.removal == "chosen" else None,
            to_remove=self.to_remove,
            grounds=tuple(grounds),
            display=tuple(self.display),
            bag_count=bag_count,
            round=self.round,
            turn=self.turn,
            phase=PHASE_NAMES[self.phase],
            to_move=self.to_move,
            pending=self.pending,
            rounds=tuple((tuple(d), tuple(t)) for d, t in self.history()),
        )

    def __str__(self) -> str:
        """The public picture of the game (:class:`~kerala.playerview.PlayerView`'s drawing)."""
        return str(self.view(None))

    def __eq__(self, other: object) -> bool:
        """The game stands the same: setup, every grounds, display, phase, log, and the hidden
        tiles (the bag and removal pool as multisets: their order is only the RNG's business).
        The RNG itself is not compared."""
        if not isinstance(other, GameState):
            return NotImplemented
        return self._facts() == other._facts()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def _facts(self) -> tuple[object, ...]:
        return (
            self.colors,
            self.tileset,
            self.removal,
            self.to_remove,
            Counter(self._removed),
            self.removal_known,
            Counter(self._pool),
            Counter(self._bag),
            [(g.color, g.stacks, g.elephants, g.passes) for g in self.grounds],
            self.round,
            self.turn,
            self.display,
            self.phase,
            self.pending,
            self.log,
        )

    # -- replaying, undoing, reading decisions ---------------------------------------------

    def after(self, k: int) -> GameState:
        """This game replayed from its setup through its first ``k`` decisions and the draws
        that follow them: the state in which decision ``k + 1`` was chosen.

        The setup, the removal and how much of it is public are this state's (I2), so views
        of the result hide what views of this state hide. The result has no RNG.
        """
        return replay(
            self.colors,
            self.log,
            tileset=self.tileset,
            removal=self.removal,
            removed=self._removed,
            removal_known=self.removal_known,
            upto=k,
        )

    def replay_steps(self) -> Iterator[tuple[GameState, Decision]]:
        """This game again, decision by decision: each decision with the state it was chosen in.

        The state is one object (from :meth:`after`), advanced past each decision after it is
        yielded: copy it to keep it.
        """
        s = self.after(0)
        for e in self.log[len(s.log) :]:
            if isinstance(e, TileType):
                s.apply_draw(e)
            else:
                yield s, e
                s.apply(e)

    def undo(self) -> Decision:
        """Step back one decision, with the draws that followed it; return that decision.

        As python-chess's ``Board.pop``. The state is replayed from its setup (:meth:`after`),
        so it must have come from play, not from grounds put in by hand; drawn tiles go back
        into the bag, and the RNG is kept as it is. Raises :class:`IndexError` when no
        decision has been taken yet.
        """
        decisions = [e for e in self.log if not isinstance(e, TileType)]
        if not decisions:
            raise IndexError("no decision to undo: the game has none yet")
        back = self.after(len(decisions) - 1)
        for name in _STATE_FIELDS:
            if name != "_rng":
                setattr(self, name, getattr(back, name))
        return decisions[-1]

    @property
    def move_stack(self) -> list[Decision]:
        """The decisions taken so far, first to last (the draws between them left out), as
        python-chess's ``Board.move_stack``. A new list: changing it changes nothing."""
        return [e for e in self.log if not isinstance(e, TileType)]

    def peek(self) -> Decision:
        """The last decision taken, as python-chess's ``Board.peek``; :class:`IndexError` when
        there is none yet."""
        for e in reversed(self.log):
            if not isinstance(e, TileType):
                return e
        raise IndexError("no decision yet: the game has none to peek at")

    def outcome(self) -> Outcome | None:
        """The result once the game is over (SC1–SC7), ``None`` before: each seat's total and
        rank, and the winners (every seat ranked first; SC7 lets places be shared)."""
        if self.phase is not _OVER:
            return None
        totals = tuple(s.total for s in self.scores())
        ranks = tuple(rank(list(totals)))
        return Outcome(totals, ranks, tuple(i for i, r in enumerate(ranks) if r == 1))

    def redrawn(self, rng: random.Random) -> GameState:
        """A copy (without RNG) in which what no player has seen is drawn again: the tiles
        secretly removed at setup (S3, random removal) are chosen anew from the unseen tiles of
        colors nobody plays, the rest going back to the bag. What searches need to sample a
        world consistent with everything a seat knows (I2) when the removal is hidden from it;
        the bag's order is drawn by the chance nodes anyway. Before the removal, or with
        nothing removed, the copy is exact.
        """
        s = self.copy(with_rng=False)
        if self.phase != Phase.REMOVAL and s.to_remove:
            s._removed, s._bag = self.hidden_redrawn(rng)
        return s

    def hidden_redrawn(self, rng: random.Random) -> tuple[list[TileType], list[TileType]]:
        """The removed tiles and the bag of :meth:`redrawn`, without copying the state (for a
        search that needs only the bag); this state is unchanged."""
        played = set(self.colors)
        pool = list(self._removed)
        keep: list[TileType] = []
        for t in self._bag:
            (keep if t.color in played else pool).append(t)
        shuffle(rng, pool)
        k = self.to_remove
        keep.extend(pool[k:])
        return pool[:k], keep

    def use_rng(self, rng: random.Random | None) -> None:
        """Draw the chance nodes from now on with ``rng`` (``None``: only imposed draws)."""
        self._rng = rng

    def parse_decision(self, text: str) -> Decision:
        """The legal decision written ``text`` in the short text form (``str(decision)``).

        Raises :class:`~kerala.actions.DecisionSyntaxError` for text that is no decision and
        :class:`IllegalDecisionError` (naming the rule) for one that is not legal now.

        >>> s = new_game(["blue", "red"], seed=7); s.advance_chance()
        >>> s.parse_decision("pass")
        Pass(seat=0)
        """
        d = parse_decision(text, self._seat_to_decide())
        self._check(d)
        return d

    def drawn_rounds(self) -> list[list[TileType]]:
        """The tiles drawn in each round so far (public, I1)."""
        return [r[0] for r in self.history()]

    def history(self) -> list[tuple[list[TileType], list[Decision]]]:
        """Each round's drawn tiles and decisions, in play order (public, I1)."""
        rounds: list[tuple[list[TileType], list[Decision]]] = []
        prev_draw = False
        for ev in self.log:
            if isinstance(ev, TileType):
                if not prev_draw:
                    rounds.append(([], []))
                rounds[-1][0].append(ev)
                prev_draw = True
            else:
                rounds[-1][1].append(ev)
                prev_draw = False
        return rounds

    def __repr__(self) -> str:
        return (
            f"<GameState {self.n} players, round {self.round}, turn {self.turn}, "
            f"phase {self.phase.name}, bag {len(self._bag)}>"
        )


def _state_rebuilt(args: tuple[Any, ...], kwargs: dict[str, Any]) -> GameState:
    return GameState(*args, **kwargs)


def new_game(
    colors: Sequence[str],
    *,
    tileset: TileSet | None = None,
    removal: Removal = "random",
    removed: Sequence[TileType] | None = None,
    seed: int | None = None,
    rng: random.Random | None = None,
) -> GameState:
    """Set up a game (docs/rules.md S1–S4).

    ``colors`` are the seats' colors in seat order (seat 0 holds the bag first). With
    ``removal="random"`` the state starts at the removal chance nodes; with ``"chosen"``,
    ``removed`` names the tiles taken out and is validated (count and colors, S3).
    ``seed`` (or ``rng``) gives the state an RNG so that :meth:`GameState.advance_chance` can
    draw; the same seed replays the same game.
    """
    ts = tileset if tileset is not None else load_tileset("standard")
    cols = tuple(colors)
    n = len(cols)
    if n not in REMOVAL_COUNT:
        raise SetupError(f"S1: 2 to 5 players, got {n}")
    for c in cols:
        if c not in COLORS:
            raise SetupError(f"S1: unknown color {c!r}; colors are {', '.join(COLORS)}")
    if len(set(cols)) != n:
        raise SetupError("S1: every player needs a distinct color")
    k = REMOVAL_COUNT[n]
    player_colors = set(cols)
    all_tiles = ts.tiles()
    pool = [t for t in all_tiles if t.color not in player_colors]
    bag = [t for t in all_tiles if t.color in player_colors]
    if len(pool) < k:
        raise SetupError(
            f"S3: the tile set has only {len(pool)} tiles of unplayed colors, {k} must go"
        )
    if (len(all_tiles) - k) % n:
        raise SetupError(
            f"S4: {len(all_tiles) - k} tiles would go in the bag, not a multiple of {n} players"
        )
    if rng is None and seed is not None:
        rng = random.Random(seed)
    if removal == "random":
        if removed is not None:
            raise SetupError("S3: random removal takes no list of removed tiles")
        if k == 0:
            return GameState(cols, ts, removal, k, bag=bag + pool, rng=rng)
        return GameState(cols, ts, removal, k, pool=pool, bag=bag, phase=_REMOVAL, rng=rng)
    if removal != "chosen":
        raise SetupError(f"S3: removal must be 'random' or 'chosen', got {removal!r}")
    chosen = list(removed or [])
    if len(chosen) != k:
        raise SetupError(f"S3: {n} players remove exactly {k} tiles, {len(chosen)} were named")
    left = Counter(pool)
    for t in chosen:
        if t.color in player_colors:
            raise SetupError(f"S3: {t.name} is of a color a player plays")
        if left[t] <= 0:
            raise SetupError(f"S3: the tile set has no more {t.name} to remove")
        left[t] -= 1
    return GameState(cols, ts, removal, k, removed=chosen, bag=bag + list(left.elements()), rng=rng)


def replay(
    colors: Sequence[str],
    log: Iterable[TileType | Decision],
    *,
    tileset: TileSet | None = None,
    removal: Removal = "random",
    removed: Sequence[TileType] = (),
    removal_known: bool = True,
    upto: int | None = None,
) -> GameState:
    """A game set up with :func:`new_game`, then played through ``log``: its draws and decisions
    in order, stopping before decision number ``upto`` (0-based) when given.

    ``removed`` are the tiles taken out at setup: named under ``"chosen"`` removal, imposed on
    the removal's chance nodes under ``"random"`` (so the state stays a random-removal game,
    whose views hide them, I2). ``removal_known=False`` marks them as a stand-in (a record that
    keeps them secret). Every draw and decision is checked; the result has no RNG.
    """
    if upto is not None and upto < 0:
        raise ValueError(f"upto must be a number of decisions >= 0, got {upto}")
    chosen = removal == "chosen"
    s = new_game(colors, tileset=tileset, removal=removal, removed=removed if chosen else None)
    if not chosen:
        for t in removed:
            s.apply_draw(t)
    s.removal_known = removal_known
    done = 0
    for e in log:
        if isinstance(e, TileType):
            s.apply_draw(e)
            continue
        if done == upto:
            break
        s.apply(e)
        done += 1
    return s
