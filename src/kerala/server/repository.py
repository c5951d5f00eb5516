"""The queries of the game server, and nothing else: no rules, no HTTP, no JSON for clients.

Each query is written once here (the events of a game: :meth:`GameRepository.events`). Writes
that a decision or a hand-over makes are conditional (``WHERE event_count = seen``) and go
through the group committer (:class:`kerala.server.store.Committer`); they report by their
return value whether the game was still where the caller saw it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from kerala.server.domain import Event, EventKind, GameStatus, Seat, SeatKind
from kerala.server.store import Committer, EventRow, GameRow, OneStatement, SeatRow, WorldRow
from kerala.vocabulary import Removal

#: A conditional write for the group committer: ``True`` if it was stored.
Write = Callable[[sa.Connection], bool]

_GAMES = cast(sa.Table, GameRow.__table__)
_SEATS = cast(sa.Table, SeatRow.__table__)
_EVENTS = cast(sa.Table, EventRow.__table__)
_WORLD = cast(sa.Table, WorldRow.__table__)
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
        clock=sa.bindparam("b_clock", type_=sa.JSON),
        clock_since=sa.bindparam("b_clock_since"),
        clock_deadline=sa.bindparam("b_clock_deadline"),
    )
)
_INSERT_EVENT = sa.insert(_EVENTS)
# PostgreSQL: the check and the event in one statement (one round trip instead of two): the
# event is inserted from the games row the conditional UPDATE returns, so nothing is inserted
# when the game moved on; the row the INSERT returns says which.
_MOVED = _AFTER_DECISION.returning(_GAMES.c.id).cte("moved")
_DECISION_PG = (
    sa.insert(_EVENTS)
    .from_select(
        ["game_id", "number", "kind", "data", "created_at"],
        sa.select(
            _MOVED.c.id,
            sa.bindparam("b_events", type_=sa.Integer),
            sa.literal("decision", sa.String),
            sa.bindparam("e_data", type_=sa.JSON),
            sa.bindparam("b_now", type_=sa.DateTime(timezone=True)),
        ),
    )
    .returning(_EVENTS.c.number)
)
_SET_RANK = (
    sa.update(_SEATS)
    .where(_SEATS.c.game_id == sa.bindparam("b_id"), _SEATS.c.seat == sa.bindparam("b_seat"))
    .values(rank=sa.bindparam("b_rank"))
)


def aware(t: dt.datetime) -> dt.datetime:
    """``t`` as an aware UTC time (SQLite returns naive datetimes; every time stored is UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class GameInfo:
    """A ``games`` row, detached from any session."""

    id: str
    created_at: dt.datetime
    updated_at: dt.datetime
    status: GameStatus
    tileset: str
    removal: Removal
    hidden_removed: list[str]
    first_drawn: list[str]
    decision_count: int
    event_count: int
    turn_started_at: dt.datetime
    to_move: int | None
    result: dict[str, Any] | None
    creator_hash: str | None = None
    rematch_id: str | None = None
    #: The clock (``Clock.to_store()``), since when the running seat's clock runs, deadline.
    clock: dict[str, Any] | None = None
    clock_since: dt.datetime | None = None
    clock_deadline: dt.datetime | None = None
    #: Whether hints are allowed, and the level that takes a seat handed over (``None``: the
    #: server's default), both chosen at creation.
    hints: bool = False
    handover_bot: str | None = None
    #: Whether the game is rated (chosen at creation; docs/ratings.md).
    rated: bool = False

    @classmethod
    def of(cls, r: GameRow) -> GameInfo:
        return cls(
            r.id,
            aware(r.created_at),
            aware(r.updated_at),
            # The columns hold only the words this code writes (kerala.server.domain).
            cast(GameStatus, r.status),
            r.tileset,
            cast(Removal, r.removal),
            list(r.hidden_removed),
            list(r.first_drawn),
            r.decision_count,
            r.event_count,
            aware(r.turn_started_at),
            r.to_move,
            r.result,
            r.creator_hash,
            r.rematch_id,
            r.clock,
            None if r.clock_since is None else aware(r.clock_since),
            None if r.clock_deadline is None else aware(r.clock_deadline),
            bool(r.hints),
            r.handover_bot,
            bool(r.rated),
        )


@dataclass(frozen=True)
class GameQuery:
    """What a game list asks for (every field optional but the page size)."""

    limit: int = 20
    status: str | None = None
    #: Part of a player's name (any seat), case-insensitive.
    player: str | None = None
    #: A player's whole name, case-insensitive, who finished first (SC7).
    winner: str | None = None
    created_from: dt.datetime | None = None
    created_before: dt.datetime | None = None
    #: The last game of the previous page: (``updated_at``, ``id``).
    after: tuple[dt.datetime, str] | None = None


class _Retry(Exception):
    """A write found its precondition broken half-way: its transaction is rolled back."""


class GameRepository:
    """Reads and conditional writes of games, seats and events."""

    def __init__(self, engine: Engine, sqlite_checkpoint: float = 30.0) -> None:
        self.engine = engine
        self.committer = Committer(engine, sqlite_checkpoint=sqlite_checkpoint)
        #: Reads of one statement (a game's event count, its events: every read of a game and
        #: every socket that connects) in autocommit mode on PostgreSQL: one statement is
        #: consistent by itself, and neither ``BEGIN`` nor the pool's ``ROLLBACK`` on return
        #: costs a round trip.
        self._one_read = (
            engine.execution_options(isolation_level="AUTOCOMMIT")
            if engine.dialect.name == "postgresql"
            else engine
        )

    def start(self) -> None:
        """Start the group committer with its connections (see :meth:`Committer.start`)."""
        self.committer.start()

    def close(self) -> None:
        self.committer.close()

    def event_counts(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The event count of each of these games that exists (one query per 500 ids)."""
        out: dict[str, int] = {}
        ids = list(game_ids)
        with self._one_read.connect() as conn:
            for i in range(0, len(ids), 500):
                rows = conn.execute(
                    sa.select(_GAMES.c.id, _GAMES.c.event_count).where(
                        _GAMES.c.id.in_(ids[i : i + 500])
                    )
                )
                out.update({gid: n for gid, n in rows})
        return out

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    # -- reads -----------------------------------------------------------------------

    def event_count(self, game_id: str) -> int | None:
        """The game's event count (``None``: no such game): one cheap query."""
        with self._one_read.connect() as conn:
            count: int | None = conn.execute(_EVENT_COUNT, {"b_id": game_id}).scalar()
            return count

    def game(self, game_id: str) -> GameInfo | None:
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            return None if row is None else GameInfo.of(row)

    def seats(self, game_id: str) -> list[Seat]:
        with Session(self.engine) as session:
            rows = session.scalars(
                sa.select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)
            ).all()
            return [
                Seat(
                    r.seat,
                    r.name,
                    r.color,
                    cast(SeatKind, r.kind),
                    r.bot,
                    r.handed_to_bot,
                    r.token_hash,
                )
                for r in rows
            ]

    def events(self, game_id: str, after: int, upto: int) -> list[Event]:
        """The public events numbered ``after`` + 1 to ``upto``, in order.

        ``upto`` is the event count of the ``games`` row read before: events committed since
        are left for the next read, so that the events always match the row's counters."""
        with self._one_read.connect() as conn:
            rows = conn.execute(
                sa.select(_EVENTS.c.number, _EVENTS.c.kind, _EVENTS.c.data)
                .where(
                    _EVENTS.c.game_id == game_id,
                    _EVENTS.c.number > after,
                    _EVENTS.c.number <= upto,
                )
                .order_by(_EVENTS.c.number)
            ).all()
        return [Event(r.number, cast(EventKind, r.kind), MappingProxyType(r.data)) for r in rows]

    def list_games(self, query: GameQuery) -> list[tuple[GameInfo, list[Seat]]]:
        """The games ``query`` asks for, most recently moved first, with their seats (no
        token hashes); at most ``query.limit``, after ``query.after`` (keyset pagination)."""
        with Session(self.engine) as session:
            q = (
                sa.select(GameRow)
                .order_by(GameRow.updated_at.desc(), GameRow.id.desc())
                .limit(query.limit)
            )
            if query.status is not None:
                q = q.where(GameRow.status == query.status)
            if query.player is not None:
                q = q.where(
                    sa.exists().where(
                        SeatRow.game_id == GameRow.id,
                        sa.func.lower(SeatRow.name).contains(query.player.lower(), autoescape=True),
                    )
                )
            if query.winner is not None:
                q = q.where(
                    sa.exists().where(
                        SeatRow.game_id == GameRow.id,
                        SeatRow.rank == 1,
                        sa.func.lower(SeatRow.name) == query.winner.lower(),
                    )
                )
            if query.created_from is not None:
                q = q.where(GameRow.created_at >= query.created_from)
            if query.created_before is not None:
                q = q.where(GameRow.created_at < query.created_before)
            if query.after is not None:
                t, gid = query.after
                q = q.where(
                    sa.or_(
                        GameRow.updated_at < t,
                        sa.and_(GameRow.updated_at == t, GameRow.id < gid),
                    )
                )
            rows = [GameInfo.of(r) for r in session.scalars(q).all()]
            seats: dict[str, list[Seat]] = {r.id: [] for r in rows}
            if rows:
                for st in session.scalars(
                    sa.select(SeatRow)
                    .where(SeatRow.game_id.in_(list(seats)))
                    .order_by(SeatRow.game_id, SeatRow.seat)
                ):
                    seats[st.game_id].append(
                        Seat(
                            st.seat,
                            st.name,
                            st.color,
                            cast(SeatKind, st.kind),
                            st.bot,
                            st.handed_to_bot,
                            None,
                        )
                    )
            return [(r, seats[r.id]) for r in rows]

    def pending_bot_games(self, waiting_since: dt.datetime | None = None) -> list[str]:
        """Games in progress whose seat to move is a bot's (optionally: since before a time)."""
        with Session(self.engine) as session:
            q = (
                sa.select(GameRow.id)
                .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "playing", SeatRow.kind == "bot")
            )
            if waiting_since is not None:
                q = q.where(GameRow.updated_at <= waiting_since)
            return list(session.scalars(q).all())

    def overdue_games(self, now: dt.datetime) -> list[str]:
        """Games in progress whose running clock's deadline has passed at ``now``."""
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    sa.select(_GAMES.c.id).where(
                        _GAMES.c.status == "playing",
                        _GAMES.c.clock_deadline.is_not(None),
                        _GAMES.c.clock_deadline <= now,
                    )
                ).scalars()
            )

    # -- the game world's sign of life (clocks paused while no server runs) ------------

    def beat(self, now: dt.datetime, *, stopped: bool = False) -> None:
        """This process is alive at ``now`` (``stopped``: and stops now, cleanly); its outcome
        is the write path's health (:class:`kerala.server.store.WriteHealth`)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.update(_WORLD)
                    .where(_WORLD.c.id == 1, _WORLD.c.alive_at <= now)
                    .values(alive_at=now, stopped=stopped)
                )
        except sa.exc.SQLAlchemyError as e:
            self.committer.health.failed(e)
            raise
        self.committer.health.ok()

    def resume_world(self, now: dt.datetime, alive_within: dt.timedelta) -> dt.timedelta | None:
        """On starting: if no server process was alive (none wrote within ``alive_within``, or
        the last stopped cleanly), move every running clock on by the time the world was down,
        once (a conditional write: of processes starting together, one does it). Returns the
        gap credited, or ``None`` when the world was alive or another process credited it."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(_WORLD.c.alive_at, _WORLD.c.stopped).where(_WORLD.c.id == 1)
            ).first()
        if row is None:
            # A new world: of processes starting together on an empty database, one makes its
            # row; the others' insert fails on its key, and there is nothing to credit either.
            try:
                with self.engine.begin() as conn:
                    conn.execute(sa.insert(_WORLD).values(id=1, alive_at=now, stopped=False))
            except sa.exc.IntegrityError:
                pass
            return None
        with self.engine.begin() as conn:
            seen = row.alive_at
            last = aware(seen)
            if not row.stopped and now - last < alive_within:
                return None  # another process is alive: the world never stopped
            done = conn.execute(
                sa.update(_WORLD)
                .where(_WORLD.c.id == 1, _WORLD.c.alive_at == seen)
                .values(alive_at=now, stopped=False)
            )
            if done.rowcount != 1:
                return None
            gap = max(now - last, dt.timedelta(0))
            if gap <= dt.timedelta(0):
                return gap
            for gid, since, deadline in conn.execute(
                sa.select(_GAMES.c.id, _GAMES.c.clock_since, _GAMES.c.clock_deadline).where(
                    _GAMES.c.status == "playing", _GAMES.c.clock_since.is_not(None)
                )
            ).all():
                conn.execute(
                    sa.update(_GAMES)
                    .where(_GAMES.c.id == gid)
                    .values(
                        clock_since=aware(since) + gap,
                        clock_deadline=None if deadline is None else aware(deadline) + gap,
                    )
                )
            return gap

    # -- writes ----------------------------------------------------------------------

    def insert_game(self, game: GameInfo, seats: Sequence[Seat]) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(
                GameRow(
                    id=game.id,
                    created_at=game.created_at,
                    updated_at=game.updated_at,
                    status=game.status,
                    tileset=game.tileset,
                    removal=game.removal,
                    hidden_removed=game.hidden_removed,
                    first_drawn=game.first_drawn,
                    decision_count=game.decision_count,
                    event_count=game.event_count,
                    turn_started_at=game.turn_started_at,
                    to_move=game.to_move,
                    result=game.result,
                    creator_hash=game.creator_hash,
                    clock=game.clock,
                    clock_since=game.clock_since,
                    clock_deadline=game.clock_deadline,
                    hints=game.hints,
                    handover_bot=game.handover_bot,
                    rated=game.rated,
                )
            )
            session.flush()
            for st in seats:
                session.add(
                    SeatRow(
                        game_id=game.id,
                        seat=st.seat,
                        name=st.name,
                        color=st.color,
                        kind=st.kind,
                        bot=st.bot,
                        token_hash=st.token_hash,
                        handed_to_bot=st.handed_to_bot,
                    )
                )

    def commit_later(self, write: Write) -> Future[bool]:
        """Hand a conditional write (:meth:`decision_write`) to the group committer; the
        future says, once it is committed, whether it was stored."""
        return self.committer.submit(write)

    def commit(self, write: Write) -> bool:
        """A conditional write, committed; whether it was stored."""
        return self.committer.run(write)

    def decision_write(
        self,
        game_id: str,
        seen: int,
        *,
        decisions: int,
        to_move: int | None,
        status: str,
        result: dict[str, Any] | None,
        data: dict[str, Any],
        now: dt.datetime,
        ranks: Sequence[int] | None = None,
        clock: tuple[dict[str, Any] | None, dt.datetime | None, dt.datetime | None] = (
            None,
            None,
            None,
        ),
    ) -> Write:
        """Store a decision event as event ``seen + 1``, if the game is still at ``seen``;
        ``ranks`` (the seats' final ranks) when the decision ends the game; ``clock``: the
        games row's ``clock``, ``clock_since`` and ``clock_deadline`` after it. Returns the
        write for the group committer (:meth:`commit`, :meth:`commit_later`): an ``UPDATE``
        of the games row that is the check, and the event's ``INSERT`` (on PostgreSQL one
        statement: the ``INSERT`` takes its row from the ``UPDATE``'s, in a CTE)."""
        params = {
            "b_id": game_id,
            "b_seen": seen,
            "b_decisions": decisions,
            "b_events": seen + 1,
            "b_now": now,
            "b_to_move": to_move,
            "b_status": status,
            "b_result": result,
            "b_clock": clock[0],
            "b_clock_since": clock[1],
            "b_clock_deadline": clock[2],
        }
        row = {
            "game_id": game_id,
            "number": seen + 1,
            "kind": "decision",
            "data": data,
            "created_at": now,
        }

        def write(conn: sa.Connection) -> bool:
            if conn.dialect.name == "postgresql":
                if conn.execute(_DECISION_PG, {**params, "e_data": data}).first() is None:
                    return False
            else:
                if conn.execute(_AFTER_DECISION, params).rowcount != 1:
                    return False
                conn.execute(_INSERT_EVENT, row)
            if ranks is not None:
                conn.execute(
                    _SET_RANK,
                    [{"b_id": game_id, "b_seat": i, "b_rank": r} for i, r in enumerate(ranks)],
                )
            return True

        if ranks is None and self.engine.dialect.name == "postgresql":
            return OneStatement(write)  # the CTE alone: no transaction needed around it
        return write

    def add_seat_event(
        self,
        game_id: str,
        seen: int,
        kind: EventKind,
        data: dict[str, Any],
        now: dt.datetime,
        *,
        seats: dict[int, dict[str, Any]],
        seat_kind_was: str | None = None,
        start: bool = False,
        game_values: dict[str, Any] | None = None,
    ) -> bool:
        """Store event ``seen + 1`` of ``kind`` that changes ``seats`` (seat -> new values), if
        the game is still at ``seen`` (and each seat still of ``seat_kind_was``); ``start``:
        the game starts now (status ``playing``, its first turn's clock from now)."""
        values: dict[str, Any] = {"event_count": seen + 1, "updated_at": now}
        if start:
            values.update(status="playing", turn_started_at=now)
        if game_values:
            values.update(game_values)

        def write(conn: sa.Connection) -> bool:
            done = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id, _GAMES.c.event_count == seen)
                .values(**values)
            )
            if done.rowcount != 1:
                return False
            for seat, change in seats.items():
                q = sa.update(_SEATS).where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                if seat_kind_was is not None:
                    q = q.where(_SEATS.c.kind == seat_kind_was)
                if conn.execute(q.values(**change)).rowcount != 1:
                    raise _Retry  # the seat changed meanwhile: roll the whole write back
            conn.execute(
                _INSERT_EVENT,
                {
                    "game_id": game_id,
                    "number": seen + 1,
                    "kind": kind,
                    "data": data,
                    "created_at": now,
                },
            )
            return True

        try:
            return self.committer.run(write)
        except _Retry:
            return False

    def add_rematch(
        self,
        old_id: str,
        seen: int,
        game: GameInfo,
        seats: Sequence[Seat],
        data: dict[str, Any],
        now: dt.datetime,
    ) -> bool:
        """Store the rematch ``game`` of ``old_id`` and the old game's ``rematch`` event, if
        the old game is still at ``seen`` and has no rematch yet; nothing otherwise."""

        def write(conn: sa.Connection) -> bool:
            done = conn.execute(
                sa.update(_GAMES)
                .where(
                    _GAMES.c.id == old_id,
                    _GAMES.c.event_count == seen,
                    _GAMES.c.rematch_id.is_(None),
                )
                .values(event_count=seen + 1, rematch_id=game.id)
            )
            if done.rowcount != 1:
                return False
            conn.execute(
                sa.insert(_GAMES).values(
                    id=game.id,
                    created_at=game.created_at,
                    updated_at=game.updated_at,
                    status=game.status,
                    tileset=game.tileset,
                    removal=game.removal,
                    hidden_removed=game.hidden_removed,
                    first_drawn=game.first_drawn,
                    decision_count=0,
                    event_count=0,
                    turn_started_at=game.turn_started_at,
                    to_move=game.to_move,
                    result=None,
                    creator_hash=game.creator_hash,
                    clock=game.clock,
                    clock_since=game.clock_since,
                    clock_deadline=game.clock_deadline,
                    hints=game.hints,
                    handover_bot=game.handover_bot,
                    rated=game.rated,
                )
            )
            conn.execute(
                sa.insert(_SEATS),
                [
                    {
                        "game_id": game.id,
                        "seat": st.seat,
                        "name": st.name,
                        "color": st.color,
                        "kind": st.kind,
                        "bot": st.bot,
                        "token_hash": st.token_hash,
                        "handed_to_bot": st.handed_to_bot,
                    }
                    for st in seats
                ],
            )
            conn.execute(
                _INSERT_EVENT,
                {
                    "game_id": old_id,
                    "number": seen + 1,
                    "kind": "rematch",
                    "data": data,
                    "created_at": now,
                },
            )
            return True

        return self.committer.run(write)

    def hand_to_bot(
        self,
        game_id: str,
        seen: int,
        seat: int,
        bot: str,
        data: dict[str, Any],
        now: dt.datetime,
        game_values: dict[str, Any] | None = None,
    ) -> bool:
        """Give ``seat`` to ``bot`` as event ``seen + 1``, if the game is still at ``seen``
        (``game_values``: more columns of the games row to set, the clock's)."""

        def write(conn: sa.Connection) -> bool:
            done = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id, _GAMES.c.event_count == seen)
                .values(event_count=seen + 1, updated_at=now, **(game_values or {}))
            )
            if done.rowcount != 1:
                return False
            conn.execute(
                sa.update(_SEATS)
                .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                .values(kind="bot", bot=bot, handed_to_bot=True)
            )
            conn.execute(
                _INSERT_EVENT,
                {
                    "game_id": game_id,
                    "number": seen + 1,
                    "kind": "seat",
                    "data": data,
                    "created_at": now,
                },
            )
            return True

        return self.committer.run(write)
