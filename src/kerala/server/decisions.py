"""Decisions in a game: a seat's (over HTTP or the game's socket) and a bot's, and the jobs a
bot or a hint works from. Built on :class:`~kerala.server.service.GameService`'s cache, locks and
repository; no HTTP, no SQL.

A decision is checked against the cached state and written with a conditional update
(``WHERE event_count = seen``) that is the check: if another process moved the game on, the
write changes nothing, and the decision is judged again on the game as the database holds it
(:meth:`DecisionService._deciding`). An accepted decision is committed before the caller
announces it; a stale or concurrent submission changes nothing. Draws come from the operating
system's random source when due (docs/rules.md I2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

from kerala.actions import Decision
from kerala.clocks import clock_kinds, running_seat
from kerala.errors import IllegalDecisionError
from kerala.server.domain import (
    BadToken,
    BotJob,
    Event,
    GameError,
    HintsOff,
    IllegalDecision,
    Live,
    NotYourTurn,
    StaleDecision,
)
from kerala.server.repository import Write
from kerala.server.service import GameService, Steps, check_decision_json, clock_tuple
from kerala.server.setup import SYSTEM_RANDOM
from kerala.server.wire import Snapshot, result_json

T = TypeVar("T")


class DecisionService:
    """Decisions and the bots' and hints' jobs, over the game service."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    def parse_decision(self, obj: object, seat: int) -> Decision:
        """A decision from JSON; the seat may be left out (it is the token's)."""
        if isinstance(obj, dict) and "seat" not in obj:
            obj = {**obj, "seat": seat}
        d = check_decision_json(obj)
        if d.seat != seat:
            raise BadToken(f"this token plays seat {seat}; the decision is for seat {d.seat}")
        return d

    def submit(
        self,
        game_id: str,
        seat: int,
        decision: Decision,
        expected: int,
        *,
        by_bot: bool = False,
    ) -> tuple[Snapshot, Event]:
        """Check, apply, store and commit one decision; return the new snapshot and event."""
        return self._deciding(
            game_id, lambda live: self._submit(live, seat, decision, expected, by_bot)
        )

    def _submit_as_steps(
        self, live: Live, token: str, decision: object, expected: int
    ) -> Steps[tuple[Snapshot, Event, int]]:
        seat = self.games.seat_of(live, token)
        d = self.parse_decision(decision, seat)
        snap, event = yield from self._submit_steps(live, seat, d, expected, False)
        return snap, event, seat

    def submit_as(
        self, game_id: str, token: str, decision: object, expected: int
    ) -> tuple[Snapshot, Event, int]:
        """A player's submission: the token names the seat; returns the seat too."""
        return self._deciding(
            game_id,
            lambda live: self._through(self._submit_as_steps(live, token, decision, expected)),
        )

    async def submit_as_async(
        self, game_id: str, token: str, decision: object, expected: int
    ) -> tuple[Snapshot, Event, int]:
        """:meth:`submit_as` called from the event loop, without a worker thread when it can.

        When the game is cached and its lock free, the decision is checked and applied on the
        event loop (a fraction of a millisecond), and its write awaited from the group
        committer: no thread waits for it, and the lock is held until it is committed. A
        refusal from the cache, a game not cached, a lock taken, or a write that finds the
        game moved on: :meth:`submit_as` in a worker thread (it reads the game back and judges
        again)."""
        with self.games.game_lock_if_free(game_id) as got:
            if got:
                live = self.games.cached(game_id)
                if live is not None:
                    steps = self._submit_as_steps(live, token, decision, expected)
                    try:
                        write: Write | None = next(steps)
                    except GameError:
                        write = None
                    if write is not None:
                        try:
                            stored = await asyncio.wrap_future(self.games.repo.commit_later(write))
                        except BaseException as e:
                            steps.throw(e)  # forgets the game, raises e
                            raise
                        try:
                            return self._resume(steps, stored)
                        except GameError:
                            pass  # moved on meanwhile: judged again on the database's game
        return await anyio.to_thread.run_sync(self.submit_as, game_id, token, decision, expected)

    def _through(self, steps: Steps[T]) -> T:
        """Run a decision's steps, its write committed in between (this thread waits)."""
        write = next(steps)
        try:
            stored = self.games.repo.commit(write)
        except BaseException as e:
            steps.throw(e)  # forgets the game, raises e
            raise
        return self._resume(steps, stored)

    @staticmethod
    def _resume(steps: Steps[T], stored: bool) -> T:
        """Tell a decision's steps whether their write was stored; their result."""
        try:
            steps.send(stored)
        except StopIteration as done:
            result: T = done.value
            return result
        raise AssertionError("a decision's steps end after their write")

    def _deciding(self, game_id: str, op: Callable[[Live], T]) -> T:
        """Run a decision's ``op`` under the game's lock, on the cached game if there is one.

        The cached game is not checked against the database first: the write that stores the
        decision is the check (``WHERE event_count = seen``, in the committing transaction).
        Should another server process have moved the game on, that write changes nothing and
        the cached state is dropped; and any refusal made from the cached game may be out of
        date too. Either way the game is brought up to date from the database and ``op`` runs
        once more, on what the database holds. The decisions other processes announced are
        applied to the cached game first (:meth:`heard`), so that a game played on several
        processes is not read back at each of its decisions.
        """
        with self.games.game_lock(game_id):
            live = self.games.cached(game_id)
            if live is not None:
                try:
                    return op(live)
                except GameError:
                    pass
            return op(self.games.load(game_id))

    def _submit(
        self,
        live: Live,
        seat: int,
        decision: Decision,
        expected: int,
        by_bot: bool,
    ) -> tuple[Snapshot, Event]:
        return self._through(self._submit_steps(live, seat, decision, expected, by_bot))

    def _submit_steps(
        self,
        live: Live,
        seat: int,
        decision: Decision,
        expected: int,
        by_bot: bool,
    ) -> Steps[tuple[Snapshot, Event]]:
        """Check and apply one decision; yield its conditional write; once it is stored, the
        new snapshot and event (:class:`StaleDecision` if the game moved on meanwhile; the
        cached state is then dropped, as on any failure after the state was changed)."""
        game_id = live.id
        live.check_in_play(NotYourTurn)
        if not by_bot:
            live.check_person(seat)
        if by_bot and live.seats[seat].kind != "bot":
            raise NotYourTurn(f"seat {seat} was taken back by its player")
        if expected != live.decision_count:
            raise StaleDecision(
                f"decision number {live.decision_count} is current, you sent {expected}: "
                "the submission is stale or a duplicate",
                decision_number=live.decision_count,
            )
        state = live.state
        if state.to_move != seat:
            raise NotYourTurn(f"it is seat {state.to_move}'s turn, not seat {seat}'s")
        was_running = live.running()  # before the decision moves the turn on
        try:
            state.apply(decision)
        except IllegalDecisionError as e:
            raise IllegalDecision(f"illegal decision: {e}", rule=e.rule or None) from None
        try:
            drawn = []
            while state.is_chance():
                drawn.append(state.sample_draw(SYSTEM_RANDOM).name)
            now = self.games.now()
            over = state.is_over()
            result = result_json(state) if over else None
            data = {
                "seat": seat,
                "decision": decision.to_json(),
                "decision_number": live.decision_count + 1,
                "drawn": drawn,
                "bot": by_bot,
            }
            clocks = None
            status = "over" if over else "playing"
            if live.clock is not None:
                clocks = live.clock.copy()
                after = running_seat(status, state.to_move, clock_kinds(live.seats, clocks))
                used = clocks.advance(was_running, after, now, decided=True)
                # The seconds the decision took: the clock's, else since the turn started.
                data["time"] = round(
                    used if used is not None else (now - live.turn_started_at).total_seconds(), 3
                )
            stored = yield self.games.repo.decision_write(
                game_id,
                live.event_count,
                decisions=live.decision_count + 1,
                to_move=state.to_move,
                status="over" if over else "playing",
                result=result,
                data=data,
                now=now,
                ranks=result["ranks"] if result is not None else None,
                clock=clock_tuple(clocks, status, state.to_move, live.seats),
            )
            if not stored:
                raise StaleDecision(
                    "another server process took a decision in this game first",
                    decision_number=live.decision_count + 1,
                )
        except BaseException:
            # The state was changed in memory but not stored: replay it from the database.
            self.games.forget(game_id)
            raise
        live.decision_count += 1
        live.event_count += 1
        live.updated_at = live.turn_started_at = now
        if over:
            live.status = "over"
            live.result = result
        live.clock = clocks
        live.snap = None
        return self.games.snapshot(live), Event.of(live.event_count, "decision", data)

    def hint_job(self, game_id: str, token: str) -> tuple[BotJob, Snapshot, Event]:
        """What a hint for the token's seat works from: its view and legal decisions only (I2);
        and the ``hint`` event, written now, that tells everyone's log the seat asked for one.

        Refused (:class:`HintsOff`) in a game created without hints, and
        (:class:`NotYourTurn`) unless it is that seat's turn and a person plays it.
        """
        with self.games.game_lock(game_id):
            live = self.games.load(game_id)
            seat = self.games.seat_of(live, token)
            if not live.hints:
                raise HintsOff("this game was created without hints")
            live.check_in_play(NotYourTurn, "the game is over (G4): no hint")
            live.check_person(seat)
            to_move = live.state.to_move
            if to_move != seat:
                raise NotYourTurn(f"it is seat {to_move}'s turn, not seat {seat}'s: no hint")
            now = self.games.now()
            data = {"seat": seat, "at": live.decision_count}
            if not self.games.repo.add_seat_event(
                game_id, live.event_count, "hint", data, now, seats={}
            ):
                raise self.games.changed_meanwhile(game_id)
            live.hints_taken.append(dict(data))
            snap, event = self.games.moved_on(live, now, "hint", data)
            job = BotJob(
                game_id,
                seat,
                "hint",
                live.state.view(seat),
                live.state.legal_decisions(),
                live.decision_count,
            )
            return job, snap, event

    def bot_job(self, game_id: str) -> BotJob | None:
        """The bot's turn to think, if the seat to move is a bot's."""
        with self.games.game_lock(game_id):
            live = self.games.load(game_id)
            seat = live.state.to_move
            if live.status != "playing" or seat is None:
                return None
            info = live.seats[seat]
            if info.kind != "bot":
                return None
            level = (
                info.bot
                if info.bot in self.games.bot_levels
                else self.games.settings.default_bot_level
            )
            spec = self.games.bot_levels.get(level, "random")
            return BotJob(
                game_id,
                seat,
                spec,
                live.state.view(seat),
                live.state.legal_decisions(),
                live.decision_count,
            )
