"""Shared route dependencies: the service objects of the app, and the seat token.

They are ``async`` so that FastAPI calls them on the event loop, not in a worker thread.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Path, Query, Request

from kerala.server.botrunner import BotRunner
from kerala.server.decisions import DecisionService
from kerala.server.errors import ApiError
from kerala.server.fanout import Announcer, Broker
from kerala.server.hub import Hub
from kerala.server.quickmatch import QuickMatch
from kerala.server.ratelimit import RateLimiter, client_of
from kerala.server.ratingservice import RatingService
from kerala.server.reads import GameReads
from kerala.server.repository import GameRepository
from kerala.server.seats import SeatService
from kerala.server.service import GameService
from kerala.server.settings import Settings

GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"


async def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def get_decisions(request: Request) -> DecisionService:
    """Decisions, hints and bot jobs, over the app's game service."""
    return DecisionService(request.app.state.service)


async def get_seats(request: Request) -> SeatService:
    """Hand-overs and take-backs, over the app's game service."""
    return SeatService(request.app.state.service)


async def get_hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def get_announcer(request: Request) -> Announcer:
    announcer: Announcer = request.app.state.announcer
    return announcer


async def get_bots(request: Request) -> BotRunner:
    bots: BotRunner = request.app.state.bots
    return bots


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_repo(request: Request) -> GameRepository:
    repo: GameRepository = request.app.state.repo
    return repo


async def get_reads(request: Request) -> GameReads:
    """The read-only queries (lists, replays) over the app's repository."""
    return GameReads(request.app.state.repo)


async def get_broker(request: Request) -> Broker:
    broker: Broker = request.app.state.broker
    return broker


async def get_ratings(request: Request) -> RatingService:
    ratings: RatingService = request.app.state.ratings
    return ratings


async def get_quickmatch(request: Request) -> QuickMatch:
    quick: QuickMatch = request.app.state.quickmatch
    return quick


async def get_token(
    token: Annotated[
        str | None, Query(max_length=200, description="seat token (invite links carry it)")
    ] = None,
    authorization: Annotated[
        str | None, Header(max_length=220, description="Bearer <seat token>")
    ] = None,
    x_kerala_token: Annotated[str | None, Header(max_length=200)] = None,
) -> str | None:
    """The seat token from the query, ``Authorization: Bearer``, or ``X-Kerala-Token``."""
    if authorization is not None:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise ApiError(
                401, "token_required", "the Authorization header must be 'Bearer <token>'"
            )
        return value.strip()
    if x_kerala_token is not None:
        return x_kerala_token
    return token


async def require_token(token: Annotated[str | None, Depends(get_token)]) -> str:
    if not token:
        raise ApiError(
            401,
            "token_required",
            "this needs a seat token: 'Authorization: Bearer <token>' or '?token=<token>'",
        )
    return token


def rate_limit(action: str) -> Any:
    """A route dependency that counts the request against the client's ``action`` rate
    (``KERALA_RATE_<ACTION>``, kerala.server.ratelimit) and refuses it with 429 when over:
    ``@router.post(..., dependencies=[rate_limit("create")])``."""

    async def count(request: Request) -> None:
        limiter: RateLimiter = request.app.state.limiter
        await limiter.check(action, client_of(request.client))

    return Depends(count)


ServiceDep = Annotated[GameService, Depends(get_service)]
DecisionsDep = Annotated[DecisionService, Depends(get_decisions)]
SeatsDep = Annotated[SeatService, Depends(get_seats)]
HubDep = Annotated[Hub, Depends(get_hub)]
AnnouncerDep = Annotated[Announcer, Depends(get_announcer)]
BotsDep = Annotated[BotRunner, Depends(get_bots)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
RepoDep = Annotated[GameRepository, Depends(get_repo)]
ReadsDep = Annotated[GameReads, Depends(get_reads)]
BrokerDep = Annotated[Broker, Depends(get_broker)]
QuickMatchDep = Annotated[QuickMatch, Depends(get_quickmatch)]
RatingsDep = Annotated[RatingService, Depends(get_ratings)]
TokenDep = Annotated[str | None, Depends(get_token)]
RequiredTokenDep = Annotated[str, Depends(require_token)]
GameIdDep = Annotated[str, Path(pattern=GAME_ID_PATTERN, description="game id")]
