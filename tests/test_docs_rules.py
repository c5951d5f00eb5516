"""Issue 17: the drawings in docs/rules.md say what the engine does.

The four SP2 hole drawings (rule SP2, "the move makes no hole") are read from the page and
played through the engine's own SP2 list; the worked example's grid is compared with the
grounds document the scoring tests use (SC1–SC6, 37 points).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kerala.actions import MoveStack
from kerala.game import sp2_moves
from kerala.grounds import Grounds, cell
from kerala.notation import read_grounds
from kerala.scoring import score_grounds
from kerala.tiles import TILE_TYPES

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _drawing(title: str) -> tuple[list[list[str]], list[list[str]]]:
    """The before and after grids drawn under the paragraph that starts with ``title``."""
    m = re.search(re.escape(title) + r".*?```\n(.*?)```", RULES, re.S)
    assert m, f"docs/rules.md has no drawing under {title!r}"
    header, *rows = m.group(1).splitlines()
    split = header.index("after")
    before = [r[:split].split() for r in rows]
    after = [r[split:].split() for r in rows]
    return before, after


def _cells(grid: list[list[str]], marks: str) -> set[tuple[int, int]]:
    return {(x, y) for y, row in enumerate(grid) for x, ch in enumerate(row) if ch in marks}


def _holes(stacks: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The page's definition, read literally: empty cells of the bounding box from which no
    path of orthogonally adjacent empty cells leads out of it."""
    xs = [x for x, _ in stacks]
    ys = [y for _, y in stacks]
    box = {(x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)}
    empty = box - stacks
    out = {(x, y) for x, y in empty if x in (min(xs), max(xs)) or y in (min(ys), max(ys))}
    todo = list(out)
    while todo:
        x, y = todo.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in empty and n not in out:
                out.add(n)
                todo.append(n)
    return empty - out


@pytest.mark.parametrize(
    ("title", "legal"),
    [
        ("**A hole at the source: refused.**", False),
        ("**The destination closes a region of one cell: refused.**", False),
        ("**The destination closes a region of several cells: refused.**", False),
        ("**A move that fills an old hole: allowed.**", True),
    ],
)
def test_sp2_hole_drawings_in_the_rules_page_match_the_engine(title: str, legal: bool) -> None:
    before, after = _drawing(title)
    (src,) = _cells(before, "S")
    (dst,) = _cells(before, "D")
    stacks = _cells(before, "#S")
    start = TILE_TYPES["blue:start"]
    e1 = TILE_TYPES["green:e1"]
    first = min(stacks - {src})
    g = Grounds.from_cells(
        "blue",
        [(c, [(start if c == first else e1, None)]) for c in sorted(stacks)],
        sorted(stacks - {src})[-2:],  # both elephants away from the source (SP2 rule 1)
    )
    moves = sp2_moves(g, 0)
    assert all(isinstance(m, MoveStack) for m in moves)
    offered = {(m.from_, m.to) for m in moves if isinstance(m, MoveStack)}
    assert ((src, dst) in offered) is legal
    # The drawings agree with the definition of a hole, and rule 5 is what decides.
    moved = (stacks - {src}) | {dst}
    assert _cells(before, "o") == _holes(stacks) - {dst}  # an old hole as destination is `D`
    assert _cells(after, "#") == moved
    assert _cells(after, "o") == _holes(moved)
    assert (_holes(moved) <= _holes(stacks)) is legal


def test_sc1_to_sc6_worked_example_drawing_is_the_37_point_grounds() -> None:
    m = re.search(r"```\n( +x=0.*?)```", RULES, re.S)
    assert m
    header, *rows = m.group(1).splitlines()
    columns = [header.index(f"x={x}") for x in range(6)]
    drawn: dict[tuple[int, int], str] = {}
    for y, row in enumerate(rows):
        for x, col in enumerate(columns):
            word = row[col : col + 6].strip()
            if word:
                drawn[(x, y)] = word
    letter = {"blue": "B", "purple": "P", "black": "K", "green": "G", "red": "R"}

    def name(tile: str) -> str:
        color, _, kind = tile.partition(":")
        if kind == "start":
            return letter[color] + "s"
        if kind.startswith("arch-"):
            arch, _, edge = kind.partition("@")
            arrow = {"N": "^", "E": ">", "S": "v", "W": "<"}[edge]
            return letter[color] + arrow + letter[arch.removeprefix("arch-")].lower()
        return letter[color] + kind.removeprefix("e")

    doc = (ROOT / "tests" / "data" / "worked_example_37.json").read_text(encoding="utf-8")
    g = read_grounds(doc)
    expected = {
        cell(k): "/".join(name(t.name + (f"@{e}" if e else "")) for t, e in reversed(s))
        for k, s in g.stacks.items()
    }
    assert drawn == expected
    assert score_grounds(g).total == 37
