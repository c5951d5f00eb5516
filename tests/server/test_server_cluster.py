"""Issue 11 part 2: several server processes on one PostgreSQL database and one Redis form one
game world. Two real ``kerala serve`` processes; each test has its own database and its own
Redis key prefix (so that parallel runs never hear each other)."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import sqlalchemy as sa
import websockets
from serverproc import Server, play_over_socket

pytestmark = pytest.mark.timeout(240)
REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def prefix() -> Iterator[str]:
    p = f"kerala_test_{secrets.token_hex(6)}"
    yield p
    r = redis.Redis.from_url(REDIS)
    for key in r.scan_iter(f"{p}:*"):
        r.delete(key)
    r.close()


@pytest.fixture
def cluster(pg_url: str, prefix: str, tmp_path: Path) -> Iterator[list[Server]]:
    env = {
        "KERALA_REDIS_PREFIX": prefix,
        "KERALA_BOT_LEASE": "2",
        "KERALA_BOT_SWEEP": "0.5",
        "KERALA_BOT_DELAY": "0.3",
    }
    servers = [
        Server(pg_url, tmp_path / f"server{i}.log", "--redis", REDIS, **env) for i in range(2)
    ]
    yield servers
    for s in servers:
        s.stop()


def h(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def all_events(http: httpx.Client, gid: str) -> list[dict[str, Any]]:
    """Every event of the game, read in pieces the events route serves without a resync."""
    count = http.get(f"/api/games/{gid}").json()["event_number"]
    out: list[dict[str, Any]] = []
    for since in range(0, count, 100):
        page = http.get(f"/api/games/{gid}/events", params={"since": since}).json()
        assert not page["resync"]
        out += [e for e in page["events"] if e["number"] <= since + 100]
    return out


def test_a_socket_on_one_process_hears_decisions_sent_to_the_other(
    cluster: list[Server],
) -> None:
    a, b = cluster
    seats = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
    created = a.http.post("/api/games", json={"seats": seats}).json()
    gid = created["id"]
    tokens = {i["seat"]: i["token"] for i in created["invites"]}

    got: list[dict[str, Any]] = []

    async def watch_on_a(n: int, listening: asyncio.Event, heard: asyncio.Event) -> None:
        async with websockets.connect(f"{a.ws_url}/api/games/{gid}/ws") as ws:
            await ws.send(json.dumps({"type": "hello"}))
            while len(got) < n:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                listening.set()  # the first message, a sync: A has the socket subscribed
                if msg["type"] == "event":
                    got.append(msg)
                    heard.set()

    async def scenario() -> list[dict[str, Any]]:
        listening, heard = asyncio.Event(), asyncio.Event()
        watcher = asyncio.create_task(watch_on_a(6, listening, heard))
        await asyncio.wait_for(listening.wait(), 10)
        sent = []
        for i in range(6):
            srv = (b, a)[i % 2] if i else b  # the first on B alone, then B and A by turns
            game = await asyncio.to_thread(srv.http.get, f"/api/games/{gid}")
            seat = game.json()["to_move"]
            me = (
                await asyncio.to_thread(srv.http.get, f"/api/games/{gid}", headers=h(tokens[seat]))
            ).json()
            d = me["legal"][-1]
            r = await asyncio.to_thread(
                srv.http.post,
                f"/api/games/{gid}/decisions",
                json={"decision": d, "expected": me["decision_number"]},
                headers=h(tokens[seat]),
            )
            assert r.status_code == 200, r.text
            sent.append({**d, "seat": seat})
            if i == 0:
                # Heard live from B through Redis, not as a gap filled by a later event of A:
                # the watcher on A has it before anything else happens on A.
                await asyncio.wait_for(heard.wait(), 10)
                assert [m["event"]["number"] for m in got] == [1]
        await watcher
        return sent

    sent = asyncio.run(scenario())
    assert [m["event"]["number"] for m in got] == [1, 2, 3, 4, 5, 6]
    assert [m["event"]["decision"] for m in got] == sent
    assert got[-1]["game"]["decision_number"] == 6 and got[-1]["game"]["seat"] is None


def test_first_event_arrives_without_a_later_one(cluster: list[Server]) -> None:
    """One decision on B, nothing else: a socket on A gets it (live fan-out, not gap filling)."""
    a, b = cluster
    seats = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
    created = b.http.post("/api/games", json={"seats": seats}).json()
    gid, token = created["id"], created["invites"][1]["token"]

    async def scenario() -> dict[str, Any]:
        async with websockets.connect(f"{a.ws_url}/api/games/{gid}/ws") as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            sync = json.loads(await ws.recv())
            assert sync["type"] == "sync" and sync["game"]["seat"] == 1
            r = await asyncio.to_thread(
                b.http.post,
                f"/api/games/{gid}/decisions",
                json={"decision": {"pass": True}, "expected": 0},
                headers=h(created["invites"][0]["token"]),
            )
            assert r.status_code == 200
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
            return msg

    msg = asyncio.run(scenario())
    assert msg["type"] == "event" and msg["event"]["number"] == 1
    assert msg["game"]["to_move"] == 1 and msg["game"]["legal"]  # seat 1's own legal list


def lease_holder(prefix: str, gid: str) -> int | None:
    r = redis.Redis.from_url(REDIS)
    try:
        v = r.get(f"{prefix}:bot:{gid}")
    finally:
        r.close()
    if v is None:
        return None
    text = v.decode() if isinstance(v, bytes) else v
    return int(text.split("-")[0])


class Follower:
    """A client of one game over WebSocket that moves to the other process when its own dies;
    it plays its seat (when it has a token) as soon as the seat is to move."""

    def __init__(self, urls: list[str], gid: str, token: str | None, seed: int) -> None:
        self.urls, self.gid, self.token = urls, gid, token
        self.rng = random.Random(seed)
        self.seen: dict[int, dict[str, Any]] = {}  # every event seen, by number
        self.mine: list[int] = []  # decision numbers of its own decisions seen accepted
        self.reconnects: list[str] = []
        self.start: int | None = None  # the event number of its first sync

    async def run(self) -> dict[str, Any]:
        last, sent_for = 0, -1
        pending: str | None = None  # the last decision sent, maybe lost with its process
        while True:
            url = self.urls[min(len(self.reconnects), 1)]
            # First a sync (no 'since'); on a reconnect, the events missed since the last one.
            query = f"?since={last}" if self.reconnects else ""
            try:
                async with websockets.connect(f"{url}/api/games/{self.gid}/ws{query}") as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    if pending is not None and self.reconnects:
                        await ws.send(pending)  # accepted if lost, refused as stale if not
                    async for raw in ws:
                        msg = json.loads(raw)
                        if msg["type"] == "sync":
                            last = msg["event_number"]
                            if self.start is None:
                                self.start = last
                        elif msg["type"] == "event":
                            ev = msg["event"]
                            assert ev["number"] == last + 1, (ev["number"], last)
                            self.seen[ev["number"]] = ev
                            last = ev["number"]
                            if ev["kind"] == "decision" and ev["seat"] == 0:
                                self.mine.append(ev["decision_number"])
                        else:
                            continue
                        game = msg["game"]
                        if game["status"] == "over":
                            return dict(game)
                        if game["legal"] and game["decision_number"] != sent_for:
                            sent_for = game["decision_number"]
                            await asyncio.sleep(0.05)
                            decision = self.rng.choice(game["legal"])
                            pending = json.dumps(
                                {"type": "decision", "decision": decision, "expected": sent_for}
                            )
                            await ws.send(pending)
            except (websockets.ConnectionClosed, OSError):
                self.reconnects.append(url)
                await asyncio.sleep(0.2)


def test_kill9_loses_nothing_clients_move_over_bots_are_taken_over(
    cluster: list[Server], prefix: str
) -> None:
    """A person plays a bot; watchers follow on both processes. The process holding the bot's
    lease is killed with SIGKILL in the middle of a bot turn: its clients reconnect to the
    other, the other takes the bot's turns over, and every accepted decision is kept."""
    a, b = cluster
    seats = [
        {"name": "Ada", "color": "blue"},
        {"name": "Bot", "color": "red", "kind": "bot", "level": "random"},
    ]
    created = a.http.post("/api/games", json={"seats": seats}).json()
    gid, token = created["id"], created["invites"][0]["token"]
    player = Follower([a.ws_url, b.ws_url], gid, token, 7)
    watchers = [
        Follower([a.ws_url, b.ws_url], gid, None, 0),
        Follower([b.ws_url, a.ws_url], gid, None, 0),
    ]
    by_pid = {a.proc.pid: a, b.proc.pid: b}
    killed: list[Server] = []

    async def killer() -> None:
        # Kill whichever process holds the bot's lease (thinking, or waiting out its delay).
        deadline = time.monotonic() + 60
        while True:
            holder = await asyncio.to_thread(lease_holder, prefix, gid)
            if holder in by_pid and len(player.mine) >= 5:
                break
            assert time.monotonic() < deadline, (
                f"no process held the bot's lease: {holder}, {list(by_pid)}, {player.mine}"
            )
            await asyncio.sleep(0.02)
        killed.append(by_pid[holder])
        await asyncio.to_thread(by_pid[holder].kill9)

    async def scenario() -> list[dict[str, Any]]:
        tasks = [asyncio.create_task(f.run()) for f in (player, *watchers)]
        await killer()
        return list(await asyncio.wait_for(asyncio.gather(*tasks), 150))

    finals = asyncio.run(scenario())
    assert all(f["status"] == "over" for f in finals)
    dead = killed[0]
    alive = b if dead is a else a
    # The clients of the dead process moved over to the other one.
    movers = [f for f in (player, *watchers) if f.urls[0] == dead.ws_url]
    assert movers and all(f.reconnects[:1] == [dead.ws_url] for f in movers)
    stored = all_events(alive.http, gid)
    assert [e["number"] for e in stored] == list(range(1, len(stored) + 1))
    # Every event a client saw (so every decision accepted) is stored, unchanged, and every
    # client saw every event.
    by_number = {e["number"]: e for e in stored}
    for f in (player, *watchers):
        assert f.start is not None
        assert f.seen == {n: e for n, e in by_number.items() if n > f.start}
    # The bot went on playing after the kill: the living process took its turns over.
    assert lease_holder(prefix, gid) != dead.proc.pid
    assert stored[-1]["kind"] == "decision"
    bot_turns_after = [
        e
        for e in stored
        if e["kind"] == "decision" and e["seat"] == 1 and e["number"] > max(player.mine[:5])
    ]
    assert bot_turns_after


def server_children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def test_workers_behind_one_port(pg_url: str, prefix: str, tmp_path: Path) -> None:
    """``kerala serve --workers 2``: two server processes behind one port form one world."""
    srv = Server(
        pg_url,
        tmp_path / "workers.log",
        "--redis",
        REDIS,
        "--workers",
        "2",
        KERALA_REDIS_PREFIX=prefix,
    )
    try:
        deadline = time.monotonic() + 30
        while len(server_children(srv.proc.pid)) < 2:
            assert time.monotonic() < deadline, "the two workers did not start"
            time.sleep(0.1)
        ready = srv.http.get("/api/ready")
        assert ready.status_code == 200
        assert ready.json() == {"ready": True, "database": "ok", "redis": "ok"}
        seats = [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]
        created = srv.http.post("/api/games", json={"seats": seats}).json()

        async def both() -> list[dict[str, Any]]:
            # Each socket lands on either worker; both seats play the game to its end.
            return list(
                await asyncio.gather(
                    *(
                        play_over_socket(
                            srv.ws_url, created["id"], inv["token"], stall=10, rng=random.Random(i)
                        )
                        for i, inv in enumerate(created["invites"])
                    )
                )
            )

        finals = asyncio.run(both())
        assert [f["status"] for f in finals] == ["over", "over"]
    finally:
        srv.stop()


def test_ready_says_when_the_database_is_gone(make_client: Any, pg_url: str) -> None:
    """Readiness (docs/deploy.md): 200 while the database answers, 503 once it is gone."""
    client = make_client(db=pg_url)
    assert client.get("/api/ready").json() == {
        "ready": True,
        "database": "ok",
        "redis": "not used",
    }
    admin = sa.create_engine(pg_url.rsplit("/", 1)[0] + "/test", isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE "{sa.make_url(pg_url).database}" WITH (FORCE)'))
    admin.dispose()
    r = client.get("/api/ready")
    assert r.status_code == 503
    assert r.json()["ready"] is False and r.json()["database"].startswith("unavailable")
    assert client.get("/api/health").status_code == 200  # alive, not ready
