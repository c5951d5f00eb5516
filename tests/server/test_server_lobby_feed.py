"""The live lobby socket: the open games at once and whenever they change, across the
processes of one world (they read one database); a socket that talks is closed; the number of
lobby sockets is bounded."""

from __future__ import annotations

from typing import Any

import pytest
from serverlib import AppFactory, create
from starlette.websockets import WebSocketDisconnect

OPEN = [{"name": "Ada", "color": "blue"}, {"color": "red", "kind": "open"}]


def next_lobby(ws: Any, pred: Any, tries: int = 50) -> list[dict[str, Any]]:
    for _ in range(tries):
        msg = ws.receive_json()
        assert msg["type"] == "lobby"
        if pred(msg["games"]):
            games: list[dict[str, Any]] = msg["games"]
            return games
    raise AssertionError("the lobby never showed it")


def test_the_lobby_socket_pushes_open_games_as_they_open_and_fill(
    make_client: AppFactory,
) -> None:
    one = make_client(lobby_refresh=0.05)
    two = make_client(lobby_refresh=0.05)  # another process of the same world
    with one.websocket_connect("/api/lobby/ws") as ws:
        assert ws.receive_json() == {"type": "lobby", "games": []}
        created = create(two, OPEN, clock={"kind": "realtime", "minutes": 3, "increment": 5})
        (g,) = next_lobby(ws, lambda games: len(games) == 1)
        assert g["id"] == created["id"] and g["count"] == 2 and g["free"] == 1
        assert g["clock"]["minutes"] == 3 and g["rated"] is False and g["ratings"] == []
        assert [p["name"] for p in g["players"] if p["kind"] != "open"] == ["Ada"]
        r = two.post(f"/api/games/{created['id']}/seats/1/join", json={"name": "Bo"})
        assert r.status_code == 200, r.text
        next_lobby(ws, lambda games: games == [])


def test_a_lobby_socket_only_listens(make_client: AppFactory) -> None:
    client = make_client()
    with client.websocket_connect("/api/lobby/ws") as ws:
        ws.receive_json()
        ws.send_text("hello")
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 1008


def test_lobby_sockets_are_bounded(make_client: AppFactory) -> None:
    client = make_client(lobby_max_sockets=1)
    with client.websocket_connect("/api/lobby/ws") as first:
        first.receive_json()
        with (
            pytest.raises(WebSocketDisconnect) as e,
            client.websocket_connect("/api/lobby/ws") as second,
        ):
            second.receive_json()
        assert e.value.code == 1013
