"""Bots playing their seats without blocking the server.

When the seat to move is a bot's, one task per game (in this process) asks a worker pool for the
bot's decision, then submits it like any player's (checked, committed, announced). A bot sees
only its view and the legal decisions (RULES.md I1, I2). Thinking runs in worker *processes* by
default, so an ``mcts`` bot searching in one game takes no time from the event loop that answers
the other games. A game whose bot was to move when a server stopped is resumed when one starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.concurrency import run_in_threadpool

from kerala.actions import Decision, decision_from_json
from kerala.bots import RandomBot, make_bot
from kerala.server.errors import ApiError
from kerala.server.hub import Hub
from kerala.server.service import GameService, Snapshot
from kerala.server.settings import Settings
from kerala.views import PlayerView

log = logging.getLogger("kerala.server.bots")


def think(spec: str, seed: int, view: PlayerView, legal: Sequence[Decision]) -> dict[str, Any]:
    """Run in a worker: build the bot and let it choose. Returns the decision's JSON."""
    bot = make_bot(spec, seed=seed)
    return bot.choose(view, list(legal)).to_json()


def hint(
    view: PlayerView, legal: Sequence[Decision], k: int, budget: float
) -> list[dict[str, Any]]:
    """Run in a worker: the best ``k`` decisions from the seat's view (I2), best first."""
    from kerala.bots.hints import suggest

    return [
        {"decision": d.to_json(), "value": float(v)}
        for d, v in suggest(view, legal, k=k, budget=budget)
    ]


def _watch_parent(parent: int) -> None:
    """In a worker: exit when the server process is gone (even killed with SIGKILL)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="kerala-parent-watch", daemon=True).start()


def _warm() -> int:
    # Importing the bots in a fresh worker takes a moment: do it before the first game needs it.
    from kerala.bots import bot_names

    return len(bot_names())


class BotRunner:
    """Drives the bot seats of the games in this process."""

    def __init__(self, service: GameService, hub: Hub, settings: Settings) -> None:
        self.service = service
        self.hub = hub
        self.settings = settings
        self._pool: Executor | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._hinting: set[str] = set()
        self._closing = False

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.settings.bot_executor == "process":
                self._pool = ProcessPoolExecutor(
                    self.settings.bot_workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_watch_parent,
                    initargs=(os.getpid(),),
                )
            else:
                self._pool = ThreadPoolExecutor(
                    self.settings.bot_workers, thread_name_prefix="kerala-bot"
                )
        return self._pool

    def start(self) -> None:
        self._executor().submit(_warm)

    async def close(self) -> None:
        self._closing = True
        tasks = list(self._tasks.values())
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    def busy(self, game_id: str) -> bool:
        return game_id in self._tasks

    def after(self, game_id: str, snapshot: Snapshot) -> None:
        """After an event: let the bots play if the seat to move is a bot's."""
        seat = snapshot.to_move
        if seat is not None and snapshot.base["players"][seat]["kind"] == "bot":
            self.poke(game_id)

    def poke(self, game_id: str) -> None:
        """Make sure the game's bots play if it is a bot's turn (no-op if already driving)."""
        if self._closing or game_id in self._tasks:
            return
        task = asyncio.get_running_loop().create_task(self._drive(game_id))
        self._tasks[game_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(game_id, None))

    def hinting(self, game_id: str) -> bool:
        """Whether a hint for this game is being worked out in this process."""
        return game_id in self._hinting

    async def suggest(
        self, game_id: str, view: PlayerView, legal: Sequence[Decision], k: int
    ) -> list[dict[str, Any]]:
        """Hints for a seat, computed in the bots' workers (never on the event loop).

        One at a time per game: a second request while one thinks is refused (409), so that
        repeated clicks cannot tie up every worker."""
        if game_id in self._hinting:
            raise ApiError(409, "conflict", "a hint for this game is being worked out already")
        self._hinting.add(game_id)
        loop = asyncio.get_running_loop()
        budget = self.settings.hint_budget
        try:
            try:
                return await loop.run_in_executor(self._executor(), hint, view, legal, k, budget)
            except BrokenProcessPool:
                log.warning("bot worker pool broke; starting a new one")
                self._pool = None
                return await loop.run_in_executor(self._executor(), hint, view, legal, k, budget)
        finally:
            self._hinting.discard(game_id)

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
            except Exception as e:  # a bot's bug must not stall the game
                log.error("bot %r failed (%s); a random bot plays this decision", spec, type(e))
                break
        return RandomBot(seed).choose(view, legal)

    async def _drive(self, game_id: str) -> None:
        while not self._closing:
            try:
                job = await run_in_threadpool(self.service.bot_job, game_id)
            except ApiError:
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
                    self.service.submit, game_id, job.seat, decision, job.expected, by_bot=True
                )
            except ApiError as e:
                if e.code == "stale":
                    continue  # the game moved on (another process): look again
                log.error("bot decision refused in game %s: %s", game_id, e.code)
                return
            self.hub.publish(game_id, event, snap)
