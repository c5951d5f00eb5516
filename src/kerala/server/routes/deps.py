"""Shared route dependencies: the service objects of the app, and the seat token.

Every collaborator a route uses comes from here: the ``get_*`` dependencies for HTTP routes
(``async``, so that FastAPI calls them on the event loop, not in a worker thread), and the
``*_of`` readers for code that holds a connection (a WebSocket session, a helper of a route).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Path, Query, Request
from starlette.requests import HTTPConnection

from kerala.server.accounts import AccountService
from kerala.server.botrunner import BotRunner
from kerala.server.chat import ChatRelay, ChatRepository
from kerala.server.decisions import DecisionService
from kerala.server.errors import ApiError
from kerala.server.fanout import Announcer, Broker
from kerala.server.hub import Hub
from kerala.server.lobbyfeed import LobbyFeed
from kerala.server.mail import MailRepository
from kerala.server.quickmatch import QuickMatch
from kerala.server.ratelimit import RateLimiter, client_of
from kerala.server.ratingservice import RatingService
from kerala.server.reads import GameReads
from kerala.server.repository import GameRepository
from kerala.server.seats import SeatService
from kerala.server.service import GameService
from kerala.server.settings import Settings

GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"


def settings_of(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


def limiter_of(conn: HTTPConnection) -> RateLimiter:
    limiter: RateLimiter = conn.app.state.limiter
    return limiter


def chat_of(conn: HTTPConnection) -> tuple[ChatRepository, ChatRelay]:
    """The chat's store and its relay to the sockets of every process."""
    return conn.app.state.chat_repo, conn.app.state.chat_relay


def service_of(conn: HTTPConnection) -> GameService:
    service: GameService = conn.app.state.service
    return service


def hub_of(conn: HTTPConnection) -> Hub:
    hub: Hub = conn.app.state.hub
    return hub


def announcer_of(conn: HTTPConnection) -> Announcer:
    announcer: Announcer = conn.app.state.announcer
    return announcer


def lobby_feed_of(conn: HTTPConnection) -> LobbyFeed:
    feed: LobbyFeed = conn.app.state.lobby_feed
    return feed


def mail_repo_of(conn: HTTPConnection) -> MailRepository:
    repo: MailRepository = conn.app.state.mail_repo
    return repo


def analysis_jobs_of(conn: HTTPConnection) -> Any:
    """The app's running analyses (``routes.analysis.Jobs``, made at startup)."""
    return conn.app.state.analysis_jobs


async def get_accounts(request: Request) -> AccountService:
    accounts: AccountService = request.app.state.accounts
    return accounts


async def get_service(request: Request) -> GameService:
    return service_of(request)


async def get_decisions(request: Request) -> DecisionService:
    """Decisions, hints and bot jobs, over the app's game service."""
    return DecisionService(request.app.state.service)


async def get_seats(request: Request) -> SeatService:
    """Hand-overs and take-backs, over the app's game service."""
    return SeatService(request.app.state.service)


async def get_hub(request: Request) -> Hub:
    return hub_of(request)


async def get_announcer(request: Request) -> Announcer:
    return announcer_of(request)


async def get_bots(request: Request) -> BotRunner:
    bots: BotRunner = request.app.state.bots
    return bots


async def get_settings(request: Request) -> Settings:
    return settings_of(request)


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
        await limiter_of(request).check(action, client_of(request.client))

    return Depends(count)


ServiceDep = Annotated[GameService, Depends(get_service)]
AccountsDep = Annotated[AccountService, Depends(get_accounts)]
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
