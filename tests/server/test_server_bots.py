"""Bots on the server: they play their seats, take over silent seats, and never block others."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, auth, create, game_socket, play_chosen, tokens_of

pytestmark = pytest.mark.timeout(120)

HUMAN_AND_BOT = [
    {"name": "Ada", "color": "blue"},
    {"name": "Robo", "color": "red", "kind": "bot", "level": "random"},
]


def wait_for(client: TestClient, gid: str, pred: Any, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        game = client.get(f"/api/games/{gid}").json()
        if pred(game):
            return game
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting; game at decision {game['decision_number']}")
        time.sleep(0.02)


def test_bot_answers_a_human_decision(client: TestClient) -> None:
    g = create(client, HUMAN_AND_BOT)
    gid, tok = g["id"], tokens_of(g)
    assert list(tok) == [0]
    with game_socket(client, gid, tok[0]) as ws:
        assert ws.receive_json()["type"] == "sync"
        ws.send_json({"type": "decision", "decision": {"pass": True}, "expected": 0})
        mine = ws.receive_json()
        assert mine["event"]["bot"] is False and mine["event"]["seat"] == 0
        theirs = ws.receive_json()
        assert theirs["event"]["bot"] is True and theirs["event"]["seat"] == 1
        while theirs["game"]["to_move"] != 0:  # a special tile's follow-up (SP1, SP2)
            theirs = ws.receive_json()
            assert theirs["event"]["seat"] == 1
        assert theirs["game"]["legal"]  # back to the human, with the legal decisions


def test_bot_holding_the_bag_first_moves_by_itself(client: TestClient) -> None:
    g = create(client, list(reversed(HUMAN_AND_BOT)))
    wait_for(client, g["id"], lambda game: game["to_move"] == 1)


def test_bots_alone_play_a_game_to_its_end(client: TestClient) -> None:
    seats = [
        {"name": f"Bot{i}", "color": c, "kind": "bot", "level": "random"}
        for i, c in enumerate(["blue", "red", "green"])
    ]
    g = create(client, seats)
    assert g["invites"] == []
    final = wait_for(client, g["id"], lambda game: game["status"] == "over", 60)
    assert len(final["result"]["scores"]) == 3
    events = client.get(f"/api/games/{g['id']}/events", params={"since": 0}).json()
    assert all(e["bot"] for e in events["events"])


def test_silent_seat_is_handed_to_a_bot(make_client: AppFactory) -> None:
    # Generous: the refusal below must come within the timeout even on a loaded machine.
    timeout = 3.0
    client = make_client(seat_timeout=timeout)
    g = create(client, handover_bot="random")  # the game's choice, not the other player's
    gid, tok = g["id"], tokens_of(g)
    started = dt.datetime.fromisoformat(g["game"]["turn_started_at"])
    url = f"/api/games/{gid}/seats/0/bot"
    body = client.post(url, headers=auth(tok[1])).json()
    assert body["code"] == "conflict" and "silent" in body["detail"]
    assert client.get(f"/api/games/{gid}").json()["players"][0]["kind"] == "human"
    # Once silent past the timeout, the seat may be handed over (asked until it is).
    deadline = time.monotonic() + timeout + 30
    while True:
        r = client.post(url, headers=auth(tok[1]))
        if r.status_code != 409:
            break
        assert r.json()["code"] == "conflict" and time.monotonic() < deadline, r.text
        time.sleep(0.1)
    assert r.status_code == 200, r.text
    # Never before the timeout: the server's clock says how long seat 0 was silent.
    assert dt.datetime.now(dt.UTC) - started >= dt.timedelta(seconds=timeout)
    assert r.json()["players"][0] == {
        "seat": 0,
        "name": "Ada",
        "color": "blue",
        "kind": "bot",
        "bot": "random",
        "handed_to_bot": True,
    }
    ev = client.get(f"/api/games/{gid}/events").json()["events"][0]
    assert ev == {"number": 1, "kind": "seat", "seat": 0, "bot": "random", "by": 1}
    wait_for(client, gid, lambda game: game["decision_number"] >= 1 and game["to_move"] == 1)
    # The seat belongs to the bot now: its old token may watch but not move.
    me = client.get(f"/api/games/{gid}", headers=auth(tok[0])).json()
    assert me["seat"] == 0
    game = wait_for(client, gid, lambda game: game["to_move"] == 1)
    refused = client.post(
        f"/api/games/{gid}/decisions",
        json={"decision": {"pass": True}, "expected": game["decision_number"]},
        headers=auth(tok[0]),
    )
    assert refused.status_code == 409 and "bot" in refused.json()["detail"]


def test_hand_over_refusals(make_client: AppFactory) -> None:
    client = make_client(seat_timeout=0.0)
    g = create(client, [*HUMAN_AND_BOT, {"name": "Cy", "color": "green"}])
    gid, tok = g["id"], tokens_of(g)
    url = f"/api/games/{gid}/seats"

    def post(seat: int, token: str | None, body: Any = None) -> Any:
        headers = auth(token) if token else {}
        return client.post(f"{url}/{seat}/bot", json=body, headers=headers)

    assert post(0, None).status_code == 401
    assert post(0, "nope").status_code == 403
    assert post(1, tok[0]).json()["code"] == "conflict"  # already a bot
    r = post(2, tok[0])  # seat 2 is not keeping anyone waiting
    assert r.status_code == 409 and "not keeping anyone waiting" in r.json()["detail"]
    assert post(7, tok[0]).status_code == 404
    assert post(2, tok[2], {"level": "nope"}).json()["code"] == "invalid_request"
    assert post(2, tok[2], {"level": "random", "x": 1}).status_code == 422
    # The bot is the game's hand-over level (here the server's, easy): no other may be named.
    r = post(2, tok[2], {"level": "random"})
    assert r.status_code == 422 and '"easy"' in r.json()["detail"], r.text
    assert client.post("/api/games/nosuch/seats/0/bot", headers=auth(tok[0])).status_code == 404
    assert client.get(f"/api/games/{gid}/events").json()["events"] == []
    # One's own seat may be handed over any time, to the game's level.
    r = post(2, tok[2], {"level": "easy"})
    assert r.status_code == 200 and r.json()["players"][2]["handed_to_bot"]
    assert r.json()["players"][2]["bot"] == "easy"


@pytest.mark.timeout(90)
def test_thinking_mcts_bot_does_not_delay_other_games(make_client: AppFactory) -> None:
    """While an mcts bot searches in one game (worker process), another game is answered."""
    client = make_client(
        bot_executor="process",
        # The mcts bot thinks long enough for game B's six decisions on a loaded machine.
        bot_levels={"random": "random", "slow": "mcts:time=8"},
        default_bot_level="random",
    )
    assert "slow" in [lv["name"] for lv in client.get("/api/bots").json()["levels"]]
    a = create(client, [HUMAN_AND_BOT[0], {**HUMAN_AND_BOT[1], "level": "slow"}])
    b = create(client)
    r = client.post(
        f"/api/games/{a['id']}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=auth(tokens_of(a)[0]),
    )
    assert r.status_code == 200
    started = time.monotonic()
    play_chosen(client, b["id"], tokens_of(b), 6)
    busy = client.get(f"/api/games/{a['id']}").json()
    # Game B got six answers while game A's bot was still thinking.
    assert busy["decision_number"] == 1 and busy["to_move"] == 1, time.monotonic() - started
    done = wait_for(client, a["id"], lambda game: game["decision_number"] >= 2, 60)
    assert done["view"]["decisions"][0]["turns"][1]["seat"] == 1


def test_the_learned_level_is_offered_and_plays_its_seat_to_the_end(client: TestClient) -> None:
    """``learned`` (weights from self-play, NumPy) is a level players may choose."""
    levels = {lv["name"]: lv["description"] for lv in client.get("/api/bots").json()["levels"]}
    assert list(levels).index("medium") < list(levels).index("learned") < list(levels).index("hard")
    assert "self-play" in levels["learned"], levels
    seats = [
        {"name": "Lea", "color": "blue", "kind": "bot", "level": "learned"},
        {"name": "Robo", "color": "red", "kind": "bot", "level": "random"},
    ]
    g = create(client, seats)
    final = wait_for(client, g["id"], lambda game: game["status"] == "over", 60)
    assert final["players"][0]["bot"] == "learned"
    events = client.get(f"/api/games/{g['id']}/events", params={"since": 0}).json()["events"]
    assert any(e.get("seat") == 0 and e["kind"] == "decision" for e in events)
