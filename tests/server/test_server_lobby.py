"""Issue 11 part 4 (the game list): games in progress and finished, filtered by player, winner,
date and status, a page at a time; never a token or a hidden tile."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from serverlib import AppFactory, auth, create, game_socket, play_to_end, tokens_of

pytestmark = pytest.mark.timeout(300)


def pages(client: Any, **params: Any) -> list[list[dict[str, Any]]]:
    out = []
    cursor = None
    while True:
        q = {**params, **({"cursor": cursor} if cursor else {})}
        r = client.get("/api/games", params=q)
        assert r.status_code == 200, r.text
        body = r.json()
        out.append(body["games"])
        cursor = body["next"]
        if cursor is None:
            return out


def test_game_list_filters_and_pages(make_client: AppFactory, db_url: str) -> None:
    client = make_client(db=db_url)
    names = [("Ada", "Bo"), ("Cy", "Dee"), ("Adam", "Eve"), ("Fay", "Gus"), ("Hal", "Ida")]
    made = []
    for a, b in names:
        made.append(create(client, [{"name": a, "color": "blue"}, {"name": b, "color": "red"}]))
    finished = made[1]
    final = play_to_end(client, finished["id"], tokens_of(finished))
    ranks = final["result"]["ranks"]
    winner = ("Cy", "Dee")[ranks.index(1)]

    # Pages of two, newest move first, every game once.
    got = pages(client, limit=2)
    assert [len(p) for p in got] == [2, 2, 1]
    flat = [g for p in got for g in p]
    assert sorted(g["id"] for g in flat) == sorted(g["id"] for g in made)
    assert flat[0]["id"] == finished["id"]  # moved last
    stamps = [g["updated_at"] for g in flat]
    assert stamps == sorted(stamps, reverse=True)

    # Filters: part of a player's name (any seat, any case), status, winner, dates.
    ada = [g for p in pages(client, player="ad") for g in p]
    assert {g["id"] for g in ada} == {made[0]["id"], made[2]["id"]}
    over = [g for p in pages(client, status="over") for g in p]
    assert [g["id"] for g in over] == [finished["id"]] and over[0]["ranks"] == ranks
    playing = [g for p in pages(client, status="playing") for g in p]
    assert len(playing) == 4 and all(g["ranks"] is None for g in playing)
    won = [g for p in pages(client, winner=winner.lower()) for g in p]
    assert [g["id"] for g in won] == [finished["id"]]
    loser = ("Cy", "Dee")[1 - ranks.index(1)] if ranks[0] != ranks[1] else None
    if loser is not None:
        assert pages(client, winner=loser) == [[]]
    today = dt.datetime.now(dt.UTC).date()
    assert len([g for p in pages(client, **{"from": str(today)}) for g in p]) == 5
    assert pages(client, **{"from": str(today + dt.timedelta(days=1))}) == [[]]
    assert pages(client, to=str(today - dt.timedelta(days=1))) == [[]]

    # Never a token, a token hash or a hidden tile (I2).
    text = client.get("/api/games", params={"limit": 100}).text
    for g in made:
        for token in tokens_of(g).values():
            assert token not in text
    for word in ("token", "hidden", "removed", "bag"):
        assert word not in text


@pytest.mark.parametrize(
    "params",
    [
        {"cursor": "nonsense"},
        {"cursor": "WyJ4IiwgMV0"},  # JSON, but not a time and an id
        {"from": "yesterday"},
        {"limit": 0},
        {"status": "waiting"},
    ],
)
def test_game_list_refusals(make_client: AppFactory, params: dict[str, Any]) -> None:
    r = make_client().get("/api/games", params=params)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_request"


def test_open_seats_join_fill_and_start(make_client: AppFactory) -> None:
    client = make_client()
    g = create(
        client,
        [
            {"name": "Ada", "color": "blue"},
            {"color": "green", "kind": "open"},
            {"color": "red", "kind": "open"},
        ],
    )
    gid, ada = g["id"], tokens_of(g)[0]
    assert g["game"]["status"] == "open" and g["creator_token"]
    assert [p["kind"] for p in g["game"]["players"]] == ["human", "open", "open"]
    # Nobody plays before every seat is taken.
    r = client.post(
        f"/api/games/{gid}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=auth(ada),
    )
    assert r.status_code == 409 and "seat(s) 1, 2 are free" in r.json()["detail"]
    listed = client.get("/api/games", params={"status": "open"}).json()["games"]
    assert [x["id"] for x in listed] == [gid]
    assert [p["kind"] for p in listed[0]["players"]] == ["human", "open", "open"]

    with game_socket(client, gid) as ws:
        assert ws.receive_json()["type"] == "sync"
        joined = client.post(f"/api/games/{gid}/seats/1/join", json={"name": "Zoe"}).json()
        ev = ws.receive_json()
        assert ev["event"] == {
            "number": 1,
            "kind": "join",
            "seat": 1,
            "name": "Zoe",
            "started": False,
        }
        me = client.get(f"/api/games/{gid}", headers=auth(joined["token"])).json()
        assert me["seat"] == 1 and me["players"][1]["name"] == "Zoe"
        assert f"token={joined['token']}" in joined["path"]
        # The seat is taken now; a seat token is not the creator's.
        assert client.post(f"/api/games/{gid}/seats/1/join", json={"name": "X"}).status_code == 409
        r = client.post(f"/api/games/{gid}/seats/2/fill", headers=auth(ada))
        assert r.status_code == 403 and r.json()["code"] == "bad_token"
        r = client.post(
            f"/api/games/{gid}/seats/2/fill",
            json={"level": "random"},
            headers=auth(g["creator_token"]),
        )
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "playing" and r.json()["players"][2]["kind"] == "bot"
        ev = ws.receive_json()
        assert ev["event"]["kind"] == "join" and ev["event"]["started"] is True
    r = client.post(
        f"/api/games/{gid}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=auth(ada),
    )
    assert r.status_code == 200, r.text


def test_creator_starts_early_with_bots(make_client: AppFactory) -> None:
    client = make_client()
    g = create(
        client,
        [{"color": "green", "kind": "open"}, {"name": "Ada", "color": "blue"}],
    )
    gid = g["id"]
    assert client.post(f"/api/games/{gid}/start", headers=auth(tokens_of(g)[1])).status_code == 403
    r = client.post(f"/api/games/{gid}/start", headers=auth(g["creator_token"]))
    assert r.status_code == 200 and r.json()["status"] == "playing"
    assert r.json()["players"][0]["kind"] == "bot"
    # Seat 0 is a bot now and holds the bag: it plays without anyone asking.
    deadline = time.monotonic() + 20
    while client.get(f"/api/games/{gid}").json()["decision_number"] == 0:
        assert time.monotonic() < deadline, "the bot did not play"
        time.sleep(0.05)
    assert (
        client.post(f"/api/games/{gid}/start", headers=auth(g["creator_token"])).status_code == 409
    )
    r = client.post(f"/api/games/{gid}/seats/0/join", json={"name": "Late"})
    assert r.status_code == 409


@pytest.mark.parametrize(
    "seats",
    [
        [{"color": "green", "kind": "open", "name": "x"}, {"name": "A", "color": "blue"}],
        [{"color": "green"}, {"name": "A", "color": "blue"}],
        [{"color": "green", "kind": "open", "level": "easy"}, {"name": "A", "color": "blue"}],
    ],
)
def test_open_seat_refusals(make_client: AppFactory, seats: list[Any]) -> None:
    r = make_client().post("/api/games", json={"seats": seats})
    assert r.status_code == 422 and r.json()["code"] == "invalid_request"


def test_rematch_same_players_rotated_same_tokens(make_client: AppFactory) -> None:
    client = make_client()
    g = create(client)  # Ada (blue, seat 0) and Bo (red, seat 1)
    gid, tok = g["id"], tokens_of(g)
    r = client.post(f"/api/games/{gid}/rematch", headers=auth(tok[0]))
    assert r.status_code == 409  # not over yet
    play_to_end(client, gid, tok)
    first = client.post(f"/api/games/{gid}/rematch", headers=auth(tok[0])).json()
    second = client.post(f"/api/games/{gid}/rematch", headers=auth(tok[1])).json()
    assert first["id"] == second["id"] != gid
    assert (first["seat"], second["seat"]) == (1, 0)  # the bag passes on: Bo holds it first
    new = client.get(f"/api/games/{first['id']}").json()
    assert [(p["name"], p["color"]) for p in new["players"]] == [("Bo", "red"), ("Ada", "blue")]
    assert new["status"] == "playing" and new["decision_number"] == 0
    # Each person's token plays their seat in the rematch.
    assert client.get(f"/api/games/{first['id']}", headers=auth(tok[0])).json()["seat"] == 1
    assert client.get(f"/api/games/{first['id']}", headers=auth(tok[1])).json()["seat"] == 0
    events = client.get(f"/api/games/{gid}/events", params={"since": 0}).json()
    last = events["events"][-1] if events["events"] else None
    if last is None:  # more events than one page: read the tail
        n = events["event_number"]
        last = client.get(f"/api/games/{gid}/events", params={"since": n - 1}).json()["events"][-1]
    assert last["kind"] == "rematch" and last["game"] == first["id"] and last["by"] == 0
