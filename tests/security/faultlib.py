"""Faults for the fault tests: a private Redis and a private PostgreSQL that a test may kill or
restart (never the shared ones), players that keep playing through a fault and record what they
saw, and an HTTP client that records every 5xx."""

from __future__ import annotations

import asyncio
import glob
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import redis
import websockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait until ``cond()`` holds (AssertionError naming ``what`` after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


async def until(
    cond: Callable[[], bool],
    timeout: float,
    what: str,
    tasks: Sequence[asyncio.Task[None]] = (),
    state: Callable[[], object] | None = None,
) -> float:
    """:func:`wait_for` on the event loop; the seconds it took. A player's task that ended
    with an error fails the wait at once with that error (it would otherwise only look like a
    game that stopped moving); ``state()`` is added to the message of a timeout."""
    start = time.monotonic()
    while not cond():
        for t in tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                raise AssertionError(f"a player failed while waiting for {what}") from (
                    t.exception()
                )
        if time.monotonic() - start >= timeout:
            seen = "" if state is None else f" ({state()})"
            raise AssertionError(f"not within {timeout} s: {what}{seen}")
        await asyncio.sleep(0.05)
    return time.monotonic() - start


class PrivateRedis:
    """A ``redis-server`` of this test alone, on a free port, that it may kill and start again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def _answers(self) -> bool:
        r = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            return bool(r.ping())
        except redis.RedisError:
            return False
        finally:
            r.close()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", str(self.folder)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, 10, "the private Redis answers")

    def freeze(self) -> None:
        """Hang Redis (``SIGSTOP``): its sockets stay open and answer nothing, as with a
        frozen process or a lost network, until :meth:`thaw`."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


class PrivatePostgres:
    """A PostgreSQL cluster of this test alone (``initdb`` in a temporary folder, a free port),
    that it may restart. Run as the ``postgres`` user when the test runs as root."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        assert found, "PostgreSQL's server programs (pg_ctl, initdb) are not installed"
        self.bin = Path(found[-1]).parent
        self.folder = Path(tempfile.mkdtemp(prefix="kerala-pg-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    @property
    def data(self) -> str:
        return str(self.folder / "data")

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin / program), *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        self._pg_ctl("start")

    def restart(self) -> None:
        """A fast restart: every session is cut, the server is back within about a second."""
        self._pg_ctl("restart", "-m", "fast")

    def _pg_ctl(self, action: str, *args: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", self.data, "-l", str(self.folder / "log"), "-w", "-o", options,
            *args, action,
        )  # fmt: skip

    def close(self) -> None:
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class Player:
    """Plays one seat over the game's WebSocket through faults, and records what it saw.

    It sends a decision when its seat is to move and sends it again after a 503 refusal (the
    database away); after a close with a close frame it reconnects with the last event number
    it saw. A close without a close frame is a *silent drop*: recorded, for the test to refuse.
    """

    def __init__(
        self, ws_url: str, gid: str, token: str, seed: int, delay: float = 0.02, chat_every: int = 0
    ) -> None:
        self.ws_url, self.gid, self.token, self.delay = ws_url, gid, token, delay
        #: Send a chat message before every ``chat_every``-th decision (0: never).
        self.chat_every = chat_every
        self.rng = random.Random(seed)
        self.last = 0
        self.events: dict[int, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []
        self.closes: list[int] = []
        self.silent_drops: list[str] = []
        self.over = False
        #: When (``time.monotonic()``) each event or sync was seen.
        self.seen_at: list[float] = []
        #: The decision number of each decision sent, resent included, and when.
        self.sent: list[tuple[int, float]] = []

    def summary(self) -> str:
        """What the player saw, for a failure's message."""
        return (
            f"last {self.last}{' over' if self.over else ''}, {len(self.errors)} errors,"
            f" closes {self.closes}, sent {self.sent[-1:]}"
        )

    def url(self) -> str:
        since = f"?since={self.last}" if self.last else ""
        return f"{self.ws_url}/api/games/{self.gid}/ws{since}"

    async def run(self) -> None:
        while not self.over:
            try:
                async with websockets.connect(self.url(), open_timeout=10) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    await self._play(ws)
            except websockets.ConnectionClosed as e:
                if e.rcvd is None:
                    self.silent_drops.append(f"game {self.gid}: closed without a close frame")
                else:
                    self.closes.append(e.rcvd.code)
                await asyncio.sleep(0.2)

    async def _play(self, ws: websockets.ClientConnection) -> None:
        loop = asyncio.get_running_loop()
        sent_for, pending, retry_at = -1, "", None
        while True:
            timeout = None if retry_at is None else max(0.0, retry_at - loop.time())
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout)
            except TimeoutError:
                await ws.send(pending)  # the client's retry after a 503
                self.sent.append((sent_for, time.monotonic()))
                retry_at = None
                continue
            msg = json.loads(raw)
            if msg["type"] == "error":
                self.errors.append(msg)
                if msg["status"] == 503 and pending:
                    retry_at = loop.time() + 0.3
                continue
            if msg["type"] in ("sync", "event"):
                self.seen_at.append(time.monotonic())
            if msg["type"] == "sync":
                self.last = msg["event_number"]
            elif msg["type"] == "event":
                ev = msg["event"]
                assert ev["number"] == self.last + 1, (self.gid, ev["number"], self.last)
                self.events[ev["number"]] = ev
                self.last = ev["number"]
            else:
                continue
            game = msg["game"]
            if game["status"] == "over":
                self.over = True
                return
            if game["legal"] and game["decision_number"] != sent_for:
                sent_for = game["decision_number"]
                await asyncio.sleep(self.delay)
                decision = self.rng.choice(game["legal"])
                if self.chat_every and sent_for % self.chat_every == 0:
                    await ws.send(json.dumps({"type": "chat", "text": f"move {sent_for}"}))
                msg = {"type": "decision", "decision": decision, "expected": sent_for}
                pending = json.dumps(msg)
                retry_at = None
                await ws.send(pending)
                self.sent.append((sent_for, time.monotonic()))


class Prober:
    """Reads and creates through HTTP until stopped; records every 5xx answer."""

    def __init__(self, base_url: str, gids: list[str]) -> None:
        self.base_url, self.gids = base_url, gids
        self.bad: list[str] = []  # 5xx answers that are not JSON with Retry-After
        self.unavailable = 0  # JSON 503s with Retry-After
        self.stop = False

    def _check(self, r: httpx.Response) -> None:
        if r.status_code < 500 or r.request.url.path == "/api/ready":
            return
        body = r.json() if r.headers.get("content-type") == "application/json" else None
        if r.status_code == 503 and body is not None and "Retry-After" in r.headers:
            assert body["code"] == "database_unavailable" and body["detail"], body
            self.unavailable += 1
        else:
            self.bad.append(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text!r}")

    async def run(self) -> None:
        seats = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
        async with httpx.AsyncClient(base_url=self.base_url, timeout=30) as http:
            while not self.stop:
                for gid in self.gids:
                    self._check(await http.get(f"/api/games/{gid}"))
                self._check(await http.post("/api/games", json={"seats": seats}))
                await asyncio.sleep(0.05)


def new_game(http: httpx.Client) -> tuple[str, dict[int, str]]:
    seats = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
    r = http.post("/api/games", json={"seats": seats})
    assert r.status_code == 201, r.text
    created = r.json()
    return created["id"], {i["seat"]: i["token"] for i in created["invites"]}


def stored_events(http: httpx.Client, gid: str) -> dict[int, dict[str, Any]]:
    """Every event of the game as the database holds it, by number."""
    count = http.get(f"/api/games/{gid}").json()["event_number"]
    out: dict[int, dict[str, Any]] = {}
    for since in range(0, count, 100):
        page = http.get(f"/api/games/{gid}/events", params={"since": since}).json()
        assert not page["resync"]
        out.update(
            {e["number"]: e for e in page["events"] if e["number"] <= min(since + 100, count)}
        )
    assert sorted(out) == list(range(1, count + 1))
    return out


def check_nothing_lost_or_doubled(http: httpx.Client, gid: str, players: list[Player]) -> None:
    """Every event a player was sent is the database's event of that number, and every decision
    is stored once: each is the only one with its decision number."""
    stored = stored_events(http, gid)
    for p in players:
        for n, ev in p.events.items():
            assert stored.get(n) == ev, (gid, n, ev, stored.get(n))
    numbers = [e["decision_number"] for e in stored.values() if e["kind"] == "decision"]
    assert len(numbers) == len(set(numbers)), f"game {gid}: a decision stored twice"
