"""The live lobby socket (docs/server.md, "Lobby"): the open games, pushed when they change."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from kerala.server.routes.deps import lobby_feed_of

router = APIRouter()


@router.websocket("/api/lobby/ws")
async def lobby_socket(ws: WebSocket) -> None:
    """``{"type": "lobby", "games": [...]}`` at once and whenever the open games change; the
    socket only listens (a message from the client closes it with 1008)."""
    await lobby_feed_of(ws).serve(ws)
