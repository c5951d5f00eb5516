"""Engine advice (hints, post-game analyses) on its own workers, after the game bots.

Bots first, always (docs/security.md, "Fair compute"): the bots that play the games' seats
think in the bot runner's pool (:mod:`kerala.server.botrunner`), and nothing else runs there.
Hints and analyses run here, in a pool of their own (``KERALA_ADVICE_WORKERS`` worker processes,
with a lower CPU priority: ``KERALA_ADVICE_NICE``), so a game's bot turn never queues behind a
search somebody asked for, and on a busy machine the operating system gives the bots' workers
the CPU first.

Every search here waits for a slot (one per worker): hints before analyses, each kind in the
order asked. What may wait is bounded: the routes admit a hint or an analysis only while the
quotas of :class:`Quota` allow (per client address and server-wide), and refuse with 429 and
``Retry-After`` otherwise. :meth:`Advice.close` (the server stopping) kills the workers at once
rather than waiting for their searches: advice is never stored, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from kerala.actions import Decision
from kerala.server.settings import Settings
from kerala.views import PlayerView

_T = TypeVar("_T")

log = logging.getLogger("kerala.server.advice")

#: Slot priorities: a hint (a player waits for it, a second or so) before an analysis point.
HINT, ANALYSIS = 0, 1


class TooBusy(Exception):
    """A quota is full: the request is refused, to be tried again after ``retry_after`` s."""

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


class Closed(Exception):
    """The server is stopping: no more advice."""


class Quota:
    """How many of one kind of request may be unfinished at once: per client and in all.

    ``take`` is synchronous (the event loop's one thread): check and count in one step."""

    def __init__(self, what: str, total: int, per_client: int, retry_after: int) -> None:
        self.what = what
        self.total = total
        self.per_client = per_client
        self.retry_after = retry_after
        self.by_client: dict[str, int] = {}

    @property
    def used(self) -> int:
        return sum(self.by_client.values())

    def take(self, client: str) -> None:
        """Count one more for ``client``, or :class:`TooBusy`."""
        mine = self.by_client.get(client, 0)
        if mine >= self.per_client:
            raise TooBusy(
                f"you have {mine} {self.what} unfinished (at most {self.per_client} per client): "
                "wait for it, or cancel it",
                self.retry_after,
            )
        if self.used >= self.total:
            raise TooBusy(
                f"the server is working on {self.total} {self.what} (its most): try again later",
                self.retry_after,
            )
        self.by_client[client] = mine + 1

    def give(self, client: str) -> None:
        left = self.by_client.get(client, 0) - 1
        if left > 0:
            self.by_client[client] = left
        else:
            self.by_client.pop(client, None)

    @contextlib.contextmanager
    def held(self, client: str) -> Iterator[None]:
        self.take(client)
        try:
            yield
        finally:
            self.give(client)


def hint(
    view: PlayerView, legal: Sequence[Decision], k: int, budget: float
) -> list[dict[str, Any]]:
    """Run in a worker: the best ``k`` decisions from the seat's view (I2), best first."""
    from kerala.bots.hints import suggest

    return [
        {"decision": d.to_json(), "value": float(v)}
        for d, v in suggest(view, legal, k=k, budget=budget)
    ]


def _advice_worker(parent: int, nice: int) -> None:
    """In an advice worker: a lower CPU priority than the bots', and exit with the server."""
    from kerala.server.botrunner import watch_parent

    watch_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)


class Advice:
    """The advice pool and its slots (one per worker), hints first."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.workers = settings.advice_workers
        self._pool: Executor | None = None
        self._free = self.workers
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._closing = False
        self.hints = Quota("hints", settings.hint_queue, settings.hints_per_client, 2)
        self.analyses = Quota("analyses", settings.analysis_jobs, settings.analysis_per_client, 10)

    def _executor(self) -> Executor:
        if self._closing:
            raise Closed("the server is stopping")
        if self._pool is None:
            if self.settings.bot_executor == "process":
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_advice_worker,
                    initargs=(os.getpid(), self.settings.advice_nice),
                )
            else:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="kerala-advice")
        return self._pool

    async def _acquire(self, priority: int) -> None:
        if self._closing:
            raise Closed("the server is stopping")
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._release()  # the slot was handed over as we were cancelled: pass it on
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, fut = heapq.heappop(self._waiting)
            if not fut.done():
                fut.set_result(None)  # the slot goes to the first waiting, as it is
                return
        self._free += 1

    @property
    def waiting(self) -> int:
        """Searches waiting for a slot."""
        return sum(1 for _, _, f in self._waiting if not f.done())

    async def run(self, priority: int, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in an advice worker once a slot is free (``priority``: :data:`HINT`
        or :data:`ANALYSIS`); cancelled while waiting, it leaves the queue."""
        await self._acquire(priority)
        try:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._executor(), fn, *args)
            except BrokenProcessPool:
                if self._closing:
                    raise Closed("the server is stopping") from None
                log.warning("advice worker pool broke; starting a new one")
                self._pool = None
                return await loop.run_in_executor(self._executor(), fn, *args)
        finally:
            self._release()

    def start(self) -> None:
        """Start the workers now, so the first hint does not wait for them."""
        from kerala.server.botrunner import warm_worker

        self._executor().submit(warm_worker)

    async def close(self) -> None:
        """Stop at once: waiting searches are refused, running ones killed (not awaited)."""
        self._closing = True
        for _, _, fut in self._waiting:
            if not fut.done():
                fut.set_exception(Closed("the server is stopping"))
        self._waiting.clear()
        pool, self._pool = self._pool, None
        if pool is not None:
            stop_pool(pool)


def stop_pool(pool: Executor) -> None:
    """Shut ``pool`` down without waiting for what runs: queued work is cancelled and worker
    processes are killed (threads cannot be: a thread's search ends on its own budget)."""
    processes: list[Any] = []
    if isinstance(pool, ProcessPoolExecutor):
        # ProcessPoolExecutor has no public way to kill its workers before Python 3.14
        # (terminate_workers); its process table is the documented-by-use way round that.
        processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        with contextlib.suppress(Exception):
            p.terminate()
