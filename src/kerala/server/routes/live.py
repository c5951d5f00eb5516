"""The WebSocket of a game: live events for seats and watchers, and submissions.

Protocol (docs/api.md): the client's first message is ``hello`` (with the seat's token, if
any: a token never goes in the socket's URL, docs/security.md); the server then sends ``sync``
(full state) or the missed ``event``s, then every new event with the game after it; a client
may send ``decision`` and ``ping``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import re
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from kerala.server.chat import check_message, message, readable, wire
from kerala.server.decisions import DecisionService
from kerala.server.domain import GameError, GameNotFound, js
from kerala.server.errors import ApiError, database_fault, refusal, unavailable
from kerala.server.fanout import Announcer
from kerala.server.hub import Connection
from kerala.server.jsonlimits import BadJson, load_bounded
from kerala.server.ratelimit import client_of
from kerala.server.routes.deps import (
    GAME_ID_PATTERN,
    GameIdDep,
    RequiredTokenDep,
    ServiceDep,
    announcer_of,
    chat_of,
    hub_of,
    limiter_of,
    service_of,
    settings_of,
)
from kerala.server.schemas import SEAT_ERRORS, ChatLog
from kerala.server.service import GameService
from kerala.server.settings import Settings
from kerala.server.wire import Snapshot, dumpb, dumps, event_message, sync_message

log = logging.getLogger("kerala.server")
router = APIRouter(tags=["live"])


def _fault(e: Exception) -> ApiError:
    """The refusal for an unexpected failure (a database fault is a 503: try again)."""
    if database_fault(e):
        return unavailable(e)
    log.exception("a WebSocket message failed")
    return ApiError(500, "internal_error", "the server failed on this message")


def _error(e: ApiError | GameError) -> str:
    if isinstance(e, GameError):
        e = refusal(e)
    return dumps({"type": "error", "status": e.status, **e.to_json()})


class _Session:
    """One connected client: its seat, what it saw last, and the two halves of the socket."""

    def __init__(
        self,
        ws: WebSocket,
        service: GameService,
        announcer: Announcer,
        conn: Connection,
        token: str | None,
    ) -> None:
        self.ws = ws
        self.service = service
        self.decisions = DecisionService(service)
        self.announcer = announcer
        self.conn = conn
        self.token = token
        self.last = 0
        self.client = client_of(ws.client)
        #: How a watcher is named in the watchers' chat (watchers have no name).
        self.watcher = f"watcher {secrets.token_hex(2)}"

    async def send_sync(self, snap: Snapshot) -> None:
        await self.ws.send_text(sync_message(snap, self.conn.seat))
        self.last = snap.event_number

    async def catch_up(self, since: int, snap: Snapshot) -> None:
        """Send the events after ``since`` up to ``snap``'s, or a sync when too many.

        Each goes with the game as ``snap`` holds it. The database may hold later events
        already: they are left to their own delivery (queued, or found by the gap check), which
        carries the game after them. Sent now, with ``snap``'s game, their own delivery would
        be skipped as sent, and a seat could be left without the news that it is to move."""
        game_id = self.conn.game_id
        evs, _, resync = await run_in_threadpool(self.service.events_since, game_id, since)
        if resync:
            await self.send_sync(snap)
            return
        game = snap.game_json(self.conn.seat)
        for ev in evs:
            if self.last < ev.number <= snap.event_number:
                await self.ws.send_text(event_message(dumpb(ev.to_json()), game))
                self.last = ev.number

    async def writer(self) -> None:
        while True:
            item = await self.conn.queue.get()
            if self.conn.overflowed:
                await self.ws.close(1013, "too slow: reconnect with ?since=<last event number>")
                return
            if item is None:
                await self.ws.close(1001, "server shutting down")
                return
            if isinstance(item, str):
                await self.ws.send_text(item)
                continue
            n = item.event.number
            if n <= self.last:
                continue
            if n > self.last + 1:
                await self.catch_up(self.last, item.snapshot)
                if n <= self.last:
                    continue
            await self.ws.send_text(item.text_for(self.conn.seat))
            self.last = n

    async def reader(self) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                try:
                    text = (message.get("bytes") or b"").decode("utf-8")
                except UnicodeDecodeError:
                    self.conn.put(
                        _error(ApiError(400, "malformed_json", "a message must be UTF-8 JSON text"))
                    )
                    continue
            settings = settings_of(self.ws)
            if len(text) > settings.ws_max_message:
                # Only under a server that does not refuse big frames itself (kerala serve
                # sets uvicorn's ws_max_size, which closes with 1009 before reading them).
                self.conn.put(
                    _error(
                        ApiError(
                            413,
                            "too_large",
                            f"a message is at most {settings.ws_max_message} bytes",
                        )
                    )
                )
                continue
            try:
                msg = load_bounded(text, settings.json_depth)
            except BadJson as e:
                log.warning("refused a WebSocket message from %s: %s", self.client, e)
                what = "malformed JSON message" if e.code == "malformed_json" else "message"
                self.conn.put(_error(ApiError(400, e.code, f"{what}: {e}")))
                continue
            if not isinstance(msg, dict) or msg.get("type") not in ("decision", "chat", "ping"):
                self.conn.put(
                    _error(
                        ApiError(
                            400,
                            "bad_request",
                            "a message is an object with 'type': 'decision', 'chat' or 'ping'",
                        )
                    )
                )
                continue
            if msg["type"] == "ping":
                self.conn.put('{"type":"pong"}')
                continue
            if msg["type"] == "chat":
                await self.on_chat(msg)
                continue
            # Shielded: a decision handed over is committed and announced even if the
            # socket closes meanwhile (the other seats and processes still hear of it).
            await asyncio.shield(asyncio.ensure_future(self.on_decision(msg)))

    async def on_chat(self, msg: dict[str, Any]) -> None:
        """A chat message: checked, counted, stored, then handed to whoever may read it."""
        game_id = self.conn.game_id
        seat = self.conn.seat
        try:
            await limiter_of(self.ws).check("chat", self.client)
            text, phrase = check_message(msg, settings_of(self.ws).chat_max_length)
            snap, _ = await run_in_threadpool(self.service.get, game_id, self.token)
            over = snap.base["status"] == "over"
            channel = "players" if seat is not None else "watchers"
            name = snap.base["players"][seat]["name"] if seat is not None else self.watcher
            at = dt.datetime.now(dt.UTC)
            repo, relay = chat_of(self.ws)
            mid = await run_in_threadpool(repo.add, game_id, channel, seat, name, text, phrase, at)
        except (ApiError, GameError) as e:
            self.conn.put(_error(refusal(e) if isinstance(e, GameError) else e))
            return
        except Exception as e:  # not stored: the writer is told, and the socket stays open
            self.conn.put(_error(_fault(e)))
            return
        text_out = wire(message(mid, channel, seat, name, text, phrase, at))
        await relay.send(
            game_id,
            text_out,
            to_seats=channel in readable(0, over),
            to_watchers=channel in readable(None, over),
        )

    async def on_decision(self, msg: dict[str, Any]) -> None:
        game_id = self.conn.game_id
        try:
            if self.token is None or self.conn.seat is None:
                raise ApiError(401, "token_required", "a watcher cannot submit decisions")
            await limiter_of(self.ws).check("decide", self.client)
            extra = sorted(set(msg) - {"type", "decision", "expected"})
            if extra:
                raise ApiError(400, "bad_request", f"unexpected field(s) {', '.join(extra)}")
            expected = msg.get("expected")
            if not isinstance(expected, int) or isinstance(expected, bool) or expected < 0:
                raise ApiError(
                    400, "bad_request", "'expected' must be the decision number seen last (>= 0)"
                )
            if "decision" not in msg:
                raise ApiError(400, "bad_decision", "the message has no 'decision'")
            snap, event, _ = await self.decisions.submit_as_async(
                game_id, self.token, msg["decision"], expected
            )
        except (ApiError, GameError) as e:
            self.conn.put(_error(e))
            return
        except Exception as e:  # not stored: the submitter is told, and the socket stays open
            self.conn.put(_error(_fault(e)))
            return
        self.announcer.announce(event, snap)


async def _hello(ws: WebSocket, settings: Settings) -> str | None:
    """The token of the client's first message, ``{"type": "hello", "token": "…"}`` (no token,
    or ``null``: a watcher). :class:`ApiError` for anything else, or nothing in ``timeout`` s;
    :class:`WebSocketDisconnect` if the client leaves first."""
    timeout = settings.ws_hello_timeout
    try:
        message = await asyncio.wait_for(ws.receive(), timeout)
    except TimeoutError:
        raise ApiError(
            408, "hello_timeout", f"send the first message ('hello') within {timeout:g} s"
        ) from None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        try:
            text = (message.get("bytes") or b"").decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "malformed_json", "a message must be UTF-8 JSON text") from None
    if len(text) > settings.ws_max_message:
        raise ApiError(413, "too_large", f"a message is at most {settings.ws_max_message} bytes")
    try:
        msg = load_bounded(text, settings.json_depth)
    except BadJson as e:
        what = "malformed JSON message" if e.code == "malformed_json" else "message"
        raise ApiError(400, e.code, f"{what}: {e}") from None
    if not isinstance(msg, dict) or msg.get("type") != "hello":
        raise ApiError(
            400,
            "hello_required",
            'the first message is {"type": "hello", "token": <the seat\'s token, or null>}',
        )
    extra = sorted(set(msg) - {"type", "token"})
    if extra:
        raise ApiError(400, "bad_request", f"unexpected field(s) {', '.join(extra)} in 'hello'")
    token = msg.get("token")
    if token is not None and not isinstance(token, str):
        raise ApiError(403, "bad_token", "'token' is the seat's token, a string (or null)")
    if token is not None and len(token) > 200:
        raise ApiError(403, "bad_token", "a seat token is at most 200 characters")
    return token


def _since(text: str | None) -> int | None:
    """The ``since`` query: the last event number the client saw, a whole number >= 0."""
    if text is None:
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise ApiError(
            400,
            "bad_request",
            f"'since' must be the last event number seen, a whole number >= 0; got {js(text)}",
        )
    return int(text)


@router.get("/api/games/{game_id}/chat", response_model=ChatLog, responses=SEAT_ERRORS)
async def game_chat(
    game_id: GameIdDep, token: RequiredTokenDep, service: ServiceDep, request: Request
) -> Response:
    """The chat a seat may read, for the replay (docs/server.md, "Chat"): the players', and the
    watchers' once the game is over."""
    snap, seat = await run_in_threadpool(service.get, game_id, token)
    repo, _ = chat_of(request)
    over = snap.base["status"] == "over"
    messages = await run_in_threadpool(repo.recent, game_id, readable(seat, over), 1000)
    return Response(dumpb({"messages": messages}), media_type="application/json")


@router.websocket("/api/games/{game_id}/ws")
async def game_socket(
    ws: WebSocket,
    game_id: str,
    token_in_url: Annotated[str | None, Query(alias="token")] = None,
    since_text: Annotated[str | None, Query(alias="since")] = None,
) -> None:
    """The query and the first message (``hello``) are checked here, after the socket is
    accepted, so that a refusal is a JSON ``error`` message (then a close with code 4000 +
    status), not a bare HTTP 403."""
    service, hub, announcer = service_of(ws), hub_of(ws), announcer_of(ws)
    await ws.accept()
    try:
        if not re.fullmatch(GAME_ID_PATTERN, game_id):
            raise GameNotFound(game_id)
        since = _since(since_text)
        if token_in_url is not None:
            # Refused, not read: an address ends up in logs and histories (docs/security.md).
            raise ApiError(
                400,
                "token_in_url",
                "a seat token never goes in the URL: send it in the first message, "
                '{"type": "hello", "token": "..."}',
            )
        token = await _hello(ws, settings_of(ws))
        # Subscribe first, then look: an event committed meanwhile is then queued, not lost.
        _, seat = await run_in_threadpool(service.get, game_id, token)
    except WebSocketDisconnect:
        return
    except (ApiError, GameError) as e:
        err = refusal(e) if isinstance(e, GameError) else e
        await ws.send_text(_error(err))
        await ws.close(4000 + err.status)
        return
    except Exception as e:  # the database away: said, then closed with a proper code
        await _close_on_fault(ws, e)
        return
    conn = hub.subscribe(game_id, seat)
    session = _Session(ws, service, announcer, conn, token)
    try:
        snap, _ = await run_in_threadpool(service.get, game_id, token)
        if since is None or since > snap.event_number:
            await session.send_sync(snap)
        else:
            session.last = since
            await session.catch_up(since, snap)
        hub.note(game_id, session.last)
        # The chat this socket may read, newest last (docs/server.md, "Chat").
        chat_repo, _ = chat_of(ws)
        over = snap.base["status"] == "over"
        history = await run_in_threadpool(chat_repo.recent, game_id, readable(seat, over))
        if history:
            await ws.send_text(dumps({"type": "chat_history", "messages": history}))
        tasks = [asyncio.create_task(session.reader()), asyncio.create_task(session.writer())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, Exception):
                    await t
        for t in done:
            error = None if t.cancelled() else t.exception()
            if error is not None and not isinstance(error, WebSocketDisconnect | OSError):
                raise error
    except (WebSocketDisconnect, OSError):  # the client went away
        pass
    except Exception as e:  # e.g. the database away while catching up: never a silent drop
        await _close_on_fault(ws, e)
    finally:
        hub.unsubscribe(conn)


async def _close_on_fault(ws: WebSocket, e: Exception) -> None:
    """Tell the client what failed, then close with 1013 (try again later) or 1011."""
    err = _fault(e)
    with contextlib.suppress(Exception):
        await ws.send_text(_error(err))
        await ws.close(1013 if err.status == 503 else 1011, err.code)
