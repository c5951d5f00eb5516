"""Request and response models of the HTTP API (they make the OpenAPI document).

The ladder follows full-stack-fastapi-template: ``GameCreate`` in, ``GameCreated`` and ``Game``
out. Views, decisions and documents are the engine's JSON forms (docs/notation.md), typed here as
open objects; the engine validates them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from kerala.names import MAX_NAME, clean_name

Color = Literal["blue", "black", "green", "red", "purple"]
JSONObject = dict[str, Any]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _printable_name(v: str) -> str:
    """The one name check (kerala.names): NFC, no control, format or bidi characters."""
    return clean_name(v)


class SeatCreate(_In):
    #: Needed for ``human`` and ``bot`` seats; an ``open`` seat is named by who takes it.
    name: str | None = Field(None, min_length=1, max_length=4 * MAX_NAME)
    color: Color
    #: ``open``: a free seat that anyone may take (the lobby); the game starts when none is left.
    kind: Literal["human", "bot", "open"] = "human"
    #: A bot level from ``GET /api/bots`` (bots only).
    level: str | None = Field(None, max_length=64)

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str | None) -> str | None:
        return None if v is None else _printable_name(v)

    @model_validator(mode="after")
    def _named(self) -> SeatCreate:
        if self.kind != "open" and self.name is None:
            raise ValueError(f"a {self.kind} seat needs a name")
        if self.kind == "open" and (self.name is not None or self.level is not None):
            raise ValueError("an open seat has no name or level: whoever takes it names it")
        return self


class QuickMatchJoin(_In):
    #: The player count wanted (2–5).
    players: int = Field(ge=2, le=5)
    #: A time control by name: ``none``, ``fast`` (3 min + 5 s), ``realtime`` (10 min + 10 s),
    #: ``day`` or ``3days`` (correspondence, a day or three a move).
    control: Literal["none", "fast", "realtime", "day", "3days"] = "realtime"
    name: str = Field(min_length=1, max_length=4 * MAX_NAME)
    #: Seconds of waiting after which bots fill the free seats; ``null``: people only.
    bots_after: float | None = Field(None, ge=5, le=3600)
    #: A rated game, with people signed in, paired by their ratings (docs/ratings.md).
    rated: bool = Field(False, strict=True)

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        return _printable_name(v)


class QuickMatchTicket(BaseModel):
    ticket: str
    #: The ticket's secret: ``Authorization: Bearer <secret>`` to ask about it or leave.
    secret: str
    status: Literal["waiting"]


class QuickMatchStatus(BaseModel):
    status: Literal["waiting", "matched"]
    #: Seconds waited so far (or until the game was found).
    waited: float
    #: While waiting: how many wait for the same player count and time control, you included.
    alike: int | None = None
    #: Once matched: the game, your seat and its token, and how many bots fill the rest.
    game: str | None = None
    seat: int | None = None
    token: str | None = None
    bots: int | None = None


class MailIn(_In):
    email: str = Field(min_length=3, max_length=254)
    #: Whether to get e-mail about correspondence games (your turn, a game over).
    notify: bool = Field(strict=True)


class MailOut(BaseModel):
    #: Whether this server sends e-mail at all (``KERALA_SMTP_URL``).
    offered: bool
    email: str | None
    notify: bool


class ChatMessage(BaseModel):
    type: Literal["chat"]
    id: int
    channel: Literal["players", "watchers"]
    seat: int | None
    name: str
    text: str | None
    phrase: str | None
    at: str


class ChatLog(BaseModel):
    messages: list[ChatMessage]


class RatingOut(BaseModel):
    #: One number, ``1500 + 30 (mu - 25)``; provisional while ``sigma`` > 5 (docs/ratings.md).
    display: int
    provisional: bool
    mu: float
    sigma: float
    games: int


class RatingPoint(BaseModel):
    game: str
    group: Literal["2p", "3-5p"]
    players: int
    rank: int
    color: str
    display: int
    provisional: bool
    at: str


class ResultsByCount(BaseModel):
    players: int
    games: int
    won: int


class Profile(BaseModel):
    handle: str
    display_name: str
    ratings: dict[str, RatingOut]
    history: list[RatingPoint]
    results: list[ResultsByCount]
    #: Colors played in rated games, most played first.
    colors: list[str]


class LeaderboardRow(RatingOut):
    rank: int
    handle: str
    display_name: str


class Leaderboard(BaseModel):
    group: Literal["2p", "3-5p"]
    players: list[LeaderboardRow]


class SeatJoin(_In):
    name: str = Field(min_length=1, max_length=4 * MAX_NAME)

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        return _printable_name(v)


class GameCreate(_In):
    seats: list[SeatCreate] = Field(min_length=2, max_length=5)
    removal: Literal["random", "chosen"] = "random"
    removed: list[str] | None = Field(None, max_length=100)
    #: Index in ``seats`` of who holds the bag first (G1); the seats are rotated to start there.
    first: int = Field(0, ge=0, le=4)
    #: A time control (docs/api.md, "Clocks"): ``{"kind": "realtime", "minutes": 10,
    #: "increment": 5, "bot": "easy"}`` or ``{"kind": "correspondence", "hours": 24}``.
    clock: JSONObject | None = None
    #: Whether a seat may ask for a hint. Default: on when every seat but one is a bot's,
    #: off when two or more seats are people's (or open) (docs/security.md, "Fair play").
    hints: bool | None = Field(None, strict=True)
    #: The bot level (``GET /api/bots``) that takes a seat handed over, one's own or a
    #: silent one's. Default: the server's ``KERALA_HANDOVER_BOT``.
    handover_bot: str | None = Field(None, min_length=1, max_length=64)
    #: Whether the game moves the ratings of the accounts that hold its seats at its end
    #: (docs/ratings.md). Default: rated when one seat is a person's and the others bots'.
    rated: bool | None = Field(None, strict=True)


class DecisionSubmit(_In):
    #: A decision in docs/notation.md's turn form; ``seat`` may be left out.
    decision: JSONObject
    #: The ``decision_number`` the client saw last: a JSON integer (not ``"0"``, not ``true``).
    expected: int = Field(ge=0, strict=True)


class HandOver(_In):
    #: Optional, and only the game's own ``handover_bot`` is accepted (422 otherwise).
    level: str | None = Field(None, max_length=64)


class HintAsk(_In):
    #: How many suggestions to return, best first.
    k: int = Field(3, ge=1, le=10)


class Suggestion(BaseModel):
    #: A legal decision of the seat, in docs/notation.md's turn form.
    decision: JSONObject
    #: Its estimated value: a win chance 0–1 (search), or evaluation points (budget 0).
    value: float


class Hints(BaseModel):
    suggestions: list[Suggestion]
    #: The decision number the suggestions are for.
    decision_number: int


class Player(BaseModel):
    seat: int
    name: str
    color: str
    kind: Literal["human", "bot", "open"]
    bot: str | None
    handed_to_bot: bool


class Game(BaseModel):
    """A game as one viewer sees it (docs/api.md)."""

    id: str
    status: Literal["playing", "over"]
    players: list[Player]
    removal: str
    decision_number: int
    event_number: int
    seat: int | None
    to_move: int | None
    view: JSONObject
    legal: list[JSONObject] | None
    turn_started_at: str
    seat_timeout: float
    result: JSONObject | None
    #: The clocks (docs/api.md, "Clocks"); ``null`` for a game without a time control.
    clock: JSONObject | None = None
    #: Whether a seat may ask for a hint (chosen at creation).
    hints: bool = False
    #: Each hint taken: ``{"at": decisions before it, "seat": who asked}`` (everyone's log).
    hints_taken: list[dict[str, int]] = Field(default_factory=list)
    #: The bot level that takes a seat handed over (chosen at creation).
    handover_bot: str | None = None
    #: Whether the game is rated (chosen at creation; docs/ratings.md).
    rated: bool = False


class Link(BaseModel):
    path: str
    #: ``path`` under the configured public address; ``null`` when none is configured.
    url: str | None


class Invite(BaseModel):
    seat: int
    name: str
    color: str
    token: str
    path: str
    #: ``path`` under the configured public address; ``null`` when none is configured.
    url: str | None


class GameCreated(BaseModel):
    id: str
    watch: Link
    invites: list[Invite]
    game: Game
    #: The creator's secret: fills open seats with bots, starts early (lobby).
    creator_token: str


class Joined(Invite):
    """A seat taken in an open game: its token (shown once) and the game after."""

    game: Game


class Rematch(BaseModel):
    #: The rematch's game id; your token plays ``seat`` in it.
    id: str
    seat: int
    path: str
    #: ``path`` under the configured public address; ``null`` when none is configured.
    url: str | None


class GameSummary(BaseModel):
    id: str
    status: str
    players: list[Player]
    decision_number: int
    created_at: str
    updated_at: str
    #: Each seat's final rank (SC7, 1 = first) once the game is over.
    ranks: list[int] | None = None
    #: Whether the game is rated (chosen at creation; docs/ratings.md).
    rated: bool = False


class GameList(BaseModel):
    games: list[GameSummary]
    #: The cursor of the next page (``?cursor=``), or null on the last page.
    next: str | None = None


class EventList(BaseModel):
    events: list[JSONObject]
    event_number: int
    resync: bool


class Replay(BaseModel):
    at: int
    decision_number: int
    decision: JSONObject | None
    view: JSONObject
    running_totals: list[int]
    result: JSONObject | None


class BotLevel(BaseModel):
    name: str
    description: str


class BotLevels(BaseModel):
    levels: list[BotLevel]
    default: str


class ScoreOut(BaseModel):
    total: int
    surplus: int
    missing: int
    standing: int
    arches: int
    symbols: int
    removed_cells: list[list[int]]
    symbols_by_color: dict[str, int]


class RecordCheck(BaseModel):
    ok: bool
    finished: bool
    players: list[JSONObject]
    removal: str
    decision_number: int
    decisions: list[JSONObject]
    at: int
    view: JSONObject
    running_totals: list[int]
    result: JSONObject | None


class ErrorOut(BaseModel):
    detail: str
    code: str


class ServerTime(BaseModel):
    #: The server's clock (ISO 8601, UTC): clients measure their offset from it.
    now: str


class Health(BaseModel):
    ok: bool


class Ready(BaseModel):
    #: Whether this process can serve games now (its database answers and takes writes).
    ready: bool
    #: ``ok``, or why the database does not answer or take writes.
    database: str
    #: ``ok``, ``not used`` (one process), or ``degraded: …`` when Redis does not answer
    #: (events then cross processes late; the process stays ready).
    redis: str


#: The refusals most routes can give, for the OpenAPI document.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "malformed JSON or decision"},
    404: {"model": ErrorOut, "description": "unknown game"},
    413: {"model": ErrorOut, "description": "body too large"},
    422: {"model": ErrorOut, "description": "invalid request"},
}
SEAT_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    401: {"model": ErrorOut, "description": "token required"},
    403: {"model": ErrorOut, "description": "wrong token"},
    409: {"model": ErrorOut, "description": "stale, duplicate, out of turn"},
}
#: The refusal of every route that counts requests against a rate (``rate_limit`` in deps.py).
RATE_LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "too many requests: Retry-After says when to try"},
}
#: The refusals of the analysis routes: a game not over yet, and the quotas (docs/security.md).
ANALYSIS_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    409: {"model": ErrorOut, "description": "the game is not over"},
    **RATE_LIMITED,
}
#: The refusals of the account routes: a session is needed, state changes must come from this
#: site, and sign-up and sign-in are rate-limited (429 with ``Retry-After``).
ACCOUNT_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    401: {"model": ErrorOut, "description": "not signed in, or wrong credentials"},
    403: {"model": ErrorOut, "description": "not from this site (CSRF), or not allowed"},
    409: {"model": ErrorOut, "description": "handle taken, or a conflicting state"},
    429: {"model": ErrorOut, "description": "too many requests, or locked after failed sign-ins"},
}


# -- Accounts (docs/accounts.md) -------------------------------------------------------------


class SignUp(_In):
    handle: str = Field(min_length=1, max_length=200)
    display_name: str = Field(min_length=1, max_length=4 * MAX_NAME)
    password: str = Field(min_length=1, max_length=1024)


class SignIn(_In):
    handle: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=1024)


class PasskeyBegin(_In):
    """A passkey for a new account (``handle`` and ``display_name``), or, signed in, for
    your own account (no fields)."""

    handle: str | None = Field(None, min_length=1, max_length=200)
    display_name: str | None = Field(None, min_length=1, max_length=4 * MAX_NAME)


class PasskeyFinish(_In):
    #: The ``ceremony`` the begin step answered.
    ceremony: str = Field(min_length=1, max_length=64)
    #: The browser's ``PublicKeyCredential.toJSON()``.
    credential: JSONObject


class PasswordSet(_In):
    password: str = Field(min_length=1, max_length=1024)
    #: The password now, if the account has one.
    current: str | None = Field(None, min_length=1, max_length=1024)


class SeatHold(_In):
    game_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")
    seat: int = Field(ge=0, le=4)
    token: str = Field(min_length=1, max_length=200)


class AccountDelete(_In):
    #: The account's handle, typed again.
    handle: str = Field(min_length=1, max_length=200)


class AccountOut(BaseModel):
    id: str
    handle: str
    display_name: str
    password: bool
    passkeys: int
    created_at: str


class Me(BaseModel):
    signed_in: bool
    account: AccountOut | None = None
    #: The CSRF token to send as ``X-CSRF-Token`` with every change the session makes.
    csrf: str | None = None


class Ceremony(BaseModel):
    ceremony: str
    #: ``PublicKeyCredentialCreationOptionsJSON`` or ``...RequestOptionsJSON``.
    options: JSONObject


class HeldSeat(BaseModel):
    seat: int
    token: str


class HeldSeats(BaseModel):
    seats: list[HeldSeat]


class MyGame(BaseModel):
    id: str
    status: str
    #: ``your_turn``, ``running`` (or open) or ``finished``: the list's order.
    group: Literal["your_turn", "running", "finished"]
    seats: list[int]
    to_move: int | None
    players: list[Player]
    opponents: list[str]
    #: Seconds left on your clock (``None``: no clock).
    time_left: float | None
    ranks: list[int] | None
    #: Your best rank once over (1 = won).
    rank: int | None
    decision_number: int
    updated_at: str


class MyGames(BaseModel):
    games: list[MyGame]
