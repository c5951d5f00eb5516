"""Helpers of the server tests: create and play games through the HTTP API."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

TWO_HUMANS = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
AppFactory = Callable[..., TestClient]


class FakeTime:
    """An injectable time source that moves only when told to."""

    def __init__(self) -> None:
        self.t = dt.datetime.now(dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.t

    def move(self, seconds: float) -> None:
        self.t += dt.timedelta(seconds=seconds)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def game_socket(
    client: TestClient, game_id: str, token: str | None = None, query: str = ""
) -> Iterator[WebSocketTestSession]:
    """The game's WebSocket, its first message sent: ``hello`` with the seat's token (none for
    a watcher). ``query``: e.g. ``"?since=3"``."""
    with client.websocket_connect(f"/api/games/{game_id}/ws{query}") as ws:
        ws.send_json({"type": "hello", "token": token})
        yield ws


def create(client: TestClient, seats: list[dict[str, Any]] | None = None, **kw: Any) -> Any:
    r = client.post("/api/games", json={"seats": seats or TWO_HUMANS, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    return {i["seat"]: i["token"] for i in created["invites"]}


def is_special(d: dict[str, Any]) -> bool:
    """A placement of a special tile (SP1, SP2): the same seat then decides a follow-up."""
    return "take" in d and str(d["take"]).split(":")[1].startswith("move-")


def plain(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A decision that ends the seat's turn, chosen on purpose rather than ``legal[0]``:
    a placement of a non-special tile, else a pass (G3), else a follow-up's skip.

    The display is drawn from OS randomness, so the first legal decision may be a special
    tile, after which the same seat moves again (SP1, SP2). Fails only when nothing but
    special placements is legal (no passes left), which a test never needs to reach."""
    for kind in ("take", "pass", "skip"):
        for d in legal:
            if kind in d and not is_special(d):
                return d
    raise AssertionError(f"no turn-ending decision among {legal}")


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Like :func:`plain`, but a special placement when nothing else is legal."""
    try:
        return plain(legal)
    except AssertionError:
        return legal[0]


def play_chosen(client: TestClient, game_id: str, tokens: dict[int, str], n: int) -> Any:
    """Make ``n`` decisions by REST, each chosen by :func:`choose` for the seat to move."""
    game: Any = client.get(f"/api/games/{game_id}").json()
    for _ in range(n):
        seat = game["to_move"]
        assert seat is not None
        me = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
        r = client.post(
            f"/api/games/{game_id}/decisions",
            json={"decision": choose(me["legal"]), "expected": me["decision_number"]},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.text
        game = r.json()
    return game


def play_to_end(client: TestClient, game_id: str, tokens: dict[int, str]) -> Any:
    game: Any = client.get(f"/api/games/{game_id}").json()
    while game["status"] != "over":
        game = play_chosen(client, game_id, tokens, 1)
    return game


def wait_for_events(
    http: Any, gid: str, pred: Callable[[list[Any]], Any], timeout: float = 20.0
) -> list[dict[str, Any]]:
    """Poll the game's events until ``pred(events)`` holds; the events."""
    deadline = time.monotonic() + timeout
    while True:
        evs = http.get(f"/api/games/{gid}/events", params={"since": 0}).json()["events"]
        if pred(evs):
            return list(evs)
        assert time.monotonic() < deadline, f"timed out waiting; events: {evs[-5:]}"
        time.sleep(0.05)
