"""What one player may see (RULES.md I1) and nothing they may not (I2).

A :class:`PlayerView` holds every public fact: all grounds (stacks, arch edges, elephants,
passes), the display, the bag count, the tiles drawn so far, every decision taken, the tile set
and, only under ``chosen`` removal, the removed tiles. It never holds the bag's content or
order, the randomly removed tiles, an RNG or a seed.

:func:`sample_state` turns a view back into a full :class:`~kerala.game.GameState` by drawing
the hidden tiles at random, consistently with everything the view shows: what a search bot
(information-set MCTS) needs.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=3); s.advance_chance()
>>> v = s.view(0)
>>> v.bag_count, v.seat, sorted(v.to_json())[:4]
(78, 0, ['bag_count', 'colors', 'decisions', 'display'])
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kerala.actions import Decision, decision_from_json
from kerala.grounds import Grounds, Stack, cell, key
from kerala.tiles import TILE_TYPES, TileType

if TYPE_CHECKING:
    from kerala.game import GameState

Cell = tuple[int, int]


@dataclass(frozen=True)
class GroundsView:
    """One player's grounds as anyone may see them."""

    color: str
    stacks: tuple[tuple[Cell, Stack], ...]
    elephants: tuple[Cell, Cell]
    passes: int

    def to_grounds(self) -> Grounds:
        return Grounds.from_cells(self.color, self.stacks, self.elephants, self.passes)

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "passes": self.passes,
            "elephants": [list(c) for c in self.elephants],
            "stacks": [
                {"at": list(c), "tiles": [t.name + (f"@{e}" if e else "") for t, e in s]}
                for c, s in self.stacks
            ],
        }


@dataclass(frozen=True)
class PlayerView:
    """The public state plus the viewer's seat (``None`` for a watcher)."""

    seat: int | None
    colors: tuple[str, ...]
    tileset: str
    tileset_counts: tuple[tuple[TileType, int], ...]
    removal: str
    removed: tuple[TileType, ...] | None
    to_remove: int
    grounds: tuple[GroundsView, ...]
    display: tuple[TileType, ...]
    bag_count: int
    round: int
    turn: int
    phase: str
    to_move: int | None
    pending: str | None
    rounds: tuple[tuple[tuple[TileType, ...], tuple[Decision, ...]], ...]

    @property
    def n(self) -> int:
        return len(self.colors)

    def drawn(self) -> Counter[TileType]:
        """Every tile drawn from the bag so far, by type."""
        c: Counter[TileType] = Counter()
        for drawn, _ in self.rounds:
            c.update(drawn)
        return c

    def unseen(self) -> Counter[TileType]:
        """Tiles not yet seen by anyone: the bag plus any tiles removed at random."""
        c = Counter(dict(self.tileset_counts))
        c.subtract(self.drawn())
        if self.removed is not None:
            c.subtract(self.removed)
        return +c

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "colors": list(self.colors),
            "tileset": self.tileset,
            "removal": self.removal,
            "removed": [t.name for t in self.removed] if self.removed is not None else None,
            "grounds": [g.to_json() for g in self.grounds],
            "display": [t.name for t in self.display],
            "bag_count": self.bag_count,
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase,
            "to_move": self.to_move,
            "pending": self.pending,
            "decisions": [
                {"drawn": [t.name for t in drawn], "turns": [d.to_json() for d in decs]}
                for drawn, decs in self.rounds
            ],
        }


def _grounds_view(g: Grounds) -> GroundsView:
    stacks = tuple(sorted(((cell(k), s) for k, s in g.stacks.items()), key=lambda p: p[0]))
    e0, e1 = (cell(k) for k in g.elephants)
    return GroundsView(g.color, stacks, (e0, e1), g.passes)


def player_view(state: GameState, seat: int | None) -> PlayerView:
    """The view of ``seat`` (or a watcher's, ``None``) of ``state``."""
    if seat is not None and not 0 <= seat < state.n:
        raise ValueError(f"seat {seat} is not in this {state.n}-player game")
    # The bag count is public; under random removal it is only known once removal is done,
    # and then it is the bag's size. During removal the view shows the bag that will be.
    bag_count = len(state.bag) + len(state.pool) - (state.to_remove - len(state.removed))
    return PlayerView(
        seat=seat,
        colors=state.colors,
        tileset=state.tileset.name,
        tileset_counts=tuple(state.tileset.counts.items()),
        removal=state.removal,
        removed=tuple(state.removed) if state.removal == "chosen" else None,
        to_remove=state.to_remove,
        grounds=tuple(_grounds_view(g) for g in state.grounds),
        display=tuple(state.display),
        bag_count=bag_count,
        round=state.round,
        turn=state.turn,
        phase=state.phase.name.lower(),
        to_move=state.to_move,
        pending=state.pending,
        rounds=tuple((tuple(d), tuple(t)) for d, t in state.history()),
    )


def sample_state(view: PlayerView, rng: random.Random) -> GameState:
    """A full game state consistent with ``view``, its hidden tiles drawn at random.

    Under random removal the removed tiles are drawn from the unseen tiles of colors no
    player plays; the rest of the unseen tiles form the bag. The result carries no RNG.
    """
    from kerala.game import GameState, Phase
    from kerala.tiles import load_tileset

    unseen = sorted(view.unseen().elements(), key=lambda t: t.index)
    ts = load_tileset(view.tileset) if view.tileset == "standard" else None
    s = GameState.__new__(GameState)
    if ts is None or dict(ts.counts) != dict(view.tileset_counts):
        from kerala.tiles import TileSet

        ts = TileSet(view.tileset, dict(view.tileset_counts))
    s.tileset = ts
    s.colors = view.colors
    s.n = view.n
    s.removal = view.removal
    s.to_remove = view.to_remove
    s.rng = None
    player_colors = set(view.colors)
    phase = Phase[view.phase.upper()]
    if view.removed is not None:
        s.removed = list(view.removed)
        s.removal_known = True
        s.pool = []
        s.bag = unseen
    else:
        candidates = [t for t in unseen if t.color not in player_colors]
        rng.shuffle(candidates)
        if phase == Phase.REMOVAL:
            s.removed = []
            s.pool = candidates
            s.bag = [t for t in unseen if t.color in player_colors]
        else:
            s.removed = candidates[: view.to_remove]
            rest = Counter(unseen)
            rest.subtract(s.removed)
            s.bag = list((+rest).elements())
            s.pool = []
        s.removal_known = False
    rng.shuffle(s.bag)
    s.grounds = [g.to_grounds() for g in view.grounds]
    s.round = view.round
    s.turn = view.turn
    s.display = list(view.display)
    s.phase = phase
    s.pending = view.pending
    log: list[TileType | Decision] = []
    for drawn, decs in view.rounds:
        log.extend(drawn)
        log.extend(decs)
    s.log = log
    return s


def view_from_json(doc: dict[str, Any]) -> dict[str, Any]:
    """Parse the tile names and decisions of a view's JSON (for clients and tests)."""
    out = dict(doc)
    out["display"] = [TILE_TYPES[n] for n in doc["display"]]
    out["decisions"] = [
        {
            "drawn": [TILE_TYPES[n] for n in r["drawn"]],
            "turns": [decision_from_json(t) for t in r["turns"]],
        }
        for r in doc["decisions"]
    ]
    return out


__all__ = ["GroundsView", "PlayerView", "key", "player_view", "sample_state", "view_from_json"]
