"""Stopping the server's background tasks (pairing, gap filling, relays, clocks, mail).

A single ``task.cancel()`` is not enough to stop a loop: a cancellation can be swallowed on its
way (a library's cleanup that waits out a cancel, or a ``wait_for`` whose timeout fires in the
same turn), and the loop then runs on while the closer waits on it for ever. That hung a server's
shutdown once in a few hundred starts (docs/server.md, "Shutdown"). :func:`stop_task` cancels
again until the task has ended, as anyio's cancel scopes do.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

log = logging.getLogger("kerala.server")

#: Seconds between two cancellations of a task that has not ended yet.
RECANCEL: Final = 0.5


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` and wait until it has ended, cancelling again while it runs on.

    Whatever the task ended with (its cancellation, a result or an error) is consumed here;
    an error is logged. The caller's own cancellation is not suppressed.
    """
    if task is None:
        return
    tries = 0
    while not task.done():
        task.cancel()
        tries += 1
        if tries == 3:
            log.warning("background task %s ignores its cancellation; cancelling on", task)
        await asyncio.wait({task}, timeout=RECANCEL)
    if not task.cancelled() and task.exception() is not None:
        log.warning("background task %s ended with %r", task.get_name(), task.exception())


__all__ = ["RECANCEL", "stop_task"]
