"""Asking Redis without waiting on it: a short bound on each request, and a pause after a
failure (docs/security.md, "Faults").

A Redis that refuses connections fails at once, but one that hangs (a frozen process, a lost
network) answers nothing until a socket timeout. The rate limits, the bot leases and the chat
relay ask Redis on the way of a decision, a bot turn or a socket's next message, so each of
their requests is bounded by ``KERALA_REDIS_TIMEOUT``, and after one fails they stop asking for
:data:`PAUSE` seconds and do without (counting here, taking the lease, relaying to this
process's sockets only). After the pause one request alone asks again, while the others still
do without: a Redis that stays away costs one bounded wait per pause, not one per request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

log = logging.getLogger("kerala.server")

T = TypeVar("T")

#: Seconds without asking Redis after it failed to answer.
PAUSE = 5.0


class RedisAway(Exception):
    """Redis was not asked (it failed less than :data:`PAUSE` s ago), or it failed now."""


class Breaker:
    """The state of one user of Redis (``what``: the rate limits, the bot leases, the chat
    relay)."""

    def __init__(self, what: str, timeout: float, errors: tuple[type[BaseException], ...]) -> None:
        self.what, self.timeout = what, timeout
        #: What counts as Redis failing (besides running past ``timeout``); anything else
        #: raised by a request passes through untouched.
        self.errors: tuple[type[BaseException], ...] = (*errors, TimeoutError, OSError)
        self.failed_at: float | None = None
        self._asking = False  # the one request that asks again after a pause

    def away(self) -> bool:
        """Whether to do without Redis now, without asking it."""
        if self.failed_at is None:
            return False
        return self._asking or time.monotonic() - self.failed_at < PAUSE

    async def call(self, request: Callable[[], Awaitable[T]]) -> T:
        """``request()``'s answer, or :class:`RedisAway` when Redis is not asked or fails."""
        if self.away():
            raise RedisAway(f"{self.what}: Redis failed less than {PAUSE:g} s ago")
        again = self.failed_at is not None
        if again:
            self._asking = True
        try:
            async with asyncio.timeout(self.timeout):
                out = await request()
        except self.errors as e:
            if self.failed_at is None:
                reason = str(e) or f"no answer within {self.timeout:g} s"
                log.warning("%s: Redis failed (%s); doing without it", self.what, reason)
            self.failed_at = time.monotonic()
            raise RedisAway(f"{self.what}: {type(e).__name__}") from e
        finally:
            if again:
                self._asking = False
        if again:
            log.warning("%s: Redis answers again", self.what)
        self.failed_at = None
        return out
