"""The game service's model and its refusals, with no HTTP in them.

The service (:mod:`kerala.server.service`) raises these errors; the routes turn them into
responses in one place (:func:`kerala.server.errors.refusal`). Each error carries a short code
and a message saying what was wrong; messages never carry hidden information (docs/rules.md I2) and
show values as JSON (``"abc"``, ``[5, 5]``, ``true``), not as Python reprs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from kerala.actions import Decision
from kerala.clocks import Clock, clock_kinds, running_seat
from kerala.errors import shown_as_json
from kerala.game import GameState
from kerala.views import PlayerView
from kerala.vocabulary import Removal

#: Values in messages, as JSON shows them (one writer for every part).
js = shown_as_json

if TYPE_CHECKING:
    from kerala.server.wire import Snapshot


#: A game's status: seats still free, in play, or finished (G4).
GameStatus = Literal["open", "playing", "over"]
#: Who plays a seat: a person (with a token), a bot, or nobody yet (a lobby's free seat).
SeatKind = Literal["human", "bot", "open"]
#: The kinds of a game's events (docs/api.md, "Events"): a decision; a seat handed to a bot,
#: timed out or taken back; a hint asked for; a free seat taken; an early start; a rematch made.
EventKind = Literal["decision", "seat", "hint", "join", "start", "rematch"]


class GameError(Exception):
    """A refused operation on a game: a short code, a message, and optional extra fields."""

    code = "error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class GameNotFound(GameError):
    code = "not_found"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game with id {js(game_id)}")


class SeatNotFound(GameError):
    code = "not_found"


class BadToken(GameError):
    """The token is none of this game's seat tokens, or plays another seat."""

    code = "bad_token"


class StaleDecision(GameError):
    """The decision number sent is not the current one (stale, duplicate or raced)."""

    code = "stale"


class NotYourTurn(GameError):
    code = "not_your_turn"


class BadDecision(GameError):
    """A decision that is not a decision (syntax)."""

    code = "bad_decision"


class IllegalDecision(GameError):
    """A well-formed decision the rules refuse; ``rule`` names the rule broken."""

    code = "illegal"


class PlayerNotFound(GameError):
    """No account has that handle (a profile asked for)."""

    code = "not_found"


class StepNotFound(GameError):
    """The tutorial has no step of that name."""

    code = "not_found"


class InvalidRequest(GameError):
    """Arguments the service refuses (a seat out of range, an unknown level or tile…)."""

    code = "invalid_request"


class Conflict(GameError):
    """The game is not in a state that allows this (over, already a bot, changed meanwhile)."""

    code = "conflict"


class HintsOff(GameError):
    """The game was created without hints (a setting every seat sees)."""

    code = "hints_off"


class Busy(Conflict):
    """Something that runs one at a time per game is running already."""


class AccountError(GameError):
    """A refused account operation (docs/accounts.md)."""

    code = "account_error"


class SignInFailed(AccountError):
    """Wrong handle, password or passkey: the message never says which (no account probing)."""

    code = "signin_failed"


class NotSignedIn(AccountError):
    """No valid session: never signed in, signed out, or expired."""

    code = "not_signed_in"


class HandleTaken(AccountError):
    code = "handle_taken"


class CeremonyFailed(AccountError):
    """A passkey ceremony that cannot complete: unknown, expired or used challenge, or a
    response the WebAuthn checks refuse."""

    code = "passkey_refused"


class CsrfRefused(AccountError):
    """A state-changing request from another site, or without the session's CSRF token."""

    code = "csrf"


@dataclass
class Seat:
    """One seat as the service knows it (the token only as its hash)."""

    seat: int
    name: str
    color: str
    kind: SeatKind
    bot: str | None
    handed_to_bot: bool
    token_hash: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "color": self.color,
            "kind": self.kind,
            "bot": self.bot,
            "handed_to_bot": self.handed_to_bot,
        }


@dataclass
class Live:
    """A game replayed in this process; valid while ``event_count`` matches the database."""

    id: str
    status: GameStatus
    removal: Removal
    tileset: str
    seats: list[Seat]
    state: GameState
    decision_count: int
    event_count: int
    turn_started_at: dt.datetime
    created_at: dt.datetime
    updated_at: dt.datetime
    result: dict[str, Any] | None
    snap: Snapshot | None = None
    #: The game's clocks, if it has a time control (:mod:`kerala.clocks`).
    clock: Clock | None = None
    #: Whether a seat may ask for a hint (a setting chosen at creation, public).
    hints: bool = False
    #: The bot level that takes a seat handed over (chosen at creation).
    handover_bot: str = "easy"
    #: Whether the game is rated (chosen at creation, public).
    rated: bool = False
    #: The hints taken, for everyone's log: ``{"at": decisions before, "seat": s}``.
    hints_taken: list[dict[str, int]] = field(default_factory=list)

    def running(self) -> int | None:
        """The seat whose clock runs now (``None``: no clock, or none runs)."""
        if self.clock is None:
            return None
        return running_seat(self.status, self.state.to_move, clock_kinds(self.seats, self.clock))

    # The guards that every operation on a game in play shares, written once.

    def not_started(self) -> str:
        """Why a game still open refuses play: its free seats."""
        free = ", ".join(str(s.seat) for s in self.seats if s.kind == "open")
        return f"the game starts when every seat is taken: seat(s) {free} are free"

    def check_in_play(self, refusal: type[GameError], over: str = "the game is over (G4)") -> None:
        """Refuse (``refusal``) what only a game in play allows, once it is over or before it
        has started."""
        if self.status == "over":
            raise refusal(over)
        if self.status == "open":
            raise refusal(self.not_started())

    def seat_at(self, seat: int, refusal: type[GameError] = SeatNotFound) -> Seat:
        """The seat numbered ``seat``; ``refusal`` if the game has no such seat."""
        if not 0 <= seat < len(self.seats):
            raise refusal(f"this game has seats 0 to {len(self.seats) - 1}, not {seat}")
        return self.seats[seat]

    def check_person(self, seat: int, why: str = "") -> None:
        """Refuse (:class:`NotYourTurn`) what only a person's seat may do."""
        if self.seats[seat].kind == "bot":
            raise NotYourTurn(f"seat {seat} is played by a bot for the rest of the game{why}")


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a game (docs/api.md, "Events"): its number in the game, its kind and its
    fields. The one form of an event from the repository, through the service and between
    processes, to the sockets; its JSON (:meth:`to_json`) is what is stored and sent.

    >>> e = Event.from_json({"number": 3, "kind": "hint", "seat": 1, "at": 2})
    >>> e.kind, e.data["seat"], e.to_json()
    ('hint', 1, {'number': 3, 'kind': 'hint', 'seat': 1, 'at': 2})
    """

    number: int
    kind: EventKind
    #: The kind's own fields (read only).
    data: Mapping[str, Any]

    @classmethod
    def of(cls, number: int, kind: EventKind, data: Mapping[str, Any]) -> Event:
        return cls(number, kind, MappingProxyType(dict(data)))

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Event:
        """An event from its JSON (stored, or from another process: written by :meth:`to_json`)."""
        data = {k: v for k, v in obj.items() if k not in ("number", "kind")}
        return cls(int(obj["number"]), obj["kind"], MappingProxyType(data))

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "kind": self.kind, **self.data}


@dataclass(frozen=True)
class BotJob:
    """What a bot needs to think: its view and legal decisions only (I1, I2)."""

    game_id: str
    seat: int
    spec: str
    view: PlayerView
    legal: Sequence[Decision]
    expected: int
