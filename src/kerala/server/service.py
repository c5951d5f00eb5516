"""The game service: creating, loading, playing and handing over games, over the store.

This is where the engine meets the database. Every operation on a game runs under that game's
lock in this process and checks the database's counters, so a second server process on the same
database can load and continue any game: nothing lives only in one process's memory, the cache
of replayed states is only a shortcut that is checked against ``games.event_count`` each time.
Reads check it before they answer. A decision is checked against the cached state and written
with a conditional update (``WHERE event_count = seen``) that is the check: if another process
moved the game on, the write changes nothing, and the decision is judged again on the game as
the database holds it (:meth:`GameService._deciding`).

An accepted decision is committed before the caller announces it; a stale or concurrent
submission changes nothing.

Hidden information (RULES.md I2) stays here: draws come from the operating system's random
source when due, the removed tiles live in ``games.hidden_removed``, and what leaves this module
is built from :meth:`GameState.view` and public facts only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from kerala.actions import Decision, DecisionSyntaxError, decision_from_json
from kerala.errors import IllegalDecisionError, KeralaError, SetupError
from kerala.game import GameState, new_game
from kerala.scoring import rank
from kerala.server.errors import ApiError
from kerala.server.settings import Settings
from kerala.server.store import Committer, EventRow, GameRow, SeatRow, utcnow
from kerala.server.wire import dumpb
from kerala.tiles import TILE_TYPES, load_tileset
from kerala.views import PlayerView

#: Draws and removals come from the operating system: no seed exists that could leak (I2).
SYSTEM_RANDOM = secrets.SystemRandom()
T = TypeVar("T")
_CACHE_SIZE = 2000
_GAMES = cast(sa.Table, GameRow.__table__)
_SEATS = cast(sa.Table, SeatRow.__table__)
_EVENTS = cast(sa.Table, EventRow.__table__)
# The statements of every decision, built once: building a statement costs more than running it.
_EVENT_COUNT = sa.select(_GAMES.c.event_count).where(_GAMES.c.id == sa.bindparam("b_id"))
_AFTER_DECISION = (
    sa.update(_GAMES)
    .where(_GAMES.c.id == sa.bindparam("b_id"), _GAMES.c.event_count == sa.bindparam("b_seen"))
    .values(
        decision_count=sa.bindparam("b_decisions"),
        event_count=sa.bindparam("b_events"),
        updated_at=sa.bindparam("b_now"),
        turn_started_at=sa.bindparam("b_now"),
        to_move=sa.bindparam("b_to_move"),
        status=sa.bindparam("b_status"),
        result=sa.bindparam("b_result", type_=sa.JSON),
    )
)
_INSERT_EVENT = sa.insert(_EVENTS)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _aware(t: dt.datetime) -> dt.datetime:
    # SQLite returns naive datetimes; every time stored is UTC.
    return t if t.tzinfo is not None else t.replace(tzinfo=dt.UTC)


@dataclass
class Seat:
    """One seat as the service knows it (the token only as its hash)."""

    seat: int
    name: str
    color: str
    kind: str
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
    status: str
    removal: str
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


class Snapshot:
    """The ``Game`` JSON of docs/api.md at one event, cheap to specialise for each seat.

    It is kept as JSON bytes, not as a tree of dicts and lists: a snapshot of every cached game
    lives in memory, and thousands of small objects per game would make each of Python's full
    garbage collections slower (a pause of the whole server). Each seat's text is put together
    from the pieces once, without serialising the view again.
    """

    _WATCHER_VIEW = b'{"seat":null'

    def __init__(self, live: Live, seat_timeout: float) -> None:
        state = live.state
        self.to_move = state.to_move
        view = dumpb(state.view(None).to_json())
        if not view.startswith(self._WATCHER_VIEW):  # pragma: no cover - the view's first key
            raise AssertionError("a watcher's view starts with its seat")
        #: The view after its ``seat`` field: each seat's view is ``{"seat":N`` + this.
        self._view_rest = view[len(self._WATCHER_VIEW) :]
        self._legal = (
            dumpb([d.to_json() for d in state.legal_decisions()])
            if self.to_move is not None
            else None
        )
        self.event_number = live.event_count
        self.base: dict[str, Any] = {
            "id": live.id,
            "status": live.status,
            "players": [s.to_json() for s in live.seats],
            "removal": live.removal,
            "decision_number": live.decision_count,
            "event_number": live.event_count,
            "to_move": self.to_move,
            "turn_started_at": live.turn_started_at.isoformat(),
            "seat_timeout": seat_timeout,
            "result": live.result,
        }
        self._head = dumpb(self.base)[:-1]  # without the closing brace
        self._games: dict[int | None, bytes] = {}

    def game_json(self, seat: int | None) -> bytes:
        """The ``Game`` JSON as ``seat`` sees it (its legal decisions on its turn)."""
        out = self._games.get(seat)
        if out is None:
            s = b"null" if seat is None else str(int(seat)).encode()
            legal = self._legal if seat is not None and seat == self.to_move else None
            out = b"".join(
                (
                    self._head,
                    b',"seat":',
                    s,
                    b',"view":{"seat":',
                    s,
                    self._view_rest,
                    b',"legal":',
                    b"null" if legal is None else legal,
                    b"}",
                )
            )
            self._games[seat] = out
        return out

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """:meth:`game_json` as a dict."""
        game: dict[str, Any] = orjson.loads(self.game_json(seat))
        return game


@dataclass(frozen=True)
class BotJob:
    """What a bot needs to think: its view and legal decisions only (I1, I2)."""

    game_id: str
    seat: int
    spec: str
    view: PlayerView
    legal: Sequence[Decision]
    expected: int


@dataclass
class Created:
    snapshot: Snapshot
    tokens: dict[int, str] = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)


def result_json(state: GameState) -> dict[str, Any]:
    """Scores with the full breakdown (SC1–SC6, symbols by color) and ranks (SC7)."""
    scores = state.scores()
    return {
        "scores": [
            {"seat": i, **s.to_json(), "symbols_by_color": dict(s.symbols_by_color)}
            for i, s in enumerate(scores)
        ],
        "ranks": rank([s.total for s in scores]),
    }


def event_json(row: EventRow) -> dict[str, Any]:
    return {"number": row.number, "kind": row.kind, **row.data}


def _tiles(names: Sequence[str]) -> list[Any]:
    return [TILE_TYPES[n] for n in names]


def replay_state(
    colors: Sequence[str],
    tileset: str,
    removal: str,
    removed: Sequence[str],
    first_drawn: Sequence[str],
    events: Sequence[dict[str, Any]],
    upto: int | None = None,
) -> GameState:
    """Rebuild a game's state from its setup and events, stopping after ``upto`` decisions."""
    ts = load_tileset(tileset)
    if removal == "chosen":
        state = new_game(list(colors), tileset=ts, removal="chosen", removed=_tiles(removed))
    else:
        # The stored random removal is imposed on the removal's chance nodes, as any draw;
        # the state stays a random-removal game, whose views hide it (I2).
        state = new_game(list(colors), tileset=ts, removal="random")
        for t in _tiles(removed):
            state.apply_draw(t)
    for t in _tiles(first_drawn):
        state.apply_draw(t)
    done = 0
    for ev in events:
        if ev["kind"] != "decision":
            continue
        if upto is not None and done >= upto:
            break
        state.apply(decision_from_json(ev["decision"]))
        for t in _tiles(ev["drawn"]):
            state.apply_draw(t)
        done += 1
    return state


class GameService:
    """Synchronous game operations; routes call them in worker threads."""

    def __init__(self, engine: Engine, settings: Settings, bot_levels: dict[str, str]) -> None:
        self.engine = engine
        self.committer = Committer(engine)
        self.settings = settings
        #: Level name -> bot spec, only the levels whose bot exists.
        self.bot_levels = bot_levels
        self._cache: OrderedDict[str, Live] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- locking and loading ------------------------------------------------------------

    @contextmanager
    def _game_lock(self, game_id: str) -> Iterator[None]:
        with self._locks_guard:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = threading.Lock()
        with lock:
            yield

    def _remember(self, live: Live) -> None:
        self._cache[live.id] = live
        self._cache.move_to_end(live.id)
        while len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)

    def _forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    @staticmethod
    def _seats(session: Session, game_id: str) -> list[Seat]:
        rows = session.scalars(
            sa.select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)
        ).all()
        return [
            Seat(r.seat, r.name, r.color, r.kind, r.bot, r.handed_to_bot, r.token_hash)
            for r in rows
        ]

    def _load(self, game_id: str) -> Live:
        """The game, brought up to date with the database (under the game's lock)."""
        with self.engine.connect() as conn:
            count = conn.execute(_EVENT_COUNT, {"b_id": game_id}).scalar()
        if count is None:
            raise ApiError(404, "not_found", f"no game with id {game_id!r}")
        live = self._cache.get(game_id)
        if live is not None and live.event_count == count:
            self._cache.move_to_end(game_id)
            return live
        with Session(self.engine) as session:
            return self._reload(session, game_id, live)

    def _reload(self, session: Session, game_id: str, live: Live | None) -> Live:
        row = session.get(GameRow, game_id)
        if row is None:
            raise ApiError(404, "not_found", f"no game with id {game_id!r}")
        if live is None or live.event_count > row.event_count:
            seats = self._seats(session, game_id)
            # Only the events the row counts: later ones may be committed meanwhile.
            events = session.scalars(
                sa.select(EventRow)
                .where(EventRow.game_id == game_id, EventRow.number <= row.event_count)
                .order_by(EventRow.number)
            ).all()
            state = replay_state(
                [s.color for s in seats],
                row.tileset,
                row.removal,
                row.hidden_removed,
                row.first_drawn,
                [event_json(e) for e in events],
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
                turn_started_at=_aware(row.turn_started_at),
                created_at=_aware(row.created_at),
                updated_at=_aware(row.updated_at),
                result=row.result,
            )
        else:
            # Another process moved the game on: apply only the events we have not seen.
            events = session.scalars(
                sa.select(EventRow)
                .where(
                    EventRow.game_id == game_id,
                    EventRow.number > live.event_count,
                    EventRow.number <= row.event_count,
                )
                .order_by(EventRow.number)
            ).all()
            try:
                for e in events:
                    if e.kind == "decision":
                        live.state.apply(decision_from_json(e.data["decision"]))
                        for t in _tiles(e.data["drawn"]):
                            live.state.apply_draw(t)
            except BaseException:
                self._forget(game_id)
                raise
            if any(e.kind == "seat" for e in events):
                live.seats = self._seats(session, game_id)
            live.status = row.status
            live.decision_count = row.decision_count
            live.event_count = row.event_count
            live.turn_started_at = _aware(row.turn_started_at)
            live.updated_at = _aware(row.updated_at)
            live.result = row.result
            live.snap = None
        self._remember(live)
        return live

    def snapshot(self, live: Live) -> Snapshot:
        if live.snap is None or live.snap.event_number != live.event_count:
            live.snap = Snapshot(live, self.settings.seat_timeout)
        return live.snap

    # -- reading ------------------------------------------------------------------------

    def get(self, game_id: str, token: str | None) -> tuple[Snapshot, int | None]:
        """The game's snapshot and the seat the token belongs to (``None``: watcher)."""
        with self._game_lock(game_id):
            live = self._load(game_id)
            seat = self.seat_of(live, token) if token is not None else None
            return self.snapshot(live), seat

    @staticmethod
    def seat_of(live: Live, token: str) -> int:
        """The seat whose token this is; 403 if it is none of this game's."""
        h = hash_token(token)
        for s in live.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        raise ApiError(403, "bad_token", "this token is not a seat token of this game")

    def events_since(self, game_id: str, since: int) -> tuple[list[dict[str, Any]], int, bool]:
        """Events after ``since``, the last event number, and whether a resync is needed."""
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise ApiError(404, "not_found", f"no game with id {game_id!r}")
            count = row.event_count
            if since > count or count - since > self.settings.resync_limit:
                return [], count, True
            events = session.scalars(
                sa.select(EventRow)
                .where(EventRow.game_id == game_id, EventRow.number > since)
                .where(EventRow.number <= count)
                .order_by(EventRow.number)
            ).all()
            return [event_json(e) for e in events], count, False

    def list_games(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        with Session(self.engine) as session:
            q = sa.select(GameRow).order_by(GameRow.updated_at.desc()).limit(limit)
            if status is not None:
                q = q.where(GameRow.status == status)
            rows = session.scalars(q).all()
            seats: dict[str, list[dict[str, Any]]] = {r.id: [] for r in rows}
            if rows:
                for s in session.scalars(
                    sa.select(SeatRow)
                    .where(SeatRow.game_id.in_(list(seats)))
                    .order_by(SeatRow.game_id, SeatRow.seat)
                ):
                    seats[s.game_id].append(
                        Seat(
                            s.seat, s.name, s.color, s.kind, s.bot, s.handed_to_bot, None
                        ).to_json()
                    )
            return [
                {
                    "id": r.id,
                    "status": r.status,
                    "players": seats[r.id],
                    "decision_number": r.decision_count,
                    "created_at": _aware(r.created_at).isoformat(),
                    "updated_at": _aware(r.updated_at).isoformat(),
                }
                for r in rows
            ]

    def replay(self, game_id: str, at: int | None) -> dict[str, Any]:
        """The public position after ``at`` decisions (default: all of them)."""
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise ApiError(404, "not_found", f"no game with id {game_id!r}")
            total = row.decision_count
            k = total if at is None else at
            if not 0 <= k <= total:
                raise ApiError(
                    422,
                    "invalid_request",
                    f"'at' must be between 0 and {total} (decisions so far), got {k}",
                )
            seats = self._seats(session, game_id)
            events = [
                event_json(e)
                for e in session.scalars(
                    sa.select(EventRow)
                    .where(EventRow.game_id == game_id, EventRow.number <= row.event_count)
                    .order_by(EventRow.number)
                )
            ]
            state = replay_state(
                [s.color for s in seats],
                row.tileset,
                row.removal,
                row.hidden_removed,
                row.first_drawn,
                events,
                upto=k,
            )
            decisions = [e["decision"] for e in events if e["kind"] == "decision"]
            return {
                "at": k,
                "decision_number": total,
                "decision": decisions[k - 1] if k > 0 else None,
                "view": state.view(None).to_json(),
                "result": result_json(state) if state.is_over() else None,
            }

    def record_parts(self, game_id: str) -> tuple[GameState, list[dict[str, Any]]]:
        """A copy of the state and the players, for writing the record (NOTATION.md)."""
        with self._game_lock(game_id):
            live = self._load(game_id)
            players = [
                {"name": s.name, **({"bot": s.bot} if s.kind == "bot" and s.bot else {})}
                for s in live.seats
            ]
            return live.state.copy(with_rng=False), players

    def pending_bot_games(self) -> list[str]:
        """Games in progress whose seat to move is played by a bot (to resume on start)."""
        with Session(self.engine) as session:
            q = (
                sa.select(GameRow.id)
                .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "playing", SeatRow.kind == "bot")
            )
            return list(session.scalars(q).all())

    # -- creating -----------------------------------------------------------------------

    def resolve_level(self, level: str | None) -> str:
        name = level if level is not None else self.settings.default_bot_level
        if name not in self.bot_levels:
            known = ", ".join(self.bot_levels) or "none"
            raise ApiError(422, "invalid_request", f"unknown bot level {name!r}; levels: {known}")
        return name

    def create(
        self,
        seats: Sequence[dict[str, Any]],
        removal: str,
        removed: Sequence[str] | None,
        first: int,
    ) -> Created:
        """Set up a game (S1–S4), draw the first display and store it; tokens for humans."""
        n = len(seats)
        if not 0 <= first < n:
            raise ApiError(
                422, "invalid_request", f"'first' must name one of the {n} seats (0–{n - 1})"
            )
        order = [seats[(first + i) % n] for i in range(n)]
        colors = [s["color"] for s in order]
        chosen = None
        if removal == "chosen":
            if removed is None:
                raise ApiError(
                    422, "invalid_request", "chosen removal needs 'removed': the tiles to take out"
                )
            chosen = []
            for i, name in enumerate(removed):
                t = TILE_TYPES.get(name)
                if t is None or t.kind == "start":
                    raise ApiError(422, "invalid_request", f"removed[{i}]: unknown tile {name!r}")
                chosen.append(t)
        elif removed is not None:
            raise ApiError(
                422, "invalid_request", "'removed' is only given with removal 'chosen' (S3)"
            )
        try:
            state = new_game(colors, removal=removal, removed=chosen)
        except SetupError as e:
            raise ApiError(422, "invalid_request", str(e)) from None
        state.advance_chance(SYSTEM_RANDOM)
        built: list[Seat] = []
        tokens: dict[int, str] = {}
        for i, s in enumerate(order):
            kind = s.get("kind", "human")
            bot = self.resolve_level(s.get("level")) if kind == "bot" else None
            if kind != "bot" and s.get("level") is not None:
                raise ApiError(
                    422, "invalid_request", f"seats[{(first + i) % n}]: a human seat has no level"
                )
            token_hash = None
            if kind == "human":
                tokens[i] = secrets.token_urlsafe(24)
                token_hash = hash_token(tokens[i])
            built.append(Seat(i, s["name"], s["color"], kind, bot, False, token_hash))
        now = utcnow()
        game_id = secrets.token_urlsafe(8)
        with Session(self.engine) as session, session.begin():
            session.add(
                GameRow(
                    id=game_id,
                    created_at=now,
                    updated_at=now,
                    status="playing",
                    tileset=state.tileset.name,
                    removal=removal,
                    hidden_removed=[t.name for t in state.removed],
                    first_drawn=[t.name for t in state.display],
                    decision_count=0,
                    event_count=0,
                    turn_started_at=now,
                    to_move=state.to_move,
                    result=None,
                )
            )
            session.flush()
            for st in built:
                session.add(
                    SeatRow(
                        game_id=game_id,
                        seat=st.seat,
                        name=st.name,
                        color=st.color,
                        kind=st.kind,
                        bot=st.bot,
                        token_hash=st.token_hash,
                        handed_to_bot=False,
                    )
                )
        live = Live(
            id=game_id,
            status="playing",
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
        )
        with self._game_lock(game_id):
            self._remember(live)
            return Created(self.snapshot(live), tokens, built)

    # -- playing ------------------------------------------------------------------------

    def parse_decision(self, obj: object, seat: int) -> Decision:
        """A decision from JSON; the seat may be left out (it is the token's)."""
        if isinstance(obj, dict) and "seat" not in obj:
            obj = {**obj, "seat": seat}
        try:
            d = decision_from_json(obj)
        except DecisionSyntaxError as e:
            raise ApiError(400, "bad_decision", f"decision: {e}") from None
        if d.seat != seat:
            raise ApiError(
                403,
                "bad_token",
                f"this token plays seat {seat}; the decision is for seat {d.seat}",
            )
        return d

    def submit(
        self,
        game_id: str,
        seat: int,
        decision: Decision,
        expected: int,
        *,
        by_bot: bool = False,
    ) -> tuple[Snapshot, dict[str, Any]]:
        """Check, apply, store and commit one decision; return the new snapshot and event."""
        return self._deciding(
            game_id, lambda live: self._submit(live, seat, decision, expected, by_bot)
        )

    def submit_as(
        self, game_id: str, token: str, decision: object, expected: int
    ) -> tuple[Snapshot, dict[str, Any], int]:
        """A player's submission: the token names the seat; returns the seat too."""

        def op(live: Live) -> tuple[Snapshot, dict[str, Any], int]:
            seat = self.seat_of(live, token)
            d = self.parse_decision(decision, seat)
            snap, event = self._submit(live, seat, d, expected, False)
            return snap, event, seat

        return self._deciding(game_id, op)

    def _deciding(self, game_id: str, op: Callable[[Live], T]) -> T:
        """Run a decision's ``op`` under the game's lock, on the cached game if there is one.

        The cached game is not checked against the database first: the write that stores the
        decision is the check (``WHERE event_count = seen``, in the committing transaction).
        Should another server process have moved the game on, that write changes nothing and
        the cached state is dropped; and any refusal made from the cached game may be out of
        date too. Either way the game is brought up to date from the database and ``op`` runs
        once more, on what the database holds.
        """
        with self._game_lock(game_id):
            live = self._cache.get(game_id)
            if live is not None:
                try:
                    return op(live)
                except ApiError:
                    pass
            return op(self._load(game_id))

    def _submit(
        self,
        live: Live,
        seat: int,
        decision: Decision,
        expected: int,
        by_bot: bool,
    ) -> tuple[Snapshot, dict[str, Any]]:
        game_id = live.id
        if live.status == "over":
            raise ApiError(409, "not_your_turn", "the game is over (G4)")
        info = live.seats[seat]
        if info.kind == "bot" and not by_bot:
            raise ApiError(
                409, "not_your_turn", f"seat {seat} is played by a bot for the rest of the game"
            )
        if expected != live.decision_count:
            raise ApiError(
                409,
                "stale",
                f"decision number {live.decision_count} is current, you sent {expected}: "
                "the submission is stale or a duplicate",
                decision_number=live.decision_count,
            )
        state = live.state
        if state.to_move != seat:
            raise ApiError(
                409, "not_your_turn", f"it is seat {state.to_move}'s turn, not seat {seat}'s"
            )
        try:
            state.apply(decision)
        except IllegalDecisionError as e:
            raise ApiError(422, "illegal", f"illegal decision: {e}", rule=e.rule or None) from None
        try:
            drawn = []
            while state.is_chance():
                drawn.append(state.sample_draw(SYSTEM_RANDOM).name)
            number = live.event_count + 1
            now = utcnow()
            over = state.is_over()
            result = result_json(state) if over else None
            data = {
                "seat": seat,
                "decision": decision.to_json(),
                "decision_number": live.decision_count + 1,
                "drawn": drawn,
                "bot": by_bot,
            }
            seen = live.event_count

            params = {
                "b_id": game_id,
                "b_seen": seen,
                "b_decisions": live.decision_count + 1,
                "b_events": number,
                "b_now": now,
                "b_to_move": state.to_move,
                "b_status": "over" if over else "playing",
                "b_result": result,
            }
            row = {
                "game_id": game_id,
                "number": number,
                "kind": "decision",
                "data": data,
                "created_at": now,
            }

            def write(conn: sa.Connection) -> bool:
                if conn.execute(_AFTER_DECISION, params).rowcount != 1:
                    return False
                conn.execute(_INSERT_EVENT, row)
                return True

            if not self.committer.run(write):
                raise ApiError(
                    409,
                    "stale",
                    "another server process took a decision in this game first",
                    decision_number=live.decision_count + 1,
                )
        except BaseException:
            # The state was changed in memory but not stored: replay it from the database.
            self._forget(game_id)
            raise
        live.decision_count += 1
        live.event_count = number
        live.updated_at = live.turn_started_at = now
        if over:
            live.status = "over"
            live.result = result
        live.snap = None
        return self.snapshot(live), {"number": number, "kind": "decision", **data}

    def hand_to_bot(
        self, game_id: str, by_seat: int, seat: int, level: str | None
    ) -> tuple[Snapshot, dict[str, Any]]:
        """Give ``seat`` to a bot for the rest of the game (own seat, or a silent one)."""
        with self._game_lock(game_id):
            live = self._load(game_id)
            if live.status == "over":
                raise ApiError(409, "conflict", "the game is over (G4)")
            if not 0 <= seat < len(live.seats):
                raise ApiError(
                    404, "not_found", f"this game has seats 0 to {len(live.seats) - 1}, not {seat}"
                )
            target = live.seats[seat]
            if target.kind == "bot":
                raise ApiError(409, "conflict", f"seat {seat} is already played by a bot")
            if by_seat != seat:
                if live.state.to_move != seat:
                    raise ApiError(
                        409,
                        "conflict",
                        f"seat {seat} is not keeping anyone waiting: it is seat "
                        f"{live.state.to_move}'s turn",
                    )
                waited = (utcnow() - live.turn_started_at).total_seconds()
                limit = self.settings.seat_timeout
                if waited < limit:
                    raise ApiError(
                        409,
                        "conflict",
                        f"seat {seat} has been silent for {waited:.0f} s; it can be handed to a "
                        f"bot after {limit:g} s ({limit - waited:.0f} s from now)",
                    )
            name = self.resolve_level(level)
            number = live.event_count + 1
            now = utcnow()
            data = {"seat": seat, "bot": name, "by": by_seat}
            seen = live.event_count

            def write(conn: sa.Connection) -> bool:
                done = conn.execute(
                    sa.update(_GAMES)
                    .where(_GAMES.c.id == game_id, _GAMES.c.event_count == seen)
                    .values(event_count=number, updated_at=now)
                )
                if done.rowcount != 1:
                    return False
                conn.execute(
                    sa.update(_SEATS)
                    .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                    .values(kind="bot", bot=name, handed_to_bot=True)
                )
                conn.execute(
                    sa.insert(_EVENTS).values(
                        game_id=game_id, number=number, kind="seat", data=data, created_at=now
                    )
                )
                return True

            if not self.committer.run(write):
                raise ApiError(409, "conflict", "the game changed meanwhile: try again")
            target.kind = "bot"
            target.bot = name
            target.handed_to_bot = True
            live.event_count = number
            live.updated_at = now
            live.snap = None
            return self.snapshot(live), {"number": number, "kind": "seat", **data}

    def hint_job(self, game_id: str, token: str) -> BotJob:
        """What a hint for the token's seat works from: its view and legal decisions only (I2).

        Refused (409 ``not_your_turn``) unless it is that seat's turn and a person plays it.
        """
        with self._game_lock(game_id):
            live = self._load(game_id)
            seat = self.seat_of(live, token)
            if live.status == "over":
                raise ApiError(409, "not_your_turn", "the game is over (G4): no hint")
            if live.seats[seat].kind == "bot":
                raise ApiError(
                    409, "not_your_turn", f"seat {seat} is played by a bot for the rest of the game"
                )
            to_move = live.state.to_move
            if to_move != seat:
                raise ApiError(
                    409, "not_your_turn", f"it is seat {to_move}'s turn, not seat {seat}'s: no hint"
                )
            return BotJob(
                game_id,
                seat,
                "hint",
                live.state.view(seat),
                live.state.legal_decisions(),
                live.decision_count,
            )

    def bot_job(self, game_id: str) -> BotJob | None:
        """The bot's turn to think, if the seat to move is a bot's."""
        with self._game_lock(game_id):
            live = self._load(game_id)
            seat = live.state.to_move
            if live.status == "over" or seat is None:
                return None
            info = live.seats[seat]
            if info.kind != "bot":
                return None
            level = info.bot if info.bot in self.bot_levels else self.settings.default_bot_level
            spec = self.bot_levels.get(level, "random")
            return BotJob(
                game_id,
                seat,
                spec,
                live.state.view(seat),
                live.state.legal_decisions(),
                live.decision_count,
            )


def check_decision_json(obj: object) -> Decision:
    """Parse a decision from outside input, as a 400 on bad syntax."""
    try:
        return decision_from_json(obj)
    except (DecisionSyntaxError, KeralaError) as e:
        raise ApiError(400, "bad_decision", f"decision: {e}") from None
