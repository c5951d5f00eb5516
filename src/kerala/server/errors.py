"""The server's refusals: one JSON shape, the one place where domain errors get a status,
and the size limit on bodies.

Every refusal is ``{"detail": message, "code": short code, ...}`` with a 4xx status (see
docs/api.md). The game service raises domain errors (:mod:`kerala.server.domain`), which know no
HTTP; :func:`refusal` gives each its status here, for the REST routes and the WebSocket alike.
Messages say what was wrong and where; they never carry hidden information (docs/rules.md I2): they
are built from the request and from public facts only.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import redis
import sqlalchemy as sa
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kerala.server import domain
from kerala.server.advice import Closed, TooBusy

log = logging.getLogger("kerala.server")


class ApiError(Exception):
    """A refused request: HTTP status, short code, message, and optional extra fields."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra
        #: Response headers (a 429's ``Retry-After``).
        self.headers = headers

    def to_json(self) -> dict[str, Any]:
        return {"detail": self.detail, "code": self.code, **self.extra}


#: The HTTP status of each domain error (the most specific class listed wins).
STATUS: dict[type[domain.GameError], int] = {
    domain.GameNotFound: 404,
    domain.SeatNotFound: 404,
    domain.PlayerNotFound: 404,
    domain.StepNotFound: 404,
    domain.BadToken: 403,
    domain.StaleDecision: 409,
    domain.NotYourTurn: 409,
    domain.Conflict: 409,
    domain.HintsOff: 403,
    domain.BadDecision: 400,
    domain.IllegalDecision: 422,
    domain.InvalidRequest: 422,
    domain.SignInFailed: 401,
    domain.NotSignedIn: 401,
    domain.HandleTaken: 409,
    domain.CeremonyFailed: 400,
    domain.CsrfRefused: 403,
}


#: Seconds a client is told to wait (``Retry-After``) when the database does not answer.
RETRY_AFTER = 2


def database_fault(e: BaseException) -> bool:
    """Whether ``e`` is the database failing (away, restarting, full, too slow, locked): a
    passing fault, not a bug. Constraint and SQL errors are bugs and stay 500s."""
    if isinstance(e, sa.exc.IntegrityError | sa.exc.ProgrammingError):
        return False
    return isinstance(
        e,
        sa.exc.OperationalError
        | sa.exc.InterfaceError
        | sa.exc.DatabaseError
        | sa.exc.TimeoutError
        | sa.exc.DisconnectionError,
    )


def unavailable(e: BaseException) -> ApiError:
    """The refusal of a database fault: 503, try again shortly. A write refused so was not
    stored, but for a connection lost while it committed: sent again, that one is refused as
    stale (its conditional write), and its event reaches the sockets (the gap check)."""
    orig = getattr(e, "orig", None) or e
    log.warning("database fault: %s: %s", type(orig).__name__, _first_line(orig))
    return ApiError(
        503,
        "database_unavailable",
        f"the database does not answer now ({type(orig).__name__}); try again in {RETRY_AFTER} s",
        retry_after=RETRY_AFTER,
    )


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    return lines[0] if lines else ""


def refusal(e: domain.GameError) -> ApiError:
    """The HTTP refusal of a domain error."""
    status = next((STATUS[c] for c in type(e).__mro__ if c in STATUS), 400)
    return ApiError(status, e.code, e.detail, **e.extra)


_HTTP_CODES = {
    400: "bad_request",
    401: "token_required",
    403: "bad_token",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid_request",
    429: "too_many",
}


def too_busy(e: TooBusy) -> ApiError:
    """The refusal of a full advice quota: 429 with ``Retry-After``."""
    return ApiError(429, "too_many", e.detail, headers={"Retry-After": str(e.retry_after)})


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(p) for p in loc)


def install_handlers(app: FastAPI) -> None:
    """Make every refusal of ``app`` answer in the one JSON shape."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.to_json(), status_code=exc.status, headers=exc.headers)

    async def game_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, domain.GameError)
        e = refusal(exc)
        return JSONResponse(e.to_json(), status_code=e.status)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = list(exc.errors())
        for e in errors:
            if e.get("type") == "json_invalid":
                ctx = e.get("ctx") or {}
                msg = f"malformed JSON in the request body: {ctx.get('error', 'cannot parse')}"
                loc = list(e.get("loc") or ())
                if len(loc) > 1:
                    msg += f" at character {loc[1]}"
                return JSONResponse({"detail": msg, "code": "malformed_json"}, status_code=400)
        listed = [
            {"where": _where(e.get("loc", ())), "message": str(e.get("msg", "invalid"))}
            for e in errors
        ]
        detail = "; ".join(f"{x['where']}: {x['message']}" for x in listed[:5]) or "invalid"
        return JSONResponse(
            {"detail": detail, "code": "invalid_request", "errors": listed}, status_code=422
        )

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = _HTTP_CODES.get(exc.status_code, "error")
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":
            detail = "no such route"
        return JSONResponse(
            {"detail": detail, "code": code},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    async def too_busy_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, TooBusy)
        e = too_busy(exc)
        return JSONResponse(e.to_json(), status_code=e.status, headers=e.headers)

    async def closed_error(_: Request, exc: Exception) -> JSONResponse:
        # A hint asked for while the server stops: another process (or this one, restarted)
        # answers it.
        return JSONResponse(
            {"detail": "the server is stopping: ask again", "code": "unavailable"},
            status_code=503,
            headers={"Retry-After": "2"},
        )

    app.add_exception_handler(TooBusy, too_busy_error)
    app.add_exception_handler(Closed, closed_error)

    async def database_error(_: Request, exc: Exception) -> JSONResponse:
        if not database_fault(exc):
            raise exc
        e = unavailable(exc)
        return JSONResponse(
            e.to_json(), status_code=e.status, headers={"Retry-After": str(RETRY_AFTER)}
        )

    async def redis_error(_: Request, exc: Exception) -> JSONResponse:
        # Only the routes that need Redis itself get here (quick match): the rate limits, bot
        # leases and events do without it (docs/security.md, "Faults").
        log.warning("Redis fault: %s: %s", type(exc).__name__, _first_line(exc))
        detail = (
            f"Redis does not answer now ({type(exc).__name__}), and this needs it;"
            f" try again in {RETRY_AFTER} s"
        )
        return JSONResponse(
            {"detail": detail, "code": "unavailable"},
            status_code=503,
            headers={"Retry-After": str(RETRY_AFTER)},
        )

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(sa.exc.SQLAlchemyError, database_error)
    app.add_exception_handler(redis.RedisError, redis_error)
    app.add_exception_handler(domain.GameError, game_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413, before the app.

    A body with a ``Content-Length`` over the limit is refused at once; one without (chunked)
    is read up to the limit and refused when it goes over.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {"detail": f"the request body is over {self.limit} bytes", "code": "too_large"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length: int | None = None
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    length = int(v)
                except ValueError:
                    length = None
                break
        if length is not None:
            if length > self.limit:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        # No length given: buffer up to the limit, then hand the body on.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            msg = await receive()
            if msg["type"] != "http.request":
                break
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = msg.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
