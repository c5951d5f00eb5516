"""Server settings (pydantic-settings): read from ``KERALA_*`` environment variables.

>>> s = Settings(db="sqlite:///x.sqlite3", seat_timeout=10)
>>> s.seat_timeout, s.port
(10.0, 8000)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: Bot levels offered to players: level name -> bot spec for :func:`kerala.bots.make_bot`.
#: Levels whose bot is not installed are left out when the server starts.
DEFAULT_BOT_LEVELS: dict[str, str] = {
    "random": "random",
    "easy": "easy",
    "medium": "medium",
    "learned": "learned",
    "hard": "hard",
    "expert": "expert",
    "mcts": "mcts:time=2",
}


class Settings(BaseSettings):
    """Everything a running server can be told. See docs/server.md."""

    model_config = SettingsConfigDict(env_prefix="KERALA_", extra="ignore")

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8000
    #: SQLAlchemy URL: a SQLite file by default, or ``postgresql+psycopg://user@host/db``.
    db: str = "sqlite:///kerala.sqlite3"
    #: SQLite only: ``normal`` (a commit survives a killed server; the disk is flushed at
    #: checkpoints) or ``full`` (each commit is flushed to disk: it also survives a power cut).
    sqlite_synchronous: Literal["normal", "full"] = "normal"
    #: Seconds one database statement may run (PostgreSQL ``statement_timeout``; 0: no bound).
    db_statement_timeout: Annotated[float, Field(ge=0, le=3600)] = 10.0
    #: Seconds a write waits for a lock (PostgreSQL ``lock_timeout``, SQLite's busy timeout).
    db_lock_timeout: Annotated[float, Field(gt=0, le=3600)] = 5.0
    #: Seconds a request waits for a free database connection of the pool.
    db_pool_timeout: Annotated[float, Field(gt=0, le=3600)] = 10.0
    #: Seconds between looks for events a process's sockets missed (a Redis message lost, a
    #: commit whose answer was lost): each watched game's event count against the database's.
    gap_check: Annotated[float, Field(gt=0, le=600)] = 3.0
    #: Seconds a human seat may stay silent on its turn before the others may hand it to a bot.
    seat_timeout: Annotated[float, Field(ge=0)] = 300.0
    #: Largest request body accepted, in bytes (413 above).
    max_body: Annotated[int, Field(ge=1024)] = 256 * 1024
    #: Missed events replayed to a reconnecting client; more than this gets a full resync.
    resync_limit: Annotated[int, Field(ge=1)] = 200
    #: Bots think in worker processes (``process``) or threads (``thread``, for tests only).
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: Annotated[int, Field(ge=1, le=64)] = 2
    #: Seconds a bot waits before announcing its move, so that people can follow the game.
    bot_delay: Annotated[float, Field(ge=0)] = 0.3
    bot_levels: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_BOT_LEVELS))
    default_bot_level: str = "easy"
    #: The bot level that takes a handed-over seat in games created without ``handover_bot``.
    handover_bot: str = "easy"
    #: Seconds the "suggest a move" search may think (0: the instant greedy evaluation).
    hint_budget: Annotated[float, Field(ge=0, le=30)] = 1.0
    #: Worker processes for hints and analyses, apart from the game bots' (docs/security.md).
    advice_workers: Annotated[int, Field(ge=1, le=64)] = 1
    #: How much lower the CPU priority of those workers is than the bots' (``nice``, 0–19).
    advice_nice: Annotated[int, Field(ge=0, le=19)] = 10
    #: Hints being worked out or waiting at once, in all, and per client address (429 above).
    hint_queue: Annotated[int, Field(ge=1, le=10_000)] = 8
    hints_per_client: Annotated[int, Field(ge=1, le=1000)] = 1
    #: Analyses unfinished at once, in all, and per client address (429 above).
    analysis_jobs: Annotated[int, Field(ge=1, le=10_000)] = 4
    analysis_per_client: Annotated[int, Field(ge=1, le=1000)] = 1
    #: Seconds an analysis runs on without anyone asking how it goes: then it is cancelled.
    analysis_abandon: Annotated[float, Field(gt=0, le=86_400)] = 30.0
    #: Seconds a stopping server waits for requests under way (then it closes them).
    shutdown_grace: Annotated[int, Field(ge=0, le=600)] = 3
    #: Addresses whose ``X-Forwarded-For`` names the client (a proxy in front; ``*``: any).
    forwarded_allow_ips: Annotated[str, Field(min_length=1, max_length=1000)] = "127.0.0.1,::1"
    #: Absolute base of the invite and watch links handed out (``https://kerala.example``);
    #: without it the links are paths only and the browser prefixes its own address (the
    #: request's Host header is never trusted for them, docs/security.md).
    public_url: str | None = None
    #: Serve the API docs page ``/docs`` (Swagger UI), from packaged files (never a CDN).
    docs: bool = False
    #: Seconds a new WebSocket has to send its first message (``hello``) before it is closed.
    ws_hello_timeout: Annotated[float, Field(gt=0, le=600)] = 10.0
    #: Tune the garbage collector once started (freeze what startup loaded; see docs/server.md).
    tune_gc: bool = True
    #: Run ``alembic upgrade head`` when the server starts.
    migrate: bool = True
    #: Redis URL (``redis://127.0.0.1:6379/0``): needed when several processes share a database.
    redis: str | None = None
    #: Prefix of the Redis keys and channel: the processes of one game world share it.
    redis_prefix: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")] = "kerala"
    #: Seconds a rate-limit count, a bot lease, a chat relay or the readiness check waits on
    #: Redis; then the first three do without it for 5 s (a Redis that hangs must not hold
    #: decisions; docs/security.md, "Faults"). Redis answers in well under a millisecond, but
    #: a loaded machine may take a while to run it.
    redis_timeout: Annotated[float, Field(gt=0, le=60)] = 1.0
    #: Events of this process waiting to be published to the others; past it an event is not
    #: sent (the others' gap check finds it): a Redis that hangs must not grow the queue.
    redis_outbox: Annotated[int, Field(ge=100, le=10_000_000)] = 10_000
    #: Seconds a process's lease on a game's bot turn lasts unless renewed (takeover time).
    bot_lease: Annotated[float, Field(gt=0.5, le=600)] = 5.0
    #: Seconds between looks for bot turns left waiting (a dead process's, a lost message's).
    bot_sweep: Annotated[float, Field(gt=0, le=600)] = 2.0
    #: Seconds between looks for clocks run out (and the world's sign of life, docs/server.md).
    clock_tick: Annotated[float, Field(gt=0, le=60)] = 1.0

    # -- Bounded input and rate limits (docs/security.md) ----------------------------------
    #: Deepest nesting of lists and objects in a JSON body or WebSocket message.
    json_depth: Annotated[int, Field(ge=4, le=512)] = 32
    #: Largest WebSocket message, in bytes: a bigger frame is refused (close 1009) by the
    #: protocol before it is read.
    ws_max_message: Annotated[int, Field(ge=1024, le=16 * 1024 * 1024)] = 64 * 1024
    #: Open connections (and requests in progress) one process serves; more get 503.
    max_connections: Annotated[int, Field(ge=10)] = 1000
    #: Seconds a connection may take to send a request's headers before it is closed.
    header_timeout: Annotated[float, Field(gt=0, le=300)] = 10.0
    #: Largest request line and headers, in bytes (431 above).
    max_header_bytes: Annotated[int, Field(ge=4096, le=1024 * 1024)] = 64 * 1024
    #: Seconds an idle keep-alive connection stays open between requests.
    keep_alive_timeout: Annotated[int, Field(ge=1, le=300)] = 5
    #: Per-client rate limits (``limits`` notation, ``;`` between windows; empty: none). Each
    #: client address may create this many games (rematches included) ...
    rate_create: str = "30/minute;300/hour"
    #: ... take this many open seats ...
    rate_seat: str = "30/minute;300/hour"
    #: ... submit this many decisions (REST and WebSocket together) ...
    rate_decide: str = "30/second;1800/minute"
    #: ... ask for this many hints (beside KERALA_HINTS_PER_CLIENT, hints under way at once) ...
    rate_hint: str = "10/minute;120/hour"
    #: ... and start this many analyses (beside KERALA_ANALYSIS_PER_CLIENT, analyses at once).
    rate_analysis: str = "6/minute;60/hour"
    #: ... sign in (every attempt, any method) ...
    rate_signin: str = "10/minute;100/hour"
    #: ... and make accounts.
    rate_signup: str = "5/minute;30/hour"
    #: Failed sign-ins of one account (from any address) before it is locked: the next
    #: attempt waits until the oldest failure leaves the window (docs/accounts.md).
    rate_signin_failures: str = "5/15 minutes"

    # -- Accounts (docs/accounts.md) --------------------------------------------------------
    #: Days a sign-in lasts (the session cookie and its row in the database).
    session_days: Annotated[float, Field(gt=0, le=400)] = 30.0
    #: The WebAuthn relying party id (the site's domain, for passkeys): by default the host
    #: of ``KERALA_PUBLIC_URL``, else the host name the browser asked for.
    webauthn_rp_id: Annotated[str, Field(max_length=253)] | None = None
    #: The site's name that the browser shows when it makes or uses a passkey.
    webauthn_rp_name: Annotated[str, Field(min_length=1, max_length=64)] = "Kerala"
    #: Seconds a passkey ceremony (its challenge) stays valid.
    webauthn_timeout: Annotated[float, Field(ge=10, le=3600)] = 300.0

    #: Seconds between SQLite write-ahead log checkpoints (which truncate the log).
    sqlite_checkpoint: Annotated[float, Field(gt=0, le=3600)] = 30.0

    #: Seconds between passes that rate the finished rated games (docs/ratings.md).
    rating_settle: Annotated[float, Field(gt=0, le=3600)] = 2.0

    #: Seconds between reads of the open games while a lobby socket is open (docs/server.md).
    lobby_refresh: Annotated[float, Field(gt=0, le=60)] = 1.0
    #: Lobby sockets one process serves at once (more are closed with 1013: try again).
    lobby_max_sockets: Annotated[int, Field(ge=1, le=100_000)] = 2000

    # -- Correspondence e-mail (docs/server.md, "E-mail") ------------------------------------
    #: The SMTP server that sends it: ``smtp://[user:password@]host[:port]`` (STARTTLS when
    #: offered) or ``smtps://…``; without it no e-mail is ever sent.
    smtp_url: str | None = None
    #: The sender of the e-mail.
    mail_from: Annotated[str, Field(min_length=3, max_length=200)] = "Kerala <kerala@localhost>"
    #: Seconds between rounds that look for what to tell, and the least time between two
    #: e-mails to one person (one digest rather than one message per move).
    mail_check: Annotated[float, Field(gt=0, le=3600)] = 10.0
    mail_digest: Annotated[float, Field(ge=0, le=7 * 86400)] = 600.0

    # -- Quick match (docs/server.md) -------------------------------------------------------
    #: Seconds between pairing passes (one process of a cluster pairs at a time).
    quickmatch_interval: Annotated[float, Field(gt=0, le=60)] = 0.5
    #: Rating points a waiting player's range starts at, widens by each second, and tops out at.
    quickmatch_window: Annotated[float, Field(ge=0, le=5000)] = 100.0
    quickmatch_widen: Annotated[float, Field(ge=0, le=5000)] = 10.0
    quickmatch_widest: Annotated[float, Field(ge=0, le=10000)] = 800.0
    #: Seconds a ticket stays in the queue without its person asking how it goes.
    quickmatch_abandon: Annotated[float, Field(ge=5, le=3600)] = 30.0
    #: Most tickets waiting at once (409 above: the queue is a bounded resource).
    quickmatch_max_waiting: Annotated[int, Field(ge=1, le=1_000_000)] = 10_000
    #: Per-client rate of chat messages (docs/server.md, "Chat") ...
    rate_chat: str = "5/10 seconds;120/hour"
    #: ... and the longest chat message, in characters.
    chat_max_length: Annotated[int, Field(ge=1, le=2000)] = 200
    #: Per-client rate of joining the quick-match queue.
    rate_quickmatch: str = "20/minute;200/hour"

    @field_validator(
        "rate_create",
        "rate_seat",
        "rate_decide",
        "rate_hint",
        "rate_analysis",
        "rate_signin",
        "rate_signup",
        "rate_signin_failures",
        "rate_quickmatch",
        "rate_chat",
    )
    @classmethod
    def _rate(cls, v: str) -> str:
        from kerala.server.ratelimit import parse_rate

        parse_rate(v)
        return v

    @field_validator("smtp_url")
    @classmethod
    def _smtp(cls, v: str | None) -> str | None:
        if v is not None:
            from kerala.server.mail import Smtp

            Smtp.parse(v)
        return v

    @model_validator(mode="after")
    def _mail_links(self) -> Settings:
        if self.smtp_url is not None and self.public_url is None:
            raise ValueError(
                "KERALA_SMTP_URL needs KERALA_PUBLIC_URL: the links in an e-mail must be whole"
            )
        return self

    @field_validator("db")
    @classmethod
    def _known_database(cls, v: str) -> str:
        from kerala.server.store import normalize_url

        return normalize_url(v)

    @field_validator("redis")
    @classmethod
    def _redis_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("a Redis URL starts with redis://, rediss:// or unix://")
        return v or None
