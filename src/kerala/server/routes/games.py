"""Game routes: create, list, look, decide, hint, hand a seat to a bot, events, record, replay."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from kerala.notation import plain_record, write_record
from kerala.ratings import bot_ratings
from kerala.server.decisions import DecisionService
from kerala.server.domain import Event
from kerala.server.links import seat_link, watch_link
from kerala.server.reads import decode_cursor
from kerala.server.repository import GameQuery
from kerala.server.routes.clients import client_address, until_gone
from kerala.server.routes.deps import (
    AnnouncerDep,
    BotsDep,
    BrokerDep,
    DecisionsDep,
    GameIdDep,
    ReadsDep,
    RepoDep,
    RequiredTokenDep,
    SeatsDep,
    ServiceDep,
    SettingsDep,
    TokenDep,
    rate_limit,
)
from kerala.server.schemas import (
    ERRORS,
    RATE_LIMITED,
    SEAT_ERRORS,
    BotLevel,
    BotLevels,
    DecisionSubmit,
    EventList,
    Game,
    GameCreate,
    GameCreated,
    GameList,
    HandOver,
    Health,
    HintAsk,
    Hints,
    Ready,
    Replay,
    ServerTime,
)
from kerala.server.wire import Snapshot, dumpb

router = APIRouter(prefix="/api", tags=["games"])


def _rating(level: str) -> str:
    # The level's published 2-player display rating (docs/ratings.md), one number for all.
    return f"rating {bot_ratings()['2p'][level].rating.display}"


BOT_DESCRIPTIONS = {
    "random": f"plays any legal move: for learning the rules ({_rating('random')}, never won "
    "a ladder game)",
    "easy": f"a gentle opponent that often slips ({_rating('easy')}: beats random, loses to "
    "medium)",
    "medium": f"plays sensibly, one move ahead ({_rating('medium')}: beats easy, loses to hard)",
    "learned": "one move ahead, weighing the reply it leaves the next player, as it learned by "
    "self-play (beats medium in 62% of games; not rated yet)",
    "hard": f"a strong opponent that searches ahead ({_rating('hard')}: beats medium nearly "
    "always)",
    "expert": f"the strongest: a sharper search and an exact last round ({_rating('expert')}: "
    "beats hard)",
    "mcts": "searches the game tree (Monte Carlo) for 2 s a move: strong, and slow",
}


def _json(data: Any, status: int = 200) -> Response:
    return Response(dumpb(data), status_code=status, media_type="application/json")


def _game(snap: Snapshot, seat: int | None) -> Response:
    return Response(snap.game_json(seat), media_type="application/json")


@router.get("/health", response_model=Health)
def health() -> dict[str, bool]:
    """Liveness: the process answers (it asks nothing of the database)."""
    return {"ok": True}


@router.get(
    "/ready",
    response_model=Ready,
    responses={503: {"model": Ready, "description": "the database cannot be read or written"}},
)
async def ready(repo: RepoDep, broker: BrokerDep) -> Response:
    """Readiness of *this* process: 503 when its database does not answer or its writes fail.
    Redis away only degrades the fan-out between processes (``"redis": "degraded (…)"``):
    decisions and bot games still work, so the process stays ready (docs/deploy.md)."""
    out = {"ready": True, "database": "ok", "redis": "ok" if broker.name == "redis" else "not used"}
    try:
        await asyncio.wait_for(run_in_threadpool(repo.ping), 5)
    except Exception as e:
        out["ready"], out["database"] = False, f"unavailable ({type(e).__name__})"
    failing = repo.committer.health.failing()
    if out["ready"] and failing is not None:
        error, seconds = failing
        out["ready"], out["database"] = False, f"writes failing ({error}) for {seconds:.0f} s"
    try:
        await asyncio.wait_for(broker.ping(), 5)
    except Exception as e:
        out["redis"] = f"degraded: unavailable ({type(e).__name__})"
    return _json(out, 200 if out["ready"] else 503)


@router.get("/bots", response_model=BotLevels)
def bots(service: ServiceDep, settings: SettingsDep) -> BotLevels:
    """The bot levels a seat may take."""
    levels = [
        BotLevel(name=n, description=BOT_DESCRIPTIONS.get(n, f"bot {spec}"))
        for n, spec in service.bot_levels.items()
    ]
    default = settings.default_bot_level
    if default not in service.bot_levels and levels:
        default = levels[0].name
    return BotLevels(levels=levels, default=default)


@router.post(
    "/games",
    status_code=201,
    response_model=GameCreated,
    responses={**ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("create")],
)
async def create_game(
    body: GameCreate, request: Request, service: ServiceDep, bots: BotsDep, settings: SettingsDep
) -> Response:
    """Create a game: one invite link (with its secret token) per human seat, a watch link."""
    seats = [s.model_dump() for s in body.seats]
    created = await run_in_threadpool(
        lambda: service.create(
            seats,
            body.removal,
            body.removed,
            body.first,
            body.clock,
            hints=body.hints,
            handover_bot=body.handover_bot,
            rated=body.rated,
        )
    )
    snap = created.snapshot
    game_id = snap.base["id"]
    invites = [
        {
            "seat": s.seat,
            "name": s.name,
            "color": s.color,
            "token": created.tokens[s.seat],
            **seat_link(settings.public_url, game_id, s.seat, created.tokens[s.seat]),
        }
        for s in created.seats
        if s.seat in created.tokens
    ]
    bots.after(snap)
    return _json(
        {
            "id": game_id,
            "watch": watch_link(settings.public_url, game_id),
            "invites": invites,
            "game": snap.for_seat(None),
            "creator_token": created.creator_token,
        },
        201,
    )


@router.get("/games", response_model=GameList, responses=ERRORS)
async def list_games(
    reads: ReadsDep,
    status: Annotated[str | None, Query(pattern="^(open|playing|over)$")] = None,
    player: Annotated[
        str | None, Query(min_length=1, max_length=40, description="part of a player's name")
    ] = None,
    winner: Annotated[
        str | None, Query(min_length=1, max_length=40, description="who finished first")
    ] = None,
    created_from: Annotated[
        dt.date | None, Query(alias="from", description="created on or after (UTC date)")
    ] = None,
    created_to: Annotated[
        dt.date | None, Query(alias="to", description="created on or before (UTC date)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[
        str | None, Query(max_length=200, description="the 'next' of the previous page")
    ] = None,
) -> Response:
    """Games in progress and finished, most recently moved first, filtered, a page at a time.

    Only public facts: players, progress, dates, and final ranks; never a token or a hidden
    tile (I2)."""
    query = GameQuery(
        limit=limit,
        status=status,
        player=player,
        winner=winner,
        created_from=_day(created_from),
        created_before=_day_after(created_to),
        after=decode_cursor(cursor) if cursor is not None else None,
    )
    games, after = await run_in_threadpool(reads.list_games, query)
    return _json({"games": games, "next": after})


def _day(d: dt.date | None) -> dt.datetime | None:
    return None if d is None else dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC)


def _day_after(d: dt.date | None) -> dt.datetime | None:
    """The start of the day after ``d``; none after the last day a date can name (9999-12-31:
    everything was created before its end)."""
    if d is None or d == dt.date.max:
        return None
    return _day(d + dt.timedelta(days=1))


@router.get("/games/{game_id}", response_model=Game, responses=SEAT_ERRORS)
async def get_game(game_id: GameIdDep, service: ServiceDep, token: TokenDep) -> Response:
    """The game as the token's seat sees it (its legal decisions on its turn), or a watcher.

    Reading has no side effects (it never wakes a bot)."""
    snap, seat = await run_in_threadpool(service.get, game_id, token)
    return _game(snap, seat)


@router.post(
    "/games/{game_id}/decisions",
    response_model=Game,
    responses={**SEAT_ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("decide")],
)
async def submit_decision(
    game_id: GameIdDep,
    body: DecisionSubmit,
    decisions: DecisionsDep,
    announcer: AnnouncerDep,
    token: RequiredTokenDep,
) -> Response:
    """Submit a decision with the decision number seen last; committed, then announced."""
    snap, event, seat = await submit(decisions, game_id, token, body.decision, body.expected)
    announcer.announce(event, snap)
    return _game(snap, seat)


async def submit(
    decisions: DecisionService, game_id: str, token: str, decision: Any, expected: int
) -> tuple[Snapshot, Event, int]:
    """Token → seat, parse, submit (in a worker thread)."""
    return await run_in_threadpool(decisions.submit_as, game_id, token, decision, expected)


@router.post("/games/{game_id}/seats/{seat}/bot", response_model=Game, responses=SEAT_ERRORS)
async def hand_to_bot(
    game_id: GameIdDep,
    seat: int,
    seats: SeatsDep,
    announcer: AnnouncerDep,
    token: RequiredTokenDep,
    body: HandOver | None = None,
) -> Response:
    """Hand a seat to a bot for the rest of the game: your own any time, another once silent.

    The bot is the game's ``handover_bot`` level (a ``level`` in the body must be that one)."""
    level = body.level if body is not None else None

    snap, event, by = await run_in_threadpool(seats.hand_to_bot, game_id, token, seat, level)
    announcer.announce(event, snap)
    return _game(snap, by)


@router.post("/games/{game_id}/seats/{seat}/back", response_model=Game, responses=SEAT_ERRORS)
async def take_back(
    game_id: GameIdDep,
    seat: int,
    seats: SeatsDep,
    announcer: AnnouncerDep,
    token: RequiredTokenDep,
) -> Response:
    """Take your seat back from the bot that plays it (after a timeout or a hand-over)."""
    snap, event, by = await run_in_threadpool(seats.take_back, game_id, token, seat)
    announcer.announce(event, snap)
    return _game(snap, by)


@router.get("/time", response_model=ServerTime)
def server_time(service: ServiceDep) -> dict[str, str]:
    """The server's clock, for clients to show the game clocks counting down."""
    return {"now": service.now().isoformat()}


@router.post(
    "/games/{game_id}/hint",
    response_model=Hints,
    responses={**SEAT_ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("hint")],
)
async def hint(
    request: Request,
    game_id: GameIdDep,
    decisions: DecisionsDep,
    bots: BotsDep,
    announcer: AnnouncerDep,
    token: RequiredTokenDep,
    body: HintAsk | None = None,
) -> Response:
    """Suggest the best few decisions for the seat to move, from its own view only (I2).

    Only in a game created with ``hints`` on (403 ``hints_off`` otherwise); each hint is a
    public ``hint`` event. The search runs in the advice workers for the server's hint budget,
    after the game bots, within the hint quotas (429 with ``Retry-After`` above them); a client
    that goes away before it ends leaves the queue."""
    k = body.k if body is not None else 3
    with bots.hint_slot(game_id, client_address(request)):
        job, snap, event = await run_in_threadpool(decisions.hint_job, game_id, token)
        announcer.announce(event, snap)  # everyone's log: "X asked for a hint"
        suggestions = await until_gone(request, bots.suggest(job.view, job.legal, k))
    return _json({"suggestions": suggestions, "decision_number": job.expected})


@router.get("/games/{game_id}/events", response_model=EventList, responses=ERRORS)
async def events(
    game_id: GameIdDep,
    service: ServiceDep,
    since: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Response:
    """Public events after number ``since`` (or ``resync: true`` when too many were missed)."""
    evs, count, resync = await run_in_threadpool(service.events_since, game_id, since)
    return _json({"events": [e.to_json() for e in evs], "event_number": count, "resync": resync})


@router.get("/games/{game_id}/record", responses=ERRORS)
async def record(
    game_id: GameIdDep,
    service: ServiceDep,
    extensions: Annotated[
        Literal["all", "none"],
        Query(description="all: the full record; none: its plain form, for older readers"),
    ] = "all",
) -> Response:
    """The game record (docs/notation.md); random removed tiles only once the game is over (I2).

    ``extensions=none`` gives the plain form: no optional fields (the clock's settings, events
    and each turn's time), which every reader of format version 1 reads."""
    state, players = await run_in_threadpool(service.record_parts, game_id)
    name = f"kerala-{game_id}.json"
    if extensions == "none":
        doc = plain_record(write_record(state, players))  # no optional field
        name = f"kerala-{game_id}-plain.json"
    else:
        clock, times = await run_in_threadpool(service.record_clock, game_id)
        doc = write_record(state, players, clock=clock, times=times)
    return Response(
        json.dumps(doc, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/games/{game_id}/replay", response_model=Replay, responses=ERRORS)
async def replay(
    game_id: GameIdDep,
    reads: ReadsDep,
    at: Annotated[int | None, Query(ge=0, le=1_000_000)] = None,
) -> Response:
    """The public position after ``at`` decisions (default: all)."""
    return _json(await run_in_threadpool(reads.replay, game_id, at))
