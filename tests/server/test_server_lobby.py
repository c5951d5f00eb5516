"""Issue 11 part 4 (the game list): games in progress and finished, filtered by player, winner,
date and status, a page at a time; never a token or a hidden tile."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from serverlib import AppFactory, create, play_to_end, tokens_of

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


def test_issue11_4_game_list_filters_and_pages(make_client: AppFactory, db_url: str) -> None:
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
        {"status": "open"},
    ],
)
def test_issue11_4_game_list_refusals(make_client: AppFactory, params: dict[str, Any]) -> None:
    r = make_client().get("/api/games", params=params)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_request"
