"""Stopping background tasks: a server's shutdown ends even when a cancellation is swallowed
on its way (as a library's cleanup, or a timeout firing in the same turn, can do)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from kerala.server.background import stop_task
from kerala.server.quickmatch import MemoryQueue, QuickMatch
from kerala.server.settings import Settings

#: Far longer than a stop takes; a hang fails the test instead of stalling the suite.
BOUND = 10.0


async def ends_within_bound(coro: Coroutine[Any, Any, None]) -> bool:
    """Whether ``coro`` ends within :data:`BOUND` (watched with ``asyncio.wait``, which, unlike
    ``wait_for``, does not cancel it, so a stop that swallows cancels cannot pass by that)."""
    task = asyncio.create_task(coro)
    done, _ = await asyncio.wait({task}, timeout=BOUND)
    return bool(done)


async def _swallows_one_cancel(entered: asyncio.Event) -> None:
    swallowed = False
    while True:
        entered.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed = True


def test_a_task_that_swallows_its_cancellation_is_still_stopped() -> None:
    async def main() -> None:
        entered = asyncio.Event()
        task = asyncio.create_task(_swallows_one_cancel(entered))
        await entered.wait()
        assert await ends_within_bound(stop_task(task))
        assert task.cancelled()

    asyncio.run(main())


def test_stopping_a_task_does_not_swallow_the_stoppers_own_cancellation() -> None:
    async def main() -> None:
        entered = asyncio.Event()
        stubborn = asyncio.create_task(_swallows_one_cancel(entered))
        await entered.wait()
        stopper = asyncio.create_task(stop_task(stubborn))
        await asyncio.sleep(0)
        stopper.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopper
        assert await ends_within_bound(stop_task(stubborn))

    asyncio.run(main())


def test_an_error_the_task_ended_with_is_consumed_by_the_stop() -> None:
    async def fails() -> None:
        raise RuntimeError("lost the database")

    async def main() -> None:
        task = asyncio.create_task(fails())
        await asyncio.sleep(0)
        await stop_task(task)  # no raise: a failed background task must not stop the shutdown
        assert isinstance(task.exception(), RuntimeError)

    asyncio.run(main())


class SwallowingQueue(MemoryQueue):
    """A queue whose lock call, cancelled once, swallows the cancellation and answers."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.swallowed = False

    async def lock(self, holder: str, seconds: float) -> bool:
        self.entered.set()
        if not self.swallowed:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.swallowed = True
        return False


def test_closing_quick_match_ends_its_pairing_loop_when_a_cancellation_is_swallowed() -> None:
    async def main() -> None:
        queue = SwallowingQueue()
        qm = QuickMatch(
            queue,
            Settings(quickmatch_interval=0.01),
            create=lambda group: ("", {}, None),
            started=lambda made: None,
        )
        qm.start()
        await queue.entered.wait()
        assert await ends_within_bound(qm.close())
        assert queue.swallowed

    asyncio.run(main())
