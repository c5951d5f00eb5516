"""Drawing for terminal play: grounds as a grid of cells, the display, status lines (Rich).

Everything here draws from a :class:`~kerala.views.PlayerView` (public information only,
docs/rules.md I1/I2) and never decides a rule. A cell is four characters wide plus one space, so a
grounds of 14 columns fits an 80-column terminal; bigger grounds are shown through a window.

Every color is also written as a letter (``B`` blue, ``K`` black, ``G`` green, ``R`` red,
``P`` purple), so the screen reads the same with ``NO_COLOR``.

>>> from kerala.tiles import tile
>>> cell_text(((tile("green:e2"), None),), "@")
'G2 @'
>>> cell_text(((tile("blue:start"), None), (tile("red:arch-green"), "E")), "")
'R>g2'
>>> tile_code(tile("red:arch-black")), tile_code(tile("blue:move-tile"))
('Rak', 'BT')
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from rich import box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from kerala.actions import Decision, FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.grounds import Grounds, Stack, cell
from kerala.playerview import (
    BOTH,
    LYING,
    STANDING,
    cell_text,
    elephant_markers,
    elephant_markers_of,
)
from kerala.tiles import ARROW, COLOR_LETTER, TileType
from kerala.views import GroundsView, PlayerView

Cell = tuple[int, int]

COLOR_STYLE: Final[dict[str, str]] = {
    "blue": "bold bright_white on blue",
    "black": "bold bright_white on grey30",
    "green": "bold black on green3",
    "red": "bold bright_white on red3",
    "purple": "bold bright_white on dark_magenta",
}
CELL_WIDTH: Final = 5  # four characters and a space
LABEL_WIDTH: Final = 4  # the y labels on the left
_AROUND: Final = ((0, -1), (1, 0), (0, 1), (-1, 0))

LEGEND: Final = (
    "Cells: color letter B blue K black G green R red P purple, then 1-3 symbols, s start, "
    "E move-elephant, T move-tile, or an arch ^>v< (its edge) and its arch color in lowercase; "
    "a digit is the stack height; @ elephant standing, z lying, & both elephants; "
    "[n] a numbered choice; x a removed surplus cell."
)


def tile_code(t: TileType) -> str:
    """A tile's short code: color letter and kind (``G2``, ``BE``; an arch ``Rak``)."""
    return t.code


def tile_words(t: TileType) -> str:
    """A tile's code and docs/notation.md name, e.g. ``G2 green:e2``."""
    return f"{tile_code(t):<3} {t.name}"


def removed_text(text: str) -> str:
    """A removed cell (SC1): an ``x`` in place of the height, never over the elephant.

    >>> removed_text("G23@"), removed_text("R>g "), removed_text("R>gz")
    ('G2x@', 'R>gx', 'Rxgz')
    """
    if text[1] in ARROW.values():  # an arch: its color letter and arch color stay
        return (
            text[:3] + "x" if text[3] not in (STANDING, LYING, BOTH) else text[0] + "x" + text[2:]
        )
    return text[:2] + "x" + text[3]


def _span(lo: int, hi: int, focus: Sequence[int], limit: int) -> tuple[int, int]:
    """Choose at most ``limit`` consecutive values of lo..hi, keeping ``focus`` in view."""
    if hi - lo + 1 <= limit:
        return lo, hi
    f_lo, f_hi = (min(focus), max(focus)) if focus else (lo, hi)
    # Focus wider than the window: show its start; else centre the window on it.
    start = f_lo if f_hi - f_lo + 1 >= limit else (f_lo + f_hi) // 2 - limit // 2
    start = max(lo, min(start, hi - limit + 1))
    return start, start + limit - 1


def lines_of(chosen: set[int]) -> int:
    """Lines (or columns) taken by the values ``chosen``: each value, and one gap per break."""
    ordered = sorted(chosen)
    return len(ordered) + sum(1 for a, b in itertools.pairwise(ordered) if b - a > 1)


def pick_lines(lo: int, hi: int, focus: Sequence[int], limit: int) -> list[int | None]:
    """Which of the rows (or columns) ``lo..hi`` to draw in ``limit`` lines, ``None`` a gap.

    Everything when it fits; else one window around ``focus`` when that fits; else every focus
    row with as many of their neighbours as fit, the rows between them left out (a gap line
    each); else, when even the focus rows do not fit, the window holding the most of them.

    >>> pick_lines(0, 9, [2], 4), pick_lines(-30, 0, [-28, -27, 0], 8)
    ([0, 1, 2, 3], [-30, -29, -28, -27, -26, None, -1, 0])
    """
    if hi - lo + 1 <= limit:
        return list(range(lo, hi + 1))
    focus = sorted(set(focus)) or [lo]
    if focus[-1] - focus[0] + 1 <= limit:
        start, end = _span(lo, hi, focus, limit)
        return list(range(start, end + 1))
    chosen = set(focus)
    if lines_of(chosen) > limit:
        best = max(
            range(lo, hi - limit + 2), key=lambda a: sum(1 for f in focus if a <= f < a + limit)
        )
        return list(range(best, best + limit))
    for d in range(1, hi - lo + 1):
        grown = False
        for f in focus:
            for v in (f - d, f + d):
                if lo <= v <= hi and v not in chosen and lines_of(chosen | {v}) <= limit:
                    chosen.add(v)
                    grown = True
        if not grown:
            break
    out: list[int | None] = []
    for v in sorted(chosen):
        if out and out[-1] is not None and v - out[-1] > 1:
            out.append(None)
        out.append(v)
    return out


def _runs(values: Sequence[int | None]) -> str:
    """``-30..-26, -1..0``: the drawn values, run by run."""
    runs: list[list[int]] = [[]]
    for v in values:
        if v is None:
            runs.append([])
        else:
            runs[-1].append(v)
    return ", ".join(f"{r[0]}..{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs if r)


def _extent(cells: Sequence[Cell]) -> tuple[int, int]:
    """Columns and rows spanned by ``cells``."""
    if not cells:
        return 0, 0
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    return max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


def _focus(
    marks: Mapping[Cell, str], elephants: Sequence[Cell], max_cols: int, max_rows: int
) -> list[Cell]:
    both = [*marks, *elephants]
    if lines_of({c[0] for c in both}) <= max_cols and lines_of({c[1] for c in both}) <= max_rows:
        return both
    return list(marks) or list(elephants)


def _cells_drawn(g: GroundsView, marks: Mapping[Cell, str]) -> list[Cell]:
    cells = [c for c, _ in g.stacks] + list(marks)
    cells += [(x + dx, y + dy) for (x, y), m in marks.items() if m == "*" for dx, dy in _AROUND]
    return cells


def rows_wanted(g: GroundsView, marks: Mapping[Cell, str] | None = None) -> tuple[int, int]:
    """Grid rows for the whole grounds, and the fewest that keep the choices and elephants.

    >>> from kerala.views import GroundsView
    >>> from kerala.tiles import tile
    >>> s = ((tile("blue:start"), None),)
    >>> g = GroundsView("blue", tuple(((0, y), s) for y in range(9)), ((0, 0), (0, 2)), 0)
    >>> rows_wanted(g), rows_wanted(g, {(1, 7): "1"})
    ((9, 3), (9, 5))
    """
    marks = marks or {}
    _, full = _extent(_cells_drawn(g, marks))
    need = lines_of({c[1] for c in [*marks, *g.elephants]})
    return full, max(1, min(full, need))


def grounds_grid(
    g: GroundsView,
    *,
    marks: Mapping[Cell, str] | None = None,
    removed: Sequence[Cell] = (),
    max_cols: int = 14,
    max_rows: int = 12,
) -> tuple[Text, str]:
    """The grid of one grounds, and a note saying which part is shown when it is cut."""
    return draw_grid(
        dict(g.stacks),
        elephant_markers(g),
        marks=marks,
        removed=removed,
        max_cols=max_cols,
        max_rows=max_rows,
        focus=list(g.elephants),
    )


def draw_grid(
    stacks: Mapping[Cell, Stack],
    elephants: Mapping[Cell, str],
    *,
    marks: Mapping[Cell, str] | None = None,
    removed: Sequence[Cell] = (),
    max_cols: int = 14,
    max_rows: int = 12,
    focus: Sequence[Cell] = (),
) -> tuple[Text, str]:
    """The grid of stacks with elephant markers, cut to a window around the focus."""
    marks = marks or {}
    cells = list(stacks) + list(marks)
    # Around a highlighted cell (the chosen target) show its neighbours: what an arch faces.
    cells += [(x + dx, y + dy) for (x, y), m in marks.items() if m == "*" for dx, dy in _AROUND]
    # The numbered choices and the elephants stay in view when they fit together; else the
    # numbered choices come first.
    fc = _focus(marks, list(focus) or list(elephants), max_cols, max_rows)
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    cols = pick_lines(min(xs), max(xs), [c[0] for c in fc], max(1, max_cols))
    rows = pick_lines(min(ys), max(ys), [c[1] for c in fc], max(1, max_rows))
    gone = set(removed)
    out = Text(no_wrap=True, overflow="crop")
    out.append(" " * LABEL_WIDTH)
    header = " ".join(f"{x:^4}" if x is not None else "  ⋯ " for x in cols)
    out.append(header.rstrip(), style="dim")
    for y in rows:
        out.append("\n")
        if y is None:  # rows left out: a gap line
            out.append("  ⋮ ", style="dim")
            continue
        out.append(f"{y:>3} ", style="dim")
        for i, x in enumerate(cols):
            c = (x, y) if x is not None else None
            if c is None:
                out.append("  ⋯ ", style="dim")
            elif c in marks:
                out.append(f"[{marks[c]}]".ljust(4)[:4], style="bold reverse")
            elif c in stacks:
                s = stacks[c]
                text = cell_text(s, elephants.get(c, ""))
                if c in gone:
                    out.append(removed_text(text), style=COLOR_STYLE[s[-1][0].color] + " strike")
                else:
                    out.append(text, style=COLOR_STYLE[s[-1][0].color])
            else:
                out.append(" .  ", style="dim")
            if i < len(cols) - 1:
                out.append(" ")
    cut = []
    if cols != list(range(min(xs), max(xs) + 1)):
        cut.append(f"x {_runs(cols)} of {min(xs)}..{max(xs)}")
    if rows != list(range(min(ys), max(ys) + 1)):
        cut.append(f"y {_runs(rows)} of {min(ys)}..{max(ys)}")
    note = ", ".join(cut)
    return out, note


def grounds_panel_of(
    g: Grounds, title: str, *, removed: Sequence[Cell] = (), max_cols: int = 14, max_rows: int = 40
) -> Panel:
    """A grounds outside a game (the score calculator): its grid in a frame titled ``title``."""
    stacks = {cell(k): s for k, s in g.stacks.items()}
    el = [cell(k) for k in g.elephants]
    markers: dict[Cell, str] = {}
    if len(el) == 2:
        markers = elephant_markers_of(el[0], el[1], g.passes)
    grid, note = draw_grid(stacks, markers, removed=removed, max_cols=max_cols, max_rows=max_rows)
    return Panel(
        grid,
        title=Text(title, no_wrap=True, overflow="ellipsis"),
        title_align="left",
        subtitle=Text(note) if note else None,
        subtitle_align="right",
        expand=False,
        padding=(0, 1),
        box=box.ROUNDED,
    )


def passes_left(g: GroundsView) -> int:
    return 2 - g.passes


def passes_words(g: GroundsView) -> str:
    """``2 passes left``, ``1 pass left``, ``no pass left`` (G3)."""
    n = passes_left(g)
    return "no pass left" if n == 0 else "1 pass left" if n == 1 else f"{n} passes left"


def grounds_summary(view: PlayerView, seat: int, name: str) -> Text:
    """One line for a grounds when there is no room to draw it: tiles, passes, top colors."""
    g = view.grounds[seat]
    tops = Counter(s[-1][0].color for _, s in g.stacks)
    tiles = sum(len(s) for _, s in g.stacks) - 1  # the start tile aside
    mover = "> " if view.to_move == seat else ""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{mover}{name} {COLOR_LETTER[g.color]}={g.color}", style="bold")
    text.append(f": {tiles} tiles, {passes_words(g)}; on top")
    for color in COLOR_LETTER:
        if tops[color]:
            text.append(" ")
            text.append(f"{COLOR_LETTER[color]}{tops[color]}", style=COLOR_STYLE[color])
    return text


def grounds_panel(
    view: PlayerView,
    seat: int,
    name: str,
    *,
    marks: Mapping[Cell, str] | None = None,
    removed: Sequence[Cell] = (),
    max_cols: int = 14,
    max_rows: int = 12,
) -> Panel:
    """One player's grounds in a frame titled with name, color and passes left."""
    g = view.grounds[seat]
    grid, note = grounds_grid(g, marks=marks, removed=removed, max_cols=max_cols, max_rows=max_rows)
    mover = "> " if view.to_move == seat else ""
    title = Text(
        f"{mover}{name} {COLOR_LETTER[g.color]}={g.color}, {passes_words(g)}",
        no_wrap=True,
        overflow="ellipsis",
    )
    return Panel(
        grid,
        title=title,
        title_align="left",
        subtitle=Text(note) if note else None,
        subtitle_align="right",
        expand=False,
        padding=(0, 1),
        box=box.ROUNDED,
    )


def max_cols_for(width: int) -> int:
    """How many cells fit across a terminal ``width`` wide (frame, padding and labels aside)."""
    return max(3, (width - 4 - LABEL_WIDTH) // CELL_WIDTH)


def status_line(view: PlayerView, names: Sequence[str]) -> Text:
    """Round, bag count, whose turn, the display, passes left per player."""
    rounds = view.round + 1 + view.bag_count // view.n
    who = view.to_move
    turn = f"{names[who]} ({view.colors[who]}) to move" if who is not None else "game over"
    text = Text(no_wrap=False)
    text.append(f"Round {view.round + 1}/{rounds} · bag {view.bag_count} · {turn}", style="bold")
    text.append(" · display: ")
    if view.display:
        for i, t in enumerate(view.display):
            if i:
                text.append(" ")
            text.append(tile_code(t), style=COLOR_STYLE[t.color])
    else:
        text.append("(empty)")
    return text


def board(
    view: PlayerView,
    names: Sequence[str],
    *,
    width: int,
    height: int,
    focus_seat: int | None,
    marks: Mapping[Cell, str] | None = None,
    removed: Mapping[int, Sequence[Cell]] | None = None,
    full: bool = False,
) -> RenderableType:
    """Every grounds, the focus seat's last (nearest the prompt) and marked, then the status.

    Panels flow side by side when they fit in ``width``; ``full`` draws every grounds whole
    (``v``), however tall.
    """
    cols = max_cols_for(width)
    removed = removed or {}
    others = [s for s in range(view.n) if s != focus_seat]
    # With a player to focus on, the others get less height: the focus sits above the prompt.
    if full:
        other_rows = height
    elif focus_seat is not None:
        other_rows = max(4, min(10, height - 14))
    else:
        other_rows = max(4, height - 6)
    panels: list[RenderableType] = [
        grounds_panel(
            view,
            s,
            names[s],
            removed=removed.get(s, ()),
            max_cols=cols,
            max_rows=other_rows,
        )
        for s in others
    ]
    if focus_seat is not None:
        panels.append(
            grounds_panel(
                view,
                focus_seat,
                names[focus_seat],
                marks=marks,
                removed=removed.get(focus_seat, ()),
                max_cols=cols,
                max_rows=max(4, height - 11),
            )
        )
    return Group(Columns(panels, padding=(0, 1)), status_line(view, names))


def turn_board(
    view: PlayerView,
    names: Sequence[str],
    seat: int,
    *,
    width: int,
    height: int,
    marks: Mapping[Cell, str] | None = None,
    measure: Callable[[RenderableType], int],
    others: bool = True,
) -> RenderableType:
    """The board of a human turn, fitted into ``height`` lines of a ``width``-wide terminal.

    ``height`` is what is left above the question, its menu and the prompt; ``measure`` counts
    the lines a renderable takes. The player's own grounds always keep the numbered choices and
    the elephants in view (scrolled to them when the grounds are taller than the room left). The
    others' grounds are drawn when there is room, shortened if need be, else summarised in a
    line each, else left out with a note (``v`` shows them all).
    """
    cols = max_cols_for(width)
    marks = marks or {}
    g = view.grounds[seat]
    full, need = rows_wanted(g, marks)
    status = status_line(view, names)
    room = height - (measure(status) if others else 0)

    def own(rows: int) -> RenderableType:
        return grounds_panel(
            view, seat, names[seat], marks=marks, max_cols=cols, max_rows=max(1, rows)
        )

    def stack(*parts: RenderableType) -> RenderableType:
        return Group(*parts, status) if others else Group(*parts)

    rest = [s for s in range(view.n) if s != seat]
    if not others:
        # Later questions of a turn: the own grounds, the others in a line each if room is left.
        if room - 3 - len(rest) >= full:
            return Group(*(grounds_summary(view, s, names[s]) for s in rest), own(full))
        return stack(own(min(full, max(1, room - 3))))
    for other_rows in (10, 6, 4):
        panels = Columns(
            [grounds_panel(view, s, names[s], max_cols=cols, max_rows=other_rows) for s in rest],
            padding=(0, 1),
        )
        left = room - measure(panels) - 3
        if left >= full or (other_rows < 10 and left >= need):
            return stack(panels, own(min(full, left)))
    summary = Group(*(grounds_summary(view, s, names[s]) for s in rest))
    left = room - len(rest) - 3
    if left >= need:
        return stack(summary, own(min(full, left)))
    note = Text(f"{len(rest)} other grounds not shown: v shows every grounds", style="dim")
    return stack(note, own(max(1, min(full, room - 4))))


def advice(d: Decision) -> str:
    """A decision as advice, in the imperative (hints): ``take G2 (green:e2) to (1, 0) …``."""
    if isinstance(d, Pass):
        return "pass (lay an elephant down)"
    if isinstance(d, Place):
        arch = f", facing {d.arch}" if d.arch else ""
        return f"take {tile_code(d.take)} ({d.take.name}) to {_c(d.to)} from {_c(d.from_)}{arch}"
    if isinstance(d, MoveElephant):
        return f"move the elephant from {_c(d.from_)} to {_c(d.to)}"
    if isinstance(d, MoveStack):
        return f"move the stack from {_c(d.from_)} to {_c(d.to)}"
    assert isinstance(d, FollowUpSkip)
    return "skip the special tile's move"


def _c(c: Cell) -> str:
    return f"({c[0]}, {c[1]})"


def fmt_cell(c: Cell) -> str:
    """``(x, y)`` as the menus write it."""
    return _c(c)
