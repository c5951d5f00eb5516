"""Who asks (the client's address, for per-client quotas) and whether they are still there.

The client's address is the TCP peer's, or, behind a proxy the server trusts
(``KERALA_FORWARDED_ALLOW_IPS``, uvicorn's ``forwarded_allow_ips``), the one the proxy names in
``X-Forwarded-For`` (docs/deploy.md). Quotas count per address: clients behind one NAT share
theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from fastapi import Request

from kerala.server.errors import ApiError

_T = TypeVar("_T")

#: Seconds between looks at whether a waiting client has gone.
GONE_POLL = 0.25


def client_address(request: Request) -> str:
    """The client's address (``"unknown"`` when the server cannot tell, e.g. a Unix socket)."""
    return request.client.host if request.client is not None else "unknown"


async def until_gone(request: Request, work: Coroutine[Any, Any, _T]) -> _T:
    """Await ``work``, cancelling it when the client disconnects first (its hint would be
    thrown away: the search it waits for is dropped, or leaves the queue)."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=GONE_POLL)
            if done:
                return task.result()
            if await request.is_disconnected():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                raise ApiError(400, "gone", "the client went away before the answer")
    finally:
        if not task.done():
            task.cancel()
