"""Quick match: join the queue, ask how it goes, leave (docs/server.md, docs/api.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from kerala.server.routes.deps import QuickMatchDep, RequiredTokenDep, rate_limit
from kerala.server.schemas import (
    RATE_LIMITED,
    SEAT_ERRORS,
    QuickMatchJoin,
    QuickMatchStatus,
    QuickMatchTicket,
)
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api/quickmatch", tags=["quick match"])

#: Every person waits at the same starting rating until rated games give them one.
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
async def join(body: QuickMatchJoin, quick: QuickMatchDep) -> Response:
    """Wait for a game of ``players`` with the time control ``control``: a ticket and its secret."""
    ticket, secret = await quick.join(
        body.players, body.control, body.name, START_RATING, body.bots_after
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
