"""The live lobby (docs/server.md, "Lobby"): the open games, pushed to every lobby socket.

One task per process reads the open games every ``lobby_refresh`` seconds while at least one
lobby socket is open, and sends the list to every socket when it changed (and to a new socket
at once). Reading the database, rather than listening to events, makes the list right across
the processes of a cluster without another channel: a game opened or joined on any process
shows on every process's lobby within one refresh. The sockets only listen: a message from a
client closes its socket (1008), so a lobby socket costs the server nothing but the list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from kerala.server.background import stop_task
from kerala.server.wire import dumpb

log = logging.getLogger("kerala.server")


class LobbyFeed:
    """The lobby sockets of one process and the task that keeps them up to date."""

    def __init__(
        self, fetch: Callable[[], list[dict[str, Any]]], every: float, max_sockets: int
    ) -> None:
        self.fetch = fetch
        self.every = every
        self.max_sockets = max_sockets
        self.sockets: set[WebSocket] = set()
        self.last: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def serve(self, ws: WebSocket) -> None:
        if len(self.sockets) >= self.max_sockets:
            await ws.close(code=1013, reason="too many lobby sockets: try again soon")
            return
        await ws.accept()
        self.sockets.add(ws)
        try:
            if self.last is None:
                await self._refresh(push=False)
            assert self.last is not None
            await ws.send_text(self.last)
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._run(), name="kerala-lobby-feed")
            await ws.receive()  # a lobby socket only listens: any message ends it
            await ws.close(code=1008, reason="the lobby socket only listens")
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.sockets.discard(ws)

    async def _refresh(self, push: bool) -> None:
        games = await anyio.to_thread.run_sync(self.fetch)
        msg = dumpb({"type": "lobby", "games": games}).decode()
        if msg == self.last:
            return
        self.last = msg
        if push:
            for ws in list(self.sockets):
                try:
                    await ws.send_text(msg)
                except Exception:  # gone meanwhile: its serve() removes it
                    self.sockets.discard(ws)

    async def _run(self) -> None:
        while self.sockets:
            await asyncio.sleep(self.every)
            try:
                await self._refresh(push=True)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away: the next round tries again
                log.exception("lobby: reading the open games failed")
        self.last = None

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001)
        self.sockets.clear()


def lobby_fetch(reads: Any, ratings: Any) -> Callable[[], list[dict[str, Any]]]:
    """The lobby's list: the open games, each with the ratings of the accounts seated."""

    def fetch() -> list[dict[str, Any]]:
        games: list[dict[str, Any]] = reads.lobby_games()
        seated = ratings.seated([(g["id"], g["count"]) for g in games])
        for g in games:
            g["ratings"] = seated.get(g["id"], [])
        return games

    return fetch


__all__ = ["LobbyFeed", "lobby_fetch"]
