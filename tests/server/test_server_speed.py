"""What a decision costs the database (issue 11, part 2: 1,000 games on two processes).

Counted, not timed: a SQLAlchemy listener counts the statements each server sends. A decision
on a cached game is one conditional ``UPDATE`` of the games row (the check) and the event's
``INSERT``, on PostgreSQL as one statement (a CTE, one round trip); a game played on two
processes is not read back at each decision, because each process applies the decisions the
other announced (``GameService.heard``) to its cached game; and a message lost or out of order
costs a read, never a decision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from kerala.server.decisions import DecisionService
from kerala.server.domain import Event, GameError
from kerala.server.repository import GameRepository
from kerala.server.service import GameService
from kerala.server.settings import Settings
from kerala.server.store import make_engine, migrate
from kerala.server.wire import Snapshot

SEATS = [{"name": "Ann", "color": "blue"}, {"name": "Bo", "color": "black"}]


class Counted:
    """A game service on its own engine, with the statements it sends counted."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.statements: list[str] = []
        #: What one decision on a cached game sends: the check and the event.
        self.decision = (
            ["WITH"] if self.engine.dialect.name == "postgresql" else ["UPDATE", "INSERT"]
        )
        event.listen(self.engine, "before_cursor_execute", self._count)
        self.repo = GameRepository(self.engine)
        self.service = GameService(self.repo, Settings(db=url, migrate=False), {"random": "random"})
        self.decisions = DecisionService(self.service)

    def _count(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        self.statements.append(statement.split()[0].upper())

    def close(self) -> None:
        self.repo.close()
        self.engine.dispose()


@pytest.fixture
def two(db_url: str) -> Iterator[tuple[Counted, Counted]]:
    """Two game services on one database: two server processes, as far as the store goes."""
    migrate(db_url)
    a, b = Counted(db_url), Counted(db_url)
    yield a, b
    a.close()
    b.close()


def play_one(
    svc: DecisionService, game_id: str, tokens: dict[int, str], snap: Snapshot
) -> tuple[Snapshot, Event]:
    """The first legal decision of the seat to move, submitted on ``svc``."""
    seat = snap.to_move
    assert seat is not None
    legal = snap.for_seat(seat)["legal"]
    s, ev, _ = svc.submit_as(game_id, tokens[seat], legal[0], snap.base["decision_number"])
    return s, ev


def test_a_decision_on_a_cached_game_is_its_write_alone(
    two: tuple[Counted, Counted],
) -> None:
    """The conditional UPDATE (the check) and the INSERT: no read before or after."""
    a, _ = two
    created = a.service.create(SEATS, "random", None, 0)
    gid = created.snapshot.game_id
    snap = created.snapshot
    for _ in range(5):
        a.statements.clear()
        snap, ev = play_one(a.decisions, gid, created.tokens, snap)
        assert a.statements == a.decision
        assert ev.data["decision_number"] == snap.base["decision_number"]


def test_a_websocket_decision_needs_no_worker_thread(
    two: tuple[Counted, Counted], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``submit_as_async`` checks and applies on the event loop and awaits the group commit:
    the same two statements, and the threaded path is not taken."""
    a, _ = two
    created = a.service.create(SEATS, "random", None, 0)
    gid, snap = created.snapshot.game_id, created.snapshot

    def threaded(*_args: Any) -> Any:
        raise AssertionError("the decision went through a worker thread")

    monkeypatch.setattr(a.decisions, "submit_as", threaded)

    async def go(snap: Snapshot) -> Snapshot:
        for _ in range(4):
            seat = snap.to_move
            assert seat is not None
            legal = snap.for_seat(seat)["legal"]
            a.statements.clear()
            snap, ev, by = await a.decisions.submit_as_async(
                gid, created.tokens[seat], legal[0], snap.base["decision_number"]
            )
            assert by == seat and ev.data["seat"] == seat
            assert a.statements == a.decision
        return snap

    snap = asyncio.run(go(snap))
    assert snap.base["decision_number"] == 4


def test_decisions_heard_from_another_process_spare_reading_the_game_back(
    two: tuple[Counted, Counted],
) -> None:
    """B applies the decisions A announced to its cached game: B's next decision is the same
    two statements, and both processes hold the same game."""
    a, b = two
    created = a.service.create(SEATS, "random", None, 0)
    gid, tokens = created.snapshot.game_id, created.tokens
    snap, _ = b.service.get(gid, None)  # B has the game cached (a socket connected to B)
    snap = created.snapshot
    for n in range(6):
        here, there = (a, b) if n % 2 == 0 else (b, a)
        here.statements.clear()
        snap, ev = play_one(here.decisions, gid, tokens, snap)
        assert here.statements == here.decision, n
        there.service.heard(ev, snap)  # what Redis carries to the other process
    assert a.service.get(gid, None)[0].game_json(None) == b.service.get(gid, None)[0].game_json(
        None
    )
    with a.engine.connect() as c:
        numbers = c.execute(
            sa.text("select number from events where game_id = :g order by number"), {"g": gid}
        ).scalars()
        assert list(numbers) == [1, 2, 3, 4, 5, 6]


def test_a_lost_or_late_message_costs_a_read_not_a_decision(
    two: tuple[Counted, Counted],
) -> None:
    """B misses one of A's decisions and hears the next out of order: its cache cannot follow
    on, so its decision's conditional write finds the game moved on; B reads the game back and
    accepts the decision on what the database holds. Nothing is refused or stored twice."""
    a, b = two
    created = a.service.create(SEATS, "random", None, 0)
    gid, tokens = created.snapshot.game_id, created.tokens
    b.service.get(gid, None)
    snap = created.snapshot
    s1, _ = play_one(a.decisions, gid, tokens, snap)  # 1, never heard by B (a lost message)
    s2, ev2 = play_one(a.decisions, gid, tokens, s1)  # 2, heard by B: does not follow on
    b.service.heard(ev2, s2)
    b.statements.clear()
    s3, ev3 = play_one(b.decisions, gid, tokens, s2)
    assert ev3.data["decision_number"] == 3
    assert "SELECT" in b.statements  # the game read back
    assert b.statements.count(b.decision[-1]) == 1  # the decision stored once
    assert a.service.get(gid, None)[0].game_json(None) == s3.game_json(None)


def test_a_stale_decision_is_refused_after_hearing(two: tuple[Counted, Counted]) -> None:
    """Hearing never makes a stale submission acceptable: the seat that already moved sends
    its decision again with the old number and gets 409 stale, on either process."""
    a, b = two
    created = a.service.create(SEATS, "random", None, 0)
    gid, tokens = created.snapshot.game_id, created.tokens
    b.service.get(gid, None)
    snap = created.snapshot
    seat = snap.to_move
    assert seat is not None
    legal = snap.for_seat(seat)["legal"]
    s1, ev1, _ = a.decisions.submit_as(gid, tokens[seat], legal[0], 0)
    b.service.heard(ev1, s1)
    for svc in (a.decisions, b.decisions):
        with pytest.raises(GameError) as err:
            svc.submit_as(gid, tokens[seat], legal[0], 0)
        assert err.value.code == "stale"
