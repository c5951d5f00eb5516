"""The engine's exceptions. All subclass :class:`KeralaError`, itself a ``ValueError``."""

from __future__ import annotations


class KeralaError(ValueError):
    """Base class of every error the engine raises about bad input."""


class TileSetError(KeralaError):
    """A tile set (package data or user file) is malformed or inconsistent."""


class SetupError(KeralaError):
    """A game cannot be set up as asked (players, colors, removal; RULES.md S1–S4)."""


class IllegalDecisionError(KeralaError):
    """A decision is not legal in this state. ``rule`` names the RULES.md rule broken."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule
        self.reason = message


class IllegalDrawError(KeralaError):
    """A tile was imposed as drawn that the bag could not have produced."""


class NotationError(KeralaError):
    """A game record or grounds document is malformed or breaks the rules.

    ``round`` and ``turn`` (0-based, or ``None``) say where the document went wrong.
    """

    def __init__(self, message: str, round: int | None = None, turn: int | None = None) -> None:
        where = []
        if round is not None:
            where.append(f"round {round}")
        if turn is not None:
            where.append(f"turn {turn}")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
        self.round = round
        self.turn = turn
        self.reason = message
