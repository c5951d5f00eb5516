"""Decisions: frozen values (:mod:`kerala.frozen`) whose JSON is the turn form of docs/notation.md.

A player's turn is a :class:`Pass` or a :class:`Place`. After placing a special tile the same
player makes a follow-up decision: :class:`MoveElephant` (SP1), :class:`MoveStack` (SP2) or
:class:`FollowUpSkip`. In a game record a follow-up is folded into its placement's turn object
(``"move_elephant"``, ``"move_stack"``); as a decision on its own its JSON is that field with the
seat, or ``{"seat": s, "skip": true}``.

>>> from kerala.tiles import tile
>>> d = Place(seat=0, take=tile("blue:arch-red"), to=(1, 0), from_=(0, 0), arch="N")
>>> d.to_json()
{'seat': 0, 'take': 'blue:arch-red', 'to': [1, 0], 'from': [0, 0], 'arch': 'N'}
>>> decision_from_json(d.to_json()) == d
True

Each decision also has a short text form, ``str(d)``, in the terminal's tile codes, which
:func:`parse_decision` reads back (the seat is not part of it; the caller or
:meth:`~kerala.game.GameState.parse_decision` supplies it):

>>> str(d), parse_decision(str(d), seat=0) == d
('Bar 0,0>1,0 N', True)
>>> [str(x) for x in (Pass(1), FollowUpSkip(1), MoveStack(seat=1, from_=(2, 0), to=(0, -1)))]
['pass', 'skip', 'stack 2,0>0,-1']
>>> describe(d)
'took Bar (blue:arch-red) to (1, 0) from (0, 0), facing N'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from kerala.errors import KeralaError, TileSetError, shown_as_json
from kerala.frozen import fields_repr, frozen, reduced_fields
from kerala.grounds import LIMIT
from kerala.pickled import Reduced
from kerala.tiles import EDGES, TILE_TYPES, Edge, TileType, tile_from_code

Cell = tuple[int, int]
Seat = int


class DecisionSyntaxError(KeralaError):
    """A JSON object is not a well-formed decision (turn form of docs/notation.md)."""


@mypyc_attr(acyclic=True)
class _Decision:
    """What every decision shares: a frozen value (kerala.frozen) that equals, hashes and
    prints like a dataclass of its ``FIELDS``."""

    __slots__ = ()
    #: The constructor's keywords, in order.
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return fields_repr(self)

    def __reduce__(self) -> Reduced:
        return reduced_fields(self)


@mypyc_attr(acyclic=True)
class _Seated(_Decision):
    """A decision that is only its seat's: :class:`Pass` and :class:`FollowUpSkip`."""

    FIELDS = ("seat",)
    __slots__ = FIELDS

    def __init__(self, seat: Seat) -> None:
        self.seat: Final = seat

    def _values(self) -> tuple[object, ...]:
        return (self.seat,)


@mypyc_attr(acyclic=True)
class _Move(_Decision):
    """A follow-up move from one cell to another: :class:`MoveElephant` and :class:`MoveStack`."""

    FIELDS = ("seat", "from_", "to")
    __slots__ = FIELDS

    def __init__(self, *, seat: Seat, from_: Cell, to: Cell) -> None:
        self.seat: Final = seat
        self.from_: Final = from_
        self.to: Final = to

    def _values(self) -> tuple[object, ...]:
        return (self.seat, self.from_, self.to)


@mypyc_attr(acyclic=True)
class Pass(_Seated):
    """G3: lay an elephant down instead of taking a tile."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "pass": True}

    def __str__(self) -> str:
        return "pass"


@mypyc_attr(acyclic=True)
class Place(_Decision):
    """P1–P6: take ``take`` from the display, put it on ``to``, move the elephant from ``from_``."""

    FIELDS = ("seat", "take", "to", "from_", "arch")
    __slots__ = FIELDS

    def __init__(
        self, *, seat: Seat, take: TileType, to: Cell, from_: Cell, arch: Edge | None = None
    ) -> None:
        self.seat: Final = seat
        self.take: Final = take
        self.to: Final = to
        self.from_: Final = from_
        self.arch: Final = arch

    def _values(self) -> tuple[object, ...]:
        return (self.seat, self.take, self.to, self.from_, self.arch)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "seat": self.seat,
            "take": self.take.name,
            "to": list(self.to),
            "from": list(self.from_),
        }
        if self.arch is not None:
            d["arch"] = self.arch
        return d

    def __str__(self) -> str:
        edge = f" {self.arch}" if self.arch is not None else ""
        return f"{self.take.code} {_xy(self.from_)}>{_xy(self.to)}{edge}"


@mypyc_attr(acyclic=True)
class MoveElephant(_Move):
    """SP1 follow-up: move the elephant on ``from_`` to the stack at ``to``."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "move_elephant": {"from": list(self.from_), "to": list(self.to)}}

    def __str__(self) -> str:
        return f"elephant {_xy(self.from_)}>{_xy(self.to)}"


@mypyc_attr(acyclic=True)
class MoveStack(_Move):
    """SP2 follow-up: move the whole stack on ``from_`` to the empty cell ``to``."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "move_stack": {"from": list(self.from_), "to": list(self.to)}}

    def __str__(self) -> str:
        return f"stack {_xy(self.from_)}>{_xy(self.to)}"


@mypyc_attr(acyclic=True)
class FollowUpSkip(_Seated):
    """Decline the optional follow-up of a special tile (SP1, SP2)."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "skip": True}

    def __str__(self) -> str:
        return "skip"


# The classes with a constructor of their own; the others inherit theirs.
for _cls in (_Seated, _Move, Place):
    frozen(_cls)


Decision = Pass | Place | MoveElephant | MoveStack | FollowUpSkip
FollowUp = MoveElephant | MoveStack | FollowUpSkip


def _xy(c: Cell) -> str:
    return f"{c[0]},{c[1]}"


def cell_json(c: tuple[int, int]) -> str:
    """A cell in messages, as JSON writes it: ``[5, 5]``."""
    return f"[{c[0]}, {c[1]}]"


def parse_cell(value: object, where: str) -> Cell:
    """A cell ``[x, y]`` read from JSON (decisions, records, grounds documents).

    Two integers within ±:data:`~kerala.grounds.LIMIT` (P6); anything else raises
    :class:`DecisionSyntaxError` saying ``where`` and what was wrong.
    """
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise DecisionSyntaxError(
            f"{where} must be a cell [x, y] of two integers, got {shown_as_json(value)}"
        )
    if not all(-LIMIT <= v <= LIMIT for v in value):
        raise DecisionSyntaxError(
            f"P6: {where}: {shown_as_json(list(value))} is outside the coordinate range ±{LIMIT}"
        )
    return (value[0], value[1])


def _seat(obj: dict[str, Any]) -> Seat:
    s = obj.get("seat")
    if not isinstance(s, int) or isinstance(s, bool) or s < 0:
        raise DecisionSyntaxError(f"'seat' must be an integer >= 0, got {shown_as_json(s)}")
    return s


def _keys(obj: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise DecisionSyntaxError(f"unexpected field(s) {', '.join(extra)}")


def _move(obj: object, name: str) -> tuple[Cell, Cell]:
    if not isinstance(obj, dict):
        raise DecisionSyntaxError(f'\'{name}\' must be an object {{"from", "to"}}')
    _keys(obj, {"from", "to"})
    if "from" not in obj or "to" not in obj:
        raise DecisionSyntaxError(f"'{name}' needs both 'from' and 'to'")
    return parse_cell(obj["from"], f"{name}.from"), parse_cell(obj["to"], f"{name}.to")


def decision_from_json(obj: object) -> Decision:
    """Parse one decision; raises :class:`DecisionSyntaxError` with what was wrong."""
    if not isinstance(obj, dict):
        raise DecisionSyntaxError("a decision must be a JSON object")
    seat = _seat(obj)
    if "pass" in obj:
        _keys(obj, {"seat", "pass"})
        if obj["pass"] is not True:
            raise DecisionSyntaxError("'pass' must be true")
        return Pass(seat)
    if "skip" in obj:
        _keys(obj, {"seat", "skip"})
        if obj["skip"] is not True:
            raise DecisionSyntaxError("'skip' must be true")
        return FollowUpSkip(seat)
    if "take" in obj:
        _keys(obj, {"seat", "take", "to", "from", "arch"})
        name = obj["take"]
        t = TILE_TYPES.get(name) if isinstance(name, str) else None
        if t is None or t.kind == "start":
            raise DecisionSyntaxError(f"unknown tile {shown_as_json(name)} in 'take'")
        if "to" not in obj or "from" not in obj:
            raise DecisionSyntaxError("a placement needs 'to' and 'from'")
        arch = obj.get("arch")
        if arch is not None and arch not in EDGES:
            raise DecisionSyntaxError(
                f"'arch' must be one of N, E, S, W, got {shown_as_json(arch)}"
            )
        if t.is_arch and arch is None:
            raise DecisionSyntaxError(f"placing the arch tile {t.name} needs 'arch' (N, E, S, W)")
        if not t.is_arch and arch is not None:
            raise DecisionSyntaxError(f"{t.name} is not an arch tile: 'arch' is not allowed")
        return Place(
            seat=seat,
            take=t,
            to=parse_cell(obj["to"], "to"),
            from_=parse_cell(obj["from"], "from"),
            arch=arch,
        )
    if "move_elephant" in obj:
        _keys(obj, {"seat", "move_elephant"})
        a, b = _move(obj["move_elephant"], "move_elephant")
        return MoveElephant(seat=seat, from_=a, to=b)
    if "move_stack" in obj:
        _keys(obj, {"seat", "move_stack"})
        a, b = _move(obj["move_stack"], "move_stack")
        return MoveStack(seat=seat, from_=a, to=b)
    raise DecisionSyntaxError(
        "a decision needs one of 'pass', 'take', 'move_elephant', 'move_stack', 'skip'"
    )


def decision_to_json(d: Decision) -> dict[str, Any]:
    return d.to_json()


# -- turns: a placement with its follow-up folded in (docs/notation.md) --------------------------

#: The fields of a turn object that hold its follow-up move (SP1, SP2).
FOLLOW_UP_FIELDS: Final = ("move_elephant", "move_stack")
_FOLLOW_UP_FIELD: Final = {"move-elephant": "move_elephant", "move-tile": "move_stack"}
_FOLLOW_UP_RULE: Final = {"move-elephant": "SP1", "move-tile": "SP2"}


def turn_to_json(d: Decision, follow_up: Decision | None = None) -> dict[str, Any]:
    """A turn object: ``d`` with its follow-up's move folded in (a skip adds nothing)."""
    out = d.to_json()
    if isinstance(follow_up, MoveElephant | MoveStack):
        out.update({k: v for k, v in follow_up.to_json().items() if k != "seat"})
    return out


def turn_from_json(obj: Mapping[str, Any]) -> tuple[Pass | Place, MoveElephant | MoveStack | None]:
    """Split a turn object into its decision and the follow-up move folded into it, if any.

    Checks the form only (docs/notation.md): one follow-up field at most, after a special tile of
    its kind. Whether the moves are legal is the engine's question.
    """
    fields = [k for k in FOLLOW_UP_FIELDS if k in obj]
    if len(fields) > 1:
        raise DecisionSyntaxError("a turn has at most one of 'move_elephant' and 'move_stack'")
    d = decision_from_json({k: v for k, v in obj.items() if k not in FOLLOW_UP_FIELDS})
    if not isinstance(d, Pass | Place):
        raise DecisionSyntaxError("a turn takes a tile ('take') or passes ('pass': true)")
    if not fields:
        return d, None
    if not isinstance(d, Place) or d.take.special is None:
        raise DecisionSyntaxError(
            "'move_elephant' and 'move_stack' follow only a special tile (SP1, SP2)"
        )
    allowed = _FOLLOW_UP_FIELD[d.take.special]
    if fields[0] != allowed:
        rule = _FOLLOW_UP_RULE[d.take.special]
        raise DecisionSyntaxError(f"{rule}: {d.take.name} allows '{allowed}', not '{fields[0]}'")
    fu = decision_from_json({"seat": d.seat, allowed: obj[allowed]})
    assert isinstance(fu, MoveElephant | MoveStack)
    return d, fu


# -- the short text form ---------------------------------------------------------------------

_NUM = r"\s*(-?\d+)\s*"
_TEXT: Final = re.compile(
    rf"(?P<what>\S+)\s+{_NUM},{_NUM}>{_NUM},{_NUM}(?:\s+(?P<edge>\S+))?\s*",
)
_MOVES: Final[dict[str, type[MoveElephant] | type[MoveStack]]] = {
    "elephant": MoveElephant,
    "stack": MoveStack,
}


def parse_decision(text: str, seat: Seat) -> Decision:
    """Read the short text form of a decision (``str(d)``) as a decision of ``seat``.

    ``pass``, ``skip``, ``G2 0,0>1,0`` (take G2, elephant from (0, 0) to (1, 0)),
    ``Rak 0,0>1,0 N`` (an arch and the edge it faces), ``elephant 1,0>3,1`` (SP1),
    ``stack 2,0>0,-1`` (SP2). A tile may also be written by its docs/notation.md name. Raises
    :class:`DecisionSyntaxError` on anything else.
    """
    words = text.strip()
    if words.lower() == "pass":
        return Pass(seat)
    if words.lower() == "skip":
        return FollowUpSkip(seat)
    m = _TEXT.fullmatch(words)
    if m is None:
        raise DecisionSyntaxError(
            f"not a decision: {text!r} (write e.g. 'pass', 'skip', 'G2 0,0>1,0', "
            "'Rak 0,0>1,0 N', 'elephant 0,0>2,1' or 'stack 1,0>2,0')"
        )
    what, edge = m["what"], m["edge"]
    frm = parse_cell((int(m[2]), int(m[3])), "from")
    to = parse_cell((int(m[4]), int(m[5])), "to")
    move = _MOVES.get(what.lower())
    if move is not None:
        if edge is not None:
            raise DecisionSyntaxError(f"a {what.lower()} move takes no edge, got {edge!r}")
        return move(seat=seat, from_=frm, to=to)
    try:
        t = TILE_TYPES[what] if ":" in what else tile_from_code(what)
    except (KeyError, TileSetError):
        raise DecisionSyntaxError(f"unknown tile {what!r} (a code like G2 or Rak)") from None
    if t.kind == "start":
        raise DecisionSyntaxError(f"{what} is a start tile: it is never taken")
    if t.is_arch and edge not in EDGES:
        raise DecisionSyntaxError(f"placing the arch tile {t.code} needs its edge N, E, S or W")
    if not t.is_arch and edge is not None:
        raise DecisionSyntaxError(f"{t.code} is not an arch tile: it takes no edge")
    return Place(seat=seat, take=t, to=to, from_=frm, arch=edge)


# -- decisions in words ----------------------------------------------------------------------


def _words_cell(c: Cell) -> str:
    return f"({c[0]}, {c[1]})"


def describe(d: Decision, *, place: Place | None = None) -> str:
    """A decision in words, for move logs, menus and hints.

    ``place`` is the placement a skip follows, so that the skip can say which special tile.
    """
    if isinstance(d, Pass):
        return "passed (an elephant lies down)"
    if isinstance(d, Place):
        arch = f", facing {d.arch}" if d.arch else ""
        where = f"to {_words_cell(d.to)} from {_words_cell(d.from_)}"
        return f"took {d.take.code} ({d.take.name}) {where}{arch}"
    if isinstance(d, MoveElephant):
        return f"moved the elephant from {_words_cell(d.from_)} to {_words_cell(d.to)}"
    if isinstance(d, MoveStack):
        return f"moved the stack from {_words_cell(d.from_)} to {_words_cell(d.to)}"
    what = place.take.special if place is not None else "special tile"
    return f"skipped the {what} follow-up"


__all__ = [
    "FOLLOW_UP_FIELDS",
    "Decision",
    "DecisionSyntaxError",
    "FollowUp",
    "FollowUpSkip",
    "MoveElephant",
    "MoveStack",
    "Pass",
    "Place",
    "decision_from_json",
    "decision_to_json",
    "describe",
    "parse_cell",
    "parse_decision",
    "turn_from_json",
    "turn_to_json",
]
