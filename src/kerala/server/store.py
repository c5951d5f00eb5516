"""Persistence: the SQLAlchemy models, the engine, and running the Alembic migrations.

A game is stored as its setup plus the list of its events, never as a pickled state: the
``games`` row holds the seats' colors, the removal, the tiles removed before play and the first
display; each ``events`` row holds one accepted decision with the tiles drawn right after it
(a new round's display), or a seat handed to a bot. Replaying the events through the engine
gives the state back, so any server process on the same database can continue any game.

The bag's order is never stored: it does not exist. Each draw is made when it is due, from the
operating system's random source, and stored as it happens. Under random removal the removed
tiles are stored in ``games.hidden_removed``, which no response, event or log ever shows
(docs/rules.md I2) until the game is over. Seat tokens are stored as SHA-256 hashes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

T = TypeVar("T")


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    """One game: its setup, counters, and the hidden removed tiles (I2)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True), index=True)
    updated_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True), index=True)
    status: Mapped[str] = mapped_column(sa.String(16), index=True)
    tileset: Mapped[str] = mapped_column(sa.String(64))
    removal: Mapped[str] = mapped_column(sa.String(16))
    #: Tiles taken out before play (S3). Secret under random removal until the game is over.
    hidden_removed: Mapped[list[str]] = mapped_column(sa.JSON)
    #: The first round's display (public).
    first_drawn: Mapped[list[str]] = mapped_column(sa.JSON)
    decision_count: Mapped[int] = mapped_column(sa.Integer)
    event_count: Mapped[int] = mapped_column(sa.Integer)
    turn_started_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    #: The seat whose decision is awaited (``None`` when over): lets a server find bot turns.
    to_move: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    #: SHA-256 of the creator's token: fills open seats with bots, starts early (lobby).
    creator_hash: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    #: The game a rematch of this one made, once asked for.
    rematch_id: Mapped[str | None] = mapped_column(sa.String(32), nullable=True)
    #: The time control and each seat's seconds left (:class:`kerala.clocks.Clock`).
    clock: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    #: Since when the running seat's clock runs (``None``: none runs).
    clock_since: Mapped[dt.datetime | None] = mapped_column(
        sa.DateTime(timezone=True), nullable=True
    )
    #: When the running seat's time runs out: lets a server find the seats to time out.
    clock_deadline: Mapped[dt.datetime | None] = mapped_column(
        sa.DateTime(timezone=True), nullable=True, index=True
    )
    #: Whether a seat may ask for a hint (chosen at creation, shown to every seat).
    hints: Mapped[bool] = mapped_column(sa.Boolean, default=False, server_default=sa.false())
    #: The bot level that takes a seat handed over (``None``: the server's default).
    handover_bot: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    #: Whether the game moves the ratings of the accounts that hold its seats (docs/ratings.md).
    rated: Mapped[bool] = mapped_column(sa.Boolean, default=False, server_default=sa.false())


class SeatRow(Base):
    """One seat of a game: who plays it, and the hash of its secret token."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    color: Mapped[str] = mapped_column(sa.String(16))
    kind: Mapped[str] = mapped_column(sa.String(8))
    bot: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    handed_to_bot: Mapped[bool] = mapped_column(sa.Boolean, default=False)
    #: The seat's final rank (SC7, 1 = won) once the game is over; lets games be listed by it.
    rank: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)


class WorldRow(Base):
    """The game world's sign of life (one row): every server process writes ``alive_at`` each
    clock tick, so a process that starts can tell how long the world was down (clocks paused)."""

    __tablename__ = "world"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    alive_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    #: The last process to write stopped cleanly (no process may be alive).
    stopped: Mapped[bool] = mapped_column(sa.Boolean, default=False)


class EventRow(Base):
    """One event of a game, numbered from 1; ``data`` is public (it is what clients receive)."""

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))
    data: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


class AccountRow(Base):
    """A player's account (docs/accounts.md): a unique handle, a display name, and the
    Argon2id hash of a password (``None``: passkeys only)."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    #: The handle as chosen, in Unicode normal form NFKC.
    handle: Mapped[str] = mapped_column(sa.String(64))
    #: The handle casefolded: two handles that differ only in case or width are one.
    handle_key: Mapped[str] = mapped_column(sa.String(64), unique=True)
    display_name: Mapped[str] = mapped_column(sa.String(64))
    password_hash: Mapped[str | None] = mapped_column(sa.String(255), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


class AccountSessionRow(Base):
    """A signed-in browser: the SHA-256 of its cookie's secret and the CSRF token of it.
    Signing out deletes the row, so a copied cookie stops working at once."""

    __tablename__ = "account_sessions"

    id_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    csrf: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    expires_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True), index=True)


class PasskeyRow(Base):
    """A passkey (WebAuthn credential) of an account: its id, public key and signature count."""

    __tablename__ = "passkeys"

    #: The credential id, base64url.
    id: Mapped[str] = mapped_column(sa.String(1400), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    public_key: Mapped[bytes] = mapped_column(sa.LargeBinary)
    sign_count: Mapped[int] = mapped_column(sa.Integer)
    transports: Mapped[list[str]] = mapped_column(sa.JSON)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    last_used_at: Mapped[dt.datetime | None] = mapped_column(
        sa.DateTime(timezone=True), nullable=True
    )


class ChallengeRow(Base):
    """A WebAuthn ceremony under way: its challenge, used once, until ``expires_at``."""

    __tablename__ = "webauthn_challenges"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    #: ``register`` (a passkey for a new or signed-in account) or ``signin``.
    kind: Mapped[str] = mapped_column(sa.String(16))
    #: The challenge, base64url.
    challenge: Mapped[str] = mapped_column(sa.String(128))
    #: The signed-in account a passkey is added to (``None``: a sign-up or a sign-in).
    account_id: Mapped[str | None] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True
    )
    #: A sign-up's handle, display name and WebAuthn user id (base64url).
    data: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    expires_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True), index=True)


class AccountSeatRow(Base):
    """A seat held by an account: the game opens as this seat wherever the account signs in.

    The seat's token is kept with it (the ``seats`` row keeps only its hash) so that the server
    can hand it to the account's other browsers."""

    __tablename__ = "account_seats"

    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token: Mapped[str] = mapped_column(sa.String(200))
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


class ChatRow(Base):
    """One chat message of a game (docs/server.md, "Chat"): kept with the game."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    #: ``players`` (the seats) or ``watchers``.
    channel: Mapped[str] = mapped_column(sa.String(16))
    seat: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    #: The text, or one of the translated one-click phrases (``hello``, ``gg``, ``thanks``).
    text: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    phrase: Mapped[str | None] = mapped_column(sa.String(16), nullable=True)
    at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


class AccountMailRow(Base):
    """An account's e-mail address and whether it wants correspondence e-mail (opt-in)."""

    __tablename__ = "account_mail"

    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    email: Mapped[str] = mapped_column(sa.String(254))
    notify: Mapped[bool] = mapped_column(sa.Boolean)
    #: Since when it wants e-mail: nothing that happened before is mailed.
    since: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    #: The secret of its unsubscribe link.
    unsubscribe: Mapped[str] = mapped_column(sa.String(64), unique=True)
    last_sent_at: Mapped[dt.datetime | None] = mapped_column(
        sa.DateTime(timezone=True), nullable=True
    )


class MailNoticeRow(Base):
    """Something to tell an account by e-mail (its turn, a game over): noticed once, sent in
    the next digest."""

    __tablename__ = "mail_notices"
    __table_args__ = (sa.UniqueConstraint("account_id", "game_id", "kind", "turn"),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE")
    )
    #: ``your_turn``, ``time_low``, ``started`` or ``over``.
    kind: Mapped[str] = mapped_column(sa.String(16))
    #: The decision number it is about (``your_turn``), or -1.
    turn: Mapped[int] = mapped_column(sa.Integer)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    sent_at: Mapped[dt.datetime | None] = mapped_column(sa.DateTime(timezone=True), nullable=True)


class RatingRow(Base):
    """An account's rating in one player-count group (``2p``, ``3-5p``; kerala.ratings)."""

    __tablename__ = "ratings"

    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    grp: Mapped[str] = mapped_column(sa.String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(sa.Float)
    sigma: Mapped[float] = mapped_column(sa.Float)
    games: Mapped[int] = mapped_column(sa.Integer)
    updated_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


class RatingHistoryRow(Base):
    """The rating a rated seat gave its account: one row per game and seat, so that a seat is
    rated once whichever process settles it."""

    __tablename__ = "rating_history"

    game_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(
        sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    grp: Mapped[str] = mapped_column(sa.String(8))
    mu: Mapped[float] = mapped_column(sa.Float)
    sigma: Mapped[float] = mapped_column(sa.Float)
    rank: Mapped[int] = mapped_column(sa.Integer)
    at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))


def _sqlite_pragmas(synchronous: str, busy_ms: int = 10000) -> Callable[[Any, Any], None]:
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        # WAL: readers do not block the writer. In WAL mode synchronous=NORMAL writes each
        # commit to the log before it returns (a killed process loses nothing committed) and
        # leaves the disk flush to checkpoints; FULL also flushes each commit (power cuts).
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.execute(f"PRAGMA busy_timeout={busy_ms}")
        # Checkpoints flush the disk: the committer runs them between batches, not in one.
        cur.execute("PRAGMA wal_autocheckpoint=0")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    return on_connect


#: The databases the server runs on (SQLAlchemy backend names).
BACKENDS = ("sqlite", "postgresql")


class DatabaseUnavailable(Exception):
    """The database cannot be used: one line saying why (no password in it)."""


def normalize_url(url: str) -> str:
    """``url`` checked, with ``postgresql://`` meaning psycopg 3 (the driver the ``web`` extra
    installs); ``ValueError`` with a one-line reason for anything else.

    >>> normalize_url("postgresql://kerala@db/kerala")
    'postgresql+psycopg://kerala@db/kerala'
    >>> normalize_url("mysql://u@h/db")
    Traceback (most recent call last):
    ...
    ValueError: unsupported database "mysql://": use sqlite:///FILE or postgresql://USER@HOST/DB
    """
    try:
        u = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise ValueError(f"{json.dumps(url)} is not a database URL") from None
    backend = u.get_backend_name()
    if backend not in BACKENDS:
        raise ValueError(
            f"unsupported database {json.dumps(u.drivername + '://')}: "
            "use sqlite:///FILE or postgresql://USER@HOST/DB"
        )
    if backend == "postgresql" and u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")
    return u.render_as_string(hide_password=False)


def make_engine(
    url: str,
    sqlite_synchronous: str = "full",
    *,
    statement_timeout: float = 0,
    lock_timeout: float | None = None,
    pool_timeout: float = 30,
) -> Engine:
    """An engine for ``url``; SQLite files get WAL, the given sync level and a busy timeout.

    The server bounds every wait (seconds; 0: no bound): ``lock_timeout`` is SQLite's busy
    timeout and PostgreSQL's ``lock_timeout`` (``None``: 10 s on SQLite, none on PostgreSQL, as
    the migrations want: a replica waits for another's), ``statement_timeout`` PostgreSQL's,
    ``pool_timeout`` the wait for a free connection of the pool. PostgreSQL connections are
    checked before each use (``pool_pre_ping``): a database restart costs no request a dead
    connection."""
    u = sa.make_url(normalize_url(url))
    if u.get_backend_name() == "sqlite":
        if sqlite_synchronous.upper() not in ("NORMAL", "FULL"):
            raise ValueError(f"SQLite synchronous must be NORMAL or FULL, not {sqlite_synchronous}")
        # Connections are cheap: enough that a burst of requests never queues for one.
        pool: dict[str, Any] = {}
        if u.database and u.database != ":memory:":
            pool = {"pool_size": 32, "max_overflow": 96, "pool_timeout": pool_timeout}
        busy_ms = int((10 if lock_timeout is None else lock_timeout) * 1000)
        engine = sa.create_engine(
            u, connect_args={"check_same_thread": False, "timeout": busy_ms / 1000}, **pool
        )
        event.listen(engine, "connect", _sqlite_pragmas(sqlite_synchronous.upper(), busy_ms))
        return engine
    waits = (("statement_timeout", statement_timeout), ("lock_timeout", lock_timeout or 0))
    options = " ".join(f"-c {name}={int(seconds * 1000)}" for name, seconds in waits)
    return sa.create_engine(
        u,
        pool_size=10,
        max_overflow=20,
        pool_pre_ping=True,
        pool_timeout=pool_timeout,
        connect_args={"connect_timeout": 5, "options": options},
    )


def check_database(url: str, run_migrations: bool = True) -> None:
    """Connect to the database at ``url`` and bring its schema up to date, or raise
    :class:`DatabaseUnavailable` with one line saying what is wrong (a missing directory, a
    refused or silent server, a file that is not a database, an unsupported scheme)."""
    try:
        url = normalize_url(url)
    except ValueError as e:
        raise DatabaseUnavailable(str(e)) from None
    u = sa.make_url(url)
    if u.get_backend_name() == "sqlite" and u.database and u.database != ":memory:":
        folder = Path(u.database).expanduser().absolute().parent
        if not folder.is_dir():
            raise DatabaseUnavailable(f"the folder {folder} does not exist")
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        if run_migrations:
            migrate(url)
    except sa.exc.DBAPIError as e:
        raise DatabaseUnavailable(_first_line(e.orig if e.orig is not None else e)) from None
    except sa.exc.SQLAlchemyError as e:
        raise DatabaseUnavailable(_first_line(e)) from None
    finally:
        engine.dispose()


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    return lines[0] if lines else type(e).__name__


def alembic_config(url: str) -> Any:
    """The Alembic config of the migrations shipped inside the package."""
    from alembic.config import Config

    pkg = resources.files("kerala.server")
    cfg = Config(str(pkg.joinpath("alembic.ini")))
    cfg.set_main_option("script_location", str(pkg.joinpath("migrations")))
    # ConfigParser interpolation: a literal % in the URL (encoded password) must be doubled.
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (``alembic upgrade head``)."""
    from alembic import command

    command.upgrade(alembic_config(url), "head")


def safe_url(url: str) -> str:
    """``url`` with any password masked, for printing and logs."""
    return sa.make_url(url).render_as_string(hide_password=True)


class OneStatement:
    """A write that is one SQL statement, atomic by itself (:class:`Committer`): alone in its
    batch, on PostgreSQL, it is sent without a transaction around it, so that it costs one round
    trip to the database instead of three (``BEGIN``, the statement, ``COMMIT``)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Connection], Any]) -> None:
        self.fn = fn

    def __call__(self, conn: Connection) -> Any:
        return self.fn(conn)


class _Job:
    __slots__ = ("fn", "future")

    def __init__(self, fn: Callable[[Connection], Any]) -> None:
        self.fn = fn
        self.future: Future[Any] = Future()


class _Broken(Exception):
    """The writer's connection broke while a batch was retried one write at a time: the
    outcome of each write (the ones before the break were committed)."""

    def __init__(self, outcomes: list[tuple[bool, Any]]) -> None:
        super().__init__("the connection broke while retrying a batch")
        self.outcomes = outcomes


class WriteHealth:
    """Whether this process's writes reach the database: the outcome of the latest one.

    A write that failed for the database's sake (a full disk, a lost connection, a timeout; not
    a refused precondition or a constraint) marks the write path failing until a later write
    succeeds. Readiness reports it (``/api/ready``): reads may still answer while nothing can be
    stored. The world's sign of life writes every clock tick, so the mark follows the database
    within about a second either way."""

    def __init__(self) -> None:
        self._error: str | None = None
        self._since = 0.0
        self._lock = threading.Lock()

    def ok(self) -> None:
        with self._lock:
            self._error = None

    def failed(self, e: BaseException) -> None:
        """Note a failed write (only database faults count; see the class)."""
        fault = isinstance(e, sa.exc.DBAPIError) and not isinstance(e, sa.exc.IntegrityError)
        if not fault and not isinstance(e, sa.exc.TimeoutError):  # TimeoutError: pool wait
            return
        with self._lock:
            if self._error is None:
                self._since = time.monotonic()
            self._error = type(getattr(e, "orig", None) or e).__name__

    def failing(self) -> tuple[str, float] | None:
        """``(error class, seconds since writes began failing)``, or ``None`` when they work."""
        with self._lock:
            if self._error is None:
                return None
            return self._error, time.monotonic() - self._since


class Committer:
    """Group commit: one writer thread runs the writes of many games in one transaction.

    A caller hands over a function that writes with a connection and blocks until the
    transaction holding it is committed. While one commit is being written, the writes that
    arrive meanwhile are gathered into the next one, so a busy server pays one commit (and disk
    flush, where there is one) for many decisions. Each write checks its own precondition
    (``WHERE event_count = seen``) and reports failure by its return value; should one raise,
    the batch is rolled back and its writes are retried one transaction each, so that only the
    faulty one fails (should the connection break during that retry, the writes committed
    before the break are reported committed, the others failed). On PostgreSQL a batch of one
    :class:`OneStatement` (a decision, when the server is not busy enough to gather several)
    runs in autocommit mode: one round trip.
    """

    #: SQLite: commits after which the write-ahead log is checkpointed (besides once a second).
    CHECKPOINT_EVERY = 500
    #: PostgreSQL: seconds after which an idle writer connection is checked before a write (a
    #: database restarted meanwhile left it dead: the write would fail instead of reconnecting).
    CHECK_IDLE = 1.0

    def __init__(
        self, engine: Engine, max_batch: int = 256, sqlite_checkpoint: float = 30.0
    ) -> None:
        self.engine = engine
        self.max_batch = max_batch
        #: SQLite: seconds between checkpoints that also truncate the log, whatever wrote it.
        self.sqlite_checkpoint = sqlite_checkpoint
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._sqlite = engine.dialect.name == "sqlite"
        self._autocommit = engine.dialect.name == "postgresql"
        self._commits = 0
        self._wake_checkpoint = threading.Event()
        self._closing = False
        self._checkpointer: threading.Thread | None = None
        self.health = WriteHealth()

    def run(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in a write transaction; return its result once committed."""
        result: T = self.submit(fn).result()
        return result

    def start(self) -> None:
        """Start the writer now, and let it take its connections before any write comes (the
        server calls this when it starts): taken at the first write, they would wait behind
        every read of a busy server for the pool's connections."""
        with contextlib.suppress(sa.exc.SQLAlchemyError):  # else the first write connects
            self.submit(lambda conn: None).result()

    def submit(self, fn: Callable[[Connection], T]) -> Future[T]:
        """Hand ``fn`` to the writer; the future holds its result once committed (an event
        loop awaits it with ``asyncio.wrap_future``, without a thread of its own waiting)."""
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._loop, name="kerala-committer", daemon=True
                    )
                    self._thread.start()
                    if self._sqlite:
                        self._checkpointer = threading.Thread(
                            target=self._checkpoint_loop, name="kerala-checkpoint", daemon=True
                        )
                        self._checkpointer.start()
        job = _Job(fn)
        self._queue.put(job)
        future: Future[T] = job.future
        return future

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(30)
            self._thread = None
        if self._checkpointer is not None:
            self._closing = True
            self._wake_checkpoint.set()
            self._checkpointer.join(30)
            self._checkpointer = None

    def _loop(self) -> None:
        # The writer keeps its own connection: it never waits for one behind the readers.
        conn: Connection | None = None
        #: PostgreSQL: a second connection, in autocommit mode, for lone single statements.
        auto: Connection | None = None
        # Each connection's own idle time: lone statements keeping ``auto`` busy say nothing
        # of whether ``conn`` survived a database restart meanwhile.
        conn_used = auto_used = time.monotonic()
        try:
            if self._autocommit:
                try:
                    auto = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
                except sa.exc.SQLAlchemyError:
                    auto = None  # taken again at the first lone statement
            while True:
                job = self._queue.get()
                if job is None:
                    return
                batch = [job] if job.future.set_running_or_notify_cancel() else []
                stop = False
                while len(batch) < self.max_batch:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                        break
                    # A write whose caller gave up before it ran is not run.
                    if more.future.set_running_or_notify_cancel():
                        batch.append(more)
                if not batch:
                    if stop:
                        return
                    continue
                outcomes: list[tuple[bool, Any]]
                lone = len(batch) == 1 and isinstance(batch[0].fn, OneStatement)
                if self._autocommit and lone:
                    if time.monotonic() - auto_used > self.CHECK_IDLE:
                        auto = self._checked(auto)
                    try:
                        if auto is None:
                            auto = self.engine.connect().execution_options(
                                isolation_level="AUTOCOMMIT"
                            )
                        outcomes = [(True, batch[0].fn(auto))]
                    except BaseException as e:  # the statement failed: nothing was stored
                        outcomes = [(False, e)]
                        broken = not isinstance(e, sa.exc.DBAPIError) or e.connection_invalidated
                        if auto is not None and broken:
                            auto.invalidate()
                            auto.close()
                            auto = None
                    auto_used = time.monotonic()
                else:
                    if self._autocommit and time.monotonic() - conn_used > self.CHECK_IDLE:
                        conn = self._checked(conn)
                    try:
                        if conn is None:
                            conn = self.engine.connect()
                        outcomes = self._write(conn, batch)
                    except BaseException as e:  # the connection is gone: every write fails,
                        # but those committed while retrying one by one (_Broken says which)
                        outcomes = (
                            e.outcomes if isinstance(e, _Broken) else [(False, e)] * len(batch)
                        )
                        if conn is not None:
                            conn.invalidate()
                            conn.close()
                            conn = None
                    conn_used = time.monotonic()
                for ok, value in outcomes:
                    if ok:
                        self.health.ok()
                    else:
                        self.health.failed(value)
                for j, (ok, value) in zip(batch, outcomes, strict=True):
                    if ok:
                        j.future.set_result(value)
                    else:
                        j.future.set_exception(value)
                self._commits += 1
                if self._commits % self.CHECKPOINT_EVERY == 0:
                    self._wake_checkpoint.set()
                if stop:
                    return
        finally:
            if conn is not None:
                conn.close()
            if auto is not None:
                auto.close()

    @staticmethod
    def _checked(conn: Connection | None) -> Connection | None:
        """``conn`` if it still answers, else ``None`` (closed: the next write connects anew,
        through the pool's own check)."""
        if conn is None:
            return None
        try:
            conn.exec_driver_sql("SELECT 1")
            conn.rollback()  # ends the transaction the check began (none in autocommit mode)
            return conn
        except sa.exc.DBAPIError:
            with contextlib.suppress(sa.exc.SQLAlchemyError):
                conn.invalidate()
                conn.close()
            return None

    def _checkpoint_loop(self) -> None:
        """SQLite: copy the write-ahead log into the database beside the commits, not in them.

        A checkpoint flushes the disk, which can take long on a busy machine; in WAL mode it
        runs concurrently with the writer, so commits do not wait for it.
        """
        done = 0
        truncated = time.monotonic()
        while not self._closing:
            self._wake_checkpoint.wait(min(1.0, self.sqlite_checkpoint))
            self._wake_checkpoint.clear()
            # Not only the committer writes: the world's sign of life (clockkeeper.py) and the
            # lobby write beside it, and a passive checkpoint never makes the file smaller.
            # So every sqlite_checkpoint seconds, whatever was written, a TRUNCATE checkpoint
            # copies the log into the database and empties it (it waits for the writer of the
            # moment, within the busy timeout).
            if time.monotonic() - truncated >= self.sqlite_checkpoint:
                truncated = time.monotonic()
                mode = "TRUNCATE"
            elif self._commits != done:
                mode = "PASSIVE"
            else:
                continue
            done = self._commits
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")
            except sa.exc.DBAPIError:
                pass  # busy: the next round will do it

    def _write(self, conn: Connection, batch: list[_Job]) -> list[tuple[bool, Any]]:
        """Each write's outcome: ``(True, result)`` or ``(False, exception)``."""
        try:
            results = []
            with conn.begin():
                for j in batch:
                    results.append(j.fn(conn))
            return [(True, r) for r in results]
        except sa.exc.DBAPIError as e:
            if e.connection_invalidated:
                raise
            return self._one_by_one(conn, batch, e)
        except Exception as e:
            return self._one_by_one(conn, batch, e)

    def _one_by_one(
        self, conn: Connection, batch: list[_Job], error: Exception
    ) -> list[tuple[bool, Any]]:
        if len(batch) == 1:
            return [(False, error)]
        out: list[tuple[bool, Any]] = []
        for i, j in enumerate(batch):
            try:
                out.append(self._write(conn, [j])[0])
            except BaseException as e:  # the connection broke: this write and the rest were not
                # stored, the ones before it were (each in its own transaction)
                raise _Broken(out + [(False, e)] * (len(batch) - i)) from e
        return out
