"""One player's festival grounds: stacks of tiles on cells, two elephants, passes used.

Cells are ``(x, y)`` pairs in the public interface (docs/rules.md P6: x grows east, y grows south).
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
from itertools import chain
from typing import Any, Final

from mypy_extensions import mypyc_attr

from kerala.pickled import Reduced
from kerala.tiles import EDGE_DELTA, START_TILES, Color, Edge, TileType

Cell = tuple[int, int]
CellKey = int
#: A tile lying on the grounds: its type and, for an arch, the edge its arch faces.
Placed = tuple[TileType, Edge | None]
Stack = tuple[Placed, ...]

#: Key arithmetic: ``key((x, y)) == (x + OFFSET) * STRIDE + y + OFFSET``; east is ``+STRIDE``.
#: Keys sort as their cells do, by x and then y, since ``y + OFFSET`` stays below ``STRIDE``.
OFFSET: Final = 1 << 11
#: Not a power of two: an int hashes to itself and a dict or set finds its first slot by the
#: hash's low bits, which with ``1 << 12`` hold y alone, so the cells of a row all started in
#: the same slot. ``4096 + 83`` spreads a grounds' cells, and the caches' windows of cells,
#: over the slots (about 1.06 probes a lookup instead of 2.2; docs/engine.md, "Speed").
STRIDE: Final = (1 << 12) + 83
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


#: A cell key held as a Python object. Compiled, an ``int`` is a machine word, boxed into a new
#: int object at each use as a dict or set key (keys are too large for Python's small-int
#: cache); the flood fills' hot loops type their keys so, and so look each one up as it is.
KeyObject = Any

#: The one object of each cell key value. A dict or set finds a key that is the same object at
#: once, while an equal but distinct int costs a comparison of two int objects: grounds and the
#: key caches below hold these objects, so the lookups of the hot loops hit by identity.
_KEY_OBJECTS: Final[dict[KeyObject, KeyObject]] = {}


def key_object(k: KeyObject) -> KeyObject:
    """The shared object of key value ``k`` (see :data:`KeyObject`)."""
    return _KEY_OBJECTS.setdefault(k, k)


class _KeysAround(dict[KeyObject, tuple[KeyObject, ...]]):
    """By a cell key, the keys at fixed offsets from it, made on first use and kept as objects:
    a flood fill or a membership test then reads ready keys instead of building ints and a
    tuple at every cell (compiled, a key computed anew is a new int object each time)."""

    __slots__ = ("offsets",)

    def __init__(self, offsets: tuple[int, ...]) -> None:
        super().__init__()
        self.offsets = offsets

    def __missing__(self, k: KeyObject) -> tuple[KeyObject, ...]:
        keys: tuple[KeyObject, ...] = tuple([key_object(k + d) for d in self.offsets])
        self[k] = keys
        return keys


_NEIGHBOURS: Final = _KeysAround(NEIGHBOURS)


def neighbour_keys(k: KeyObject) -> tuple[KeyObject, ...]:
    """The keys of the 4 cells beside key ``k`` (N, E, S, W), from a cache (:data:`KeyObject`)."""
    return _NEIGHBOURS[k]


#: The 8 cells around a cell, as key offsets, in the order N, NE, E, SE, S, SW, W, NW: bit ``i``
#: of an *8-neighbourhood mask* says whether ring cell ``i`` holds a stack.
RING: Final[tuple[int, ...]] = (
    -1,
    _STRIDE - 1,
    _STRIDE,
    _STRIDE + 1,
    1,
    -_STRIDE + 1,
    -_STRIDE,
    -_STRIDE - 1,
)


def _quad_weight(tl: int, tr: int, bl: int, br: int) -> int:
    """Gray's bit-quad weight of a 2x2 window (4 x its share of the Euler number, for stacks
    connected through corners and empty cells connected through sides)."""
    n = tl + tr + bl + br
    if n == 1:
        return 1
    if n == 3:
        return -1
    if n == 2 and tl == br:
        return -2  # two stacks touching only at a corner
    return 0


def _windows(m: int, c: int) -> list[tuple[int, tuple[int, int, int, int]]]:
    """The four 2x2 windows around a cell with value ``c`` and ring mask ``m``: each as (the
    cell's position in the window, the window's values top-left, top-right, bottom-left,
    bottom-right)."""
    b = [(m >> i) & 1 for i in range(8)]
    n, ne, e, se, s, sw, w, nw = b
    return [(3, (nw, n, w, c)), (2, (n, ne, c, e)), (1, (w, c, sw, s)), (0, (c, e, s, se))]


def _tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    euler_add: list[int] = []
    euler_part: list[int] = []
    # Cells of a window that share a side: TL-TR, TL-BL, TR-BR, BL-BR.
    sides = ((1, 2), (0, 3), (0, 3), (1, 2))
    for m in range(256):
        full = sum(_quad_weight(*q) for _, q in _windows(m, 1))
        empty = sum(_quad_weight(*q) for _, q in _windows(m, 0))
        assert (full - empty) % 4 == 0
        euler_add.append((full - empty) // 4)
        # Each window that counts is credited to exactly one empty cell next to a stack: the
        # first of its cells (in reading order) that is empty and shares a side with a stack
        # of the window. Summed over the empty cells next to the grounds, these parts give
        # 4 x the Euler number.
        part = 0
        for pos, q in _windows(m, 0):
            credited = next((i for i in range(4) if not q[i] and any(q[j] for j in sides[i])), None)
            if credited == pos:
                part += _quad_weight(*q)
        euler_part.append(part)
    return tuple(euler_add), tuple(euler_part)


#: By the 8-neighbourhood mask of an empty cell: how the Euler number (stack groups minus
#: holes) changes when a stack is put there, and that cell's share (x 4) of the Euler number.
EULER_ADD, EULER_PART = _tables()


def ring_mask(stacks: dict[CellKey, Stack], k: CellKey) -> int:
    """The 8-neighbourhood mask of cell key ``k`` (see :data:`RING`)."""
    return _ring_masks(stacks, (k,))[0]


def holes_of(stacks: dict[CellKey, Stack] | set[CellKey]) -> set[CellKey]:
    """docs/rules.md SP2: the holes of a grounds, by the rule's words: the empty cells from which
    no path of orthogonally adjacent empty cells leads out of the grounds' bounding box.

    >>> sorted(cell(k) for k in holes_of({key(c) for c in [(0, 0), (1, 0), (2, 0), (0, 1),
    ...     (2, 1), (0, 2), (1, 2), (2, 2)]}))
    [(1, 1)]
    """
    if not stacks:
        return set()
    xs = [k // _STRIDE for k in stacks]
    ys = [k % _STRIDE for k in stacks]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    inside = {
        x * _STRIDE + y
        for x in range(x0, x1 + 1)
        for y in range(y0, y1 + 1)
        if x * _STRIDE + y not in stacks
    }
    # Start from the empty cells on the box's border: each has a neighbour outside the box.
    todo = [k for k in inside if k // _STRIDE in (x0, x1) or k % _STRIDE in (y0, y1)]
    seen = set(todo)
    while todo:
        k = todo.pop()
        for d in NEIGHBOURS:
            n = k + d
            if n in inside and n not in seen:
                seen.add(n)
                todo.append(n)
    return inside - seen


def sp2_move_makes_hole(stacks: dict[CellKey, Stack], src: CellKey, dst: CellKey) -> set[CellKey]:
    """docs/rules.md SP2: the holes that moving the stack on ``src`` to ``dst`` would make (empty if
    none): every hole after the move must have been one before it."""
    after = set(stacks)
    after.discard(src)
    after.add(dst)
    return holes_of(after) - holes_of(stacks)


def _cut_tables() -> tuple[bool, ...]:
    """By a stack's 8-neighbourhood mask: whether the stacks around it fall apart into two or
    more side-connected groups within its ring (Yokoi's connectivity number is 2 or more)."""
    out = []
    for m in range(256):
        x = [(m >> i) & 1 for i in range(8)] * 2
        n4 = sum(x[k] - x[k] * x[k + 1] * x[k + 2] for k in (0, 2, 4, 6))
        out.append(n4 >= 2)
    return tuple(out)


def _change_tables() -> tuple[tuple[tuple[int, int], ...], ...]:
    """By an empty cell's 8-neighbourhood mask: for each neighbouring stack whose leaving
    changes the cell's fate as an SP2 destination, (that stack's place in the ring, the new fate):
    :data:`_OPEN`, :data:`_CLOSES` (filling the cell would close a hole, where the grounds
    has none) or :data:`_ALONE` (the cell touches no stack by a side)."""
    out = []
    for m in range(256):
        now = _CLOSES if EULER_ADD[m] < 0 else _OPEN
        row = []
        for j in range(8):
            if not (m >> j) & 1:
                continue
            after = m & ~(1 << j)
            fate = _ALONE if not after & 0b01010101 else _CLOSES if EULER_ADD[after] < 0 else _OPEN
            if fate != now:
                row.append((j, fate))
        out.append(tuple(row))
    return tuple(out)


_OPEN, _CLOSES, _ALONE = 0, 1, 2
#: By an 8-neighbourhood mask: a stack there joins side-connected groups that its ring keeps
#: apart (in a grounds without holes, exactly the stacks whose removal splits the grounds).
SPLITS: Final = _cut_tables()
#: By an empty cell's mask: the stacks around it whose move changes its fate as a destination.
_CHANGES: Final = _change_tables()


#: SP2 plans say which frontier cells a source may not move to as a bit mask over the frontier
#: list (bit ``i`` for ``frontier[i]``): ints, which cost the cyclic GC nothing.
FrontierMask = int


def sp2_plan(g: Grounds) -> tuple[list[KeyObject], list[KeyObject], list[FrontierMask]]:
    """docs/rules.md SP2, for a connected grounds: the empty cells next to it (the *frontier*, each
    a destination candidate), the sources, and for each source the frontier cells that are no
    destination for it (a :data:`FrontierMask`). The frontier comes in the order it is met:
    stack by stack as they were laid, and N, E, S, W around each; the sources in the order
    their stacks were laid. So the SP2 moves are listed in an order that no hash decides.

    A source holds no elephant, has an empty side and does not split the grounds. A
    destination touches a stack other than the source, and the move makes no hole.

    The hole rule is decided locally, by the Euler number: the grounds is one group of stacks
    (corners connect them), so its number of holes is 1 minus its Euler number, and putting a
    stack on a cell changes the Euler number by an amount that the cell's 8 neighbours alone
    decide (:data:`EULER_ADD`). A grounds without holes keeps none after a move exactly when
    that change at the destination is 0 once the source is gone; and there a stack splits the
    grounds exactly when its own ring says so (:data:`SPLITS`). A grounds that has holes
    already (rare) is handled by :func:`_plan_with_holes`.

    Cell keys stay objects throughout (:data:`KeyObject`), read from the caches of neighbour
    and ring keys.
    """
    stacks: dict[KeyObject, Stack] = g.stacks
    # The frontier in the order it is met: by stack as laid, then N, E, S, W around each (a
    # dict keeps that order; a set's would follow the keys' hashes).
    near = dict.fromkeys(chain.from_iterable(map(_NEIGHBOURS.__getitem__, stacks)))
    frontier: list[KeyObject] = [k for k in near if k not in stacks]
    masks, closing, fates = _fates(stacks, frontier)
    if sum(map(EULER_PART.__getitem__, masks)) != 4:
        sources, drops = _plan_with_holes(g, frontier, closing, fates)
        return frontier, sources, drops
    sources = _sources(g)
    return frontier, sources, _drops(sources, closing, fates)


def _fates(
    st: dict[CellKey, Stack], frontier: list[KeyObject]
) -> tuple[list[int], FrontierMask, tuple[dict[KeyObject, int], ...]]:
    """The frontier's 8-neighbourhood masks; the cells that would close a hole now; and, by
    source, the cells whose fate changes once that source's stack has left, one mask per new
    fate (indexed by :data:`_OPEN`, :data:`_CLOSES`, :data:`_ALONE`)."""
    masks = _ring_masks(st, frontier)
    add = EULER_ADD
    changes = _CHANGES
    rings = _RINGS
    closing = 0
    fates: tuple[dict[KeyObject, int], ...] = ({}, {}, {})
    bit = 1
    for i, m in enumerate(masks):
        if add[m] < 0:
            closing |= bit
        ch = changes[m]
        if ch:
            ring = rings[frontier[i]]
            for j, fate in ch:
                by_source = fates[fate]
                n = ring[j]
                by_source[n] = by_source.get(n, 0) | bit
        bit <<= 1
    return masks, closing, fates


def _drops(
    sources: list[KeyObject], closing: FrontierMask, fates: tuple[dict[KeyObject, int], ...]
) -> list[FrontierMask]:
    """For each source, the frontier cells it may not move to: those that close a hole or
    touch no other stack once it has left."""
    opened, closes, alone = fates
    if not closing:
        return [closes.get(s, 0) | alone.get(s, 0) for s in sources]
    return [(closing & ~opened.get(s, 0)) | closes.get(s, 0) | alone.get(s, 0) for s in sources]


def _sources(g: Grounds) -> list[KeyObject]:
    """SP2 sources of a grounds without holes: no elephant, an empty side, and a ring that
    does not fall apart (:data:`SPLITS`)."""
    st: dict[KeyObject, Stack] = g.stacks
    elephants: list[KeyObject] = g.elephants
    splits = SPLITS
    return [
        k
        for k, m in zip(st, _ring_masks(st, st), strict=True)
        if m & 0b01010101 != 0b01010101 and not splits[m] and k not in elephants
    ]


_RINGS: Final = _KeysAround(RING)


def _ring_masks(st: dict[CellKey, Stack], cells: Iterable[CellKey]) -> list[int]:
    """The 8-neighbourhood masks of ``cells`` (see :data:`RING`), in one pass. (A dict, not
    a set or either: compiled, a membership test in a known dict is a direct call.)"""
    return [
        (r[0] in st)
        + 2 * (r[1] in st)
        + 4 * (r[2] in st)
        + 8 * (r[3] in st)
        + 16 * (r[4] in st)
        + 32 * (r[5] in st)
        + 64 * (r[6] in st)
        + 128 * (r[7] in st)
        for r in map(_RINGS.__getitem__, cells)
    ]


def _plan_with_holes(
    g: Grounds,
    frontier: list[KeyObject],
    closing: FrontierMask,
    fates: tuple[dict[KeyObject, int], ...],
) -> tuple[list[KeyObject], list[FrontierMask]]:
    """:func:`sp2_plan` for a grounds that has holes already (rare).

    Sources come from Tarjan's algorithm, and the vacated cell must join open space. A source
    that borders no old hole leaves the old holes enclosed, so with them filled by stand-in
    stacks (a grounds without holes) the local test decides, as without holes; a cell of an old
    hole is always a destination. A source that borders an old hole may open it: each
    destination that the local test doubts is checked by the rule's words (:func:`_cut_off`).
    """
    stacks = g.stacks
    elephants = g.elephants
    cut = g.articulation_points()
    before = holes_of(stacks)
    filled: dict[CellKey, Stack] = dict(stacks)
    filled.update(dict.fromkeys(before, ()))
    outer = [i for i, f in enumerate(frontier) if f not in before]
    _, closing_filled, fates_filled = _fates(filled, [frontier[i] for i in outer])
    ys = [k % _STRIDE for k in stacks]
    box = (min(stacks) // _STRIDE, max(stacks) // _STRIDE, min(ys), max(ys))
    far: list[CellKey] = []  # sources that border no old hole
    near: list[CellKey] = []
    for src in stacks:
        if src in cut or src in elephants:
            continue
        opens = borders = False
        for d in NEIGHBOURS:
            n = src + d
            if n not in stacks:
                if n in before:
                    borders = True
                else:
                    opens = True
        if opens:  # else built around, or the vacated cell would be a new hole
            (near if borders else far).append(src)
    alone = fates[_ALONE]
    drops = []
    for src, doubted in zip(far, _drops(far, closing_filled, fates_filled), strict=True):
        drop = alone.get(src, 0)
        while doubted:  # from the filled frontier's bits to the frontier's
            j = doubted.bit_length() - 1
            drop |= 1 << outer[j]
            doubted ^= 1 << j
        drops.append(drop)
    opened, closes = fates[_OPEN], fates[_CLOSES]
    for src in near:
        drop = alone.get(src, 0)
        doubted = ((closing & ~opened.get(src, 0)) | closes.get(src, 0)) & ~drop
        while doubted:
            i = doubted.bit_length() - 1
            if _cut_off(stacks, src, frontier[i], before, box):
                drop |= 1 << i
            doubted ^= 1 << i
        drops.append(drop)
    return far + near, drops


def _cut_off(
    stacks: dict[CellKey, Stack],
    src: CellKey,
    dst: CellKey,
    before: set[CellKey],
    box: tuple[int, int, int, int],
) -> bool:
    """Whether moving the stack on ``src`` to ``dst`` encloses an empty cell that was no hole
    before.

    Only empty space next to ``dst`` can be cut off, so each empty neighbour of ``dst`` is
    followed until it leaves the box (of the grounds before the move and ``dst``: a row or
    column that the move empties lies on that box's edge, so leaving by it is leaving either
    way) or runs out."""
    x0, x1, y0, y1 = box
    x0, x1 = min(x0, dst // _STRIDE), max(x1, dst // _STRIDE)
    y0, y1 = min(y0, dst % _STRIDE), max(y1, dst % _STRIDE)
    enclosed: set[CellKey] = set()
    for start in (dst - 1, dst + _STRIDE, dst + 1, dst - _STRIDE):
        if (start in stacks and start != src) or start in enclosed:
            continue
        seen = {start}
        todo = [start]
        escaped = False
        while todo:
            k = todo.pop()
            x, y = divmod(k, _STRIDE)
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                escaped = True
                break
            for d in NEIGHBOURS:
                n = k + d
                if n != dst and (n not in stacks or n == src) and n not in seen:
                    seen.add(n)
                    todo.append(n)
        if not escaped:
            if not seen <= before:
                return True
            enclosed |= seen
    return False


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


@mypyc_attr(acyclic=True)
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
        """docs/rules.md S2: the start tile at (0, 0) with both elephants on it."""
        k = key_object(key((0, 0)))
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
            {key_object(key(c)): tuple(s) for c, s in stacks},
            [key_object(key(c)) for c in elephants],
            passes,
        )

    def copy(self) -> Grounds:
        # Stacks are tuples, so a shallow copy of the dict is a full copy.
        return Grounds(self.color, dict(self.stacks), list(self.elephants), self.passes)

    def __reduce__(self) -> Reduced:
        # Pickled as its constructor's arguments: both builds rebuild it so (kerala.pickled).
        return Grounds, (self.color, self.stacks, self.elephants, self.passes)

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
