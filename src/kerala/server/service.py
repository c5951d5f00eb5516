"""The game service: the games of this process (their cache and locks), reading and creating
them. No HTTP, no SQL.

This is where the engine meets the database (through :mod:`kerala.server.repository`). Every
operation on a game runs under that game's lock in this process and checks the database's
counters, so another server process on the same database can load and continue any game:
nothing lives only in one process's memory; the cache of replayed states is only a shortcut
that is checked against ``games.event_count`` each time. Reads check it before they answer.

The operations that change a game in play are split by responsibility, each a small service
over this one (its cache, locks, repository and clock): decisions, hints and the bots' jobs in
:mod:`kerala.server.decisions`; hand-overs, timeouts and take-backs in
:mod:`kerala.server.seats`; open seats and rematches in :mod:`kerala.server.lobby`. What they
share is written once: the guards on a game in play (:class:`~kerala.server.domain.Live`'s
``check_in_play``, ``seat_at``, ``check_person``), and the end of every stored event
(:meth:`GameService.moved_on`) or of a write that found the game moved on
(:meth:`GameService.changed_meanwhile`). What needs no lock is elsewhere (``reads.py``,
``setup.py``, ``replay.py``).

Refusals are the domain errors of :mod:`kerala.server.domain` (``GameNotFound``,
``StaleDecision``…); the routes turn them into responses. Reading a game has no side effects:
it never starts a bot (the bot runner is told of every committed event instead, see
:mod:`kerala.server.botrunner`).

Hidden information (docs/rules.md I2) stays here: draws come from the operating system's random
source when due, the removed tiles live in ``games.hidden_removed``, and what leaves this module
is built from :meth:`GameState.view` and public facts only.
"""

from __future__ import annotations

import datetime as dt
import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kerala.actions import Decision, DecisionSyntaxError, decision_from_json
from kerala.clocks import Clock, ClockError, TimeControl, clock_kinds, running_seat
from kerala.errors import KeralaError
from kerala.game import GameState
from kerala.server.domain import (
    BadDecision,
    BadToken,
    BotJob,
    Conflict,
    Event,
    EventKind,
    GameNotFound,
    GameStatus,
    InvalidRequest,
    Live,
    Seat,
    SeatKind,
    js,
)
from kerala.server.replay import apply_event, replay_state
from kerala.server.repository import GameInfo, GameRepository, Write
from kerala.server.settings import Settings
from kerala.server.setup import hash_token, plan_game
from kerala.server.store import utcnow
from kerala.server.wire import Snapshot, result_json
from kerala.vocabulary import Removal

__all__ = ["BotJob", "Created", "GameService", "Snapshot", "replay_state", "result_json"]

T = TypeVar("T")
_CACHE_SIZE = 2000
#: Decisions heard from other processes kept per cached game until it is next used.
_HEARD_MAX = 32

#: A decision's steps: yields its conditional write, is sent whether it was stored.
Steps = Generator[Write, bool, T]


class _GameLock:
    """A game's lock, and how many callers hold or wait for it (:meth:`GameService.game_lock`)."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


@dataclass
class Created:
    snapshot: Snapshot
    tokens: dict[int, str] = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)
    #: The creator's token: fills open seats with bots and starts early (lobby.py).
    creator_token: str = ""


class GameService:
    """Synchronous game operations; routes call them in worker threads."""

    def __init__(
        self, repo: GameRepository, settings: Settings, bot_levels: dict[str, str]
    ) -> None:
        self.repo = repo
        self.settings = settings
        #: Level name -> bot spec, only the levels whose bot exists.
        self.bot_levels = bot_levels
        #: The time source of the clocks (injectable: tests move time without sleeping).
        self.now: Callable[[], dt.datetime] = utcnow
        self._cache: OrderedDict[str, Live] = OrderedDict()
        #: Game id -> its lock and how many callers hold or wait for it. An entry lives only
        #: while someone uses it: ids asked about (real or not) leave nothing behind.
        self._locks: dict[str, _GameLock] = {}
        self._locks_guard = threading.Lock()
        #: Per cached game: the events other processes announced since it was last used here,
        #: and the snapshot after the last of them (:meth:`heard`).
        self._heard: dict[str, tuple[list[Event], Snapshot]] = {}

    # -- locking and loading ------------------------------------------------------------

    def _use_lock(self, game_id: str) -> _GameLock:
        with self._locks_guard:
            entry = self._locks.get(game_id)
            if entry is None:
                entry = self._locks[game_id] = _GameLock()
            entry.users += 1
            return entry

    def _done_with_lock(self, game_id: str, entry: _GameLock) -> None:
        with self._locks_guard:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[game_id]

    @contextmanager
    def game_lock(self, game_id: str) -> Iterator[None]:
        entry = self._use_lock(game_id)
        try:
            with entry.lock:
                yield
        finally:
            self._done_with_lock(game_id, entry)

    @contextmanager
    def game_lock_if_free(self, game_id: str) -> Iterator[bool]:
        """Hold the game's lock if no one holds it (yields ``True``), else yield ``False``."""
        entry = self._use_lock(game_id)
        try:
            got = entry.lock.acquire(blocking=False)
            try:
                yield got
            finally:
                if got:
                    entry.lock.release()
        finally:
            self._done_with_lock(game_id, entry)

    def held_locks(self) -> int:
        """How many game locks exist now (each while someone holds or waits for it)."""
        return len(self._locks)

    def remember(self, live: Live) -> None:
        self._cache[live.id] = live
        self._cache.move_to_end(live.id)
        while len(self._cache) > _CACHE_SIZE:
            old, _ = self._cache.popitem(last=False)
            self._heard.pop(old, None)

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)
        self._heard.pop(game_id, None)

    def heard(self, event: Event, snapshot: Snapshot) -> None:
        """An event another server process committed and announced (called on the event loop,
        in the order the broker delivers them): kept for the game's cached state, which applies
        it the next time it decides here (:meth:`cached`) instead of reading the game back from
        the database. Only a shortcut: a message lost or out of order leaves the cache behind,
        and the decision's conditional write finds that out. Only the latest snapshot is kept."""
        game_id = snapshot.game_id
        if game_id not in self._cache:
            return
        entry = self._heard.get(game_id)
        events = [event] if entry is None else [*entry[0], event]
        if len(events) > _HEARD_MAX:
            self._heard.pop(game_id, None)
        else:
            self._heard[game_id] = (events, snapshot)

    def cached(self, game_id: str) -> Live | None:
        """The cached game (under its lock), with the decisions heard from other processes
        applied when they follow on from it; ``None`` if not cached."""
        live = self._cache.get(game_id)
        entry = self._heard.pop(game_id, None)
        if live is None or entry is None:
            return live
        heard, snap = entry
        events = [e for e in heard if e.number > live.event_count]
        follows = (
            bool(events)
            and live.clock is None
            and snap.base["clock"] is None
            and snap.event_number == events[-1].number
            and all(
                e.kind == "decision" and e.number == live.event_count + 1 + i
                for i, e in enumerate(events)
            )
        )
        if not follows:
            return live  # not decisions that simply follow on: the next write finds out
        try:
            for e in events:
                apply_event(live.state, e)
        except Exception:
            self.forget(game_id)  # the state may be half-changed: replay it
            return None
        base = snap.base
        live.status = base["status"]
        live.decision_count = base["decision_number"]
        live.event_count = snap.event_number
        live.turn_started_at = live.updated_at = dt.datetime.fromisoformat(base["turn_started_at"])
        live.result = base["result"]
        live.snap = snap
        return live

    def load(self, game_id: str) -> Live:
        """The game, brought up to date with the database (under the game's lock)."""
        count = self.repo.event_count(game_id)
        if count is None:
            raise GameNotFound(game_id)
        live = self._cache.get(game_id)
        if live is not None and live.event_count == count:
            self._cache.move_to_end(game_id)
            return live
        return self._reload(game_id, live)

    def _reload(self, game_id: str, live: Live | None) -> Live:
        row = self.repo.game(game_id)
        if row is None:
            raise GameNotFound(game_id)
        if live is None or live.event_count > row.event_count:
            seats = self.repo.seats(game_id)
            # Only the events the row counts: later ones may be committed meanwhile.
            events = self.repo.events(game_id, 0, row.event_count)
            state = replay_state(
                [s.color for s in seats],
                row.tileset,
                row.removal,
                row.hidden_removed,
                row.first_drawn,
                events,
            )
            live = Live(
                id=row.id,
                status=row.status,
                removal=row.removal,
                tileset=row.tileset,
                seats=seats,
                state=state,
                decision_count=row.decision_count,
                event_count=row.event_count,
                turn_started_at=row.turn_started_at,
                created_at=row.created_at,
                updated_at=row.updated_at,
                result=row.result,
                clock=None if row.clock is None else Clock.from_store(row.clock, row.clock_since),
                hints=row.hints,
                handover_bot=self.handover_level(row.handover_bot),
                rated=row.rated,
                hints_taken=hints_taken(events),
            )
        else:
            # Another process moved the game on: apply only the events we have not seen.
            events = self.repo.events(game_id, live.event_count, row.event_count)
            try:
                for e in events:
                    apply_event(live.state, e)
            except BaseException:
                self.forget(game_id)
                raise
            if any(e.kind == "seat" for e in events):
                live.seats = self.repo.seats(game_id)
            live.hints_taken.extend(hints_taken(events))
            live.status = row.status
            live.decision_count = row.decision_count
            live.event_count = row.event_count
            live.turn_started_at = row.turn_started_at
            live.updated_at = row.updated_at
            live.result = row.result
            if row.clock is not None:
                live.clock = Clock.from_store(row.clock, row.clock_since)
            live.snap = None
        self.remember(live)
        return live

    def snapshot(self, live: Live) -> Snapshot:
        if live.snap is None or live.snap.event_number != live.event_count:
            live.snap = Snapshot.of(live, self.settings.seat_timeout)
        return live.snap

    def moved_on(
        self, live: Live, now: dt.datetime, kind: EventKind, data: dict[str, Any]
    ) -> tuple[Snapshot, Event]:
        """Once an event of ``kind`` is stored (with its changes made to ``live``): the game
        counts it; the new snapshot, and the event as it goes to the sockets."""
        live.event_count += 1
        live.updated_at = now
        live.snap = None
        return self.snapshot(live), Event.of(live.event_count, kind, data)

    def changed_meanwhile(self, game_id: str, then: str = "try again") -> Conflict:
        """The refusal of an event whose conditional write found the game moved on (another
        process wrote first): the cached game is dropped, to be read back."""
        self.forget(game_id)
        return Conflict(f"the game changed meanwhile: {then}")

    # -- reading (no side effects) ------------------------------------------------------

    def get(self, game_id: str, token: str | None) -> tuple[Snapshot, int | None]:
        """The game's snapshot and the seat the token belongs to (``None``: watcher)."""
        with self.game_lock(game_id):
            live = self.load(game_id)
            seat = self.seat_of(live, token) if token is not None else None
            return self.snapshot(live), seat

    @staticmethod
    def seat_of(live: Live, token: str) -> int:
        """The seat whose token this is; :class:`BadToken` if it is none of this game's."""
        h = hash_token(token)
        for s in live.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        raise BadToken("this token is not a seat token of this game")

    def events_since(self, game_id: str, since: int) -> tuple[list[Event], int, bool]:
        """Events after ``since``, the last event number, and whether a resync is needed."""
        count = self.repo.event_count(game_id)
        if count is None:
            raise GameNotFound(game_id)
        if since > count or count - since > self.settings.resync_limit:
            return [], count, True
        return self.repo.events(game_id, since, count), count, False

    def record_parts(self, game_id: str) -> tuple[GameState, list[dict[str, Any]]]:
        """A copy of the state and the players, for writing the record (docs/notation.md)."""
        with self.game_lock(game_id):
            live = self.load(game_id)
            players = [
                {"name": s.name, **({"bot": s.bot} if s.kind == "bot" and s.bot else {})}
                for s in live.seats
            ]
            return live.state.copy(with_rng=False), players

    def record_clock(self, game_id: str) -> tuple[dict[str, Any] | None, list[float | None] | None]:
        """The record's clock fields (docs/notation.md): the time control with its timeouts
        and take-backs, and the seconds each decision took; ``None, None`` without a clock."""
        with self.game_lock(game_id):
            live = self.load(game_id)
            if live.clock is None:
                return None, None
            clock = {**live.clock.control.to_json(), "events": [dict(e) for e in live.clock.log]}
            count = live.event_count
        events = self.repo.events(game_id, 0, count)
        return clock, [e.data.get("time") for e in events if e.kind == "decision"]

    # The game list and replays read no cached state: reads.py (GameReads).

    def pending_bot_games(self, waiting_since: dt.datetime | None = None) -> list[str]:
        """Games in progress whose seat to move is played by a bot."""
        return self.repo.pending_bot_games(waiting_since)

    # -- creating -----------------------------------------------------------------------

    def handover_level(self, level: str | None) -> str:
        """The level that takes a seat handed over: the first offered here of the game's, the
        server's ``handover_bot`` and its default level, else the first level offered. A server
        that offers none still creates games between people; a handover there is refused."""
        for name in (level, self.settings.handover_bot, self.settings.default_bot_level):
            if name is not None and name in self.bot_levels:
                return name
        return next(iter(self.bot_levels), self.settings.handover_bot)

    def resolve_level(self, level: str | None) -> str:
        name = level if level is not None else self.settings.default_bot_level
        if name not in self.bot_levels:
            known = ", ".join(js(n) for n in self.bot_levels) or "none"
            raise InvalidRequest(f"unknown bot level {js(name)}; levels: {known}")
        return name

    def create(
        self,
        seats: Sequence[dict[str, Any]],
        removal: Removal,
        removed: Sequence[str] | None,
        first: int,
        clock: dict[str, Any] | None = None,
        *,
        hints: bool | None = None,
        handover_bot: str | None = None,
        rated: bool | None = None,
    ) -> Created:
        """Set up a game (S1–S4), draw the first display and store it; tokens for humans.

        ``clock``: a time control (:meth:`TimeControl.from_json`), checked before anything.
        ``hints``: whether a seat may ask for a hint (default: :func:`hints_by_default`);
        ``handover_bot``: the level that takes a seat handed over (default: the server's);
        ``rated``: whether the game moves ratings (default: :func:`rated_by_default`)."""
        control = self.time_control(clock) if clock is not None else None
        if handover_bot is not None:
            self.resolve_level(handover_bot)
        handover = self.handover_level(handover_bot)
        allowed = hints_by_default(seats) if hints is None else hints
        is_rated = rated_by_default(seats) if rated is None else rated
        state, built, tokens = plan_game(seats, removal, removed, first, self.resolve_level)
        status: GameStatus = "open" if any(st.kind == "open" for st in built) else "playing"
        creator_token = secrets.token_urlsafe(24)
        now = self.now()
        clocks = None
        if control is not None:
            clocks = Clock.start(control, len(built), None, now)
            running = running_seat(status, state.to_move, [st.kind for st in built])
            clocks.advance(None, running, now)
        game_id = secrets.token_urlsafe(8)
        self.repo.insert_game(
            GameInfo(
                id=game_id,
                created_at=now,
                updated_at=now,
                status=status,
                tileset=state.tileset.name,
                removal=removal,
                hidden_removed=[t.name for t in state.removed],
                first_drawn=[t.name for t in state.display],
                decision_count=0,
                event_count=0,
                turn_started_at=now,
                to_move=state.to_move,
                result=None,
                creator_hash=hash_token(creator_token),
                **clock_columns(clocks, status, state.to_move, built),
                hints=allowed,
                handover_bot=handover,
                rated=is_rated,
            ),
            built,
        )
        live = Live(
            id=game_id,
            status=status,
            removal=removal,
            tileset=state.tileset.name,
            seats=built,
            state=state,
            decision_count=0,
            event_count=0,
            turn_started_at=now,
            created_at=now,
            updated_at=now,
            result=None,
            clock=clocks,
            hints=allowed,
            handover_bot=handover,
            rated=is_rated,
        )
        with self.game_lock(game_id):
            self.remember(live)
            return Created(self.snapshot(live), tokens, built, creator_token)

    def time_control(self, obj: object) -> TimeControl:
        """A time control from outside input, its bot level checked (:class:`InvalidRequest`)."""
        try:
            control = TimeControl.from_json(obj)
        except ClockError as e:
            raise InvalidRequest(str(e)) from None
        self.resolve_level(control.bot)
        return control


def clock_columns(
    clocks: Clock | None, status: str, to_move: int | None, seats: Sequence[Seat]
) -> dict[str, Any]:
    """The ``games`` columns of a clock: its stored form, start and deadline."""
    if clocks is None:
        return {"clock": None, "clock_since": None, "clock_deadline": None}
    running = running_seat(status, to_move, clock_kinds(seats, clocks))
    return {
        "clock": clocks.to_store(),
        "clock_since": clocks.since,
        "clock_deadline": clocks.deadline(running),
    }


def clock_tuple(
    clocks: Clock | None, status: str, to_move: int | None, seats: Sequence[Seat]
) -> tuple[dict[str, Any] | None, dt.datetime | None, dt.datetime | None]:
    c = clock_columns(clocks, status, to_move, seats)
    return c["clock"], c["clock_since"], c["clock_deadline"]


def _seats_after(live: Live, seat: int, kind: SeatKind) -> list[Seat]:
    """The seats once ``seat`` is of ``kind`` (a bot: handed over, or timed out)."""
    seats = [Seat(st.seat, "", "", st.kind, None, st.handed_to_bot, None) for st in live.seats]
    seats[seat].kind = kind
    seats[seat].handed_to_bot = kind == "bot"
    return seats


def kinds_after(live: Live, clocks: Clock, seat: int, kind: SeatKind) -> list[str]:
    """The seats' kinds as the clock sees them once ``seat`` is of ``kind``."""
    return clock_kinds(_seats_after(live, seat, kind), clocks)


def clock_columns_after(
    clocks: Clock | None, live: Live, seat: int, kind: SeatKind
) -> dict[str, Any]:
    """The clock columns once ``seat`` is of ``kind`` (``{}`` for a game without a clock)."""
    if clocks is None:
        return {}
    return clock_columns(clocks, live.status, live.state.to_move, _seats_after(live, seat, kind))


def rated_by_default(seats: Sequence[dict[str, Any]]) -> bool:
    """A game is rated unless said otherwise when every seat but one is a bot's: a person's
    games against the published bot ratings place them (docs/ratings.md). Between people a
    rated game is asked for."""
    return sum(1 for s in seats if s.get("kind", "human") != "bot") == 1


def hints_by_default(seats: Sequence[dict[str, Any]]) -> bool:
    """Hints are on by default when every seat but one is a bot's (a person learning against
    bots), off when two or more seats are (or will be: open seats) people's."""
    return sum(1 for s in seats if s.get("kind", "human") != "bot") <= 1


def hints_taken(events: Sequence[Event]) -> list[dict[str, int]]:
    """The ``hint`` events among ``events``, for the log: ``{"at", "seat"}``."""
    return [{"at": e.data["at"], "seat": e.data["seat"]} for e in events if e.kind == "hint"]


def check_decision_json(obj: object) -> Decision:
    """Parse a decision from outside input (:class:`BadDecision` on bad syntax)."""
    try:
        return decision_from_json(obj)
    except (DecisionSyntaxError, KeralaError) as e:
        raise BadDecision(f"decision: {e}") from None
