"""Players' profiles and the leaderboards (docs/ratings.md): public, read only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from starlette.concurrency import run_in_threadpool

from kerala.server.domain import PlayerNotFound
from kerala.server.routes.deps import AccountsDep, RatingsDep
from kerala.server.schemas import ERRORS, Leaderboard, Profile
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api", tags=["players"])


def _json(obj: object) -> Response:
    return Response(dumpb(obj), media_type="application/json")


@router.get("/players/{handle}", response_model=Profile, responses=ERRORS)
async def profile(
    handle: Annotated[str, Path(min_length=1, max_length=64)],
    accounts: AccountsDep,
    ratings: RatingsDep,
) -> Response:
    """A player's ratings per group with their history, results by player count and favourite
    colors (rated games only)."""
    key = accounts.handle_key(handle)
    account = None if key is None else await run_in_threadpool(accounts.repo.account_by_key, key)
    if account is None:
        raise PlayerNotFound(f'no player with the handle "{handle}"')
    return _json(await run_in_threadpool(ratings.profile, account))


@router.get("/leaderboard", response_model=Leaderboard, responses=ERRORS)
async def leaderboard(
    ratings: RatingsDep,
    group: Annotated[str, Query(pattern="^(2p|3-5p)$")] = "2p",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> Response:
    """The settled ratings of a group (``2p`` or ``3-5p``), best first."""
    return _json(await run_in_threadpool(ratings.leaderboard, group, limit))
