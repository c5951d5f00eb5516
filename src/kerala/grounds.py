"""One player's festival grounds: stacks of tiles on cells, two elephants, passes used.

Cells are ``(x, y)`` pairs in the public interface (RULES.md P6: x grows east, y grows south).
Inside the engine a cell is one ``int`` *key* so that neighbours are one addition away and
dictionaries hash small ints; :func:`key` and :func:`cell` convert.

>>> g = Grounds.start("blue")
>>> g.cells()
[(0, 0)]
>>> g.top((0, 0))
tile('blue:start')
>>> g.elephant_cells()
[(0, 0), (0, 0)]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from kerala.tiles import EDGE_DELTA, START_TILES, Color, Edge, TileType

Cell = tuple[int, int]
CellKey = int
#: A tile lying on the grounds: its type and, for an arch, the edge its arch faces.
Placed = tuple[TileType, Edge | None]
Stack = tuple[Placed, ...]

#: Key arithmetic: ``key((x, y)) == (x + OFFSET) * STRIDE + y + OFFSET``; east is ``+STRIDE``.
OFFSET: Final = 1 << 11
STRIDE: Final = 1 << 12
_OFFSET: Final = OFFSET
_STRIDE: Final = STRIDE
#: Neighbour offsets of a cell key, in the order N, E, S, W.
NEIGHBOURS: Final[tuple[int, int, int, int]] = (-1, _STRIDE, 1, -_STRIDE)
EDGE_KEY_DELTA: Final[dict[Edge, int]] = {
    e: dx * _STRIDE + dy for e, (dx, dy) in EDGE_DELTA.items()
}
#: Bound on |x| and |y|: a grounds holds at most 101 cells, so it can never get near this.
LIMIT: Final = _OFFSET - 1


def key(c: Cell) -> CellKey:
    """The internal key of cell ``c``."""
    return (c[0] + _OFFSET) * _STRIDE + c[1] + _OFFSET


_CELL_CACHE: dict[CellKey, Cell] = {}


def cell(k: CellKey) -> Cell:
    """The ``(x, y)`` cell of key ``k``."""
    c = _CELL_CACHE.get(k)
    if c is None:
        c = (k // _STRIDE - _OFFSET, k % _STRIDE - _OFFSET)
        _CELL_CACHE[k] = c
    return c


#: Above this many stacks, :meth:`Grounds.articulation_points` does not recurse.
_RECURSIVE_UP_TO: Final = 400


def _low_link(
    stacks: dict[CellKey, Stack], disc: dict[CellKey, int], cut: set[CellKey], k: int, parent: int
) -> int:
    """Tarjan's depth-first step below the root: number ``k``, return its low link."""
    d = disc[k] = len(disc)
    low = d
    for n in (k - 1, k + _STRIDE, k + 1, k - _STRIDE):
        if n in stacks and n != parent:
            dn = disc.get(n)
            if dn is None:
                sub = _low_link(stacks, disc, cut, n, k)
                if sub < low:
                    low = sub
                elif sub >= d:
                    cut.add(k)
            elif dn < low:
                low = dn
    return low


class Grounds:
    """Mutable festival grounds of one player; the game state owns one per seat."""

    __slots__ = ("color", "elephants", "passes", "stacks")

    def __init__(
        self,
        color: Color,
        stacks: dict[CellKey, Stack],
        elephants: list[CellKey],
        passes: int = 0,
    ) -> None:
        self.color = color
        self.stacks = stacks
        self.elephants = elephants
        self.passes = passes

    @classmethod
    def start(cls, color: Color) -> Grounds:
        """RULES.md S2: the start tile at (0, 0) with both elephants on it."""
        k = key((0, 0))
        return cls(color, {k: ((START_TILES[color], None),)}, [k, k], 0)

    @classmethod
    def from_cells(
        cls,
        color: Color,
        stacks: Iterable[tuple[Cell, Iterable[Placed]]],
        elephants: Iterable[Cell] = (),
        passes: int = 0,
    ) -> Grounds:
        return cls(
            color,
            {key(c): tuple(s) for c, s in stacks},
            [key(c) for c in elephants],
            passes,
        )

    def copy(self) -> Grounds:
        # Stacks are tuples, so a shallow copy of the dict is a full copy.
        return Grounds(self.color, dict(self.stacks), list(self.elephants), self.passes)

    # -- queries in public coordinates -------------------------------------------------

    def cells(self) -> list[Cell]:
        """Every cell holding a stack, sorted by (x, y)."""
        return sorted(cell(k) for k in self.stacks)

    def stack(self, c: Cell) -> Stack:
        return self.stacks.get(key(c), ())

    def top(self, c: Cell) -> TileType | None:
        s = self.stacks.get(key(c))
        return s[-1][0] if s else None

    def elephant_cells(self) -> list[Cell]:
        return [cell(k) for k in self.elephants]

    @property
    def standing(self) -> int:
        """Elephants still standing: 2 minus passes used (G3, SC3)."""
        return 2 - self.passes

    def tile_count(self) -> int:
        return sum(len(s) for s in self.stacks.values())

    # -- structure ---------------------------------------------------------------------

    def is_connected(self, without: CellKey | None = None) -> bool:
        """Whether the stacks (less ``without``) form one orthogonally connected group."""
        stacks = self.stacks
        cells = [k for k in stacks if k != without]
        if not cells:
            return True
        seen = {cells[0]}
        todo = [cells[0]]
        while todo:
            k = todo.pop()
            for d in NEIGHBOURS:
                n = k + d
                if n != without and n in stacks and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen) == len(cells)

    def articulation_points(self) -> set[CellKey]:
        """Cells whose removal would split the grounds (Tarjan's algorithm)."""
        stacks = self.stacks
        if len(stacks) < 3:
            return set()
        if len(stacks) <= _RECURSIVE_UP_TO:
            # Recursion is twice as fast here; a real game's grounds stay far below the bound.
            root = next(iter(stacks))
            disc = {root: 0}
            cut: set[CellKey] = set()
            children = 0
            for n in (root - 1, root + _STRIDE, root + 1, root - _STRIDE):
                if n in stacks and n not in disc:
                    _low_link(stacks, disc, cut, n, root)
                    children += 1
            if children > 1:
                cut.add(root)
            return cut
        return self._articulation_points_iterative()

    def _articulation_points_iterative(self) -> set[CellKey]:
        stacks = self.stacks
        root = next(iter(stacks))
        disc: dict[CellKey, int] = {root: 0}
        low: dict[CellKey, int] = {root: 0}
        out: set[CellKey] = set()
        root_children = 0
        counter = 1
        stack: list[tuple[CellKey, CellKey, int]] = [(root, -1, 0)]
        while stack:
            k, parent, i = stack[-1]
            if i < 4:
                stack[-1] = (k, parent, i + 1)
                n = k + NEIGHBOURS[i]
                if n not in stacks or n == parent:
                    continue
                if n in disc:
                    if disc[n] < low[k]:
                        low[k] = disc[n]
                else:
                    disc[n] = low[n] = counter
                    counter += 1
                    stack.append((n, k, 0))
            else:
                stack.pop()
                if parent == -1:
                    continue
                if low[k] < low[parent]:
                    low[parent] = low[k]
                if parent == root:
                    root_children += 1
                elif low[k] >= disc[parent]:
                    out.add(parent)
        if root_children > 1:
            out.add(root)
        return out

    def __repr__(self) -> str:
        return (
            f"Grounds(color={self.color!r}, cells={len(self.stacks)}, "
            f"elephants={self.elephant_cells()}, passes={self.passes})"
        )
