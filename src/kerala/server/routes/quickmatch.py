"""Quick match: join the queue, ask how it goes, leave (docs/server.md, docs/api.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response
from starlette.concurrency import run_in_threadpool

from kerala.server.errors import ApiError
from kerala.server.routes.accounts import CurrentDep
from kerala.server.routes.deps import QuickMatchDep, RatingsDep, RequiredTokenDep, rate_limit
from kerala.server.schemas import (
    RATE_LIMITED,
    SEAT_ERRORS,
    QuickMatchJoin,
    QuickMatchStatus,
    QuickMatchTicket,
)
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api/quickmatch", tags=["quick match"])

#: A guest waits at the starting rating (a new player's display rating).
START_RATING = 1500.0


def _json(obj: object, status: int = 200) -> Response:
    return Response(dumpb(obj), status_code=status, media_type="application/json")


@router.post(
    "",
    status_code=201,
    response_model=QuickMatchTicket,
    responses={**SEAT_ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("quickmatch")],
)
async def join(
    body: QuickMatchJoin, quick: QuickMatchDep, current: CurrentDep, ratings: RatingsDep
) -> Response:
    """Wait for a game of ``players`` with the time control ``control``: a ticket and its secret.

    Signed in, you wait at your rating in the group of that player count; a rated game needs
    that (401 otherwise). A guest waits at the starting rating, for casual games only."""
    account = current.account.id if current is not None else None
    if body.rated and account is None:
        raise ApiError(401, "not_signed_in", "a rated game needs an account: sign in first")
    rating = START_RATING
    if account is not None:
        rating = float(await run_in_threadpool(ratings.display_of, account, body.players))
    ticket, secret = await quick.join(
        body.players, body.control, body.name, rating, body.bots_after, account, body.rated
    )
    return _json({"ticket": ticket.id, "secret": secret, "status": "waiting"}, 201)


TicketId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="ticket id")]


@router.get("/{ticket_id}", response_model=QuickMatchStatus, responses=SEAT_ERRORS)
async def status(ticket_id: TicketId, secret: RequiredTokenDep, quick: QuickMatchDep) -> Response:
    """How the wait goes; once matched, the game, your seat and its token."""
    return _json(await quick.status(ticket_id, secret))


@router.delete("/{ticket_id}", status_code=204, responses=SEAT_ERRORS)
async def leave(ticket_id: TicketId, secret: RequiredTokenDep, quick: QuickMatchDep) -> Response:
    """Leave the queue (409 when the game has already been found)."""
    await quick.leave(ticket_id, secret)
    return Response(status_code=204)
