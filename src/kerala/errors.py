"""The engine's exceptions. All subclass :class:`KeralaError`, itself a ``ValueError``."""

from __future__ import annotations

import json


def shown_as_json(value: object) -> str:
    """A value in a message about JSON input, as JSON shows it, not in Python's form.

    Every part writes the values of its refusals this way, so that a client reads back what
    it sent.

    >>> shown_as_json("a"), shown_as_json((5, 5)), shown_as_json(True), shown_as_json(None)
    ('"a"', '[5, 5]', 'true', 'null')
    >>> shown_as_json("Ärger"), shown_as_json({1j})
    ('"Ärger"', '{1j}')
    """
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON at all (never from outside input, which is JSON)
        return repr(value)


class KeralaError(ValueError):
    """Base class of every error the engine raises about bad input."""


class TileSetError(KeralaError):
    """A tile set (package data or user file) is malformed or inconsistent."""


class SetupError(KeralaError):
    """A game cannot be set up as asked (players, colors, removal; docs/rules.md S1–S4)."""


class IllegalDecisionError(KeralaError):
    """A decision is not legal in this state. ``rule`` names the docs/rules.md rule broken."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule
        self.reason = message


class IllegalRemovalError(KeralaError):
    """A choice of surplus areas that SC1 does not allow (cells off the grounds, part of an
    area, or the wrong number of areas of a color)."""


class IllegalDrawError(KeralaError):
    """A tile was imposed as drawn that the bag could not have produced."""


class NotationError(KeralaError):
    """A game record or grounds document is malformed or breaks the rules.

    ``round`` and ``turn`` say where the document went wrong: 0-based indexes into the
    document's lists (or ``None``), for programs. The message counts the way the game shows
    rounds and turns, from 1 ("round 3, turn 1" is ``rounds[2].turns[0]``).
    """

    def __init__(self, message: str, round: int | None = None, turn: int | None = None) -> None:
        where = []
        if round is not None:
            where.append(f"round {round + 1}")
        if turn is not None:
            where.append(f"turn {turn + 1}")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
        self.round = round
        self.turn = turn
        self.reason = message
