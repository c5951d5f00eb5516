"""Games are never lost: ``kerala serve`` killed with SIGKILL at any moment and started again
continues every game from its last accepted decision, on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kerala.notation import read_record

pytestmark = pytest.mark.timeout(180)


class Server:
    """``kerala serve`` as a real subprocess on a free port."""

    def __init__(self, db_url: str, log: Path, **env: str) -> None:
        full_env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "KERALA_BOT_EXECUTOR": "thread",
            "KERALA_BOT_DELAY": "0",
            **env,
        }
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kerala", "serve", "--port", "0", "--db", db_url],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=full_env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert m, f"the server did not print its address: {line!r}"
        self.url = m.group(1)
        self.http = httpx.Client(base_url=self.url, timeout=10)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.http.get("/api/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            assert self.proc.poll() is None, "the server exited"
            time.sleep(0.05)

    def children(self) -> list[int]:
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid:
                out.append(int(stat.parent.name))
        return out

    def kill9(self) -> list[int]:
        """SIGKILL the server; returns the processes it had started (bot workers)."""
        children = self.children()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.http.close()
        return children

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.http.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        s.stop()


def h(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_until_killed(srv: Server, gid: str, tokens: dict[int, str], acked: list[int]) -> None:
    """Submit decisions as fast as possible; note each acknowledged decision number."""
    try:
        while True:
            game = srv.http.get(f"/api/games/{gid}").json()
            seat = game["to_move"]
            me = srv.http.get(f"/api/games/{gid}", headers=h(tokens[seat])).json()
            r = srv.http.post(
                f"/api/games/{gid}/decisions",
                json={"decision": me["legal"][-1], "expected": me["decision_number"]},
                headers=h(tokens[seat]),
            )
            assert r.status_code == 200, r.text
            acked.append(r.json()["decision_number"])
    except (httpx.TransportError, ValueError):
        return  # the server is gone


def continue_to_end(srv: Server, gid: str, tokens: dict[int, str]) -> Any:
    game = srv.http.get(f"/api/games/{gid}").json()
    while game["status"] != "over":
        seat = game["to_move"]
        me = srv.http.get(f"/api/games/{gid}", headers=h(tokens[seat])).json()
        r = srv.http.post(
            f"/api/games/{gid}/decisions",
            json={"decision": me["legal"][0], "expected": me["decision_number"]},
            headers=h(tokens[seat]),
        )
        assert r.status_code == 200, r.text
        game = r.json()
    return game


def test_sigkill_mid_play_loses_no_accepted_decision(
    db_url: str, servers: list[Server], tmp_path: Path
) -> None:
    first = Server(db_url, tmp_path / "server.log")
    servers.append(first)
    r = first.http.post(
        "/api/games",
        json={"seats": [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}]},
    )
    created = r.json()
    gid = created["id"]
    tokens = {i["seat"]: i["token"] for i in created["invites"]}
    acked: list[int] = []
    player = threading.Thread(target=play_until_killed, args=(first, gid, tokens, acked))
    player.start()
    deadline = time.monotonic() + 20
    while len(acked) < 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    first.kill9()  # while the player is in the middle of submitting
    player.join(15)
    assert len(acked) >= 8

    second = Server(db_url, tmp_path / "server.log")
    servers.append(second)
    game = second.http.get(f"/api/games/{gid}").json()
    n = game["decision_number"]
    # Every acknowledged decision survived; at most the one in flight was also committed.
    assert acked[-1] <= n <= acked[-1] + 1
    turns = [t for rd in game["view"]["decisions"] for t in rd["turns"]]
    assert len(turns) == n
    events = second.http.get(f"/api/games/{gid}/events").json()["events"]
    assert [e["decision"] for e in events] == turns
    final = continue_to_end(second, gid, tokens)
    assert final["status"] == "over"
    assert read_record(second.http.get(f"/api/games/{gid}/record").json()).state.is_over()


def test_bot_turn_is_resumed_after_sigkill(
    db_url: str, servers: list[Server], tmp_path: Path
) -> None:
    # The bot waits long before moving: the server dies while the bot has the turn. Its bot
    # thinks in a worker process, which must not outlive the server.
    first = Server(
        db_url, tmp_path / "server.log", KERALA_BOT_DELAY="60", KERALA_BOT_EXECUTOR="process"
    )
    servers.append(first)
    created = first.http.post(
        "/api/games",
        json={
            "seats": [
                {"name": "A", "color": "blue"},
                {"name": "Bot", "color": "red", "kind": "bot", "level": "random"},
            ]
        },
    ).json()
    gid, token = created["id"], created["invites"][0]["token"]
    r = first.http.post(
        f"/api/games/{gid}/decisions",
        json={"decision": {"pass": True}, "expected": 0},
        headers=h(token),
    )
    assert r.status_code == 200 and r.json()["to_move"] == 1
    workers = first.kill9()
    assert workers, "the bot worker process was not started"
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{pid}").exists() for pid in workers):
        assert time.monotonic() < deadline, "bot workers outlived the killed server"
        time.sleep(0.1)

    second = Server(db_url, tmp_path / "server.log")
    servers.append(second)
    deadline = time.monotonic() + 30
    while True:  # the events route reads only: the server resumed the bot when it started
        events = second.http.get(f"/api/games/{gid}/events").json()["events"]
        if len(events) >= 2:
            break
        assert time.monotonic() < deadline, "the bot's turn was not resumed"
        time.sleep(0.05)
    assert events[1]["seat"] == 1 and events[1]["bot"] is True
