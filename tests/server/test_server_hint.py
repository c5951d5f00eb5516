"""The hint route ("suggest a move"): best few legal decisions for the seat to move, from
its own view only (docs/rules.md I1, I2), computed off the event loop, refused per docs/api.md.
Hints are a game setting (``hints``); these games are created with them on."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, auth, create, plain, play_chosen, tokens_of

from kerala.server.decisions import DecisionService
from kerala.views import PlayerView

pytestmark = pytest.mark.timeout(120)


def hint(client: TestClient, gid: str, token: str | None, body: Any = None) -> Any:
    headers = auth(token) if token else {}
    return client.post(f"/api/games/{gid}/hint", json=body, headers=headers)


def check_suggestions(answer: Any, legal: list[Any], k: int) -> list[float]:
    sugg = answer["suggestions"]
    assert 1 <= len(sugg) <= min(k, len(legal))
    decisions = [s["decision"] for s in sugg]
    assert all(d in legal for d in decisions)  # only the seat's legal decisions
    assert len({repr(d) for d in decisions}) == len(decisions)
    values = [s["value"] for s in sugg]
    assert values == sorted(values, reverse=True)  # best first
    return values


@pytest.mark.parametrize("budget", [0.0, 0.2])
def test_hint_suggests_legal_decisions_best_first(make_client: AppFactory, budget: float) -> None:
    client = make_client(hint_budget=budget)
    g = create(client, hints=True)
    gid, tok = g["id"], tokens_of(g)
    play_chosen(client, gid, tok, 4)
    game = client.get(f"/api/games/{gid}").json()
    seat = game["to_move"]
    me = client.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()
    r = hint(client, gid, tok[seat])
    assert r.status_code == 200, r.text
    answer = r.json()
    assert set(answer) == {"suggestions", "decision_number"}
    assert answer["decision_number"] == me["decision_number"] == 4
    values = check_suggestions(answer, me["legal"], 3)
    if budget > 0:
        assert all(0.0 <= v <= 1.0 for v in values)  # a search's win chance
    one = hint(client, gid, tok[seat], {"k": 1})
    assert one.status_code == 200, one.text
    check_suggestions(one.json(), me["legal"], 1)
    assert len(one.json()["suggestions"]) == 1
    # Asking for a hint changes nothing but the log: two public hint events, for every seat.
    after = client.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()
    assert after["hints_taken"] == [{"at": 4, "seat": seat}] * 2
    assert {**after, "hints_taken": [], "event_number": 4} == me
    events = client.get(f"/api/games/{gid}/events").json()["events"]
    assert len(events) == 6
    assert events[4:] == [{"number": n, "kind": "hint", "seat": seat, "at": 4} for n in (5, 6)]


def test_hint_in_a_follow_up_offers_follow_ups(make_client: AppFactory) -> None:
    """SP1/SP2: after a special tile the hint picks among the follow-ups and skip."""
    client = make_client(hint_budget=0.0)
    g = create(client, hints=True)
    gid, tok = g["id"], tokens_of(g)
    for _ in range(200):
        game = client.get(f"/api/games/{gid}").json()
        assert game["status"] == "playing", "no special tile was placed in a whole game"
        seat = game["to_move"]
        me = client.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()
        if me["view"]["phase"] == "follow_up":
            r = hint(client, gid, tok[seat])
            assert r.status_code == 200, r.text
            check_suggestions(r.json(), me["legal"], 3)
            assert all("take" not in s["decision"] for s in r.json()["suggestions"])
            return
        special = [d for d in me["legal"] if "take" in d and ":move-" in d["take"]]
        pick = special[0] if special else plain(me["legal"])
        r = client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": pick, "expected": me["decision_number"]},
            headers=auth(tok[seat]),
        )
        assert r.status_code == 200, r.text
    pytest.fail("no special tile came up")


def refused(r: Any, status: int, code: str, *words: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code, body
    for w in words:
        assert w in body["detail"], body


def test_hint_refusals_change_nothing(make_client: AppFactory) -> None:
    client = make_client(hint_budget=0.0)
    g = create(
        client, [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}], hints=True
    )
    gid, tok = g["id"], tokens_of(g)
    before = client.get(f"/api/games/{gid}").json()
    refused(hint(client, gid, None), 401, "token_required", "token")
    refused(hint(client, gid, "not-a-token"), 403, "bad_token")
    refused(hint(client, gid, tok[1]), 409, "not_your_turn", "seat 0's turn")
    refused(hint(client, "nosuch", tok[0]), 404, "not_found", "nosuch")
    refused(hint(client, gid, tok[0], {"k": 0}), 422, "invalid_request")
    refused(hint(client, gid, tok[0], {"k": 3, "x": 1}), 422, "invalid_request")
    r = client.post(
        f"/api/games/{gid}/hint",
        content=b"{nope",
        headers={**auth(tok[0]), "content-type": "application/json"},
    )
    refused(r, 400, "malformed_json")
    # A seat handed to a bot asks no more hints: its bot plays.
    assert client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tok[1])).is_success
    events = client.get(f"/api/games/{gid}/events").json()["events"]
    assert [e["kind"] for e in events] == ["seat"]
    after = client.get(f"/api/games/{gid}").json()
    assert after["decision_number"] == before["decision_number"] == 0
    refused(hint(client, gid, tok[1]), 409, "not_your_turn")


def test_hint_works_from_the_seats_view_only(client: TestClient) -> None:
    """I2: what the hint search is given is the seat's view and legal list, nothing more."""
    g = create(client, hints=True)
    gid, tok = g["id"], tokens_of(g)
    decisions = DecisionService(client.app.state.service)  # type: ignore[attr-defined]
    job, _, _ = decisions.hint_job(gid, tok[0])
    assert isinstance(job.view, PlayerView)
    me = client.get(f"/api/games/{gid}", headers=auth(tok[0])).json()
    assert job.view.to_json() == me["view"]
    assert job.view.to_json()["removed"] is None  # random removal stays hidden
    assert [d.to_json() for d in job.legal] == me["legal"]


def test_thinking_hint_does_not_delay_other_games(make_client: AppFactory) -> None:
    """The search runs in the advice worker processes: other games are answered meanwhile."""
    client = make_client(bot_executor="process", hint_budget=8.0)
    a = create(client, hints=True)
    b = create(client)
    answer: dict[str, Any] = {}

    def ask() -> None:
        answer["r"] = hint(client, a["id"], tokens_of(a)[0])

    thinker = threading.Thread(target=ask)
    thinker.start()
    bots = client.app.state.bots  # type: ignore[attr-defined]
    try:
        deadline = time.monotonic() + 30
        while not bots.hinting(a["id"]):  # the search has started (generous wait)
            assert time.monotonic() < deadline and thinker.is_alive(), answer
            time.sleep(0.01)
        game = play_chosen(client, b["id"], tokens_of(b), 6)
        # Game B got six answers while game A's hint was still being searched.
        assert game["decision_number"] == 6
        assert thinker.is_alive(), "the hint came back before game B's six decisions"
        # One hint at a time per game: asking again meanwhile is refused and changes nothing.
        assert bots.hinting(a["id"])
        again = hint(client, a["id"], tokens_of(a)[0])
        assert again.status_code == 409 and again.json()["code"] == "conflict", again.text
    finally:
        thinker.join(60)
    assert answer["r"].status_code == 200, answer["r"].text
    events = client.get(f"/api/games/{a['id']}/events").json()["events"]
    assert [e["kind"] for e in events] == ["hint"]  # the one hint taken; the refused one: none
