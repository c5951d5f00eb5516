"""The lobby: open seats that anyone may take, starting early, and rematches.

- A game created with ``"kind": "open"`` seats is ``open`` until every seat is taken. Anyone
  takes a free seat with a name (:meth:`Lobby.join`) and gets that seat's token; the game starts
  (``playing``) with the last seat taken. The creator (with the creator's token handed out at
  creation) fills a free seat with a bot (:meth:`Lobby.fill`) or starts early, the free seats
  then played by bots at the default level (:meth:`Lobby.start`). Each of these is an event of
  the game, so every socket sees seats being taken.
- After the end, any player asks for a rematch (:meth:`Lobby.rematch`): one new game with the
  same players, kinds, bot levels and removal, the seat order rotated by one so that the bag
  passes on (G1). Each person keeps the token they had: a rematch seat is held by the same
  token (stored as the same hash). The first ask makes it, and a ``rematch`` event on the old
  game tells every socket its id; later asks get the same game.

Refusals are the domain errors of :mod:`kerala.server.domain`; no HTTP here.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from kerala.clocks import Clock, running_seat
from kerala.server.domain import (
    BadToken,
    Conflict,
    Event,
    EventKind,
    GameNotFound,
    InvalidRequest,
    Live,
    Seat,
)
from kerala.server.repository import GameInfo
from kerala.server.service import GameService, clock_columns
from kerala.server.setup import hash_token, plan_game
from kerala.server.wire import Snapshot


class Lobby:
    """Lobby operations over the game service (its cache, locks and repository)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.repo = service.repo

    def _creator(self, game_id: str, token: str) -> None:
        row = self.repo.game(game_id)
        if row is None:
            raise GameNotFound(game_id)
        if row.creator_hash is None or not hmac.compare_digest(row.creator_hash, hash_token(token)):
            raise BadToken("this is not the creator's token of this game")

    @staticmethod
    def _free(live: Live, seat: int) -> Seat:
        if live.status != "open":
            raise Conflict(f"the game has started: seat {seat} is taken")
        if not 0 <= seat < len(live.seats):
            raise InvalidRequest(f"this game has seats 0 to {len(live.seats) - 1}, not {seat}")
        target = live.seats[seat]
        if target.kind != "open":
            raise Conflict(f"seat {seat} is taken")
        return target

    def _seat_event(
        self,
        live: Live,
        kind: EventKind,
        data: dict[str, Any],
        changes: dict[int, dict[str, Any]],
    ) -> tuple[Snapshot, Event]:
        """Write a seat-changing event (the game starts when no seat is left open)."""
        still_open = [s.seat for s in live.seats if s.kind == "open" and s.seat not in changes]
        start = not still_open
        now = self.service.now()
        data = {**data, "started": start}
        clocks = None
        values: dict[str, Any] = {}
        if start and live.clock is not None:  # the clocks start with the game
            clocks = live.clock.copy()
            seats = [
                Seat(
                    st.seat,
                    "",
                    "",
                    changes.get(st.seat, {}).get("kind", st.kind),
                    None,
                    False,
                    None,
                )
                for st in live.seats
            ]
            running = running_seat("playing", live.state.to_move, [st.kind for st in seats])
            clocks.advance(None, running, now)
            values = clock_columns(clocks, "playing", live.state.to_move, seats)
        if not self.repo.add_seat_event(
            live.id,
            live.event_count,
            kind,
            data,
            now,
            seats=changes,
            seat_kind_was="open",
            start=start,
            game_values=values,
        ):
            raise self.service.changed_meanwhile(live.id, "look again and retry")
        for seat, change in changes.items():
            st = live.seats[seat]
            st.kind = change["kind"]
            st.name = change.get("name", st.name)
            st.bot = change.get("bot")
            st.token_hash = change.get("token_hash")
        if start:
            live.status = "playing"
            live.turn_started_at = now
            if clocks is not None:
                live.clock = clocks
        return self.service.moved_on(live, now, kind, data)

    def join(self, game_id: str, seat: int, name: str) -> tuple[Snapshot, Event, str]:
        """Take a free seat with a name: the new snapshot, the event, and the seat's token."""
        with self.service.game_lock(game_id):
            live = self.service.load(game_id)
            self._free(live, seat)
            token = secrets.token_urlsafe(24)
            snap, event = self._seat_event(
                live,
                "join",
                {"seat": seat, "name": name},
                {seat: {"kind": "human", "name": name, "token_hash": hash_token(token)}},
            )
            return snap, event, token

    def fill(
        self, game_id: str, creator_token: str, seat: int, level: str | None
    ) -> tuple[Snapshot, Event]:
        """The creator gives a free seat to a bot."""
        self._creator(game_id, creator_token)
        with self.service.game_lock(game_id):
            live = self.service.load(game_id)
            target = self._free(live, seat)
            bot = self.service.resolve_level(level)
            name = target.name or f"Bot ({bot})"
            return self._seat_event(
                live,
                "join",
                {"seat": seat, "name": name, "bot": bot},
                {seat: {"kind": "bot", "name": name, "bot": bot}},
            )

    def start(self, game_id: str, creator_token: str) -> tuple[Snapshot, Event]:
        """The creator starts now: every free seat is played by a bot of the default level."""
        self._creator(game_id, creator_token)
        with self.service.game_lock(game_id):
            live = self.service.load(game_id)
            if live.status != "open":
                raise Conflict("the game has started already")
            bot = self.service.resolve_level(None)
            changes = {
                s.seat: {"kind": "bot", "name": f"Bot ({bot})", "bot": bot}
                for s in live.seats
                if s.kind == "open"
            }
            return self._seat_event(live, "start", {"bots": sorted(changes)}, changes)

    def rematch(self, game_id: str, token: str) -> tuple[str, int, Snapshot | None, Event | None]:
        """The rematch of a finished game for the token's person: the new game's id, their seat
        in it, and (when this ask made it) the old game's snapshot and ``rematch`` event."""
        with self.service.game_lock(game_id):
            live = self.service.load(game_id)
            seat = self.service.seat_of(live, token)
            if live.status != "over":
                raise Conflict("a rematch is offered once the game is over (G4)")
            n = len(live.seats)
            new_seat = (seat - 1) % n  # seat i of the rematch is seat i + 1 of this game
            row = self.repo.game(game_id)
            if row is None:
                raise GameNotFound(game_id)
            if row.rematch_id is not None:
                return row.rematch_id, new_seat, None, None
            specs = []
            for s in live.seats:
                human = s.kind == "human" or s.handed_to_bot
                specs.append(
                    {
                        "name": s.name,
                        "color": s.color,
                        "kind": "human" if human else "bot",
                        "level": None if human else s.bot,
                    }
                )
            removed = list(row.hidden_removed) if row.removal == "chosen" else None
            state, built, _ = plan_game(
                specs, row.removal, removed, 1 % n, self.service.resolve_level
            )
            for st in built:  # each person keeps their token
                st.token_hash = (
                    live.seats[(st.seat + 1) % n].token_hash if st.kind == "human" else None
                )
            now = self.service.now()
            new_id = secrets.token_urlsafe(8)
            clocks = None
            if live.clock is not None:  # the same time control, full clocks
                clocks = Clock.start(live.clock.control, n, None, now)
                running = running_seat("playing", state.to_move, [st.kind for st in built])
                clocks.advance(None, running, now)
            info = GameInfo(
                id=new_id,
                created_at=now,
                updated_at=now,
                status="playing",
                tileset=state.tileset.name,
                removal=row.removal,
                hidden_removed=[t.name for t in state.removed],
                first_drawn=[t.name for t in state.display],
                decision_count=0,
                event_count=0,
                turn_started_at=now,
                to_move=state.to_move,
                result=None,
                creator_hash=row.creator_hash,
                **clock_columns(clocks, "playing", state.to_move, built),
                hints=row.hints,  # the same settings as the game it follows
                handover_bot=row.handover_bot,
                rated=row.rated,
            )
            data = {"game": new_id, "by": seat}
            if not self.repo.add_rematch(game_id, live.event_count, info, built, data, now):
                self.service.forget(game_id)
                again = self.repo.game(game_id)
                if again is None or again.rematch_id is None:
                    raise Conflict("the game changed meanwhile: look again and retry")
                return again.rematch_id, new_seat, None, None
            live.event_count += 1
            live.snap = None
            event = Event.of(live.event_count, "rematch", data)
            return new_id, new_seat, self.service.snapshot(live), event


__all__ = ["Lobby"]
