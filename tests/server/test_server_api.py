"""The HTTP API: every route, and every refusal (4xx with a message, nothing changed)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import (
    TWO_HUMANS,
    AppFactory,
    auth,
    choose,
    create,
    plain,
    play_chosen,
    play_to_end,
    tokens_of,
)

from kerala.grounds import Grounds
from kerala.notation import read_record
from kerala.scoring import score_grounds
from kerala.server.routes.ui import STATIC_DIR


def refused(r: Any, status: int, code: str, *words: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    for w in words:
        assert w in body["detail"], body["detail"]
    return body


# -- small routes ------------------------------------------------------------------------


def test_health_and_bot_levels(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"ok": True}
    levels = client.get("/api/bots").json()
    names = [lv["name"] for lv in levels["levels"]]
    assert "random" in names
    assert levels["default"] in names
    assert all(lv["description"] for lv in levels["levels"])


def test_openapi_documents_every_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    for p in (
        "/api/health",
        "/api/bots",
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/decisions",
        "/api/games/{game_id}/seats/{seat}/bot",
        "/api/games/{game_id}/hint",
        "/api/games/{game_id}/events",
        "/api/games/{game_id}/record",
        "/api/games/{game_id}/replay",
        "/api/score",
        "/api/records/check",
    ):
        assert p in paths, p
    assert "409" in spec["paths"]["/api/games/{game_id}/decisions"]["post"]["responses"]
    assert "409" in spec["paths"]["/api/games/{game_id}/hint"]["post"]["responses"]


def test_index_and_static_files(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert client.get("/games/abc").status_code == 200
    assert client.get("/static/no-such-file.js").status_code == 404
    if (STATIC_DIR / "index.html").is_file():
        assert client.get("/static/index.html").status_code == 200


def test_unknown_route_is_404_json(client: TestClient) -> None:
    refused(client.get("/api/nothing"), 404, "not_found", "no such route")


# -- creating ----------------------------------------------------------------------------


def test_create_gives_invites_for_humans_and_a_watch_link(client: TestClient) -> None:
    g = create(
        client,
        [
            {"name": "Ada", "color": "blue"},
            {"name": "Bot", "color": "red", "kind": "bot", "level": "random"},
            {"name": "Cy", "color": "green"},
        ],
    )
    assert [i["seat"] for i in g["invites"]] == [0, 2]
    for inv in g["invites"]:
        assert inv["token"] in inv["path"] and inv["url"] is None  # no public URL configured
        assert f"game={g['id']}" in inv["path"]
    assert g["watch"]["path"] == f"/?game={g['id']}"
    game = g["game"]
    assert game["seat"] is None and game["legal"] is None
    assert [p["kind"] for p in game["players"]] == ["human", "bot", "human"]
    assert game["players"][1]["bot"] == "random"
    view = game["view"]
    assert view["phase"] == "place" and len(view["display"]) == 3  # G1: n tiles drawn
    assert view["bag_count"] == 90 - 3  # S3/S4: 3 players remove 10 tiles


def test_create_first_rotates_seats_clockwise(client: TestClient) -> None:
    """G1/S1: the seat named `first` holds the bag first and becomes seat 0."""
    seats = [
        {"name": "A", "color": "blue"},
        {"name": "B", "color": "red"},
        {"name": "C", "color": "green"},
    ]
    g = create(client, seats, first=1)
    assert [p["name"] for p in g["game"]["players"]] == ["B", "C", "A"]
    assert g["game"]["view"]["colors"] == ["red", "green", "blue"]
    assert g["game"]["to_move"] == 0
    assert {i["seat"]: i["name"] for i in g["invites"]} == {0: "B", 1: "C", 2: "A"}


def test_create_chosen_removal_shows_removed(client: TestClient) -> None:
    """S3 variant: chosen removal is public."""
    removed = ["green:e1"] * 6 + ["green:e2"] * 5 + ["green:e3"] * 3 + ["black:e1"] * 6
    g = create(client, removal="chosen", removed=removed)
    assert sorted(g["game"]["view"]["removed"]) == sorted(removed)
    assert g["game"]["view"]["bag_count"] == 78


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        ({"seats": [{"name": "A", "color": "blue"}]}, 422, "invalid_request", ["seats"]),
        (
            {"seats": [{"name": f"P{i}", "color": "blue"} for i in range(6)]},
            422,
            "invalid_request",
            ["seats"],
        ),
        (
            {"seats": [{"name": "A", "color": "blue"}, {"name": "B", "color": "blue"}]},
            422,
            "invalid_request",
            ["S1", "distinct"],
        ),
        (
            {"seats": [{"name": "A", "color": "pink"}, {"name": "B", "color": "red"}]},
            422,
            "invalid_request",
            ["seats.0.color"],
        ),
        (
            {"seats": [{"name": "", "color": "blue"}, {"name": "B", "color": "red"}]},
            422,
            "invalid_request",
            ["seats.0.name"],
        ),
        (
            {"seats": [{"name": "A\x00", "color": "blue"}, {"name": "B", "color": "red"}]},
            422,
            "invalid_request",
            ["seats.0.name"],
        ),
        (
            {"seats": [*TWO_HUMANS[:1], {"name": "B", "color": "red", "kind": "bot"}]},
            None,
            None,
            [],
        ),
        (
            {
                "seats": [
                    *TWO_HUMANS[:1],
                    {"name": "B", "color": "red", "kind": "bot", "level": "x"},
                ]
            },
            422,
            "invalid_request",
            ['unknown bot level "x"'],
        ),
        (
            {"seats": [*TWO_HUMANS[:1], {"name": "B", "color": "red", "level": "random"}]},
            422,
            "invalid_request",
            ["human seat has no level"],
        ),
        (
            {"seats": TWO_HUMANS, "removal": "chosen", "removed": ["green:e1"]},
            422,
            "invalid_request",
            ["S3", "exactly 20"],
        ),
        (
            {"seats": TWO_HUMANS, "removal": "chosen", "removed": ["blue:e1"] * 20},
            422,
            "invalid_request",
            ["S3", "blue:e1"],
        ),
        (
            {"seats": TWO_HUMANS, "removal": "chosen", "removed": ["green:e9"] * 20},
            422,
            "invalid_request",
            ["removed[0]", "green:e9"],
        ),
        ({"seats": TWO_HUMANS, "removal": "chosen"}, 422, "invalid_request", ["removed"]),
        (
            {"seats": TWO_HUMANS, "removed": ["green:e1"] * 20},
            422,
            "invalid_request",
            ["chosen"],
        ),
        ({"seats": TWO_HUMANS, "first": 2}, 422, "invalid_request", ["first"]),
        ({"seats": TWO_HUMANS, "colour": "x"}, 422, "invalid_request", ["colour"]),
        ({"seats": TWO_HUMANS, "removal": "some"}, 422, "invalid_request", ["removal"]),
    ],
)
def test_create_refusals(
    client: TestClient, body: dict[str, Any], status: int | None, code: str | None, words: list[str]
) -> None:
    before = client.get("/api/games").json()["games"]
    r = client.post("/api/games", json=body)
    if status is None:  # a bot seat without level gets the default level
        assert r.status_code == 201, r.text
        assert r.json()["game"]["players"][1]["bot"] == client.get("/api/bots").json()["default"]
        return
    refused(r, status, code or "", *words)
    assert client.get("/api/games").json()["games"] == before  # nothing created


def test_malformed_json_is_400(client: TestClient) -> None:
    r = client.post(
        "/api/games", content=b'{"seats": [', headers={"content-type": "application/json"}
    )
    refused(r, 400, "malformed_json", "malformed JSON")


def test_oversized_body_is_413(make_client: AppFactory) -> None:
    client = make_client(max_body=2048)
    big = {"seats": TWO_HUMANS, "padding": "x" * 5000}
    refused(client.post("/api/games", json=big), 413, "too_large", "2048 bytes")

    def chunks() -> Any:  # no Content-Length: the body is counted as it comes
        for _ in range(10):
            yield b" " * 1000

    r = client.post("/api/score", content=chunks(), headers={"content-type": "application/json"})
    refused(r, 413, "too_large")
    assert client.get("/api/games").json()["games"] == []


# -- looking -----------------------------------------------------------------------------


def test_get_game_as_seat_and_watcher(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    watcher = client.get(f"/api/games/{gid}").json()
    assert watcher["seat"] is None and watcher["legal"] is None
    me = client.get(f"/api/games/{gid}", headers=auth(tok[0])).json()
    assert me["seat"] == 0 and me["view"]["seat"] == 0 and me["to_move"] == 0
    assert me["legal"] and all(d["seat"] == 0 for d in me["legal"])
    assert {"seat": 0, "pass": True} in me["legal"]  # G3
    other = client.get(f"/api/games/{gid}", params={"token": tok[1]}).json()
    assert other["seat"] == 1 and other["legal"] is None
    also = client.get(f"/api/games/{gid}", headers={"X-Kerala-Token": tok[1]}).json()
    assert also["seat"] == 1
    assert me["view"]["display"] == watcher["view"]["display"]


def test_get_refusals(client: TestClient) -> None:
    g = create(client)
    refused(client.get("/api/games/nosuchgame"), 404, "not_found", "nosuchgame")
    refused(client.get("/api/games/bad id!"), 422, "invalid_request", "game_id")
    refused(client.get(f"/api/games/{g['id']}", params={"token": "wrong"}), 403, "bad_token")
    refused(
        client.get(f"/api/games/{g['id']}", headers={"Authorization": "Basic abc"}),
        401,
        "token_required",
        "Bearer",
    )
    other = create(client)
    refused(  # a token of another game is no token of this one
        client.get(f"/api/games/{g['id']}", headers=auth(tokens_of(other)[0])), 403, "bad_token"
    )


def test_list_games(client: TestClient) -> None:
    a = create(client)
    b = create(client)
    tok = tokens_of(b)
    client.post(
        f"/api/games/{b['id']}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=auth(tok[0]),
    )
    games = client.get("/api/games").json()["games"]
    assert [x["id"] for x in games] == [b["id"], a["id"]]  # most recently changed first
    assert games[0]["decision_number"] == 1
    assert games[0]["players"][0] == {
        "seat": 0,
        "name": "Ada",
        "color": "blue",
        "kind": "human",
        "bot": None,
        "handed_to_bot": False,
    }
    assert client.get("/api/games", params={"status": "over"}).json()["games"] == []
    assert len(client.get("/api/games", params={"limit": 1}).json()["games"]) == 1
    refused(client.get("/api/games", params={"limit": 0}), 422, "invalid_request", "limit")
    refused(client.get("/api/games", params={"status": "x"}), 422, "invalid_request", "status")


# -- deciding ----------------------------------------------------------------------------


def test_decision_is_accepted_and_announced_in_events(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    me = client.get(f"/api/games/{gid}", headers=auth(tok[0])).json()
    d = plain(me["legal"])  # ends the turn: not a special tile, whose follow-up is seat 0's
    r = client.post(
        f"/api/games/{gid}/decisions", json={"decision": d, "expected": 0}, headers=auth(tok[0])
    )
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["decision_number"] == 1 and after["event_number"] == 1
    assert after["seat"] == 0 and after["to_move"] == 1 and after["legal"] is None
    assert after["view"]["decisions"][0]["turns"] == [d]
    evs = client.get(f"/api/games/{gid}/events").json()
    assert evs["event_number"] == 1 and evs["resync"] is False
    ev = evs["events"][0]
    assert ev == {
        "number": 1,
        "kind": "decision",
        "seat": 0,
        "decision": d,
        "decision_number": 1,
        "drawn": [],
        "bot": False,
    }
    assert client.get(f"/api/games/{gid}/events", params={"since": 1}).json()["events"] == []
    assert client.get(f"/api/games/{gid}/events", params={"since": 5}).json()["resync"] is True
    refused(client.get("/api/games/nosuch/events"), 404, "not_found", "nosuch")
    refused(client.get(f"/api/games/{gid}/events", params={"since": -1}), 422, "invalid_request")


def test_seat_may_be_left_out_of_the_decision(client: TestClient) -> None:
    g = create(client)
    r = client.post(
        f"/api/games/{g['id']}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=auth(tokens_of(g)[0]),
    )
    assert r.status_code == 200
    assert r.json()["view"]["grounds"][0]["passes"] == 1  # G3


def test_round_end_draws_the_next_display(client: TestClient) -> None:
    """G1, G3: after every seat's turn the next owner draws n tiles; leftovers leave."""
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    for seat in (0, 1):
        r = client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": {"pass": True}, "expected": seat},
            headers=auth(tok[seat]),
        )
        assert r.status_code == 200, r.text
    game = r.json()
    view = game["view"]
    assert view["round"] == 1 and len(view["display"]) == 2 and game["to_move"] == 1
    ev = client.get(f"/api/games/{gid}/events").json()["events"][-1]
    assert ev["drawn"] == view["display"]
    assert view["bag_count"] == 76


def _state(client: TestClient, gid: str) -> Any:
    return client.get(f"/api/games/{gid}").json()


def test_decision_refusals_change_nothing(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    url = f"/api/games/{gid}/decisions"
    before = _state(client, gid)
    me = client.get(f"/api/games/{gid}", headers=auth(tok[0])).json()
    good = me["legal"][0]
    cases = [
        # (body, headers, status, code, words)
        ({"decision": good, "expected": 0}, {}, 401, "token_required", ["token"]),
        ({"decision": good, "expected": 0}, auth("nope"), 403, "bad_token", []),
        ({"decision": good, "expected": 3}, auth(tok[0]), 409, "stale", ["3"]),
        ({"decision": {**good, "seat": 1}, "expected": 0}, auth(tok[0]), 403, "bad_token", []),
        (
            {"decision": {"seat": 1, "pass": True}, "expected": 0},
            auth(tok[1]),
            409,
            "not_your_turn",
            ["seat 0's turn"],
        ),
        (
            {
                "decision": {"seat": 0, "take": "nope:x", "to": [1, 0], "from": [0, 0]},
                "expected": 0,
            },
            auth(tok[0]),
            400,
            "bad_decision",
            ["take"],
        ),
        ({"decision": {"seat": 0}, "expected": 0}, auth(tok[0]), 400, "bad_decision", []),
        ({"decision": {"seat": 0, "skip": True}, "expected": 0}, auth(tok[0]), 422, "illegal", []),
        ({"decision": good}, auth(tok[0]), 422, "invalid_request", ["expected"]),
        ({"decision": good, "expected": -1}, auth(tok[0]), 422, "invalid_request", ["expected"]),
        ({"decision": "pass", "expected": 0}, auth(tok[0]), 422, "invalid_request", ["decision"]),
    ]
    for body, headers, status, code, words in cases:
        refused(client.post(url, json=body, headers=headers), status, code, *words)
    # P1: a placement away from the elephant names the rule broken.
    far = {"seat": 0, "take": me["view"]["display"][0], "to": [5, 5], "from": [0, 0]}
    if far["take"].split(":")[1].startswith("arch"):
        far["arch"] = "N"
    body = refused(
        client.post(url, json={"decision": far, "expected": 0}, headers=auth(tok[0])),
        422,
        "illegal",
        "adjacent",
    )
    assert body["rule"] == "P1"
    assert _state(client, gid) == before
    assert client.get(f"/api/games/{gid}/events").json()["events"] == []
    refused(
        client.post(
            "/api/games/nosuch/decisions",
            json={"decision": good, "expected": 0},
            headers=auth(tok[0]),
        ),
        404,
        "not_found",
    )


def test_stale_and_duplicate_submissions_are_409(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    body = {"decision": {"seat": 0, "pass": True}, "expected": 0}
    assert client.post(f"/api/games/{gid}/decisions", json=body, headers=auth(tok[0])).is_success
    after = _state(client, gid)
    dup = refused(
        client.post(f"/api/games/{gid}/decisions", json=body, headers=auth(tok[0])), 409, "stale"
    )
    assert dup["decision_number"] == 1
    stale = {"decision": {"seat": 1, "pass": True}, "expected": 0}
    refused(
        client.post(f"/api/games/{gid}/decisions", json=stale, headers=auth(tok[1])), 409, "stale"
    )
    assert _state(client, gid) == after


def test_follow_up_of_a_special_tile(client: TestClient) -> None:
    """SP1/SP2: after a special tile the same seat decides its follow-up (or skips)."""
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    for _ in range(200):
        game = _state(client, gid)
        if game["status"] == "over":
            pytest.fail("no special tile was placed in a whole game")
        seat = game["to_move"]
        me = client.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()
        special = [
            d for d in me["legal"] if "take" in d and d["take"].split(":")[1].startswith("move-")
        ]
        pick = special[0] if special else choose(me["legal"])
        r = client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": pick, "expected": me["decision_number"]},
            headers=auth(tok[seat]),
        )
        assert r.status_code == 200, r.text
        if special:
            after = r.json()
            assert after["view"]["phase"] == "follow_up" and after["to_move"] == seat
            assert after["view"]["pending"] in ("move-elephant", "move-tile")
            assert {"seat": seat, "skip": True} in after["legal"]
            wrong = {"seat": seat, "pass": True}
            refused(
                client.post(
                    f"/api/games/{gid}/decisions",
                    json={"decision": wrong, "expected": after["decision_number"]},
                    headers=auth(tok[seat]),
                ),
                422,
                "illegal",
            )
            return
    pytest.fail("no special tile came up")


def test_full_game_result_record_and_replay(client: TestClient) -> None:
    """SC1–SC7 in the result; the record replays (docs/notation.md) and carries removed tiles."""
    g = create(client, hints=True)
    gid, tok = g["id"], tokens_of(g)
    final = play_to_end(client, gid, tok)
    assert final["status"] == "over" and final["to_move"] is None
    result = final["result"]
    assert len(result["scores"]) == 2 and sorted(result["ranks"]) in ([1, 2], [1, 1])
    for s in result["scores"]:
        assert set(s) >= {"total", "surplus", "missing", "standing", "arches", "symbols"}
        assert sum(s["symbols_by_color"].values()) == s["symbols"]
        assert (
            s["total"] == s["surplus"] + s["missing"] + s["standing"] + s["arches"] + s["symbols"]
        )
    r = client.get(f"/api/games/{gid}/record")
    assert r.headers["content-disposition"] == f'attachment; filename="kerala-{gid}.json"'
    doc = r.json()
    assert len(doc["removed"]) == 20 and doc["result"]["ranks"] == result["ranks"]
    rec = read_record(doc)
    assert [s.total for s in rec.state.scores()] == [s["total"] for s in result["scores"]]
    # The game is over: no more decisions.
    refused(
        client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": {"pass": True}, "expected": final["decision_number"]},
            headers=auth(tok[0]),
        ),
        409,
        "not_your_turn",
        "over",
    )
    # ... and no more hints (G4).
    refused(
        client.post(f"/api/games/{gid}/hint", headers=auth(tok[0])), 409, "not_your_turn", "over"
    )
    # Replay decision by decision.
    n = final["decision_number"]
    start = client.get(f"/api/games/{gid}/replay", params={"at": 0}).json()
    assert start["at"] == 0 and start["decision"] is None and start["decision_number"] == n
    assert start["view"]["decisions"][0]["turns"] == [] and start["view"]["round"] == 0
    third = client.get(f"/api/games/{gid}/replay", params={"at": 3}).json()
    all_turns = [t for rd in final["view"]["decisions"] for t in rd["turns"]]
    assert third["decision"] == all_turns[2]
    assert [t for rd in third["view"]["decisions"] for t in rd["turns"]] == all_turns[:3]
    assert third["result"] is None
    end = client.get(f"/api/games/{gid}/replay").json()
    assert (
        end["at"] == n
        and end["result"] == result
        and end["view"] == {**final["view"], "seat": None}
    )
    refused(
        client.get(f"/api/games/{gid}/replay", params={"at": n + 1}), 422, "invalid_request", "at"
    )
    refused(client.get("/api/games/nosuch/replay"), 404, "not_found")


def test_record_in_progress_hides_random_removal(client: TestClient) -> None:
    """I2: a record of a game in progress never lists randomly removed tiles."""
    g = create(client)
    game = play_chosen(client, g["id"], tokens_of(g), 3)
    doc = client.get(f"/api/games/{g['id']}/record").json()
    assert "removed" not in doc and "result" not in doc
    state = read_record(doc).state
    assert (state.round, state.turn) == (game["view"]["round"], game["view"]["turn"])
    refused(client.get("/api/games/nosuch/record"), 404, "not_found")


def test_record_of_chosen_removal_lists_it(client: TestClient) -> None:
    removed = ["green:e1"] * 6 + ["green:e2"] * 5 + ["green:e3"] * 3 + ["black:e1"] * 6
    g = create(client, removal="chosen", removed=removed)
    doc = client.get(f"/api/games/{g['id']}/record").json()
    assert sorted(doc["removed"]) == sorted(removed)


# -- tools -------------------------------------------------------------------------------

GROUNDS: dict[str, Any] = {
    "format": "kerala-grounds",
    "version": 1,
    "color": "blue",
    "passes": 1,
    "elephants": [[1, 0], [0, 0]],
    "stacks": [
        {"at": [0, 0], "tiles": ["blue:start", "green:e2"]},
        {"at": [1, 0], "tiles": ["purple:arch-green@W"]},
    ],
}


def test_score_calculator(client: TestClient) -> None:
    """SC1–SC6 of a grounds document, with the symbols by color."""
    r = client.post("/api/score", json=GROUNDS)
    assert r.status_code == 200, r.text
    b = r.json()
    # green e2 (2 symbols), arch facing green (+5), 1 standing elephant, blue/black/red missing.
    assert b["symbols"] == 2 and b["arches"] == 5 and b["standing"] == 1
    assert b["missing"] == -15 and b["surplus"] == 0 and b["total"] == -7
    assert b["symbols_by_color"]["green"] == 2 and b["removed_cells"] == []
    bad = {**GROUNDS, "color": "pink"}
    refused(client.post("/api/score", json=bad), 422, "invalid_document", "color")
    refused(client.post("/api/score", json=[1, 2]), 422, "invalid_request")
    refused(
        client.post("/api/score", content=b"{", headers={"content-type": "application/json"}),
        400,
        "malformed_json",
    )
    split = {**GROUNDS, "stacks": [*GROUNDS["stacks"], {"at": [5, 5], "tiles": ["red:e1"]}]}
    refused(client.post("/api/score", json=split), 422, "invalid_document", "connected")


def test_record_check(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    final = play_to_end(client, gid, tok)
    doc = client.get(f"/api/games/{gid}/record").json()
    r = client.post("/api/records/check", json=doc)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["ok"] and out["finished"] and out["removal"] == "random"
    assert out["decision_number"] == final["decision_number"] == len(out["decisions"])
    assert out["result"]["ranks"] == final["result"]["ranks"]
    assert out["view"]["grounds"] == final["view"]["grounds"]
    assert out["decisions"] == [t for rd in final["view"]["decisions"] for t in rd["turns"]]
    at5 = client.post("/api/records/check", params={"at": 5}, json=doc).json()
    assert at5["at"] == 5
    assert at5["view"] == client.get(f"/api/games/{gid}/replay", params={"at": 5}).json()["view"]
    assert at5["view"]["removed"] is None  # I2 for the random removal
    start = client.post("/api/records/check", params={"at": 0}, json=doc).json()
    opening = score_grounds(Grounds.start("blue")).total  # every grounds is its start tile
    assert start["running_totals"] == [opening] * len(out["players"])
    assert len(at5["running_totals"]) == len(out["players"])
    replayed = client.get(f"/api/games/{gid}/replay", params={"at": 5}).json()
    assert replayed["running_totals"] == at5["running_totals"]
    refused(
        client.post("/api/records/check", params={"at": 10_000}, json=doc),
        422,
        "invalid_request",
        "at",
    )
    bad = {**doc, "rounds": [dict(doc["rounds"][0]), *doc["rounds"][1:]]}
    bad["rounds"][0]["turns"] = [{**doc["rounds"][0]["turns"][0], "to": [9, 9]}]
    body = refused(client.post("/api/records/check", json=bad), 422, "invalid_document")
    assert "round 1, turn 1" in body["detail"]  # counted from 1, as the game shows them
    refused(client.post("/api/records/check", json={"format": "x"}), 422, "invalid_document")


def test_the_test_client_runs_on_a_supported_http_client() -> None:
    """starlette's TestClient on plain httpx warns that this is deprecated; the dev extra
    installs httpx2, which it then uses. Checked in a fresh interpreter (this one has
    imported the client already)."""
    import subprocess
    import sys

    code = "import warnings; warnings.simplefilter('error'); import fastapi.testclient"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr.strip().splitlines()[-1:]
