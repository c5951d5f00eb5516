"""Issue 11.3, "Clocks and absent players": a seat handed to a bot in a timed game is in the
clock's events, as a timeout is ("it is marked as such in the log and the record").

A player may hand a silent seat to a bot (``POST /api/games/{id}/seats/{seat}/bot``). In a game
with a time control the clock log lists it as ``{"at", "seat", "kind": "handover", "bot",
"by"}`` (docs/notation.md, "Clock fields"), so that the later take-back (``"back"``) follows a
line saying how the bot got the seat. In-process tests move the service's injectable time
source instead of sleeping (as ``test_server_clocks.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import TWO_HUMANS as HUMANS
from serverlib import AppFactory, FakeTime, auth, create, tokens_of, wait_for_events

from kerala.notation import read_record


@pytest.fixture
def timed(make_client: AppFactory, db_url: str) -> Iterator[tuple[TestClient, FakeTime]]:
    # A silent seat may be handed over at once (seat_timeout 0): the test needs no waiting.
    c = make_client(db=db_url, clock_tick=0.05, seat_timeout=0)
    fake = FakeTime()
    c.app.state.service.now = fake  # type: ignore[attr-defined]
    yield c, fake


def decisions(evs: list[dict[str, Any]]) -> int:
    return sum(1 for e in evs if e["kind"] == "decision")


def test_handover_then_take_back_in_clock_events_and_record(
    timed: tuple[TestClient, FakeTime],
) -> None:
    """Bo hands silent Ada's seat to the game's hand-over bot (medium); the bot decides; Ada
    takes the seat back. The clock's events list the hand-over then the take-back: on the wire,
    after the game is read again from the database, in the record, and as ``read_record`` reads
    it."""
    client, fake = timed
    created = create(
        client,
        HUMANS,
        clock={"kind": "realtime", "minutes": 10, "bot": "random"},
        handover_bot="medium",
    )
    gid, tokens = created["id"], tokens_of(created)
    mover = created["game"]["to_move"]
    other = 1 - mover
    fake.move(30)
    r = client.post(f"/api/games/{gid}/seats/{mover}/bot", headers=auth(tokens[other]))
    assert r.status_code == 200, r.text
    handover = {"at": 0, "seat": mover, "kind": "handover", "bot": "medium", "by": other}
    assert r.json()["clock"]["events"] == [handover]
    # The seat event itself is unchanged: a hand-over, not a timeout.
    evs = client.get(f"/api/games/{gid}/events", params={"since": 0}).json()["events"]
    seat = [e for e in evs if e["kind"] == "seat"]
    assert seat[-1]["by"] == other and "timeout" not in seat[-1]
    evs = wait_for_events(client, gid, lambda es: decisions(es) >= 1)

    # The bot has decided for Ada (and maybe her follow-up); then she takes her seat back.
    def moved_on(_: list[Any]) -> bool:
        return bool(client.get(f"/api/games/{gid}").json()["to_move"] == other)

    wait_for_events(client, gid, moved_on)
    at = decisions(client.get(f"/api/games/{gid}/events", params={"since": 0}).json()["events"])
    r = client.post(f"/api/games/{gid}/seats/{mover}/back", headers=auth(tokens[mover]))
    assert r.status_code == 200, r.text
    want = [handover, {"at": at, "seat": mover, "kind": "back"}]
    assert r.json()["clock"]["events"] == want
    service = client.app.state.service  # type: ignore[attr-defined]
    service.forget(gid)  # read again from the database: the log was stored
    assert client.get(f"/api/games/{gid}").json()["clock"]["events"] == want
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["clock"]["events"] == want
    assert read_record(record).extra["clock"]["events"] == want
    # The plain form has no clock fields at all.
    plain = client.get(f"/api/games/{gid}/record", params={"extensions": "none"}).json()
    assert "clock" not in plain
    read_record(plain)


def test_own_seat_handover_is_logged_untimed_game_has_no_log(
    timed: tuple[TestClient, FakeTime],
) -> None:
    """A player who hands their own seat to a bot is the ``by`` of the event; a game without a
    time control has no clock, so nothing is logged."""
    client, _ = timed
    created = create(
        client, HUMANS, clock={"kind": "correspondence", "hours": 24}, handover_bot="random"
    )
    gid, tokens = created["id"], tokens_of(created)
    r = client.post(
        f"/api/games/{gid}/seats/1/bot", json={"level": "random"}, headers=auth(tokens[1])
    )
    assert r.status_code == 200, r.text
    assert r.json()["clock"]["events"] == [
        {"at": 0, "seat": 1, "kind": "handover", "bot": "random", "by": 1}
    ]
    record = client.get(f"/api/games/{gid}/record").json()
    assert read_record(record).extra["clock"]["events"] == r.json()["clock"]["events"]

    untimed = create(client, HUMANS)
    gid, tokens = untimed["id"], tokens_of(untimed)
    r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    assert r.json()["clock"] is None
    assert "clock" not in client.get(f"/api/games/{gid}/record").json()
