"""The one action encoding shared by the PettingZoo, OpenSpiel and Gymnasium environments,
and the ``full`` observation layout (the other layouts are in :mod:`kerala.envs.observations`).

Actions
=======

Every decision a player can face is one integer in ``range(ACTIONS.num_actions)``
(4368 with the standard tile set, the same for 2–5 players). The space has five blocks:

=================  =====================================  ==========================================
block              ids                                    meaning
=================  =====================================  ==========================================
pass               ``0``                                  G3: lay an elephant down
skip               ``1``                                  decline the SP1/SP2 follow-up
place              ``2 … 841``                            P1–P6: (tile type, elephant slot,
                                                          direction, arch edge)
move elephant      ``842 … 842+2M-1``                     SP1: (elephant slot, target cell index)
move stack         ``842+2M … 842+2M+M·F-1``              SP2: (source cell index,
                                                          destination frontier index)
=================  =====================================  ==========================================

with ``M`` = :attr:`ActionEncoding.max_cells` (41) and ``F = 2M + 2`` (84).

*Place.* The 45 game tile types in :data:`kerala.tiles.GAME_TILE_TYPES` order; for each, the
elephant slot (0 or 1: the position of the moving elephant in the grounds' elephant list, which
every view shows; when both elephants share the start tile only slot 0 is used), the direction
of the target cell from that elephant (``N E S W``) and, for the 20 arch types only, the arch
edge (``N E S W``). Non-arch types take 2·4 = 8 ids each, arch types 2·4·4 = 32: 25·8 + 20·32
= 840 ids.

*Follow-ups* name cells of the acting player's grounds by index. The *cell index* of a stack is
its position in the grounds' cells sorted by ``(x, y)``; the *frontier index* of an empty cell is
its position among the grounds' empty orthogonal neighbours, sorted by ``(x, y)``, both taken
before the follow-up is applied. SP1 uses (slot of the elephant that moves, cell index of the
target); SP2 (cell index of the source, frontier index of the destination).

*Why this is exact.* A grounds is always orthogonally connected (P1 places next to an
elephant standing on a stack; SP2 keeps it connected) and holds at most ``1 + T`` cells, T the
most turns one player has (``bag / players``: 40 for 2 players, fewer for more), so at most
``M = 41`` cells; a connected set of ``m`` cells has at most ``2m + 2`` empty neighbours (each
cell added next to the others removes one neighbour and adds at most three), so ``F = 84``
frontier slots suffice. Each legal decision maps to one id and each id decodes to at most one
decision: placements are relative to the elephant (no coordinates), follow-ups use ranks in
sets that the state determines. ``tests/envs/test_encoding.py`` replays many random games of
2–5 players and checks ``decode(encode(d)) == d`` and that the ids of the legal decisions are
distinct, for every legal decision of every state.

Observations (the ``full`` layout)
==================================

``observation="full"`` in every env; the default is ``compact``
(:mod:`kerala.envs.observations`). One flat ``float32`` vector of
:attr:`ActionEncoding.obs_size` values in ``[0, 1]``, built from the observer's
:class:`~kerala.views.PlayerView` only, so it cannot contain the bag order or randomly removed
tiles (docs/rules.md I1, I2). Players are listed *relative to the observer*:
slot 0 is the observer, then clockwise; slots of absent players (fewer than 5) are zero.
Named pieces, in order (:meth:`ActionEncoding.observation_pieces` gives each as a reshaped view):

- ``grounds`` ``(5, 25, G, G)``, ``G = M + 2 = 43``: for each player a frame whose cell
  ``[row, col]`` is grounds cell ``(min_x - 1 + col, min_y - 1 + row)`` (``min_*`` over that
  player's stacks), so every stack and every empty neighbour fits. Planes: 0–4 top tile color
  (``COLORS`` order), 5–11 top tile kind (``e1 e2 e3 arch move-elephant move-tile start``),
  12–16 color an arch on top asks for, 17–20 the edge it faces (``N E S W``), 21 stack height
  / M, 22 elephant slot 0, 23 elephant slot 1, 24 cell holds a stack.
- ``display`` ``(45,)``: tiles of each game tile type in the display / 5.
- ``unseen`` ``(45,)``: tiles of each type neither drawn yet nor publicly removed, divided by
  the tile set's count of that type (the bag plus the secret removed tiles, I1).
- ``players`` ``(5, 10)``: present, color one-hot (5), passes used / 2, bag owner this round,
  already acted this round, to move now.
- ``phase`` ``(3,)``: place, SP1 follow-up pending, SP2 follow-up pending.
- ``progress`` ``(2,)``: tiles left in the bag / 100, and 1 (a constant, so that no observation
  is all zeros).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> ACTIONS.num_actions, ACTIONS.max_cells, ACTIONS.obs_size
(4368, 41, 231270)
>>> legal = ACTIONS.legal_actions(s)
>>> all(ACTIONS.decode(s, a) == d for a, d in legal.items())
True
>>> ACTIONS.action_to_string(s, 0)
'pass'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt

from kerala.actions import Decision, FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.game import REMOVAL_COUNT, GameState, Phase
from kerala.grounds import NEIGHBOURS, Grounds, cell, key
from kerala.pickled import Reduced
from kerala.tiles import (
    COLORS,
    EDGE_DELTA,
    EDGES,
    GAME_TILE_TYPES,
    MOVE_ELEPHANT,
    MOVE_TILE,
    TileSet,
    TileType,
    load_tileset,
)
from kerala.views import PlayerView

ActionId = int
Cell = tuple[int, int]

#: The most players a game has; observations always have this many player slots.
MAX_PLAYERS: Final = 5
PASS_ACTION: Final = 0
SKIP_ACTION: Final = 1
PLACE_BASE: Final = 2
#: Index of every game tile type in the place block and in the ``display``/``unseen`` pieces.
TILE_POSITION: Final[dict[TileType, int]] = {t: i for i, t in enumerate(GAME_TILE_TYPES)}
_DIR_OF_DELTA: Final[dict[tuple[int, int], int]] = {EDGE_DELTA[e]: i for i, e in enumerate(EDGES)}
_EDGE_INDEX: Final[dict[str, int]] = {e: i for i, e in enumerate(EDGES)}
#: Kinds of the ``grounds`` planes 5–11.
KIND_PLANES: Final[tuple[str, ...]] = ("e1", "e2", "e3", "arch", MOVE_ELEPHANT, MOVE_TILE, "start")
GROUNDS_PLANES: Final = 25
PLAYER_FEATURES: Final = 10


def _place_offsets() -> tuple[dict[TileType, int], int]:
    offsets: dict[TileType, int] = {}
    at = PLACE_BASE
    for t in GAME_TILE_TYPES:
        offsets[t] = at
        at += 2 * 4 * (4 if t.is_arch else 1)
    return offsets, at


_PLACE_OFFSET, _PLACE_END = _place_offsets()


def max_cells_for(tileset: TileSet) -> int:
    """The most cells one player's grounds can reach with ``tileset``, any player count.

    One start tile plus one cell per turn (a placement adds at most one cell; SP2 adds none);
    a player has ``bag / players`` turns (docs/rules.md S3, S4, G2).
    """
    total = tileset.total()
    return 1 + max((total - k) // n for n, k in REMOVAL_COUNT.items())


class ActionEncoding:
    """The fixed-size action space and observation layout; see the module docstring."""

    def __init__(self, max_cells: int) -> None:
        if max_cells < 1:
            raise ValueError(f"max_cells must be >= 1, got {max_cells}")
        self.max_cells = max_cells
        self.frontier_slots = 2 * max_cells + 2
        self.sp1_base = _PLACE_END
        self.sp2_base = self.sp1_base + 2 * max_cells
        self.num_actions = self.sp2_base + max_cells * self.frontier_slots
        self.frame = max_cells + 2
        g = self.frame
        self.pieces: tuple[tuple[str, tuple[int, ...]], ...] = (
            ("grounds", (MAX_PLAYERS, GROUNDS_PLANES, g, g)),
            ("display", (len(GAME_TILE_TYPES),)),
            ("unseen", (len(GAME_TILE_TYPES),)),
            ("players", (MAX_PLAYERS, PLAYER_FEATURES)),
            ("phase", (3,)),
            ("progress", (2,)),
        )
        self._slices: list[tuple[str, int, int, tuple[int, ...]]] = []
        at = 0
        for name, shape in self.pieces:
            size = int(np.prod(shape))
            self._slices.append((name, at, at + size, shape))
            at += size
        self.obs_size = at

    def __reduce__(self) -> Reduced:
        # Rebuilt from its constructor's argument in both builds (kerala.pickled says why).
        return ActionEncoding, (self.max_cells,)

    # -- cells of a grounds ------------------------------------------------------------

    def _check_size(self, g: Grounds) -> None:
        if len(g.stacks) > self.max_cells:
            raise ValueError(
                f"grounds of {g.color} has {len(g.stacks)} cells, more than the encoding's "
                f"{self.max_cells}: build the encoding for this tile set (max_cells_for)"
            )

    @staticmethod
    def cell_order(g: Grounds) -> list[int]:
        """Keys of the grounds' stacks sorted by ``(x, y)``: position = cell index."""
        # Keys grow with x first, then y (grounds.key), so sorting keys sorts by (x, y).
        return sorted(g.stacks)

    @staticmethod
    def frontier_order(g: Grounds) -> list[int]:
        """Keys of the empty cells next to the grounds, sorted by ``(x, y)``: frontier index."""
        stacks = g.stacks
        return sorted({k + d for k in stacks for d in NEIGHBOURS if k + d not in stacks})

    # -- encode / decode ---------------------------------------------------------------

    def encode(self, state: GameState, d: Decision) -> ActionId:
        """The id of decision ``d`` of the player to move in ``state``."""
        seat = state.current_player
        if seat < 0 or d.seat != seat:
            raise ValueError(f"{d!r} is not a decision of the player to move (seat {seat})")
        g = state.grounds[seat]
        self._check_size(g)
        if type(d) is Pass:
            return PASS_ACTION
        if type(d) is FollowUpSkip:
            return SKIP_ACTION
        if type(d) is Place:
            return self._encode_place(g, d)
        if type(d) is MoveElephant:
            slot = self._slot(g, d.from_)
            return self.sp1_base + slot * self.max_cells + self.cell_order(g).index(key(d.to))
        if type(d) is MoveStack:
            src = self.cell_order(g).index(key(d.from_))
            dst = self.frontier_order(g).index(key(d.to))
            return self.sp2_base + src * self.frontier_slots + dst
        raise ValueError(f"not a decision: {d!r}")

    @staticmethod
    def _slot(g: Grounds, c: Cell) -> int:
        k = key(c)
        if g.elephants[0] == k:
            return 0
        if g.elephants[1] == k:
            return 1
        raise ValueError(f"no elephant of {g.color} stands on {c}")

    def _encode_place(self, g: Grounds, d: Place) -> ActionId:
        slot = self._slot(g, d.from_)
        direction = _DIR_OF_DELTA.get((d.to[0] - d.from_[0], d.to[1] - d.from_[1]))
        if direction is None:
            raise ValueError(f"{d.to} is not next to {d.from_}")
        t = d.take
        base = _PLACE_OFFSET[t] + (slot * 4 + direction) * (4 if t.is_arch else 1)
        if t.is_arch:
            if d.arch is None:
                raise ValueError(f"arch tile {t.name} placed without an edge")
            return base + _EDGE_INDEX[d.arch]
        return base

    def decode(self, state: GameState, a: int) -> Decision:
        """The decision with id ``a`` for the player to move (not checked for legality).

        Only canonical ids decode (``encode(state, decode(state, a)) == a``); for example slot 1
        while both elephants share the start tile raises :class:`ValueError`.
        """
        d = self._decode(state, int(a))
        if self.encode(state, d) != a:
            raise ValueError(f"action {a} is not the canonical id of {d.to_json()}")
        return d

    def _decode(self, state: GameState, a: int) -> Decision:
        seat = state.current_player
        if seat < 0:
            raise ValueError("no player is to move in this state")
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} is outside 0..{self.num_actions - 1}")
        g = state.grounds[seat]
        if a == PASS_ACTION:
            return Pass(seat)
        if a == SKIP_ACTION:
            return FollowUpSkip(seat)
        if a < self.sp1_base:
            return self._decode_place(seat, g, a)
        if a < self.sp2_base:
            slot, idx = divmod(a - self.sp1_base, self.max_cells)
            cells = self.cell_order(g)
            if idx >= len(cells):
                raise ValueError(f"action {a}: cell index {idx} but the grounds has {len(cells)}")
            return MoveElephant(seat=seat, from_=cell(g.elephants[slot]), to=cell(cells[idx]))
        src, dst = divmod(a - self.sp2_base, self.frontier_slots)
        cells = self.cell_order(g)
        frontier = self.frontier_order(g)
        if src >= len(cells) or dst >= len(frontier):
            raise ValueError(f"action {a}: no such source or destination on this grounds")
        return MoveStack(seat=seat, from_=cell(cells[src]), to=cell(frontier[dst]))

    def _decode_place(self, seat: int, g: Grounds, a: int) -> Place:
        t = _PLACE_TILE_OF[a]
        rest = a - _PLACE_OFFSET[t]
        if t.is_arch:
            rest, edge = divmod(rest, 4)
            arch: str | None = EDGES[edge]
        else:
            arch = None
        slot, direction = divmod(rest, 4)
        frm = cell(g.elephants[slot])
        dx, dy = EDGE_DELTA[EDGES[direction]]
        return Place(seat=seat, take=t, to=(frm[0] + dx, frm[1] + dy), from_=frm, arch=arch)

    def legal_actions(self, state: GameState) -> dict[ActionId, Decision]:
        """Every legal decision of the player to move, by id, ids ascending.

        Raises :class:`ValueError` if two decisions shared an id (the encoding's proof rules
        that out; the check makes a broken invariant loud instead of silent).
        """
        seat = state.current_player
        if seat < 0:
            return {}
        legal = state.legal_decisions()
        g = state.grounds[seat]
        self._check_size(g)
        out: dict[ActionId, Decision] = {}
        if state.phase == Phase.FOLLOW_UP:
            cells = {k: i for i, k in enumerate(self.cell_order(g))}
            frontier: dict[int, int] = {}
            if state.pending == MOVE_TILE:
                frontier = {k: i for i, k in enumerate(self.frontier_order(g))}
            els = g.elephants
            for d in legal:
                if type(d) is MoveElephant:
                    slot = 0 if els[0] == key(d.from_) else 1
                    a = self.sp1_base + slot * self.max_cells + cells[key(d.to)]
                elif type(d) is MoveStack:
                    a = (
                        self.sp2_base
                        + cells[key(d.from_)] * self.frontier_slots
                        + frontier[key(d.to)]
                    )
                else:
                    a = SKIP_ACTION
                out[a] = d
        else:
            # _encode_place inlined: every placement starts from one of two elephant cells.
            e0, e1 = g.elephants
            slot_of = {cell(e0): 0}
            slot_of.setdefault(cell(e1), 1)
            offset = _PLACE_OFFSET
            dir_of = _DIR_OF_DELTA
            edge_index = _EDGE_INDEX
            for d in legal:
                if type(d) is Place:
                    frm = d.from_
                    to = d.to
                    t = d.take
                    base = (slot_of[frm] << 2) + dir_of[(to[0] - frm[0], to[1] - frm[1])]
                    if t.is_arch:
                        assert d.arch is not None
                        out[offset[t] + (base << 2) + edge_index[d.arch]] = d
                    else:
                        out[offset[t] + base] = d
                else:
                    out[PASS_ACTION] = d
        if len(out) != len(legal):
            raise ValueError("two legal decisions share an action id: encoding bug")
        return dict(sorted(out.items()))

    def action_mask(self, legal: Mapping[ActionId, Decision]) -> npt.NDArray[np.int8]:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(legal)] = 1
        return mask

    def action_to_string(self, state: GameState, a: int) -> str:
        """A short text for action ``a`` of the player to move: its decision's ``str()``."""
        return str(self.decode(state, a))

    # -- observations ------------------------------------------------------------------

    def observation_pieces(
        self, vector: npt.NDArray[np.float32]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Named, reshaped views into a flat observation vector (the dict form)."""
        return {name: vector[a:b].reshape(shape) for name, a, b, shape in self._slices}

    def observation(self, view: PlayerView) -> npt.NDArray[np.float32]:
        """The observation of ``view.seat`` (see the module docstring)."""
        vec = np.zeros(self.obs_size, dtype=np.float32)
        self.fill_observation(view, vec, zeroed=True)
        return vec

    def fill_observation(
        self, view: PlayerView, vec: npt.NDArray[np.float32], zeroed: bool = False
    ) -> None:
        """Write the observation of ``view.seat`` into ``vec`` (zeroed first unless ``zeroed``)."""
        if view.seat is None:
            raise ValueError("observations are for a seat, not for a watcher")
        if not zeroed:
            vec.fill(0.0)
        p = self.observation_pieces(vec)
        n = view.n
        me = view.seat
        grounds_planes = p["grounds"]
        players = p["players"]
        to_move = view.to_move
        owner = view.round % n
        for slot in range(n):
            seat = (me + slot) % n
            gv = view.grounds[seat]
            if len(gv.stacks) > self.max_cells:
                raise ValueError(f"grounds of {gv.color} exceeds {self.max_cells} cells")
            self._fill_grounds(grounds_planes[slot], gv.stacks, gv.elephants)
            row = players[slot]
            row[0] = 1.0
            row[1 + COLORS.index(gv.color)] = 1.0
            row[6] = gv.passes / 2
            row[7] = 1.0 if seat == owner else 0.0
            # Seats act owner first, clockwise (G2): those before the current turn have acted.
            row[8] = 1.0 if (seat - owner) % n < view.turn else 0.0
            row[9] = 1.0 if seat == to_move else 0.0
        for t in view.display:
            p["display"][TILE_POSITION[t]] += 0.2
        counts = dict(view.tileset_counts)
        for t, c in view.unseen().items():
            total = counts.get(t, 0)
            if total:
                p["unseen"][TILE_POSITION[t]] = c / total
        phase = p["phase"]
        if view.phase == "place":
            phase[0] = 1.0
        elif view.phase == "follow_up":
            phase[1 if view.pending == MOVE_ELEPHANT else 2] = 1.0
        p["progress"][0] = min(view.bag_count / 100.0, 1.0)
        p["progress"][1] = 1.0

    def _fill_grounds(
        self,
        planes: npt.NDArray[np.float32],
        stacks: tuple[tuple[Cell, tuple[tuple[TileType, str | None], ...]], ...],
        elephants: tuple[Cell, Cell],
    ) -> None:
        min_x = min(c[0] for c, _ in stacks) - 1
        min_y = min(c[1] for c, _ in stacks) - 1
        height_scale = 1.0 / self.max_cells
        for (x, y), s in stacks:
            col, row = x - min_x, y - min_y
            top, edge = s[-1]
            planes[COLORS.index(top.color), row, col] = 1.0
            kind = "arch" if top.is_arch else top.kind
            planes[5 + KIND_PLANES.index(kind), row, col] = 1.0
            if top.arch_color is not None and edge is not None:
                planes[12 + COLORS.index(top.arch_color), row, col] = 1.0
                planes[17 + _EDGE_INDEX[edge], row, col] = 1.0
            planes[21, row, col] = len(s) * height_scale
            planes[24, row, col] = 1.0
        for slot, (x, y) in enumerate(elephants):
            planes[22 + slot, y - min_y, x - min_x] = 1.0

    def observation_dict(self, view: PlayerView) -> dict[str, npt.NDArray[np.float32]]:
        """The observation as named arrays (views into one fresh vector)."""
        return self.observation_pieces(self.observation(view))


def _place_tile_table() -> dict[int, TileType]:
    table: dict[int, TileType] = {}
    for t, off in _PLACE_OFFSET.items():
        for a in range(off, off + 2 * 4 * (4 if t.is_arch else 1)):
            table[a] = t
    return table


_PLACE_TILE_OF: Final = _place_tile_table()


def ranked_returns(totals: list[int]) -> list[float]:
    """Zero-sum rewards in ``[-1, 1]`` from final totals (SC7): for each player, (players with
    a lower total − players with a higher total) / (players − 1). Ties give equal rewards.

    >>> ranked_returns([37, 20, 37])
    [0.5, -1.0, 0.5]
    """
    n = len(totals)
    return [(sum(o < t for o in totals) - sum(o > t for o in totals)) / (n - 1) for t in totals]


def margin_returns(totals: list[int]) -> list[float]:
    """Score-margin rewards: each player's total minus the mean total of the others, in points
    (zero-sum: the margins of all players add up to 0; for 2 players, the plain difference).

    >>> margin_returns([37, 20, 37])
    [8.5, -17.0, 8.5]
    """
    n = len(totals)
    whole = sum(totals)
    return [t - (whole - t) / (n - 1) for t in totals]


#: The reward options of every environment: ``rank`` (default) and ``margin``.
REWARDS: Final = ("rank", "margin")


def final_returns(reward: str, totals: list[int]) -> list[float]:
    """The final rewards of reward option ``reward`` (:data:`REWARDS`) for final ``totals``."""
    if reward == "rank":
        return ranked_returns(totals)
    if reward == "margin":
        return margin_returns(totals)
    raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")


#: A bound on any score margin: a total lies in [-107, 207] (SC1 at most -2 per tile of 41
#: stacks, SC2 -25; at best an arch (+5) on each of 41 cells and 2 standing elephants), so a
#: margin lies strictly inside ``±MARGIN_BOUND``.
MARGIN_BOUND: Final = 320.0


def reward_bound(reward: str) -> float:
    """The bound ``b`` with every final reward of option ``reward`` in ``[-b, b]``: 1 for
    ``rank``, :data:`MARGIN_BOUND` for ``margin``.

    >>> reward_bound("rank"), reward_bound("margin")
    (1.0, 320.0)
    """
    return 1.0 if check_reward(reward) == "rank" else MARGIN_BOUND


class IllegalActionError(ValueError):
    """An action id that is not legal for the player on turn (the envs refuse it)."""


def check_reward(reward: object) -> str:
    """``reward`` if it names a reward option, else a :class:`ValueError` saying which exist."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return reward


#: The encoding every environment uses: the standard tile set, any player count (2–5).
ACTIONS: Final = ActionEncoding(max_cells_for(load_tileset("standard")))

__all__ = [
    "ACTIONS",
    "MARGIN_BOUND",
    "MAX_PLAYERS",
    "PASS_ACTION",
    "REWARDS",
    "SKIP_ACTION",
    "TILE_POSITION",
    "ActionEncoding",
    "ActionId",
    "IllegalActionError",
    "check_reward",
    "final_returns",
    "margin_returns",
    "max_cells_for",
    "ranked_returns",
    "reward_bound",
]
