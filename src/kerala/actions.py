"""Decisions: frozen values whose JSON is the turn form of NOTATION.md.

A player's turn is a :class:`Pass` or a :class:`Place`. After placing a special tile the same
player makes a follow-up decision: :class:`MoveElephant` (SP1), :class:`MoveStack` (SP2) or
:class:`FollowUpSkip`. In a game record a follow-up is folded into its placement's turn object
(``"move_elephant"``, ``"move_stack"``); as a decision on its own its JSON is that field with the
seat, or ``{"seat": s, "skip": true}``.

>>> from kerala.tiles import tile
>>> d = Place(0, tile("blue:arch-red"), (1, 0), (0, 0), "N")
>>> d.to_json()
{'seat': 0, 'take': 'blue:arch-red', 'to': [1, 0], 'from': [0, 0], 'arch': 'N'}
>>> decision_from_json(d.to_json()) == d
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kerala.errors import KeralaError
from kerala.tiles import EDGES, TILE_TYPES, Edge, TileType

Cell = tuple[int, int]
Seat = int


class DecisionSyntaxError(KeralaError):
    """A JSON object is not a well-formed decision (turn form of NOTATION.md)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """G3: lay an elephant down instead of taking a tile."""

    seat: Seat

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "pass": True}


@dataclass(frozen=True, slots=True)
class Place:
    """P1–P6: take ``take`` from the display, put it on ``to``, move the elephant from ``from_``."""

    seat: Seat
    take: TileType
    to: Cell
    from_: Cell
    arch: Edge | None = None

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


@dataclass(frozen=True, slots=True)
class MoveElephant:
    """SP1 follow-up: move the elephant on ``from_`` to the stack at ``to``."""

    seat: Seat
    from_: Cell
    to: Cell

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "move_elephant": {"from": list(self.from_), "to": list(self.to)}}


@dataclass(frozen=True, slots=True)
class MoveStack:
    """SP2 follow-up: move the whole stack on ``from_`` to the empty cell ``to``."""

    seat: Seat
    from_: Cell
    to: Cell

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "move_stack": {"from": list(self.from_), "to": list(self.to)}}


@dataclass(frozen=True, slots=True)
class FollowUpSkip:
    """Decline the optional follow-up of a special tile (SP1, SP2)."""

    seat: Seat

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "skip": True}


Decision = Pass | Place | MoveElephant | MoveStack | FollowUpSkip
FollowUp = MoveElephant | MoveStack | FollowUpSkip


def _cell(value: object, where: str) -> Cell:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise DecisionSyntaxError(f"{where} must be a cell [x, y] of two integers, got {value!r}")
    return (value[0], value[1])


def _seat(obj: dict[str, Any]) -> Seat:
    s = obj.get("seat")
    if not isinstance(s, int) or isinstance(s, bool) or s < 0:
        raise DecisionSyntaxError(f"'seat' must be an integer >= 0, got {s!r}")
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
    return _cell(obj["from"], f"{name}.from"), _cell(obj["to"], f"{name}.to")


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
            raise DecisionSyntaxError(f"unknown tile {name!r} in 'take'")
        if "to" not in obj or "from" not in obj:
            raise DecisionSyntaxError("a placement needs 'to' and 'from'")
        arch = obj.get("arch")
        if arch is not None and arch not in EDGES:
            raise DecisionSyntaxError(f"'arch' must be one of N, E, S, W, got {arch!r}")
        if t.is_arch and arch is None:
            raise DecisionSyntaxError(f"placing the arch tile {t.name} needs 'arch' (N, E, S, W)")
        if not t.is_arch and arch is not None:
            raise DecisionSyntaxError(f"{t.name} is not an arch tile: 'arch' is not allowed")
        return Place(seat, t, _cell(obj["to"], "to"), _cell(obj["from"], "from"), arch)
    if "move_elephant" in obj:
        _keys(obj, {"seat", "move_elephant"})
        a, b = _move(obj["move_elephant"], "move_elephant")
        return MoveElephant(seat, a, b)
    if "move_stack" in obj:
        _keys(obj, {"seat", "move_stack"})
        a, b = _move(obj["move_stack"], "move_stack")
        return MoveStack(seat, a, b)
    raise DecisionSyntaxError(
        "a decision needs one of 'pass', 'take', 'move_elephant', 'move_stack', 'skip'"
    )


def decision_to_json(d: Decision) -> dict[str, Any]:
    return d.to_json()
