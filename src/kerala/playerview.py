"""The public picture of a game (docs/rules.md I1) as frozen values, and its drawing in text.

:class:`PlayerView` and :class:`GroundsView` hold what anyone at the table may see and nothing
else (I2). :meth:`kerala.game.GameState.view` builds them, and :mod:`kerala.views` turns them
back into states; they live in this module of their own so that the game state can build them
while ``views`` imports ``game`` and not the reverse.

``str()`` of a view draws it: a status line, the display, then each grounds as a grid of the
terminal's four-character cells (docs/terminal.md), so that ``print(state)`` shows the game.

>>> from kerala.tiles import tile
>>> cell_text(((tile("green:e2"), None),), "@")
'G2 @'
>>> cell_text(((tile("blue:start"), None), (tile("red:arch-green"), "E")), "")
'R>g2'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from kerala.actions import Decision, decision_from_json
from kerala.grounds import Grounds, Stack
from kerala.pickled import Reduced, reduced
from kerala.scoring import score_grounds
from kerala.tiles import ARROW, COLOR_LETTER, KIND_CHAR, TILE_TYPES, TileType
from kerala.vocabulary import PhaseName, Removal, Special

Cell = tuple[int, int]

#: Elephant markers of a cell: standing, lying (after a pass, G3), both on one cell (S2).
STANDING: Final = "@"
LYING: Final = "z"
BOTH: Final = "&"


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

    def __str__(self) -> str:
        return grounds_text(self)

    def __reduce__(self) -> Reduced:
        return reduced(self)


@dataclass(frozen=True, repr=False)
class PlayerView:
    """The public state plus the viewer's seat (``None`` for a watcher)."""

    seat: int | None
    colors: tuple[str, ...]
    tileset: str
    tileset_counts: tuple[tuple[TileType, int], ...]
    removal: Removal
    removed: tuple[TileType, ...] | None
    to_remove: int
    grounds: tuple[GroundsView, ...]
    display: tuple[TileType, ...]
    bag_count: int
    round: int
    turn: int
    phase: PhaseName
    to_move: int | None
    pending: Special | None
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

    def __repr__(self) -> str:
        who = "a watcher" if self.seat is None else f"seat {self.seat}"
        return (
            f"<PlayerView of {who}: {self.n} players, round {self.round}, {self.phase}, "
            f"to move {self.to_move}, bag {self.bag_count}>"
        )

    def __str__(self) -> str:
        lines = [
            f"round {self.round}  phase {self.phase}  to move {self.to_move}  bag {self.bag_count}",
            "display: " + (" ".join(t.code for t in self.display) or "-"),
        ]
        for seat, g in enumerate(self.grounds):
            score = f", score {score_grounds(g.to_grounds()).total}" if self.phase == "over" else ""
            lines.append(f"seat {seat} {g.color}: {2 - g.passes} elephants standing{score}")
            lines.append(grounds_text(g))
        return "\n".join(lines)

    def __reduce__(self) -> Reduced:
        return reduced(self)


# -- drawing ----------------------------------------------------------------------------------


def cell_text(stack: Stack, elephant: str) -> str:
    """The four characters of a cell: color, kind or arch edge, arch color or height, elephant."""
    t, edge = stack[-1]
    h = len(stack)
    height = " " if h < 2 else (str(h) if h < 10 else "+")
    c = COLOR_LETTER[t.color]
    if t.arch_color is not None:
        last = elephant or (height if h >= 2 else " ")
        return f"{c}{ARROW.get(edge or '', '?')}{COLOR_LETTER[t.arch_color].lower()}{last}"
    return f"{c}{KIND_CHAR[t.kind]}{height}{elephant or ' '}"


def elephant_markers(g: GroundsView) -> dict[Cell, str]:
    """Which cells hold an elephant, and how it is drawn.

    The engine counts passes, not which elephant lies (G3); the second elephant is drawn lying
    after the first pass, both after the second.
    """
    e0, e1 = g.elephants
    return elephant_markers_of(e0, e1, g.passes)


def elephant_markers_of(e0: Cell, e1: Cell, passes: int) -> dict[Cell, str]:
    """The markers of two elephants after ``passes`` passes (see :func:`elephant_markers`)."""
    if e0 == e1:
        return {e0: BOTH}
    return {
        e0: LYING if passes >= 2 else STANDING,
        e1: LYING if passes >= 1 else STANDING,
    }


def grounds_text(g: GroundsView) -> str:
    """A grounds as a grid: x labels on top, y labels on the left, ``.`` for an empty cell."""
    stacks = dict(g.stacks)
    marks = elephant_markers(g)
    xs = [x for x, _ in stacks]
    ys = [y for _, y in stacks]
    rows = ["    " + " ".join(f"{x:^4}" for x in range(min(xs), max(xs) + 1)).rstrip()]
    for y in range(min(ys), max(ys) + 1):
        cells = [
            cell_text(stacks[(x, y)], marks.get((x, y), "")) if (x, y) in stacks else " .  "
            for x in range(min(xs), max(xs) + 1)
        ]
        rows.append(f"{y:>3} " + " ".join(cells).rstrip())
    return "\n".join(rows)


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


__all__ = [
    "BOTH",
    "LYING",
    "STANDING",
    "GroundsView",
    "PlayerView",
    "cell_text",
    "elephant_markers",
    "elephant_markers_of",
    "grounds_text",
    "view_from_json",
]
