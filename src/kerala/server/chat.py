"""Chat per game (docs/server.md, "Chat"): players' and watchers' apart, kept with the game.

A message is written on the game's WebSocket (``{"type": "chat", "text": "…"}``, or one of the
one-click phrases ``{"type": "chat", "phrase": "gg"}`` that every page shows in its own
language). Who writes decides where it goes: a seat writes to the **players'** chat, which
only the seats read; a watcher writes to the **watchers'** chat, which the watchers read, and
the players too once the game is over, so that nobody can pass advice to a player during play.
Text only (the page inserts it as text), at most ``chat_max_length`` characters, none of the
characters that names refuse (:func:`kerala.names.clean_text`), and ``KERALA_RATE_CHAT`` per
client address. Every message is stored with the game before it is sent; a socket that
connects gets the messages it may read, and the replay shows them to the game's players.

Across the processes of a cluster a message travels on a Redis channel of its own (it is not a
game event: it changes no position and takes no event number).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import secrets
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy import Engine

from kerala.names import BadName, clean_text
from kerala.server.background import stop_task
from kerala.server.breaker import Breaker, RedisAway
from kerala.server.errors import ApiError
from kerala.server.hub import Hub
from kerala.server.store import ChatRow
from kerala.server.wire import dumpb

log = logging.getLogger("kerala.server")

#: The one-click phrases; each page words them in its language.
PHRASES: Final = ("hello", "gg", "thanks", "rematch", "bye")
#: Messages a socket gets when it connects (the newest).
HISTORY: Final = 100

_CHAT = cast(sa.Table, ChatRow.__table__)


class ChatRepository:
    """The stored messages of games."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, game_id: str, channel: str, seat: int | None, name: str, text: str | None,
            phrase: str | None, at: dt.datetime) -> int:  # fmt: skip
        with self.engine.begin() as conn:
            r = conn.execute(
                sa.insert(_CHAT).values(
                    game_id=game_id,
                    channel=channel,
                    seat=seat,
                    name=name,
                    text=text,
                    phrase=phrase,
                    at=at,
                )
            )
            key = r.inserted_primary_key
            assert key is not None
            return int(key[0])

    def recent(
        self, game_id: str, channels: list[str], limit: int = HISTORY
    ) -> list[dict[str, Any]]:
        q = (
            sa.select(_CHAT)
            .where(_CHAT.c.game_id == game_id, _CHAT.c.channel.in_(channels))
            .order_by(_CHAT.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [
            message(r.id, r.channel, r.seat, r.name, r.text, r.phrase, r.at) for r in rows[::-1]
        ]


def message(mid: int, channel: str, seat: int | None, name: str, text: str | None,
            phrase: str | None, at: dt.datetime) -> dict[str, Any]:  # fmt: skip
    return {
        "type": "chat",
        "id": mid,
        "channel": channel,
        "seat": seat,
        "name": name,
        "text": text,
        "phrase": phrase,
        "at": at.isoformat(),
    }


def readable(seat: int | None, over: bool) -> list[str]:
    """The channels a socket reads: a seat the players' (and the watchers' after the end), a
    watcher the watchers'."""
    if seat is None:
        return ["watchers"]
    return ["players", "watchers"] if over else ["players"]


def check_message(msg: dict[str, Any], max_length: int) -> tuple[str | None, str | None]:
    """The text or phrase of a chat message from a client; :class:`ApiError` 400 otherwise."""
    extra = sorted(set(msg) - {"type", "text", "phrase"})
    if extra:
        raise ApiError(400, "bad_chat", f"unexpected field(s) {', '.join(extra)}")
    text, phrase = msg.get("text"), msg.get("phrase")
    if (text is None) == (phrase is None):
        raise ApiError(400, "bad_chat", "a chat message has either 'text' or 'phrase'")
    if phrase is not None:
        if phrase not in PHRASES:
            raise ApiError(400, "bad_chat", f"'phrase' is one of {', '.join(PHRASES)}")
        return None, str(phrase)
    if not isinstance(text, str):
        raise ApiError(400, "bad_chat", "'text' must be a string")
    try:
        return clean_text(text, max_length, "a chat message"), None
    except BadName as e:
        raise ApiError(400, "bad_chat", str(e)) from None


class ChatRelay:
    """Hands a message to this process's sockets of the game, and to the other processes'."""

    def __init__(self, hub: Hub, redis_url: str | None, prefix: str, timeout: float = 1.0) -> None:
        self.hub = hub
        self.origin = secrets.token_hex(6)
        self.channel = f"{prefix}:chat"
        self.redis: Any = None
        self.breaker: Breaker | None = None
        if redis_url is not None:
            import redis.asyncio as aioredis

            # The listener waits on its subscription for good: no read timeout. A message is
            # sent on the way of its socket's next message, so its wait is the breaker's.
            self.redis = aioredis.from_url(redis_url, socket_connect_timeout=5)
            self.breaker = Breaker("chat", timeout, (aioredis.RedisError,))
        self._task: asyncio.Task[None] | None = None

    def deliver(self, game_id: str, text: str, to_seats: bool, to_watchers: bool) -> None:
        self.hub.chat(game_id, text, to_seats=to_seats, to_watchers=to_watchers)

    async def send(self, game_id: str, text: str, to_seats: bool, to_watchers: bool) -> None:
        self.deliver(game_id, text, to_seats, to_watchers)
        if self.breaker is not None:
            payload = {"o": self.origin, "g": game_id, "t": text, "s": to_seats, "w": to_watchers}
            # Redis away: this process's sockets have it; the others', on their reload.
            with contextlib.suppress(RedisAway):
                await self.breaker.call(
                    lambda: self.redis.publish(self.channel, json.dumps(payload))
                )

    async def start(self) -> None:
        if self.redis is not None:
            self._task = asyncio.create_task(self._listen(), name="kerala-chat-relay")

    async def _listen(self) -> None:
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                async for m in pubsub.listen():
                    if m.get("type") != "message":
                        continue
                    p = json.loads(m["data"])
                    if p.get("o") != self.origin:
                        self.deliver(p["g"], p["t"], bool(p["s"]), bool(p["w"]))
            except Exception:  # Redis away: listen again soon
                log.warning("chat: the relay lost Redis; listening again")
            finally:  # cancelled too (the server stops): its connection is closed, not left
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(1)

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None
        if self.redis is not None:
            await self.redis.aclose()


def wire(m: dict[str, Any]) -> str:
    return dumpb(m).decode()


__all__ = [
    "PHRASES",
    "ChatRelay",
    "ChatRepository",
    "check_message",
    "message",
    "readable",
    "wire",
]
