"""Keeping time for the games with a clock: timeouts, and the world's sign of life.

Every server process runs one :class:`ClockKeeper` (started by the bot runner). Each
``clock_tick`` seconds it

- writes the game world's sign of life (:meth:`GameRepository.beat`), and
- looks for games whose running clock's deadline has passed (``games.clock_deadline``, an
  indexed column) and times them out: a bot of the level the creator chose takes the seat, as a
  ``seat`` event with ``"timeout": true`` (:meth:`SeatService.time_out`).

**A timeout fires once** however many processes look: each takes the game's lease from the
broker first (the Redis lock of the bot turns, :class:`kerala.server.fanout.Broker`), and the
hand-over is a conditional write (``WHERE event_count = seen``) that a second attempt cannot
repeat: the second finds no clock running out.

**A restart is never charged.** On starting, a process asks whether any process of the world
wrote its sign of life within ``3 × clock_tick`` (and did not stop cleanly). If none did, the
world was down since the last sign of life: every running clock's start and deadline move on by
that gap, once (a conditional write on the sign of life: of processes starting together, one
credits it). A process starting while another runs credits nothing: the world kept time.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging

from starlette.concurrency import run_in_threadpool

from kerala.server.background import stop_task
from kerala.server.domain import GameError
from kerala.server.fanout import Announcer, Broker
from kerala.server.seats import SeatService
from kerala.server.service import GameService
from kerala.server.settings import Settings

log = logging.getLogger("kerala.clocks")


class ClockKeeper:
    """Times out the seats whose clock has run out, in this process."""

    def __init__(
        self, service: GameService, announcer: Announcer, broker: Broker, settings: Settings
    ) -> None:
        self.service = service
        self.seats = SeatService(service)
        self.announcer = announcer
        self.broker = broker
        self.tick = settings.clock_tick
        self._task: asyncio.Task[None] | None = None

    def resume(self) -> dt.timedelta | None:
        """Pause the clocks for the time no server ran (see the module's docstring)."""
        gap = self.service.repo.resume_world(
            self.service.now(), dt.timedelta(seconds=3 * self.tick)
        )
        if gap:
            log.info("no server ran for %.1f s: running clocks moved on", gap.total_seconds())
        return gap

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None
        with contextlib.suppress(Exception):  # the database away: the last beat stands
            await run_in_threadpool(self.service.repo.beat, self.service.now(), stopped=True)

    async def _loop(self) -> None:
        while True:
            try:
                await self.check()
            except Exception as e:  # the database away for a moment: look again later
                log.warning("keeping the clocks failed (%s)", type(e).__name__)
            await asyncio.sleep(self.tick)

    async def check(self) -> int:
        """One tick: the sign of life, then the timeouts due. Returns the timeouts fired."""
        repo = self.service.repo
        now = self.service.now()
        await run_in_threadpool(repo.beat, now)
        fired = 0
        for game_id in await run_in_threadpool(repo.overdue_games, now):
            fired += await self._time_out(game_id)
        return fired

    async def _time_out(self, game_id: str) -> int:
        if not await self.broker.acquire(game_id):
            return 0  # another process holds this game: it times the seat out
        try:
            out = await run_in_threadpool(self.seats.time_out, game_id)
        except GameError as e:
            log.info("timeout in game %s not taken (%s)", game_id, e.code)
            out = None
        finally:
            await self.broker.release(game_id)
        if out is None:
            return 0
        snap, event = out
        log.info("seat %s of game %s ran out of time: a bot plays it", event.data["seat"], game_id)
        self.announcer.announce(event, snap)  # the bot runner hears it: the bot plays
        return 1
