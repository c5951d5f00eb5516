"""Issue 11 part 1: a bot seat to move always gets a runner, whoever commits the event.

A client that answers the bots' events at once (no delay, no reads that could wake a bot) used
to stall about one game in five: the bot task that had just seen "human to move" was still
registered when the human's decision asked for a bot, so nobody ran the bot's next turn.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from serverproc import Server, play_over_socket

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'k.sqlite3'}", tmp_path / "server.log")
    yield srv
    srv.stop()


def test_bots_never_stall_with_instant_replies(server: Server) -> None:
    """Issue 11.1: three 3-player games (one human, two bots) at once over WebSockets,
    KERALA_BOT_DELAY=0, the human replying at once; twice over. Every game reaches its end
    with no silence of 5 s."""
    seats = [
        {"name": "Human", "color": "blue"},
        {"name": "B1", "color": "red", "kind": "bot", "level": "random"},
        {"name": "B2", "color": "green", "kind": "bot", "level": "random"},
    ]

    async def one(seed: int) -> str:
        created = server.http.post("/api/games", json={"seats": seats}).json()
        token = created["invites"][0]["token"]
        game = await play_over_socket(
            server.ws_url, created["id"], token, stall=5.0, rng=random.Random(seed)
        )
        return str(game["status"])

    async def batch(base: int) -> list[str]:
        return list(await asyncio.gather(*(one(base + i) for i in range(3))))

    for round_ in range(2):
        assert asyncio.run(batch(10 * round_)) == ["over"] * 3
