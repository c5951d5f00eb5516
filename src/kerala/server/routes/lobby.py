"""Lobby routes: take a free seat, fill one with a bot, start early, rematch (see lobby.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from kerala.server.links import seat_link
from kerala.server.lobby import Lobby
from kerala.server.routes.deps import (
    AnnouncerDep,
    BotsDep,
    GameIdDep,
    RequiredTokenDep,
    ServiceDep,
    SettingsDep,
    rate_limit,
)
from kerala.server.schemas import (
    RATE_LIMITED,
    SEAT_ERRORS,
    Game,
    HandOver,
    Joined,
    Rematch,
    SeatJoin,
)
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api/games", tags=["lobby"])
SeatDep = Annotated[int, Path(ge=0, le=4, description="seat number")]


async def get_lobby(service: ServiceDep) -> Lobby:
    return Lobby(service)


LobbyDep = Annotated[Lobby, Depends(get_lobby)]


def _json(data: Any) -> Response:
    return Response(dumpb(data), media_type="application/json")


@router.post(
    "/{game_id}/seats/{seat}/join",
    response_model=Joined,
    responses={**SEAT_ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("seat")],
)
async def join(
    game_id: GameIdDep,
    seat: SeatDep,
    body: SeatJoin,
    request: Request,
    lobby: LobbyDep,
    announcer: AnnouncerDep,
    settings: SettingsDep,
) -> Response:
    """Take a free seat of an open game with a name: you get the seat's token (shown once)."""
    snap, event, token = await run_in_threadpool(lobby.join, game_id, seat, body.name)
    announcer.announce(event, snap)
    player = snap.base["players"][seat]
    link = seat_link(settings.public_url, game_id, seat, token)
    return _json(
        {
            "seat": seat,
            "name": player["name"],
            "color": player["color"],
            "token": token,
            **link,
            "game": snap.for_seat(seat),
        }
    )


@router.post("/{game_id}/seats/{seat}/fill", response_model=Game, responses=SEAT_ERRORS)
async def fill(
    game_id: GameIdDep,
    seat: SeatDep,
    lobby: LobbyDep,
    announcer: AnnouncerDep,
    token: RequiredTokenDep,
    body: HandOver | None = None,
) -> Response:
    """The creator (with the creator's token) gives a free seat to a bot."""
    level = body.level if body is not None else None
    snap, event = await run_in_threadpool(lobby.fill, game_id, token, seat, level)
    announcer.announce(event, snap)
    return Response(snap.game_json(None), media_type="application/json")


@router.post("/{game_id}/start", response_model=Game, responses=SEAT_ERRORS)
async def start(
    game_id: GameIdDep, lobby: LobbyDep, announcer: AnnouncerDep, token: RequiredTokenDep
) -> Response:
    """The creator starts now; bots of the default level take the free seats."""
    snap, event = await run_in_threadpool(lobby.start, game_id, token)
    announcer.announce(event, snap)
    return Response(snap.game_json(None), media_type="application/json")


@router.post(
    "/{game_id}/rematch",
    response_model=Rematch,
    responses={**SEAT_ERRORS, **RATE_LIMITED},
    dependencies=[rate_limit("create")],
)
async def rematch(
    game_id: GameIdDep,
    request: Request,
    lobby: LobbyDep,
    service: ServiceDep,
    announcer: AnnouncerDep,
    bots: BotsDep,
    settings: SettingsDep,
    token: RequiredTokenDep,
) -> Response:
    """A new game with the same players and settings, seats rotated so the bag passes on.

    Your token plays your seat in it. The first ask makes it (a ``rematch`` event tells every
    socket of this game); later asks answer the same game."""
    new_id, seat, snap, event = await run_in_threadpool(lobby.rematch, game_id, token)
    if snap is not None and event is not None:
        announcer.announce(event, snap)
        new_snap, _ = await run_in_threadpool(service.get, new_id, None)
        bots.after(new_snap)  # a bot may hold the bag first
    link = seat_link(settings.public_url, new_id, seat, token)
    return _json({"id": new_id, "seat": seat, **link})
