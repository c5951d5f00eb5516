"""Bots playing their seats without blocking the server.

When the seat to move is a bot's, one task per game asks a worker pool for the bot's decision,
then submits it like any player's (checked, committed, announced). A bot sees only its view and
the legal decisions (docs/rules.md I1, I2). Thinking runs in worker *processes* by default, so an
``mcts`` bot searching in one game takes no time from the event loop that answers the others.

**A bot seat to move always gets a runner, whoever commits the event that makes it so.** The
runner hears of every committed event, this process's and the other processes'
(:class:`kerala.server.fanout.Announcer`), and never of reads: reading a game has no side
effects. A game's task is asked again (:meth:`BotRunner.poke`) when it is running already; it
looks once more before it ends, and it leaves the table of tasks in the same step as it decides
to end, so no request falls between a task that is ending and a new one (else a task that has
just seen "a person to move" could swallow the next bot turn). Across processes the
broker's lease makes one process run a game's bot turns; every process also looks for bot
turns left waiting (a dead process's, a lost message's) every ``bot_sweep`` seconds, and takes
them over once their lease has run out. A game whose bot was to move when a server stopped is
resumed when one starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.concurrency import run_in_threadpool

from kerala.actions import Decision, decision_from_json
from kerala.bots import RandomBot, make_bot
from kerala.server.advice import HINT, Advice, Closed, hint, stop_pool
from kerala.server.background import stop_task
from kerala.server.clockkeeper import ClockKeeper
from kerala.server.decisions import DecisionService
from kerala.server.domain import Busy, GameError, StaleDecision
from kerala.server.fanout import Announcer, Broker
from kerala.server.service import GameService
from kerala.server.settings import Settings
from kerala.server.store import utcnow
from kerala.server.wire import Snapshot
from kerala.views import PlayerView

log = logging.getLogger("kerala.server.bots")


def think(spec: str, seed: int, view: PlayerView, legal: Sequence[Decision]) -> dict[str, Any]:
    """Run in a worker: build the bot and let it choose. Returns the decision's JSON."""
    bot = make_bot(spec, seed=seed)
    return bot.choose(view, list(legal)).to_json()


def watch_parent(parent: int) -> None:
    """In a worker: exit when the server process is gone (even killed with SIGKILL)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="kerala-parent-watch", daemon=True).start()


def warm_worker() -> int:
    # Importing the bots in a fresh worker takes a moment: do it before the first game needs it.
    from kerala.bots import bot_names

    return len(bot_names())


class BotRunner:
    """Drives the bot seats of the games in this process."""

    def __init__(
        self, service: GameService, announcer: Announcer, broker: Broker, settings: Settings
    ) -> None:
        self.service = service
        self.decisions = DecisionService(service)
        self.announcer = announcer
        self.broker = broker
        self.settings = settings
        self._pool: Executor | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        #: Games whose running task was asked again meanwhile: it looks once more before ending.
        self._again: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._hinting: set[str] = set()
        self._closing = False
        #: The clocks of this process (timeouts, and the restart not charged).
        self.clocks = ClockKeeper(service, announcer, broker, settings)
        #: Hints and analyses: a pool of their own, after the bots (advice.py).
        self.advice = Advice(settings)

    def _executor(self) -> Executor:
        if self._closing:
            raise Closed("the server is stopping")
        if self._pool is None:
            if self.settings.bot_executor == "process":
                self._pool = ProcessPoolExecutor(
                    self.settings.bot_workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=watch_parent,
                    initargs=(os.getpid(),),
                )
            else:
                self._pool = ThreadPoolExecutor(
                    self.settings.bot_workers, thread_name_prefix="kerala-bot"
                )
        return self._pool

    def start(self) -> None:
        """Warm the workers, and look for waiting bot turns now and every ``bot_sweep`` s; pause
        the clocks for the time no server ran (before any game is read), then keep them."""
        self.clocks.resume()
        self.clocks.start()
        self._executor().submit(warm_worker)
        self.advice.start()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        """Poke every game whose bot has the turn and whose last event is not brand new (or
        every such game, the first time: those a stopped server left)."""
        first = True
        while not self._closing:
            try:
                since = None if first else utcnow() - dt.timedelta(seconds=self.settings.bot_sweep)
                for game_id in await run_in_threadpool(self.service.pending_bot_games, since):
                    self.poke(game_id)
                first = False
            except Exception as e:  # the database away for a moment: look again later
                log.warning("looking for waiting bot turns failed (%s)", type(e).__name__)
            await asyncio.sleep(self.settings.bot_sweep)

    async def close(self) -> None:
        """Stop at once: the advice workers are killed, the bot turns under way are dropped
        (a bot decision not yet committed was never accepted; the next server start plays
        that turn again), and nothing waits for a search to end."""
        self._closing = True
        await self.advice.close()
        await self.clocks.close()
        await stop_task(self._sweeper)
        tasks = list(self._tasks.values())
        for t in tasks:
            t.cancel()
        for t in tasks:
            await stop_task(t)
        if self._pool is not None:
            pool, self._pool = self._pool, None
            stop_pool(pool)

    def busy(self, game_id: str) -> bool:
        return game_id in self._tasks

    def after(self, snapshot: Snapshot) -> None:
        """After any committed event: let the bots play if the seat to move is a bot's."""
        if snapshot.bot_to_move():
            self.poke(snapshot.game_id)

    def poke(self, game_id: str) -> None:
        """Make sure the game's bot turn gets a runner: a new task, or the running one asked
        to look once more before it ends."""
        if self._closing:
            return
        if game_id in self._tasks:
            self._again.add(game_id)
            return
        self._tasks[game_id] = asyncio.get_running_loop().create_task(self._drive(game_id))

    def hinting(self, game_id: str) -> bool:
        """Whether a hint for this game is being worked out in this process."""
        return game_id in self._hinting

    @contextlib.contextmanager
    def hint_slot(self, game_id: str, client: str) -> Iterator[None]:
        """Admit one hint for ``game_id`` asked by ``client``, or refuse: one at a time per
        game (409 :class:`Busy`, so that repeated clicks cannot queue up searches), and within
        the hint quotas (:class:`kerala.server.advice.TooBusy`, a 429)."""
        if game_id in self._hinting:
            raise Busy("a hint for this game is being worked out already")
        with self.advice.hints.held(client):
            self._hinting.add(game_id)
            try:
                yield
            finally:
                self._hinting.discard(game_id)

    async def suggest(
        self, view: PlayerView, legal: Sequence[Decision], k: int
    ) -> list[dict[str, Any]]:
        """Hints for a seat, computed in the advice workers (never on the event loop, never
        in the game bots' pool), within a slot taken by :meth:`hint_slot`."""
        budget = self.settings.hint_budget
        return await self.advice.run(HINT, hint, view, legal, k, budget)

    async def _choose(self, spec: str, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        loop = asyncio.get_running_loop()
        seed = secrets.randbits(63)
        for attempt in range(2):
            try:
                out = await loop.run_in_executor(self._executor(), think, spec, seed, view, legal)
                return decision_from_json(out)
            except BrokenProcessPool:
                log.warning("bot worker pool broke; starting a new one")
                self._pool = None
                if attempt:
                    break
            except Closed:
                raise  # the server is stopping: no decision (the turn is played after restart)
            except Exception as e:  # a bot's bug must not stall the game
                log.error("bot %r failed (%s); a random bot plays this decision", spec, type(e))
                break
        return RandomBot(seed).choose(view, legal)

    async def _drive(self, game_id: str) -> None:
        try:
            while not self._closing:
                self._again.discard(game_id)
                if await self.broker.acquire(game_id):
                    renewer = asyncio.create_task(self._renew(game_id))
                    try:
                        await self._play(game_id)
                    finally:
                        renewer.cancel()
                        await self.broker.release(game_id)
                # Else another process runs this game's bots: it hears of every event too.
                if game_id not in self._again:
                    return  # and leaves the table in this same step (no await in between)
        finally:
            self._tasks.pop(game_id, None)
            self._again.discard(game_id)

    async def _renew(self, game_id: str) -> None:
        while True:
            await asyncio.sleep(self.settings.bot_lease / 3)
            if not await self.broker.renew(game_id):
                log.warning("lost the bot lease of game %s", game_id)
                return

    async def _play(self, game_id: str) -> None:
        """Play the game's bot turns while a bot has the turn."""
        while not self._closing:
            try:
                job = await run_in_threadpool(self.decisions.bot_job, game_id)
            except GameError:
                return
            if job is None:
                return
            started = time.monotonic()
            decision = await self._choose(job.spec, job.view, job.legal)
            wait = self.settings.bot_delay - (time.monotonic() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                snap, event = await run_in_threadpool(
                    self.decisions.submit, game_id, job.seat, decision, job.expected, by_bot=True
                )
            except GameError as e:
                if isinstance(e, StaleDecision):
                    continue  # the game moved on (another process): look again
                log.error("bot decision refused in game %s: %s", game_id, e.code)
                return
            self.announcer.announce(event, snap)
