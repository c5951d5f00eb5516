"""Bounded JSON input: every JSON request body and WebSocket message is read here first.

The json module builds whatever it is given: a list nested 30,000 levels deep (then the
recursion of whoever walks it runs out), an integer of 60,000 digits (``ValueError`` past
Python's 4,300-digit conversion limit), text with lone surrogates (which cannot be written back
as UTF-8, so a reply that echoes it fails). orjson, a well-kept parser, refuses all three: it
stops at 1,024 levels, reads a number as a 64-bit integer or a finite double (a longer one is
refused as infinite), and takes only well-formed UTF-8. On top of that the depth is bounded by
the ``KERALA_JSON_DEPTH`` setting (32 by default: the deepest document the API takes, a game
record, is 6 levels deep).

>>> load_bounded(b'{"a": [1, 2]}', max_depth=2)
{'a': [1, 2]}
>>> load_bounded(b'[[[1]]]', max_depth=2)
Traceback (most recent call last):
...
kerala.server.jsonlimits.BadJson: JSON nested more than 2 levels deep
>>> load_bounded(b'"\\\\ud800"', max_depth=2)
Traceback (most recent call last):
...
kerala.server.jsonlimits.BadJson: no low surrogate in string at character 1
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("kerala.server")


class BadJson(ValueError):
    """JSON input refused: malformed (``code`` ``malformed_json``) or too deep (``too_deep``)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def depth_over(obj: Any, max_depth: int) -> bool:
    """Whether ``obj`` nests lists and objects more than ``max_depth`` levels (no recursion).

    >>> depth_over({"a": [[]]}, 3), depth_over({"a": [[]]}, 2)
    (False, True)
    """
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth + 1 > max_depth:
            return True
        stack.extend((c, depth + 1) for c in children)
    return False


def load_bounded(data: bytes | str, max_depth: int) -> Any:
    """The JSON value of ``data``; :class:`BadJson` if malformed, out of bounds or too deep."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        if "depth" in e.msg:  # orjson's own bound (1,024 levels)
            raise BadJson(f"JSON nested more than {max_depth} levels deep", "too_deep") from None
        raise BadJson(f"{e.msg} at character {e.pos}", "malformed_json") from None
    if depth_over(value, max_depth):
        raise BadJson(f"JSON nested more than {max_depth} levels deep", "too_deep")
    return value


def _is_json(scope: Scope) -> bool:
    for k, v in scope.get("headers", []):
        if k == b"content-type":
            media: bytes = v.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or (
                media.startswith(b"application/") and media.endswith(b"+json")
            )
    return False


class JsonGuard:
    """ASGI middleware: a JSON request body is checked by :func:`load_bounded` before the app
    parses it, and refused with 400 in the house format (docs/api.md) if it fails.

    It sits inside :class:`kerala.server.errors.BodyLimit`, so the body it reads whole is at
    most ``KERALA_MAX_BODY`` bytes.
    """

    def __init__(self, app: ASGIApp, max_depth: int) -> None:
        self.app = app
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            msg = await receive()
            if msg["type"] != "http.request":
                return  # the client went away
            chunks.append(msg.get("body", b""))
            more = msg.get("more_body", False)
        body = b"".join(chunks)
        if body:
            try:
                load_bounded(body, self.max_depth)
            except BadJson as e:
                client = scope.get("client") or ("?", 0)
                log.warning(
                    "refused a JSON body from %s (%s %s): %s",
                    client[0],
                    scope.get("method"),
                    scope.get("path"),
                    e,
                )
                what = "malformed JSON in" if e.code == "malformed_json" else "JSON"
                await _refuse(send, f"{what} the request body: {e}", e.code)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _refuse(send: Send, detail: str, code: str) -> None:
    body = orjson.dumps({"detail": detail, "code": code})
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
