"""Helpers of the server tests: create and play games through the HTTP API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

TWO_HUMANS = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
AppFactory = Callable[..., TestClient]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, seats: list[dict[str, Any]] | None = None, **kw: Any) -> Any:
    r = client.post("/api/games", json={"seats": seats or TWO_HUMANS, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    return {i["seat"]: i["token"] for i in created["invites"]}


def play_first_legal(client: TestClient, game_id: str, tokens: dict[int, str], n: int) -> Any:
    """Make ``n`` decisions (each the first legal one of the seat to move), by REST."""
    game: Any = client.get(f"/api/games/{game_id}").json()
    for _ in range(n):
        seat = game["to_move"]
        assert seat is not None
        me = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
        r = client.post(
            f"/api/games/{game_id}/decisions",
            json={"decision": me["legal"][0], "expected": me["decision_number"]},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.text
        game = r.json()
    return game


def play_to_end(client: TestClient, game_id: str, tokens: dict[int, str]) -> Any:
    game: Any = client.get(f"/api/games/{game_id}").json()
    while game["status"] != "over":
        game = play_first_legal(client, game_id, tokens, 1)
    return game
