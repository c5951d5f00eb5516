"""Fair play (docs/security.md): no route gives engine advice about a game that is not over;
hints are the game's public setting and every hint taken is in everyone's log; a hand-over never
gives a seat time back; the bot that takes a silent seat is the game's, not a player's choice.

The reproductions: a watcher took a live game's record, added one legal turn and had the expert
analyse it (``POST /api/records/analysis``); ``/hint`` gave any seat a search in every game,
and nobody was told; a player with 4 s left handed their own seat to the expert and took it back
with the clock at 60 s again; and the player who handed over a silent opponent named its bot."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import (
    TWO_HUMANS,
    AppFactory,
    FakeTime,
    auth,
    create,
    game_socket,
    tokens_of,
    wait_for_events,
)

from kerala.notation import read_record, write_record


def test_a_live_games_record_is_not_analysed_whoever_sends_it(client: TestClient) -> None:
    g = create(client, TWO_HUMANS)
    gid, tok = g["id"], tokens_of(g)
    # A watcher's copy of the live game's record (no token) ...
    record = client.get(f"/api/games/{gid}/record").json()
    # ... with one legal turn added: the position the seat to move is in.
    state = read_record(record).state
    state.apply(state.legal_decisions()[0])
    while state.is_chance():
        state.sample_draw(random.Random(1))
    for doc in (record, write_record(state, record["players"])):
        for query in ("seat=0&time=0.5", "time=0.05"):
            r = client.post(f"/api/records/analysis?{query}", json=doc)
            assert r.status_code == 409, r.text
            assert (
                r.json()
                == {
                    "detail": r.json()["detail"],
                    "code": "not_over",
                }
                and "not over" in r.json()["detail"]
            )
    # A seat of the game is refused the same; the game's own analysis route refuses too.
    r = client.post("/api/records/analysis", json=record, headers=auth(tok[0]))
    assert r.status_code == 409 and r.json()["code"] == "not_over", r.text
    r = client.post(f"/api/games/{gid}/analysis")
    assert r.status_code == 409, r.text


def hint(client: TestClient, gid: str, token: str) -> Any:
    return client.post(f"/api/games/{gid}/hint", headers=auth(token))


def test_hints_are_the_games_public_setting_refused_when_off(client: TestClient) -> None:
    # Between people: off by default, for every seat and watcher to see.
    g = create(client, TWO_HUMANS)
    gid, tok = g["id"], tokens_of(g)
    for t in (None, tok[0], tok[1]):
        seen = client.get(f"/api/games/{gid}", headers=auth(t) if t else {}).json()
        assert seen["hints"] is False and seen["hints_taken"] == []
    r = hint(client, gid, tok[0])
    assert r.status_code == 403 and r.json()["code"] == "hints_off", r.text
    assert client.get(f"/api/games/{gid}/events").json()["events"] == []
    # Against bots only: on by default; and a game's creator may choose either way.
    bot = {"name": "Rob", "color": "red", "kind": "bot", "level": "random"}
    assert create(client, [TWO_HUMANS[0], bot])["game"]["hints"] is True
    assert create(client, [TWO_HUMANS[0], bot], hints=False)["game"]["hints"] is False
    assert create(client, TWO_HUMANS, hints=True)["game"]["hints"] is True
    # An open seat will be a person's: off by default.
    opened = [TWO_HUMANS[0], {"color": "red", "kind": "open"}]
    assert create(client, opened)["game"]["hints"] is False
    r = client.post("/api/games", json={"seats": TWO_HUMANS, "hints": "yes"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_request", r.text


def test_every_hint_taken_is_in_everyones_log(client: TestClient) -> None:
    g = create(client, TWO_HUMANS, hints=True)
    gid, tok = g["id"], tokens_of(g)
    with game_socket(client, gid) as watcher:
        watcher.receive_json()  # the sync
        r = hint(client, gid, tok[0])
        assert r.status_code == 200, r.text
        message = watcher.receive_json()
    assert message["type"] == "event"
    assert message["event"] == {"number": 1, "kind": "hint", "seat": 0, "at": 0}
    assert message["game"]["hints_taken"] == [{"at": 0, "seat": 0}]
    for t in (None, tok[0], tok[1]):
        seen = client.get(f"/api/games/{gid}", headers=auth(t) if t else {}).json()
        assert seen["hints_taken"] == [{"at": 0, "seat": 0}]
    # Read back from the database (another process would): still there.
    client.app.state.service.forget(gid)  # type: ignore[attr-defined]
    assert client.get(f"/api/games/{gid}").json()["hints_taken"] == [{"at": 0, "seat": 0}]


@pytest.fixture
def timed(make_client: AppFactory) -> Iterator[tuple[TestClient, FakeTime]]:
    c = make_client(clock_tick=0.05, seat_timeout=0)
    fake = FakeTime()
    c.app.state.service.now = fake  # type: ignore[attr-defined]
    yield c, fake


def test_handing_over_ones_own_seat_never_gives_time_back(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    g = create(client, TWO_HUMANS, clock={"kind": "realtime", "minutes": 1})
    gid, tok = g["id"], tokens_of(g)
    assert g["game"]["to_move"] == 0
    fake.move(56)  # 4 s left
    r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(tok[0]))
    assert r.status_code == 200, r.text
    clock = r.json()["clock"]
    # The seat's clock runs on while its bot plays, from the 4 s left.
    assert clock["running"] == 0 and clock["remaining"][0] == pytest.approx(4.0)
    # The bot moves for seat 0, on seat 0's clock; then seat 0 takes its seat back.
    wait_for_events(client, gid, lambda es: any(e["kind"] == "decision" for e in es))
    back = client.post(f"/api/games/{gid}/seats/0/back", headers=auth(tok[0]))
    assert back.status_code == 200, back.text
    left = back.json()["clock"]["remaining"][0]
    assert left <= 4.0, left  # the time left, never a fresh 60 s
    assert [e["kind"] for e in back.json()["clock"]["events"]] == ["handover", "back"]
    # Nor can the expert be called in for one's own moves: the game's hand-over bot plays.
    r = client.post(f"/api/games/{gid}/seats/0/bot", json={"level": "expert"}, headers=auth(tok[0]))
    assert r.status_code == 422 and r.json()["code"] == "invalid_request", r.text


def test_the_bot_that_takes_a_silent_seat_is_the_games(make_client: AppFactory) -> None:
    client = make_client(seat_timeout=0)
    g = create(client, TWO_HUMANS)
    gid, tok = g["id"], tokens_of(g)
    # Bo may hand silent Ada's seat over, but not choose who replaces her.
    url = f"/api/games/{gid}/seats/0/bot"
    r = client.post(url, json={"level": "expert"}, headers=auth(tok[1]))
    assert r.status_code == 422 and r.json()["code"] == "invalid_request", r.text
    assert client.get(f"/api/games/{gid}/events").json()["events"] == []
    # Without a choice at creation: the server's hand-over level.
    assert g["game"]["handover_bot"] == "easy"
    r = client.post(url, headers=auth(tok[1]))
    assert r.status_code == 200, r.text
    assert r.json()["players"][0]["bot"] == "easy"
    # The creator chooses it.
    g = create(client, TWO_HUMANS, handover_bot="random")
    assert g["game"]["handover_bot"] == "random"
    r = client.post(f"/api/games/{g['id']}/seats/0/bot", headers=auth(tokens_of(g)[1]))
    assert r.json()["players"][0]["bot"] == "random", r.text
    r = client.post("/api/games", json={"seats": TWO_HUMANS, "handover_bot": "nope"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_request", r.text
