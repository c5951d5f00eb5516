"""Assembles the FastAPI app: settings, database, service, live hub, bot runner, routes.

>>> from kerala.server.settings import Settings
>>> app = create_app(Settings(db="sqlite:///:memory:", migrate=False))
>>> {"/api/games/{game_id}", "/api/games/{game_id}/decisions"} <= set(app.openapi()["paths"])
True
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from kerala.bots import BotSpecError, make_bot
from kerala.server.accountrepo import AccountRepository
from kerala.server.accounts import AccountService
from kerala.server.background import stop_task
from kerala.server.botrunner import BotRunner
from kerala.server.chat import ChatRelay, ChatRepository
from kerala.server.domain import Event, GameNotFound
from kerala.server.errors import BodyLimit, install_handlers
from kerala.server.fanout import Announcer, GapFiller, RedisBroker, make_broker
from kerala.server.headers import HardenedApp, install_docs
from kerala.server.hub import Hub
from kerala.server.jsonlimits import JsonGuard
from kerala.server.lobbyfeed import LobbyFeed, lobby_fetch
from kerala.server.mail import MailRepository, make_mailer
from kerala.server.protocol import configure as configure_protocol
from kerala.server.quickmatch import QuickMatch, game_maker, make_queue
from kerala.server.ratelimit import install as install_rate_limits
from kerala.server.ratingrepo import RatingRepository
from kerala.server.ratingservice import RatingService
from kerala.server.reads import GameReads
from kerala.server.repository import GameRepository
from kerala.server.routes import (
    accounts,
    analysis,
    games,
    live,
    lobby,
    lobbyfeed,
    mail,
    players,
    rules,
    tools,
    tutorial,
    ui,
)
from kerala.server.routes import quickmatch as quickmatch_routes
from kerala.server.routes.analysis import Jobs
from kerala.server.service import GameService
from kerala.server.settings import Settings
from kerala.server.store import make_engine, migrate
from kerala.server.wire import Snapshot

log = logging.getLogger("kerala.server")

DESCRIPTION = """Play Kerala: The Way of the Elephant against bots and friends.

Create a game, share the invite links (each carries a seat's secret token), play by REST or over
the game's WebSocket (`/api/games/{id}/ws?since=N`, the token in the first message, never in
the URL). See docs/api.md for the WebSocket protocol and the error format."""


def available_levels(levels: dict[str, str]) -> dict[str, str]:
    """The configured bot levels whose bot exists (others are being written or not installed)."""
    out: dict[str, str] = {}
    for name, spec in levels.items():
        try:
            make_bot(spec, seed=0)
        except BotSpecError:
            continue
        out[name] = spec
    return out


def tune_gc() -> None:
    """Keep Python's garbage collector from pausing a long-running server for long.

    A full collection walks every container object in the process, and holds up every request
    while it does (a pause of tens to hundreds of milliseconds with a few hundred games in
    play). After startup, the modules, classes and functions loaded so far will live as long as
    the process: ``gc.freeze()`` moves them out of the collector's sight, so that full
    collections only walk what the games made. A larger first threshold lets most short-lived
    objects die by reference counting before a collection looks at them, so fewer survive into
    the older generations and full collections come less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD0, *gc.get_threshold()[1:])


#: The collector's first-generation threshold in the server (Python's default is 700).
GC_THRESHOLD0 = 10_000


def include_routes(app: FastAPI) -> None:
    """Every router of the API, then the web client's pages."""
    app.include_router(games.router)
    app.include_router(accounts.router)
    app.include_router(tools.router)
    app.include_router(tutorial.router)
    app.include_router(analysis.router)
    app.include_router(rules.router)
    app.include_router(lobby.router)  # open seats, rematch
    app.include_router(quickmatch_routes.router)
    app.include_router(players.router)
    app.include_router(lobbyfeed.router)
    app.include_router(mail.router)
    app.include_router(live.router)
    app.include_router(ui.router)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server app for ``settings`` (default: from ``KERALA_*`` environment variables).

    Long because it is the composition root: every part of the server is made here in the
    order the parts depend on each other, and started and stopped by one lifespan.
    """
    settings = settings if settings is not None else Settings()
    configure_protocol(settings.header_timeout, settings.max_header_bytes)
    engine = make_engine(
        settings.db,
        settings.sqlite_synchronous,
        statement_timeout=settings.db_statement_timeout,
        lock_timeout=settings.db_lock_timeout,
        pool_timeout=settings.db_pool_timeout,
    )
    repo = GameRepository(engine, settings.sqlite_checkpoint)
    service = GameService(repo, settings, available_levels(settings.bot_levels))
    ratings = RatingService(RatingRepository(engine))
    mail_repo = MailRepository(engine)
    account_service = AccountService(
        AccountRepository(engine), service, settings, ratings, mail_repo
    )
    hub = Hub()
    chat_relay = ChatRelay(hub, settings.redis, settings.redis_prefix, settings.redis_timeout)
    mailer = make_mailer(mail_repo, settings)
    broker = make_broker(
        settings.redis,
        settings.redis_prefix,
        settings.bot_lease,
        settings.redis_timeout,
        settings.redis_outbox,
    )
    announcer = Announcer(hub, broker)
    bots = BotRunner(service, announcer, broker, settings)
    announcer.bots_hear(bots.after)
    announcer.cache_hears(service.heard)

    quickmatch = QuickMatch(make_queue(settings), settings, game_maker(service), bots.after)
    lobby_feed = LobbyFeed(
        lobby_fetch(GameReads(repo), ratings), settings.lobby_refresh, settings.lobby_max_sockets
    )

    def latest(game_id: str) -> tuple[Event, Snapshot] | None:
        try:
            snap, _ = service.get(game_id, None)
        except GameNotFound:
            return None
        n = snap.event_number
        events = repo.events(game_id, n - 1, n) if n else []
        return (events[-1], snap) if events else None

    # With Redis, for the messages it lost; in any case, for an event committed although its
    # commit reported a lost connection (never announced, found in the database).
    gaps = GapFiller(hub, announcer, repo.event_counts, latest, settings.gap_check)
    if isinstance(broker, RedisBroker):
        broker.on_resubscribe = gaps.wake

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Room for many games' database calls at once (the default is 40 threads).
        anyio.to_thread.current_default_thread_limiter().total_tokens = 64
        if settings.migrate:
            await anyio.to_thread.run_sync(migrate, settings.db)
        await anyio.to_thread.run_sync(repo.start)
        await broker.start(announcer.from_others)
        bots.start()  # and resumes the bot turns a stopped server left waiting
        gaps.start()
        quickmatch.start()
        await chat_relay.start()
        if mailer is not None:
            mailer.start()
        settling = asyncio.create_task(ratings.run(settings.rating_settle), name="kerala-ratings")
        if settings.tune_gc:
            tune_gc()
        try:
            yield
        finally:
            hub.close_all()
            await stop_task(settling)
            await lobby_feed.close()
            await chat_relay.close()
            if mailer is not None:
                await mailer.close()
            await quickmatch.close()
            await gaps.close()
            await bots.close()
            await broker.close()
            await app.state.limiter.close()
            await anyio.to_thread.run_sync(repo.close)
            engine.dispose()

    # Security headers on every response; the docs page only when asked for (docs/security.md).
    app = HardenedApp(
        title="Kerala game server",
        version="1",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    if settings.docs:
        install_docs(app)
    app.state.settings = settings
    app.state.service = service
    app.state.accounts = account_service
    app.state.hub = hub
    app.state.announcer = announcer
    app.state.broker = broker
    app.state.repo = repo
    app.state.bots = bots
    app.state.quickmatch = quickmatch
    app.state.ratings = ratings
    app.state.lobby_feed = lobby_feed
    app.state.chat_repo = ChatRepository(engine)
    app.state.mail_repo = mail_repo
    app.state.chat_relay = chat_relay
    app.state.analysis_jobs = Jobs()
    install_handlers(app)
    install_rate_limits(app, settings)
    include_routes(app)
    app.mount("/static", StaticFiles(directory=ui.STATIC_DIR, check_dir=False), name="static")
    app.add_middleware(JsonGuard, max_depth=settings.json_depth)  # inside BodyLimit
    app.add_middleware(BodyLimit, limit=settings.max_body)
    return app
