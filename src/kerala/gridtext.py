"""Grounds as a compact text grid: what a person types to score a physical game.

The same grounds as a ``kerala-grounds`` document (docs/notation.md), one token per cell, one line
per row, in the tile codes the terminal game draws (docs/terminal.md, "Text grid")::

    # the worked example of the rulebook
    Bs  B3 B2 K3  .     .
    P^b P3 P3 P3  P2    .
    G3z G3 G2 R2  R^p   K1
    .   .  .  R2@ B1/G1 .

* A tile is its color letter (``B`` blue, ``K`` black, ``G`` green, ``R`` red, ``P``
  purple) and its kind: ``1``-``3`` symbols, ``s`` the start tile, ``E`` move-elephant,
  ``T`` move-tile. An arch is its color, the edge it faces as an arrow (``^`` N, ``>`` E,
  ``v`` S, ``<`` W) and its arch color: ``R>k`` is red:arch-black facing east.
* A stack lists its tiles bottom to top, joined by ``/``: ``B1/G1`` is a green 1 on a blue 1.
  A covered arch may leave out its edge (``Rak``); it does not count (SC) and is stored facing N.
* ``.`` is an empty cell; every row has the same number of cells. The first row is the north
  edge; the start tile lies at (0, 0) unless an ``origin`` line says otherwise.
* A stack may end in an elephant: ``@`` standing, ``z`` lying (a pass, G3), ``&`` both
  elephants (before the first placement). The number of lying elephants gives ``passes``.
* Before the grid, optional settings lines: ``color: blue`` (else the start tile's color),
  ``passes: 1`` (when no elephant is written), ``origin: -2, -1`` (the cell of the first
  token of the first row). ``#`` starts a comment. Letters may be upper or lower case.

Parsing never guesses: every mistake is a :class:`GridTextError` that names the line and the
column (both from 1).

>>> g = parse_grid("Bs@ G2z")
>>> sorted(g.cells()), g.passes
([(0, 0), (1, 0)], 1)
>>> try:
...     parse_grid("Bs G9")
... except GridTextError as e:
...     print(e.line, e.column, e.reason)
1 5 unknown tile kind '9' in 'G9' (kinds: 1 2 3 s E T, or an arch like G>k)
>>> print(format_grid(g))
Bs@ G2z
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from kerala.errors import NotationError
from kerala.grounds import LIMIT, Grounds, cell
from kerala.notation import read_grounds
from kerala.playerview import BOTH, LYING, STANDING
from kerala.tiles import (
    ARROW,
    COLOR_LETTER,
    COLORS,
    KIND_CHAR,
    START,
    TileSet,
    TileType,
    load_tileset,
    tile,
)

Cell = tuple[int, int]

LETTER_COLOR: Final[dict[str, str]] = {v: k for k, v in COLOR_LETTER.items()}
CHAR_KIND: Final[dict[str, str]] = {v.upper(): k for k, v in KIND_CHAR.items()}
ARROW_EDGE: Final[dict[str, str]] = {v.upper(): k for k, v in ARROW.items()}
EMPTY: Final = "."

_SETTING = re.compile(r"^\s*([A-Za-z]+)\s*:\s*(.*?)\s*$")
_TOKEN = re.compile(r"\S+")


class GridTextError(NotationError):
    """A text grid cannot be read; ``line`` and ``column`` (from 1) say where."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.reason = message


def tile_code(t: TileType, edge: str | None = None) -> str:
    """A tile's code: ``G2``, ``BE``, ``Bs``; an arch ``Rak``, or ``R>k`` with its edge."""
    if t.arch_color is not None and edge is not None:
        return f"{COLOR_LETTER[t.color]}{ARROW[edge]}{COLOR_LETTER[t.arch_color].lower()}"
    return t.code


def looks_like_json(text: str) -> bool:
    """Whether ``text`` is a JSON document rather than a text grid (its first character)."""
    return text.lstrip("\ufeff \t\r\n").startswith("{")


@dataclass(frozen=True)
class _Pos:
    line: int
    column: int


@dataclass
class _Stack:
    at: Cell
    tiles: list[tuple[TileType, str | None, _Pos]]
    elephant: str
    pos: _Pos


def _tile_at(code: str, pos: _Pos, token: str) -> tuple[TileType, str | None]:
    """One tile code (no ``/``) of ``token``; ``pos`` is where the code starts."""
    up = code.upper()

    def bad(offset: int, message: str) -> GridTextError:
        return GridTextError(pos.line, pos.column + offset, message)

    if not up:
        raise bad(0, f"empty tile code in {token!r} (tiles of a stack are joined by '/')")
    color = LETTER_COLOR.get(up[0])
    if color is None:
        raise bad(
            0,
            f"unknown color letter {code[0]!r} in {token!r} "
            "(B blue, K black, G green, R red, P purple; '.' for an empty cell)",
        )
    rest = up[1:]
    if not rest:
        raise bad(1, f"{code!r} needs a kind after its color, e.g. {up[0]}2")
    if rest[0] in ARROW_EDGE or rest[0] == "A":
        edge = ARROW_EDGE.get(rest[0])
        if len(rest) != 2 or rest[1] not in LETTER_COLOR:
            raise bad(
                1,
                f"an arch is its color, an edge arrow ^ > v < and its arch color, "
                f"e.g. {up[0]}>k; got {code!r}",
            )
        arch = LETTER_COLOR[rest[1]]
        if arch == color:
            raise bad(2, f"{code!r}: an arch joins two colors, not {color} and {color}")
        return tile(f"{color}:arch-{arch}"), edge
    if len(rest) != 1 or rest not in CHAR_KIND:
        raise bad(
            1,
            f"unknown tile kind {code[1:]!r} in {code!r} (kinds: 1 2 3 s E T, or an arch "
            f"like {up[0]}>k)",
        )
    return tile(f"{color}:{CHAR_KIND[rest]}"), None


def _stack(token: str, at: Cell, pos: _Pos) -> _Stack:
    body = token
    elephant = ""
    if body[-1:] in (STANDING, BOTH) or body[-1:].lower() == LYING:
        elephant = body[-1].lower()
        body = body[:-1]
        if body[-1:] in (STANDING, BOTH) or body[-1:].lower() == LYING:
            raise GridTextError(
                pos.line,
                pos.column + len(body) - 1,
                f"{token!r}: one elephant sign per cell (& when both elephants share it)",
            )
    tiles: list[tuple[TileType, str | None, _Pos]] = []
    offset = 0
    for code in body.split("/"):
        p = _Pos(pos.line, pos.column + offset)
        t, edge = _tile_at(code, p, token)
        tiles.append((t, edge, p))
        offset += len(code) + 1
    return _Stack(at, tiles, elephant, pos)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for n, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if line.strip():
            yield n, line.expandtabs(8)


def read_grid(text: str, tileset: TileSet | None = None) -> dict[str, Any]:
    """The grounds document (docs/notation.md ``kerala-grounds``) of a text grid, fully checked.

    Raises :class:`GridTextError` (with line and column) on any mistake. Long because each
    check names the line and column it reads, so the checks follow the reading in one place.
    """
    settings: dict[str, tuple[str, _Pos]] = {}
    rows: list[tuple[int, list[tuple[int, str]]]] = []
    for n, line in _lines(text):
        m = _SETTING.match(line)
        if m and m.group(1).lower() in ("color", "passes", "origin"):
            name = m.group(1).lower()
            col = line.index(m.group(2)) + 1 if m.group(2) else len(line) + 1
            if rows:
                raise GridTextError(n, 1, f"'{name}:' belongs before the grid")
            if name in settings:
                raise GridTextError(n, 1, f"'{name}:' is given twice")
            settings[name] = (m.group(2), _Pos(n, col))
            continue
        if m:
            raise GridTextError(
                n, 1, f"unknown setting {m.group(1)!r} (settings: color, passes, origin)"
            )
        rows.append((n, [(mt.start() + 1, mt.group()) for mt in _TOKEN.finditer(line)]))
    if not rows:
        raise GridTextError(1, 1, "no grid: write one token per cell, one line per row")

    width = len(rows[0][1])
    for n, tokens in rows[1:]:
        if len(tokens) != width:
            col = tokens[width][0] if len(tokens) > width else tokens[-1][0] + len(tokens[-1][1])
            raise GridTextError(
                n,
                col,
                f"this row has {len(tokens)} cells, the first row {width} "
                "(every row has the same number; '.' is an empty cell)",
            )
    stacks: list[_Stack] = []
    for y, (n, tokens) in enumerate(rows):
        for x, (col, token) in enumerate(tokens):
            if token == EMPTY:
                continue
            stacks.append(_stack(token, (x, y), _Pos(n, col)))

    # -- who owns the grounds, where (0, 0) is ------------------------------------------
    starts = [(s, t) for s in stacks for t in s.tiles if t[0].kind == START]
    if not starts:
        raise GridTextError(
            rows[0][0], 1, "no start tile: write it with its color letter and s, e.g. Bs"
        )
    first_stack, (start_tile, _, _) = starts[0]
    if len(starts) > 1:
        p = starts[1][1][2]
        raise GridTextError(
            p.line,
            p.column,
            f"a second start tile; the grounds hold one, at {fmt(first_stack.pos)}",
        )
    for s in stacks:
        for i, (t, _, p) in enumerate(s.tiles):
            if t.kind == START and i:
                raise GridTextError(
                    p.line, p.column, "the start tile lies at the bottom of its stack"
                )
    color = start_tile.color
    if "color" in settings:
        value, p = settings["color"]
        if value.lower() not in COLORS:
            raise GridTextError(p.line, p.column, f"color must be one of {', '.join(COLORS)}")
        if value.lower() != color:
            sp = starts[0][1][2]
            raise GridTextError(
                sp.line, sp.column, f"the start tile must be {value.lower()}, not {color}"
            )
    if "origin" in settings:
        value, p = settings["origin"]
        parts = [v.strip() for v in value.replace(",", " ").split()]
        try:
            ox, oy = (int(v) for v in parts)
        except ValueError:
            raise GridTextError(
                p.line, p.column, f"origin is two whole numbers x, y, got {value!r}"
            ) from None
    else:
        sx, sy = first_stack.at
        ox, oy = -sx, -sy

    for s in stacks:
        x, y = s.at[0] + ox, s.at[1] + oy
        if not (-LIMIT <= x <= LIMIT and -LIMIT <= y <= LIMIT):
            raise GridTextError(
                s.pos.line,
                s.pos.column,
                f"this cell would be ({x}, {y}), outside the coordinate range ±{LIMIT} (P6)",
            )

    # -- the tile counts of the box ------------------------------------------------------
    ts = tileset or load_tileset("standard")
    counts: Counter[TileType] = Counter()
    for s in stacks:
        for t, edge, p in s.tiles:
            if t.kind == START:
                continue
            counts[t] += 1
            if counts[t] > ts.count(t):
                have = ts.count(t)
                raise GridTextError(
                    p.line,
                    p.column,
                    f"{counts[t]} tiles {tile_code(t)} ({t.name}), but the box has only {have}",
                )
            if t.is_arch and edge is None and s.tiles[-1][2] is p:
                raise GridTextError(
                    p.line,
                    p.column,
                    f"the arch on top needs the edge it faces, e.g. {tile_code(t, 'N')} "
                    f"or {tile_code(t, 'E')}",
                )

    # -- elephants -------------------------------------------------------------------------
    # Standing elephants first: the second elephant is the first to lie down (G3).
    marked = sorted((s for s in stacks if s.elephant), key=lambda s: s.elephant == LYING)
    elephants: list[Cell] = []
    lying = 0
    for s in marked:
        at = (s.at[0] + ox, s.at[1] + oy)
        if s.elephant == BOTH:
            elephants += [at, at]
        else:
            elephants.append(at)
            lying += s.elephant == LYING
    if marked and len(elephants) != 2:
        last = marked[-1].pos
        raise GridTextError(
            last.line,
            last.column,
            f"{len(elephants)} elephant(s) marked; a player has 2 (mark both or none)",
        )
    if len(set(elephants)) == 1 and len(stacks) > 1:
        p = marked[0].pos
        raise GridTextError(
            p.line, p.column, "two elephants share a cell only before the first placement (P4)"
        )
    passes = lying
    if "passes" in settings:
        value, p = settings["passes"]
        if value not in ("0", "1", "2"):
            raise GridTextError(p.line, p.column, f"passes is 0, 1 or 2, got {value!r}")
        if marked and any(s.elephant != BOTH for s in marked) and int(value) != lying:
            raise GridTextError(
                p.line,
                p.column,
                f"passes: {value}, but the grid shows {lying} lying elephant(s) (z)",
            )
        passes = int(value)

    # -- connection (docs/rules.md P2) ------------------------------------------------------------
    where = {s.at: s for s in stacks}
    seen = {first_stack.at}
    todo = [first_stack.at]
    while todo:
        x, y = todo.pop()
        for nb in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if nb in where and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    for s in sorted(stacks, key=lambda s: (s.pos.line, s.pos.column)):
        if s.at not in seen:
            raise GridTextError(
                s.pos.line,
                s.pos.column,
                "this stack is not connected to the start tile (the grounds are one "
                "orthogonally connected area)",
            )

    doc: dict[str, Any] = {
        "format": "kerala-grounds",
        "version": 1,
        "color": color,
        "passes": passes,
    }
    if elephants:
        doc["elephants"] = [list(c) for c in elephants]
    doc["stacks"] = [
        {
            "at": [s.at[0] + ox, s.at[1] + oy],
            "tiles": [t.name + (f"@{e or 'N'}" if t.is_arch else "") for t, e, _ in s.tiles],
        }
        for s in stacks
    ]
    return doc


def fmt(p: _Pos) -> str:
    return f"line {p.line}, column {p.column}"


def parse_grid(text: str, tileset: TileSet | None = None) -> Grounds:
    """The :class:`~kerala.grounds.Grounds` of a text grid (see the module docstring)."""
    return read_grounds(read_grid(text, tileset), tileset)


def format_grid(g: Grounds) -> str:
    """The text grid of ``g``, columns aligned; :func:`parse_grid` reads it back."""
    cells = g.cells()
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, y0 = min(xs), min(ys)
    marks: dict[Cell, str] = {}
    el = [cell(k) for k in g.elephants]
    if len(el) == 2:
        if el[0] == el[1]:
            marks[el[0]] = BOTH
        else:
            # As the terminal game draws them: the second elephant lies down first (G3).
            marks[el[0]] = LYING if g.passes >= 2 else STANDING
            marks[el[1]] = LYING if g.passes >= 1 else STANDING
    start = next(c for c in cells if g.stack(c)[0][0].kind == START)
    lines: list[str] = []
    if (len(el) != 2 or el[0] == el[1]) and g.passes:
        lines.append(f"passes: {g.passes}")
    # Without an origin line the start tile is (0, 0); say so only when it is elsewhere.
    if start != (0, 0):
        lines.append(f"origin: {x0}, {y0}")
    grid: list[list[str]] = []
    for y in range(y0, max(ys) + 1):
        row = []
        for x in range(x0, max(xs) + 1):
            s = g.stack((x, y))
            if not s:
                row.append(EMPTY)
                continue
            row.append("/".join(tile_code(t, e) for t, e in s) + marks.get((x, y), ""))
        grid.append(row)
    widths = [max(len(r[i]) for r in grid) for i in range(len(grid[0]))]
    for row in grid:
        lines.append(" ".join(tok.ljust(widths[i]) for i, tok in enumerate(row)).rstrip())
    return "\n".join(lines)


def grid_of_document(doc: dict[str, Any]) -> str:
    """The text grid of a grounds document (checked by :func:`~kerala.notation.read_grounds`)."""
    return format_grid(read_grounds(doc))


__all__ = [
    "ARROW",
    "COLOR_LETTER",
    "KIND_CHAR",
    "GridTextError",
    "format_grid",
    "grid_of_document",
    "looks_like_json",
    "parse_grid",
    "read_grid",
    "tile_code",
]
