"""Per-client rate limits, counted by the ``limits`` package (docs/security.md, "Rate limits").

Each limited action has a setting ``KERALA_RATE_<ACTION>`` in the ``limits`` notation, windows
separated by ``;`` (``"30/minute;300/hour"``; empty: no limit). Every setting named ``rate_*``
is an action: ``rate_create`` is the action ``create``. A client is its address as uvicorn
sees it (behind a proxy on this machine, the ``X-Forwarded-For`` address: uvicorn trusts it
from 127.0.0.1). The counters are sliding windows; they live in this process, or in Redis when
``KERALA_REDIS`` is set, so that the processes of one game world share them. Should Redis fail,
this process counts on its own until it is back: a limit is never a reason to stop play.

A refusal is 429 with ``Retry-After`` (seconds) in the house format (docs/api.md):
``{"detail": ..., "code": "rate_limited", "retry_after": s}``.

>>> [str(x) for x in parse_rate("30/minute; 300/hour")]
['30 per 1 minute', '300 per 1 hour']
>>> parse_rate("")
[]
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.errors import StorageError

from kerala.server.breaker import Breaker, RedisAway
from kerala.server.errors import ApiError
from kerala.server.settings import Settings

log = logging.getLogger("kerala.server")

T = TypeVar("T")


def parse_rate(text: str) -> list[RateLimitItem]:
    """The windows of a rate setting; ``ValueError`` with a clear message if it is not one."""
    if not text.strip():
        return []
    try:
        return parse_many(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a rate: write e.g. '30/minute' or '30/minute;300/hour'"
        ) from None


class RateLimited(ApiError):
    """A refusal for going over a rate: 429, and ``Retry-After`` in seconds."""

    def __init__(self, action: str, limit: RateLimitItem, retry_after: int) -> None:
        super().__init__(
            429,
            "rate_limited",
            f"too many requests to {ACTION_WORDS.get(action, action)} from your address "
            f"(at most {limit}): try again in {retry_after} s",
            retry_after=retry_after,
        )
        self.retry_after = retry_after


#: How each action is said in a refusal.
ACTION_WORDS = {
    "create": "create games",
    "seat": "take seats",
    "decide": "submit decisions",
    "hint": "ask for hints",
    "analysis": "start analyses",
    "signin": "sign in",
    "signup": "make accounts",
    "quickmatch": "join the quick-match queue",
    "chat": "send chat messages",
}


def _redis_uri(url: str) -> str:
    if url.startswith("unix://"):
        return "async+redis+unix://" + url.removeprefix("unix://")
    return "async+" + url


class RateLimiter:
    """The per-client limits of one app: :meth:`check` counts a request or refuses it."""

    def __init__(self, settings: Settings) -> None:
        self.limits: dict[str, list[RateLimitItem]] = {
            name.removeprefix("rate_"): parse_rate(value)
            for name, value in settings.model_dump().items()
            if name.startswith("rate_") and isinstance(value, str)
        }
        #: The counters: in Redis, shared by the processes of one world, when it is set.
        self._shared: SlidingWindowCounterRateLimiter | None = None
        self._pool: Any = None  # redis.asyncio.ConnectionPool: this limiter's, closed by close()
        if settings.redis is not None:
            import redis.asyncio as aioredis

            # Named, so that an operator's CLIENT LIST tells these connections apart.
            self._pool = aioredis.ConnectionPool.from_url(
                settings.redis,
                socket_timeout=5,
                socket_connect_timeout=5,
                client_name=f"{settings.redis_prefix}:rate",
            )
            storage = RedisStorage(
                _redis_uri(settings.redis),
                implementation="redispy",
                key_prefix=f"{settings.redis_prefix}:rate",
                wrap_exceptions=True,
                connection_pool=self._pool,
            )
            self._shared = SlidingWindowCounterRateLimiter(storage)
        #: This process's counters: all of them without Redis, and while Redis fails.
        self._local = SlidingWindowCounterRateLimiter(MemoryStorage())
        self.breaker = Breaker("rate limits", settings.redis_timeout, (StorageError,))

    async def close(self) -> None:
        """Close the connections to Redis (the server's shutdown)."""
        if self._pool is not None:
            await self._pool.aclose()

    async def counted(self, op: Callable[[SlidingWindowCounterRateLimiter], Awaitable[T]]) -> T:
        """``op`` on the shared counters, or on this process's while Redis fails (a limit is
        never a reason to stop play, nor to wait on a Redis that hangs)."""
        shared = self._shared
        if shared is not None:
            try:
                return await self.breaker.call(lambda: op(shared))
            except RedisAway:
                pass
        return await op(self._local)

    async def check(self, action: str, client: str) -> None:
        """Count one ``action`` by ``client``, or raise :class:`RateLimited` (nothing counted)."""
        windows = self.limits.get(action)
        if windows:
            await self.counted(lambda limiter: self._check(limiter, action, client, windows))

    @staticmethod
    async def _check(
        limiter: SlidingWindowCounterRateLimiter,
        action: str,
        client: str,
        windows: list[RateLimitItem],
    ) -> None:
        for w in windows:
            if not await limiter.test(w, action, client):
                reset, _ = await limiter.get_window_stats(w, action, client)
                retry = max(1, math.ceil(reset - time.time()))
                log.warning("rate limit: %s from %s over %s", action, client, w)
                raise RateLimited(action, w, retry)
        for w in windows:
            await limiter.hit(w, action, client)


class LockedOut(ApiError):
    """A sign-in refused while the account is locked after failed sign-ins: 429."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            429,
            "locked_out",
            "too many failed sign-ins to this account: try again in "
            f"{retry_after} s (docs/accounts.md)",
            retry_after=retry_after,
        )
        self.retry_after = retry_after


class FailureCounter:
    """Failures counted per key (an account's handle) within the windows of one rate setting:
    :meth:`check` refuses while they are over, :meth:`fail` counts one, :meth:`clear` forgets
    them. Shares the limiter's storage (Redis when set), and its fallback when Redis fails."""

    def __init__(self, limiter: RateLimiter, action: str) -> None:
        self.limiter = limiter
        self.action = action

    async def _run(self, op: str, key: str) -> int | None:
        windows = self.limiter.limits.get(self.action)
        if not windows:
            return None
        return await self.limiter.counted(lambda limiter: self._op(limiter, op, key, windows))

    async def _op(
        self,
        limiter: SlidingWindowCounterRateLimiter,
        op: str,
        key: str,
        windows: list[RateLimitItem],
    ) -> int | None:
        for w in windows:
            if op == "check" and not await limiter.test(w, self.action, key):
                reset, _ = await limiter.get_window_stats(w, self.action, key)
                return max(1, math.ceil(reset - time.time()))
            if op == "fail":
                await limiter.hit(w, self.action, key)
            if op == "clear":
                await limiter.clear(w, self.action, key)
        return None

    async def check(self, key: str) -> None:
        """Raise :class:`LockedOut` while ``key`` has too many failures."""
        retry = await self._run("check", key)
        if retry is not None:
            log.warning("sign-in lock-out: %s", self.action)
            raise LockedOut(retry)

    async def fail(self, key: str) -> None:
        await self._run("fail", key)

    async def clear(self, key: str) -> None:
        await self._run("clear", key)


def client_of(request_client: tuple[str, int] | None) -> str:
    """The client address a rate counts by (``request.client`` or ``websocket.client``)."""
    return request_client[0] if request_client is not None else "unknown"


def install(app: FastAPI, settings: Settings) -> RateLimiter:
    """Give ``app`` its limiter (``app.state.limiter``) and the handler that adds
    ``Retry-After`` to a :class:`RateLimited` refusal."""
    limiter = RateLimiter(settings)
    app.state.limiter = limiter

    async def rate_limited(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RateLimited | LockedOut)
        return JSONResponse(
            exc.to_json(), status_code=429, headers={"Retry-After": str(exc.retry_after)}
        )

    app.add_exception_handler(RateLimited, rate_limited)
    app.add_exception_handler(LockedOut, rate_limited)
    return limiter
