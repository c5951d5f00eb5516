"""Observation layouts shared by the PettingZoo, OpenSpiel and Gymnasium environments.

Every layout is one flat ``float32`` vector with values in ``[0, 1]``, filled in place from the
public part of a :class:`~kerala.game.GameState` (RULES.md I1): never the bag order, never a
randomly removed tile (I2). :meth:`ObservationLayout.views` cuts a vector into named, reshaped
views (no copy), so a network reads, for example, the ``grounds`` planes as ``(n, 25, 16, 16)``.

Players are listed **relative to the observer**: slot 0 is the observer, then clockwise (seat
order). Only the seated players have slots, except in ``full``, which keeps 5.

==========  ================================================================  =================
layout      pieces (``n`` players, ``M`` = 41 cells, ``W`` = 16)                2 players
==========  ================================================================  =================
compact     ``grounds (n, 25, W, W)``, ``overflow (n, M, 27)``, ``players       15,127 values
            (n, 9)``, ``display (45,)``, ``unseen (45,)``, ``phase (3,)``,
            ``progress (2,)``
flat        ``stacks (n, M, 27)``, ``players``, ``display``, ``unseen``,          2,327 values
            ``phase``, ``progress``
graph       ``nodes (n, M, 27)``, ``adjacency (n, 4, M, M)``, ``players``,       15,775 values
            ``display``, ``unseen``, ``phase``, ``progress``
full        the layout of :mod:`kerala.envs.encoding` (5 player slots of          231,270 values
            25 × 43 × 43 planes)
==========  ================================================================  =================

**Cell features** (25, the planes of ``grounds`` and the last 25 columns of a stack row):
0–4 top tile color (``COLORS`` order), 5–11 top tile kind (``e1 e2 e3 arch move-elephant
move-tile start``), 12–16 the color an arch on top asks for, 17–20 the edge it faces
(``N E S W``), 21 stack height / M, 22 elephant slot 0 stands here, 23 elephant slot 1, 24 the
cell holds a stack.

**Frame.** Each grounds is drawn in its own frame: frame cell ``(col, row)`` is grounds cell
``(min_x - 1 + col, min_y - 1 + row)``, ``min_*`` over that player's stacks, so the west and
north empty neighbours are in the frame too. **Stack rows** (``overflow``, ``stacks``,
``nodes``) are ``[col / 43, row / 43, 25 cell features]`` in that frame; a row whose feature 24
is 0 is empty padding.

**compact** The window shows frame columns and rows ``0 … 15``: grounds up to 15 cells wide and
high, 14 with every empty neighbour. Every stack outside the window is a row of ``overflow``
(in cell-index order), so the observation is exact for every grounds, the line of 41 stacks
included. **flat** Every stack is a row, row ``i`` = the stack of cell index ``i`` of the
action encoding (cells sorted by ``(x, y)``). **graph** The ``flat`` rows as nodes and
``adjacency[p, d, i, j] = 1`` when stack ``j`` is the neighbour of stack ``i`` in direction
``d`` (``N E S W``): the dense, per-direction form that relational GNN layers take.

**planes** (OpenSpiel only, :class:`PlanesLayout`): the ``compact`` values as one
``(61 n + 95, W, W)`` tensor, non-spatial features broadcast as constant planes.

**players** (per slot): color one-hot (5), passes used / 2, bag owner this round, already acted
this round, to move now (``full`` puts a "present" flag first). **display**: tiles of each game
tile type in the display / 5. **unseen**: tiles of each type neither drawn yet nor publicly
removed / the tile set's count of that type. **phase**: place, SP1 follow-up pending, SP2
follow-up pending. **progress**: tiles in the bag / 100, and a constant 1.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> compact = observation_layout("compact", 2)
>>> compact.size, compact.views(compact.observation(s, 0))["grounds"].shape
(15127, (2, 25, 16, 16))
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kerala.envs.encoding import ACTIONS, KIND_PLANES, MAX_PLAYERS, TILE_POSITION
from kerala.game import GameState, Phase
from kerala.grounds import NEIGHBOURS, Grounds, Placed, cell
from kerala.pickled import Reduced, reduced
from kerala.tiles import COLORS, EDGES, GAME_TILE_TYPES, MOVE_ELEPHANT, TILE_TYPES, TileType

Array = npt.NDArray[np.float32]

#: The layouts every environment offers; ``compact`` is the default.
LAYOUTS: Final = ("compact", "flat", "graph", "full")
#: Side of the ``compact`` window, in cells (frame columns/rows 0 … 15).
WINDOW: Final = 16
#: Features of one cell (planes of a grounds frame).
CELL_FEATURES: Final = 25
#: Columns of a stack row: frame column / 43, frame row / 43, then the 25 cell features.
ROW_FEATURES: Final = 2 + CELL_FEATURES
#: Most stacks of a grounds (the action encoding's ``M``).
MAX_CELLS: Final = ACTIONS.max_cells
#: A frame is ``M + 2`` wide: coordinates of a stack row are divided by it.
FRAME: Final = ACTIONS.frame
HEIGHT: Final = 21
ELEPHANT_0: Final = 22
ELEPHANT_1: Final = 23
STACK: Final = 24
_TYPES: Final = len(GAME_TILE_TYPES)

_FEATURES: dict[Placed, tuple[int, ...]] = {}


def _features(placed: Placed) -> tuple[int, ...]:
    """The cell features set to 1 for a stack whose top is ``placed`` (height aside)."""
    f = _FEATURES.get(placed)
    if f is None:
        top, edge = placed
        kind = "arch" if top.is_arch else top.kind
        fs = [COLORS.index(top.color), 5 + KIND_PLANES.index(kind), STACK]
        if top.arch_color is not None and edge is not None:
            fs += [12 + COLORS.index(top.arch_color), 17 + EDGES.index(edge)]
        f = _FEATURES[placed] = tuple(fs)
    return f


@dataclass(frozen=True)
class StackSketch:
    """What an observation says about one stack: all that the rules and the scoring read."""

    top: TileType
    edge: str | None
    height: int

    def __reduce__(self) -> Reduced:
        return reduced(self)


@dataclass(frozen=True)
class GroundsSketch:
    """One player's grounds as read back from an observation, in its frame's coordinates."""

    stacks: dict[tuple[int, int], StackSketch]
    elephants: tuple[tuple[int, int], tuple[int, int]]

    def __reduce__(self) -> Reduced:
        return reduced(self)


class ObservationLayout:
    """One observation layout for ``num_players`` players; see the module docstring."""

    def __init__(self, name: str, num_players: int) -> None:
        if name not in LAYOUTS:
            raise ValueError(f"observation must be one of {', '.join(LAYOUTS)}, got {name!r}")
        if isinstance(num_players, bool) or not 2 <= int(num_players) <= MAX_PLAYERS:
            raise ValueError(f"num_players must be 2..5, got {num_players!r}")
        self.name = name
        n = self.num_players = int(num_players)
        m = MAX_CELLS
        slots = MAX_PLAYERS if name == "full" else n
        self.slots = slots
        self.window = FRAME if name == "full" else WINDOW
        w = self.window
        pieces: list[tuple[str, tuple[int, ...]]]
        tail: list[tuple[str, tuple[int, ...]]] = [
            ("display", (_TYPES,)),
            ("unseen", (_TYPES,)),
            ("phase", (3,)),
            ("progress", (2,)),
        ]
        if name == "full":
            pieces = [
                ("grounds", (slots, CELL_FEATURES, w, w)),
                ("display", (_TYPES,)),
                ("unseen", (_TYPES,)),
                ("players", (slots, 10)),
                ("phase", (3,)),
                ("progress", (2,)),
            ]
        elif name == "compact":
            pieces = [
                ("grounds", (n, CELL_FEATURES, w, w)),
                ("overflow", (n, m, ROW_FEATURES)),
                ("players", (n, 9)),
                *tail,
            ]
        elif name == "flat":
            pieces = [("stacks", (n, m, ROW_FEATURES)), ("players", (n, 9)), *tail]
        else:
            pieces = [
                ("nodes", (n, m, ROW_FEATURES)),
                ("adjacency", (n, 4, m, m)),
                ("players", (n, 9)),
                *tail,
            ]
        self.pieces: tuple[tuple[str, tuple[int, ...]], ...] = tuple(pieces)
        self.offsets: dict[str, int] = {}
        at = 0
        for piece, shape in pieces:
            self.offsets[piece] = at
            at += int(np.prod(shape))
        self.size = at
        self.shape = (at,)
        #: The piece that carries the grounds planes, if any (``compact``, ``full``).
        self.has_grid = name in ("compact", "full")
        self.rows_piece = {"compact": "overflow", "flat": "stacks", "graph": "nodes"}.get(name)
        self._cache: dict[int, tuple[Any, ...]] = {}

    def __repr__(self) -> str:
        return f"ObservationLayout({self.name!r}, {self.num_players})"

    def __reduce__(self) -> Reduced:
        # Rebuilt from its constructor's arguments in both builds (kerala.pickled says why).
        return ObservationLayout, (self.name, self.num_players)

    # -- views -------------------------------------------------------------------------

    def views(self, vector: Array) -> dict[str, Array]:
        """Named, reshaped views into ``vector`` (no copy)."""
        out = {}
        for piece, shape in self.pieces:
            at = self.offsets[piece]
            out[piece] = vector[at : at + int(np.prod(shape))].reshape(shape)
        return out

    # -- filling -----------------------------------------------------------------------

    def observation(self, state: GameState, seat: int) -> Array:
        """A new observation vector of ``seat``."""
        out = np.empty(self.size, dtype=np.float32)
        self.fill(state, seat, out)
        return out

    def fill(self, state: GameState, seat: int, out: Array) -> None:
        """Write the observation of ``seat`` into ``out`` (a float32 vector of ``size``)."""
        n = state.n
        if n != self.num_players:
            raise ValueError(f"layout for {self.num_players} players, game of {n}")
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not in this {n}-player game")
        out.fill(0.0)
        ones: list[int] = []
        at: list[int] = []
        values: list[float] = []
        full = self.name == "full"
        pf = 10 if full else 9
        players = self.offsets["players"]
        phase = state.phase
        to_move = state.current_player
        owner = state.round % n
        turn = state.turn
        for slot in range(n):
            p = (seat + slot) % n
            g = state.grounds[p]
            self._grounds(slot, g, ones, at, values)
            row = players + slot * pf
            if full:
                ones.append(row)
                row += 1
            ones.append(row + COLORS.index(g.color))
            at.append(row + 5)
            values.append(g.passes / 2)
            if p == owner:
                ones.append(row + 6)
            # Seats act owner first, clockwise (G2): those before the current turn have acted.
            if (p - owner) % n < turn:
                ones.append(row + 7)
            if p == to_move:
                ones.append(row + 8)
        display = self.offsets["display"]
        shown: dict[int, float] = {}
        for t in state.display:
            i = display + TILE_POSITION[t]
            shown[i] = shown.get(i, 0.0) + 0.2
        at.extend(shown)
        values.extend(shown.values())
        ph = self.offsets["phase"]
        if phase == Phase.PLACE:
            ones.append(ph)
        elif phase == Phase.FOLLOW_UP:
            ones.append(ph + (1 if state.pending == MOVE_ELEPHANT else 2))
        progress = self.offsets["progress"]
        bag_count = state.bag_count
        at.append(progress)
        values.append(min(bag_count / 100.0, 1.0))
        ones.append(progress + 1)
        out[ones] = 1.0
        out[at] = values  # every index once (elephant slots, above, may repeat a 1)
        u = self.offsets["unseen"]
        out[u : u + _TYPES] = _unseen_fraction(state)

    def _grounds(
        self, slot: int, g: Grounds, ones: list[int], at: list[int], values: list[float]
    ) -> None:
        """Add the grounds part of player slot ``slot`` to the index lists of :meth:`fill`."""
        stacks = g.stacks
        keys = tuple(stacks)
        vals = tuple(stacks.values())
        els = tuple(g.elephants)
        cached = self._cache.get(id(g))
        # The entry holds the grounds' whole content and is used only when it is equal, so a
        # changed grounds (or a new object that reuses an id) is never read from the cache.
        if cached is None or cached[0] != keys or cached[1] != vals or cached[2] != els:
            if len(self._cache) > 256:
                self._cache.clear()
            cached = self._cache[id(g)] = (keys, vals, els, self._grounds_indices(g))
        for piece, per_slot, rel_ones, rel_at, rel_values in cached[3]:
            base = self.offsets[piece] + slot * per_slot
            ones.extend([base + i for i in rel_ones])
            at.extend([base + i for i in rel_at])
            values.extend(rel_values)

    def _grounds_indices(
        self, g: Grounds
    ) -> list[tuple[str, int, list[int], list[int], list[float]]]:
        """Per piece: (piece, size of one slot, indices set to 1, indices set to values, values),
        indices relative to the start of the slot."""
        stacks = g.stacks
        keys = sorted(stacks)  # (x, y) order: the action encoding's cell index
        if len(keys) > MAX_CELLS:
            raise ValueError(f"grounds of {g.color} exceeds {MAX_CELLS} cells")
        cells = [cell(k) for k in keys]
        min_x = cells[0][0] - 1
        min_y = min(c[1] for c in cells) - 1
        e0, e1 = g.elephants
        inv_m = 1.0 / MAX_CELLS
        inv_f = 1.0 / FRAME
        w = self.window
        ww = w * w
        g_ones: list[int] = []
        g_at: list[int] = []
        g_values: list[float] = []
        r_ones: list[int] = []
        r_at: list[int] = []
        r_values: list[float] = []
        a_ones: list[int] = []
        used = 0
        index = {k: i for i, k in enumerate(keys)} if self.name == "graph" else None
        for i, k in enumerate(keys):
            x, y = cells[i]
            col = x - min_x
            row = y - min_y
            s = stacks[k]
            feats = _features(s[-1])
            h = len(s) * inv_m
            if self.has_grid and col < w and row < w:
                base = row * w + col
                g_ones.extend([base + f * ww for f in feats])
                g_at.append(base + HEIGHT * ww)
                g_values.append(h)
                if k == e0:
                    g_ones.append(base + ELEPHANT_0 * ww)
                if k == e1:
                    g_ones.append(base + ELEPHANT_1 * ww)
                continue
            rb = used * ROW_FEATURES
            used += 1
            r_ones.extend([rb + 2 + f for f in feats])
            r_at.extend((rb, rb + 1, rb + 2 + HEIGHT))
            r_values.extend((col * inv_f, row * inv_f, h))
            if k == e0:
                r_ones.append(rb + 2 + ELEPHANT_0)
            if k == e1:
                r_ones.append(rb + 2 + ELEPHANT_1)
            if index is not None:
                for d, dk in enumerate(NEIGHBOURS):
                    j = index.get(k + dk)
                    if j is not None:
                        a_ones.append((d * MAX_CELLS + i) * MAX_CELLS + j)
        out = []
        if self.has_grid:
            out.append(("grounds", CELL_FEATURES * ww, g_ones, g_at, g_values))
        if self.rows_piece is not None:
            out.append((self.rows_piece, MAX_CELLS * ROW_FEATURES, r_ones, r_at, r_values))
        if index is not None:
            out.append(("adjacency", 4 * MAX_CELLS * MAX_CELLS, a_ones, [], []))
        return out

    # -- reading back ------------------------------------------------------------------

    def grounds_from(self, vector: Array) -> list[GroundsSketch]:
        """Each player slot's grounds read back from an observation (slot 0 = observer).

        Stacks are keyed by frame cell ``(col, row)``. This is the exactness check of a layout:
        it recovers every stack's top tile, arch edge and height and both elephants, which is
        everything the rules (P1–P6, SP1, SP2) and the scoring (SC1–SC5) read of a grounds.
        """
        v = self.views(vector)
        out = []
        for slot in range(self.num_players):
            found: list[tuple[tuple[int, int], npt.NDArray[np.float32]]] = []
            if self.has_grid:
                planes = v["grounds"][slot]
                for row, col in np.argwhere(planes[STACK] > 0.5):
                    found.append(((int(col), int(row)), planes[:, row, col]))
            if self.rows_piece is not None:
                for r in v[self.rows_piece][slot]:
                    if r[2 + STACK] > 0.5:
                        c = (round(float(r[0]) * FRAME), round(float(r[1]) * FRAME))
                        found.append((c, r[2:]))
            stacks: dict[tuple[int, int], StackSketch] = {}
            elephants: list[tuple[int, int] | None] = [None, None]
            for c, f in found:
                if c in stacks:
                    raise ValueError(f"slot {slot}: cell {c} appears twice")
                stacks[c] = _sketch(f)
                for e in (0, 1):
                    if f[ELEPHANT_0 + e] > 0.5:
                        elephants[e] = c
            e0, e1 = elephants
            if e0 is None or e1 is None:
                raise ValueError(f"slot {slot}: an elephant is missing from the observation")
            out.append(GroundsSketch(stacks, (e0, e1)))
        return out


def _sketch(f: npt.NDArray[np.float32]) -> StackSketch:
    def one(lo: int, hi: int) -> int:
        hits = np.flatnonzero(f[lo:hi] > 0.5)
        if len(hits) != 1:
            raise ValueError(f"features {lo}..{hi - 1} are not one-hot: {f[lo:hi].tolist()}")
        return int(hits[0])

    color = COLORS[one(0, 5)]
    kind = KIND_PLANES[one(5, 12)]
    edge = None
    if kind == "arch":
        kind = "arch-" + COLORS[one(12, 17)]
        edge = EDGES[one(17, 21)]
    return StackSketch(TILE_TYPES[f"{color}:{kind}"], edge, round(float(f[HEIGHT]) * MAX_CELLS))


class PlanesLayout:
    """The ``planes`` layout: the ``compact`` observation as one ``(C, W, W)`` tensor.

    OpenSpiel reports a tensor's true dimensions only for an observer with a single piece
    (chess: ``[20, 8, 8]``), so this layout puts every piece of ``compact`` into ``W × W``
    planes, AlphaZero style. Channels, for ``n`` seated players (slot 0 = the observer):

    - ``0 … 25n-1``: plane ``25 s + f`` is cell feature ``f`` of slot ``s``'s window (the
      ``compact`` grounds planes);
    - ``25n … 52n-1``: plane ``25n + 27 s + j`` is column ``j`` of slot ``s``'s overflow stack
      rows: overflow row ``i`` lies at ``(i // W, i % W)``, positions ``M …`` are 0;
    - ``52n …``: the ``n × 9`` player features, then display (45), unseen (45), phase (3) and
      progress (2), each broadcast as a constant plane.

    ``C = 61 n + 95`` (217 for 2 players: 55,552 values). Exact, as ``compact`` is: every
    stack outside the window is an overflow row. Built from a ``compact`` vector, so both
    always agree; :meth:`to_compact` reads one back.
    """

    name: Final = "planes"

    def __init__(self, num_players: int) -> None:
        self.compact = observation_layout("compact", num_players)
        n = self.num_players = self.compact.num_players
        self.window = WINDOW
        self.grounds_planes = n * CELL_FEATURES
        self.overflow_planes = n * ROW_FEATURES
        self.features_at = self.compact.offsets["players"]
        self.feature_planes = self.compact.size - self.features_at
        self.channels = self.grounds_planes + self.overflow_planes + self.feature_planes
        self.pieces: tuple[tuple[str, tuple[int, ...]], ...] = (
            ("planes", (self.channels, WINDOW, WINDOW)),
        )
        self.size = self.channels * WINDOW * WINDOW
        self.shape = (self.size,)
        self._scratch = np.zeros(self.compact.size, dtype=np.float32)

    def __repr__(self) -> str:
        return f"PlanesLayout({self.num_players})"

    def __reduce__(self) -> Reduced:
        return PlanesLayout, (self.num_players,)

    def views(self, vector: Array) -> dict[str, Array]:
        """The one piece, ``planes``, as a ``(C, W, W)`` view of ``vector`` (no copy)."""
        return {"planes": vector.reshape(self.channels, WINDOW, WINDOW)}

    def observation(self, state: GameState, seat: int) -> Array:
        """A new observation vector of ``seat``."""
        out = np.empty(self.size, dtype=np.float32)
        self.fill(state, seat, out)
        return out

    def fill(self, state: GameState, seat: int, out: Array) -> None:
        """Write the observation of ``seat`` into ``out`` (a float32 vector of ``size``)."""
        self.compact.fill(state, seat, self._scratch)
        self.from_compact(self._scratch, out)

    def from_compact(self, vector: Array, out: Array) -> None:
        """Lay a ``compact`` vector out as planes, into ``out``."""
        v = self.compact.views(vector)
        n = self.num_players
        ww = WINDOW * WINDOW
        planes = out.reshape(self.channels, ww)
        g = self.grounds_planes
        o = g + self.overflow_planes
        planes[:g] = v["grounds"].reshape(g, ww)
        rows = planes[g:o].reshape(n, ROW_FEATURES, ww)
        rows[:, :, :MAX_CELLS] = v["overflow"].transpose(0, 2, 1)
        rows[:, :, MAX_CELLS:] = 0.0
        planes[o:] = vector[self.features_at :, None]

    def to_compact(self, vector: Array) -> Array:
        """The ``compact`` vector a planes vector was laid out from.

        Raises :class:`ValueError` if a feature plane is not constant or an overflow plane
        has values past row ``M``: such a tensor is no ``planes`` observation.
        """
        n = self.num_players
        ww = WINDOW * WINDOW
        planes = vector.reshape(self.channels, ww)
        g = self.grounds_planes
        o = g + self.overflow_planes
        rows = planes[g:o].reshape(n, ROW_FEATURES, ww)
        if rows[:, :, MAX_CELLS:].any():
            raise ValueError("planes: an overflow plane has values past its 41 rows")
        feats = planes[o:]
        if not np.array_equal(feats, np.broadcast_to(feats[:, :1], feats.shape)):
            raise ValueError("planes: a feature plane is not constant")
        out = np.empty(self.compact.size, dtype=np.float32)
        v = self.compact.views(out)
        v["grounds"][...] = planes[:g].reshape(v["grounds"].shape)
        v["overflow"][...] = rows[:, :, :MAX_CELLS].transpose(0, 2, 1)
        out[self.features_at :] = feats[:, 0]
        return out

    def grounds_from(self, vector: Array) -> list[GroundsSketch]:
        """Each player slot's grounds read back from a planes observation (see
        :meth:`ObservationLayout.grounds_from`)."""
        return self.compact.grounds_from(self.to_compact(vector))


_PLANES_CACHE: dict[int, PlanesLayout] = {}


def planes_layout(num_players: int) -> PlanesLayout:
    """The ``planes`` layout for ``num_players`` players (shared instances; OpenSpiel only)."""
    layout = _PLANES_CACHE.get(int(num_players))
    if layout is None:
        layout = _PLANES_CACHE[int(num_players)] = PlanesLayout(num_players)
    return layout


_TOTALS: dict[int, tuple[object, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = {}


def _unseen_fraction(state: GameState) -> npt.NDArray[np.float32]:
    """Per game tile type: (count in the tile set − drawn − publicly removed) / count (I1)."""
    ts = state.tileset
    cached = _TOTALS.get(id(ts))
    if cached is None or cached[0] is not ts:
        totals = np.array([ts.counts.get(t, 0) for t in GAME_TILE_TYPES], dtype=np.float64)
        cached = _TOTALS[id(ts)] = (ts, totals, np.maximum(totals, 1.0))
    _, totals, divisor = cached
    counts = _drawn_counts(state.log)
    if state.removal == "chosen" and state.removed:
        counts = counts + np.bincount(
            [TILE_POSITION[t] for t in state.removed], minlength=_TYPES
        ).astype(np.float64)
    return np.asarray((totals - counts) / divisor, dtype=np.float32)


#: id(log) -> (the log, its length then, its last event, drawn counts up to there).
_DRAWN: dict[int, tuple[list[Any], int, object, npt.NDArray[np.float64]]] = {}


def _drawn_counts(log: list[Any]) -> npt.NDArray[np.float64]:
    """Tiles drawn per game tile type in a game log (display draws; public, I1).

    A game's log only grows, so the counts of a log seen before are extended with its new
    events; an entry is used only for the same list whose event at the cached length is the
    same object, else the log is counted anew.
    """
    n = len(log)
    entry = _DRAWN.get(id(log))
    start = 0
    counts: npt.NDArray[np.float64] | None = None
    if (
        entry is not None
        and entry[0] is log
        and entry[1] <= n
        and (entry[1] == 0 or log[entry[1] - 1] is entry[2])
    ):
        start = entry[1]
        counts = entry[3]
    if counts is None:
        counts = np.zeros(_TYPES, dtype=np.float64)
    if start < n:
        new = [TILE_POSITION[ev] for ev in log[start:] if type(ev) is TileType]
        if new:
            counts = counts + np.bincount(new, minlength=_TYPES)
    if len(_DRAWN) > 256:
        _DRAWN.clear()
    _DRAWN[id(log)] = (log, n, log[n - 1] if n else None, counts)
    return counts


_LAYOUT_CACHE: dict[tuple[str, int], ObservationLayout] = {}


def observation_layout(name: str, num_players: int) -> ObservationLayout:
    """The layout ``name`` for ``num_players`` players (shared instances)."""
    k = (name, int(num_players))
    layout = _LAYOUT_CACHE.get(k)
    if layout is None:
        layout = _LAYOUT_CACHE[k] = ObservationLayout(name, num_players)
    return layout


def iter_layouts(num_players: int) -> Iterator[ObservationLayout]:
    for name in LAYOUTS:
        yield observation_layout(name, num_players)


__all__ = [
    "CELL_FEATURES",
    "LAYOUTS",
    "MAX_CELLS",
    "ROW_FEATURES",
    "WINDOW",
    "GroundsSketch",
    "ObservationLayout",
    "PlanesLayout",
    "StackSketch",
    "iter_layouts",
    "observation_layout",
    "planes_layout",
]
