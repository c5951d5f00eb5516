"""Seats during play: a seat handed to a bot (by its player, or by the others after a silence),
a seat whose time ran out, and a seat taken back by its player. Built on
:class:`~kerala.server.service.GameService`'s cache, locks and repository; no HTTP, no SQL.
Each is one ``seat`` event, and each charges the clocks (docs/api.md, "Clocks").
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kerala.clocks import Clock, running_seat
from kerala.server.domain import BadToken, Conflict, Event, InvalidRequest, Live, js
from kerala.server.service import GameService, clock_columns_after, kinds_after
from kerala.server.store import utcnow
from kerala.server.wire import Snapshot


class SeatService:
    """Hand-overs, timeouts and take-backs, over the game service."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    def hand_to_bot(
        self, game_id: str, token: str, seat: int, level: str | None = None
    ) -> tuple[Snapshot, Event, int]:
        """Give ``seat`` to a bot for the rest of the game (own seat, or a silent one).

        The bot is the game's hand-over level, whoever asks and for whichever seat: the others
        cannot choose who replaces a silent player, and nobody can call in a stronger bot for
        their own seat than the game allows. A ``level`` other than the game's is refused.
        Returns the new snapshot, the event, and the seat of the token that asked."""
        with self.games.game_lock(game_id):
            live = self.games.load(game_id)
            by_seat = self.games.seat_of(live, token)
            live.check_in_play(Conflict)
            target = live.seat_at(seat)
            if target.kind == "bot":
                raise Conflict(f"seat {seat} is already played by a bot")
            if by_seat != seat:
                if live.state.to_move != seat:
                    raise Conflict(
                        f"seat {seat} is not keeping anyone waiting: it is seat "
                        f"{live.state.to_move}'s turn"
                    )
                waited = (utcnow() - live.turn_started_at).total_seconds()
                limit = self.games.settings.seat_timeout
                if waited < limit:
                    raise Conflict(
                        f"seat {seat} has been silent for {waited:.0f} s; it can be handed to a "
                        f"bot after {limit:g} s ({limit - waited:.0f} s from now)"
                    )
            name = live.handover_bot
            if level is not None and level != name:
                raise InvalidRequest(
                    f"this game's seats are handed to its own bot level {js(name)}, "
                    f"not {js(level)} (leave the level out)"
                )
            data = {"seat": seat, "bot": name, "by": by_seat}
            snap, event = self._to_bot(live, seat, name, data)
            return snap, event, by_seat

    def _to_bot(
        self, live: Live, seat: int, name: str, data: dict[str, Any], *, timeout: bool = False
    ) -> tuple[Snapshot, Event]:
        """Write the event that gives ``seat`` to bot level ``name`` (clocks charged)."""
        now = self.games.now()
        clocks = None
        if live.clock is not None:
            clocks = live.clock.copy()
            if timeout:
                clocks.timed_out(seat, live.decision_count)
            else:  # a player handed it over (docs/notation.md, "Clock fields")
                clocks.handed_over(seat, live.decision_count, name, data["by"])
            # The seat's clock runs on while its bot plays after a hand-over; not after a
            # timeout (clock_kinds): charge the time so far, and start the one that runs now.
            after = running_seat(
                live.status, live.state.to_move, kinds_after(live, clocks, seat, "bot")
            )
            clocks.advance(live.running() if not timeout else None, after, now)
        values = clock_columns_after(clocks, live, seat, "bot")
        if not self.games.repo.hand_to_bot(
            live.id, live.event_count, seat, name, data, now, values
        ):
            raise self.games.changed_meanwhile(live.id)
        return self._stored(live, seat, name, clocks, now, data)

    def _stored(
        self,
        live: Live,
        seat: int,
        bot: str | None,
        clocks: Clock | None,
        now: dt.datetime,
        data: dict[str, Any],
    ) -> tuple[Snapshot, Event]:
        """Once a seat event is stored: the seat is the bot ``bot``'s (``None``: its person's
        again), the clocks are ``clocks``; the new snapshot and the event."""
        target = live.seats[seat]
        target.kind = "human" if bot is None else "bot"
        target.bot = bot
        target.handed_to_bot = bot is not None
        live.clock = clocks
        return self.games.moved_on(live, now, "seat", data)

    def time_out(self, game_id: str) -> tuple[Snapshot, Event] | None:
        """If the running seat's time has run out, a bot of the control's level takes it (one
        ``seat`` event with ``"timeout": true``); ``None`` if there is nothing to do."""
        with self.games.game_lock(game_id):
            live = self.games.load(game_id)
            running = live.running()
            if live.clock is None or running is None:
                return None
            deadline = live.clock.deadline(running)
            if deadline is None or self.games.now() < deadline:
                return None
            level = live.clock.control.bot
            name = level if level in self.games.bot_levels else self.games.resolve_level(None)
            data = {"seat": running, "bot": name, "by": None, "timeout": True}
            return self._to_bot(live, running, name, data, timeout=True)

    def take_back(self, game_id: str, token: str, seat: int) -> tuple[Snapshot, Event, int]:
        """The seat's player takes back a seat a bot was given (a timeout or a hand-over)."""
        with self.games.game_lock(game_id):
            live = self.games.load(game_id)
            by_seat = self.games.seat_of(live, token)
            target = live.seat_at(seat)
            if by_seat != seat:
                raise BadToken(f"this token plays seat {by_seat}, not seat {seat}")
            if live.status != "playing":
                raise Conflict("the game is not in play: nothing to take back")
            if target.kind != "bot" or not target.handed_to_bot:
                raise Conflict(f"seat {seat} is not played by a bot: nothing to take back")
            now = self.games.now()
            clocks = None
            if live.clock is not None:
                clocks = live.clock.copy()
                after = running_seat(
                    live.status, live.state.to_move, kinds_after(live, clocks, seat, "human")
                )
                clocks.advance(live.running(), after, now)
                clocks.taken_back(seat, live.decision_count, after, now)
            data = {"seat": seat, "bot": None, "by": seat, "back": True}
            values = clock_columns_after(clocks, live, seat, "human")
            if not self.games.repo.add_seat_event(
                game_id,
                live.event_count,
                "seat",
                data,
                now,
                seats={seat: {"kind": "human", "bot": None, "handed_to_bot": False}},
                seat_kind_was="bot",
                game_values=values,
            ):
                raise self.games.changed_meanwhile(game_id)
            snap, event = self._stored(live, seat, None, clocks, now, data)
            return snap, event, by_seat
