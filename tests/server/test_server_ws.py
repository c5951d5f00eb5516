"""The game WebSocket: sync, live events for seats and watchers, reconnects, submissions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, auth, create, game_socket, plain, play_chosen, tokens_of
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

pytestmark = pytest.mark.timeout(60)


def recv(ws: WebSocketTestSession) -> Any:
    return ws.receive_json()


def test_watcher_gets_sync_then_every_event(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    with game_socket(client, gid) as ws:
        first = recv(ws)
        assert first["type"] == "sync" and first["event_number"] == 0
        assert first["game"]["seat"] is None and first["game"]["legal"] is None
        r = client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": {"pass": True}, "expected": 0},
            headers=auth(tok[0]),
        )
        assert r.status_code == 200
        msg = recv(ws)
        assert msg["type"] == "event"
        assert msg["event"]["number"] == 1 and msg["event"]["decision"] == {"seat": 0, "pass": True}
        assert msg["game"]["decision_number"] == 1 and msg["game"]["seat"] is None
        assert msg["game"]["view"]["grounds"][0]["passes"] == 1


def test_seat_submits_over_the_socket_and_everyone_hears(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    with (
        game_socket(client, gid, tok[0]) as s0,
        game_socket(client, gid, tok[1]) as s1,
    ):
        sync0, sync1 = recv(s0), recv(s1)
        assert sync0["game"]["seat"] == 0 and sync0["game"]["legal"]
        assert sync1["game"]["seat"] == 1 and sync1["game"]["legal"] is None
        d = plain(sync0["game"]["legal"])  # ends seat 0's turn (no special tile's follow-up)
        s0.send_json({"type": "decision", "decision": d, "expected": 0})
        e0, e1 = recv(s0), recv(s1)
        assert e0["event"] == e1["event"] and e0["event"]["decision"] == d
        assert e0["game"]["to_move"] == e1["game"]["to_move"] == 1
        # Each connection gets the game for its own seat: the legal list only for seat 1.
        assert e1["game"]["legal"] and e0["game"]["legal"] is None
        s1.send_json({"type": "ping"})
        assert recv(s1) == {"type": "pong"}


def test_socket_refusals(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    with game_socket(client, gid, tok[0]) as ws:
        recv(ws)
        cases: list[tuple[Any, int, str]] = [
            ({"type": "decision", "decision": {"pass": True}, "expected": 5}, 409, "stale"),
            ({"type": "decision", "decision": {"pass": True}}, 400, "bad_request"),
            ({"type": "decision", "expected": 0}, 400, "bad_decision"),
            ({"type": "decision", "decision": {"seat": 0}, "expected": 0}, 400, "bad_decision"),
            ({"type": "decision", "decision": {"skip": True}, "expected": 0}, 422, "illegal"),
            ({"type": "dance"}, 400, "bad_request"),
            ([1, 2], 400, "bad_request"),
        ]
        for msg, status, code in cases:
            ws.send_json(msg)
            err = recv(ws)
            assert err["type"] == "error" and err["status"] == status and err["code"] == code
            assert err["detail"]
        ws.send_text("{not json")
        err = recv(ws)
        assert err["status"] == 400 and err["code"] == "malformed_json"
        ws.send_text('{"type": "ping", "x": "' + "y" * 70_000 + '"}')
        assert recv(ws)["status"] == 413
        ws.send_bytes(b"\xff\xfe")
        assert recv(ws)["code"] == "malformed_json"
        ws.send_bytes(b'{"type": "ping"}')
        assert recv(ws) == {"type": "pong"}
    with game_socket(client, gid, tok[1]) as ws:
        recv(ws)
        ws.send_json({"type": "decision", "decision": {"pass": True}, "expected": 0})
        err = recv(ws)
        assert err["status"] == 409 and err["code"] == "not_your_turn"
    with game_socket(client, gid) as ws:
        recv(ws)
        ws.send_json({"type": "decision", "decision": {"pass": True}, "expected": 0})
        err = recv(ws)
        assert err["status"] == 401 and err["code"] == "token_required"
    assert client.get(f"/api/games/{gid}").json()["decision_number"] == 0  # nothing changed


@pytest.mark.parametrize(
    ("game", "token", "status", "close"),
    [("nosuch", None, 404, 4404), ("{gid}", "bad", 403, 4403)],
)
def test_socket_unknown_game_or_bad_token(
    client: TestClient, game: str, token: str | None, status: int, close: int
) -> None:
    g = create(client)
    with game_socket(client, game.format(gid=g["id"]), token) as ws:
        err = recv(ws)
        assert err["type"] == "error" and err["status"] == status
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == close


@pytest.mark.parametrize(
    ("first", "status", "code"),
    [
        ({"type": "ping"}, 400, "hello_required"),
        ({"type": "decision", "decision": {"pass": True}, "expected": 0}, 400, "hello_required"),
        ([1, 2], 400, "hello_required"),
        ({"type": "hello", "token": 5}, 403, "bad_token"),
        ({"type": "hello", "token": "x" * 201}, 403, "bad_token"),
        ({"type": "hello", "seat": 0}, 400, "bad_request"),
    ],
)
def test_socket_first_message_must_be_hello(
    client: TestClient, first: Any, status: int, code: str
) -> None:
    g = create(client)
    with client.websocket_connect(f"/api/games/{g['id']}/ws") as ws:
        ws.send_json(first)
        err = recv(ws)
        assert err["type"] == "error" and (err["status"], err["code"]) == (status, code)
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4000 + status
    assert client.get(f"/api/games/{g['id']}").json()["decision_number"] == 0


def test_socket_without_hello_is_closed_after_the_timeout(make_client: AppFactory) -> None:
    client = make_client(ws_hello_timeout=0.2)
    g = create(client)
    with client.websocket_connect(f"/api/games/{g['id']}/ws") as ws:
        err = recv(ws)
        assert err["status"] == 408 and err["code"] == "hello_timeout"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4408


def test_reconnect_gets_missed_events_or_a_resync(make_client: AppFactory) -> None:
    client = make_client(resync_limit=4)
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    play_chosen(client, gid, tok, 3)
    with game_socket(client, gid, query="?since=1") as ws:
        got = [recv(ws), recv(ws)]
        assert [m["type"] for m in got] == ["event", "event"]
        assert [m["event"]["number"] for m in got] == [2, 3]
        assert got[-1]["game"]["event_number"] == 3
        play_chosen(client, gid, tok, 1)
        assert recv(ws)["event"]["number"] == 4  # then live
    play_chosen(client, gid, tok, 3)
    with game_socket(client, gid, query="?since=1") as ws:
        first = recv(ws)  # 6 missed > limit 4: full state instead
        assert first["type"] == "sync" and first["event_number"] == 7
    with game_socket(client, gid, query="?since=7") as ws:
        play_chosen(client, gid, tok, 1)
        assert recv(ws)["event"]["number"] == 8  # nothing missed: straight to live events
    with game_socket(client, gid, query="?since=99") as ws:
        assert recv(ws)["type"] == "sync"  # ahead of the game: resync


def test_event_made_by_another_process_is_filled_in(make_client: AppFactory) -> None:
    """A second server on the same database moves; this one's clients miss nothing."""
    a = make_client()
    b = make_client()
    g = create(a)
    gid, tok = g["id"], tokens_of(g)
    with game_socket(a, gid) as ws:
        assert recv(ws)["type"] == "sync"
        play_chosen(b, gid, tok, 1)  # event 1 happens on server B only
        play_chosen(a, gid, tok, 1)  # event 2 on A: A's client gets 1 from the database
        m1, m2 = recv(ws), recv(ws)
        assert [m1["event"]["number"], m2["event"]["number"]] == [1, 2]


def test_a_filled_gap_stops_at_the_event_it_was_handed_and_the_next_event_has_its_own_view(
    make_client: AppFactory,
) -> None:
    """A socket handed event n after a gap fills the gap from the database up to n, each with
    the game as it is after n. Events the database holds past n wait for their own delivery:
    sent now, they would carry the game as it was at n, and their own delivery, coming later,
    would be skipped as already sent, so a seat could be left not knowing it is to move."""
    a, b = make_client(gap_check=600), make_client()  # A's own gap check stays out of it
    g = create(a)
    gid, tok = g["id"], tokens_of(g)
    with game_socket(a, gid) as ws:
        assert recv(ws)["type"] == "sync"
        play_chosen(b, gid, tok, 2)  # events 1 and 2 on server B only
        service = b.app.state.service  # type: ignore[attr-defined]
        snap2, _ = service.get(gid, None)
        (event2,) = b.app.state.repo.events(gid, 1, 2)  # type: ignore[attr-defined]
        play_chosen(b, gid, tok, 1)  # event 3, also on B only: the database is past event 2
        hub = a.app.state.hub  # type: ignore[attr-defined]
        a.portal.call(hub.publish, gid, event2, snap2)  # type: ignore[union-attr]
        got = [recv(ws), recv(ws)]
        assert [m["event"]["number"] for m in got] == [1, 2]
        assert all(m["game"]["event_number"] == 2 for m in got)
        snap3, _ = service.get(gid, None)
        (event3,) = b.app.state.repo.events(gid, 2, 3)  # type: ignore[attr-defined]
        a.portal.call(hub.publish, gid, event3, snap3)  # type: ignore[union-attr]
        third = recv(ws)
        assert third["event"]["number"] == 3
        assert third["game"]["event_number"] == 3
        assert third["game"] == json.loads(snap3.game_json(None))  # a watcher's view
