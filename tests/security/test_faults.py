"""Faults are weather, not outages: Redis away, a PostgreSQL restart, a full SQLite disk and
replicas started together, each with real ``kerala serve`` processes. The Redis and PostgreSQL
that a test breaks are its own (faultlib.py), never the shared ones."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import resource
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import sqlalchemy as sa
from faultlib import (
    Player,
    PrivatePostgres,
    PrivateRedis,
    Prober,
    check_nothing_lost_or_doubled,
    new_game,
    until,
)
from serverlib import AppFactory, create
from serverproc import Server

from kerala.server.domain import Event
from kerala.server.fanout import RedisBroker
from kerala.server.wire import Snapshot

pytestmark = pytest.mark.timeout(180)

#: Players move quickly but not at once, so a game lasts through each fault.
DELAY = 0.03


def players_of(server_of_seat: list[Server], gid: str, tokens: dict[int, str]) -> list[Player]:
    return [
        Player(server_of_seat[seat].ws_url, gid, tokens[seat], seed=seat, delay=DELAY)
        for seat in (0, 1)
    ]


def check_no_silent_drop(players: list[Player]) -> None:
    for p in players:
        assert not p.silent_drops, p.silent_drops
        assert all(e["status"] in (409, 503) for e in p.errors), p.errors


def test_redis_down_10_s_then_every_cross_process_game_moves_again_without_a_reload(
    pg_url: str, tmp_path: Path
) -> None:
    """Both seats of each game on different processes: every event crosses Redis. Redis is
    killed for 10 s while they play (their games freeze: an event published then is lost);
    within 10 s of its return every game moves again on the same sockets, and no event is lost
    or doubled. The servers say what failed in one line each time, without a traceback."""
    private = PrivateRedis(tmp_path)
    env = {"KERALA_REDIS_PREFIX": "faults", "KERALA_BOT_SWEEP": "0.5"}
    servers = [
        Server(pg_url, tmp_path / f"server{i}.log", "--redis", private.url, **env) for i in range(2)
    ]
    try:
        a, b = servers
        games = [new_game(a.http) for _ in range(3)]
        players = {gid: players_of([a, b], gid, tokens) for gid, tokens in games}

        def state() -> str:
            return "; ".join(
                f"game {gid} (stored {a.http.get(f'/api/games/{gid}').json()['event_number']},"
                f" now {time.monotonic():.1f}): " + " / ".join(p.summary() for p in ps)
                for gid, ps in players.items()
            )

        async def scenario() -> float:
            tasks = [asyncio.create_task(p.run()) for ps in players.values() for p in ps]
            try:
                await until(
                    lambda: all(p.last >= 3 for ps in players.values() for p in ps),
                    30,
                    "every game under way",
                    tasks,
                    state,
                )
                private.kill()
                # The fault itself: Redis away for 10 s while the players go on.
                await asyncio.sleep(10)
                stuck = {gid: max(p.last for p in ps) for gid, ps in players.items()}
                private.start()
                took = await until(
                    lambda: all(
                        min(p.last for p in ps) > stuck[gid] for gid, ps in players.items()
                    ),
                    10,
                    "every game moves again after Redis is back",
                    tasks,
                    lambda: f"stuck at {stuck}; {state()}",
                )
                return took
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        try:
            took = asyncio.run(scenario())
        except AssertionError:
            for s in servers:  # what each server said of Redis, shown with the failure
                lines = [ln for ln in s.log_text().splitlines() if ln[:1].isdigit()]
                print(
                    f"--- {s.url}, last lines of its log without tracebacks:",
                    *lines[-30:],
                    sep="\n",
                )
            raise
        print(f"every game moved again {took:.2f} s after Redis was back")
        for gid, ps in players.items():
            check_no_silent_drop(ps)
            check_nothing_lost_or_doubled(a.http, gid, ps)
        for s in servers:  # a passing fault is said in lines of the log, not tracebacks
            assert "Traceback" not in s.log_text(), s.log_text()[-3000:]
    finally:
        for s in servers:
            s.stop()
        private.kill()


def test_redis_down_leaves_every_process_ready_and_decisions_working(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Readiness says whether *this* process can serve: Redis away only degrades fan-out."""
    private = PrivateRedis(tmp_path)
    server = Server(sqlite_url, tmp_path / "server.log", "--redis", private.url)
    try:
        assert server.http.get("/api/ready").json()["redis"] == "ok"
        gid, tokens = new_game(server.http)
        private.kill()
        r = server.http.get("/api/ready")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ready"] is True and body["database"] == "ok"
        assert body["redis"].startswith("degraded"), body
        r = server.http.post(
            f"/api/games/{gid}/decisions",
            json={"decision": {"pass": True}, "expected": 0},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        assert r.status_code == 200, r.text
    finally:
        server.stop()
        private.kill()


def test_a_hung_redis_holds_no_game_for_more_than_a_moment(sqlite_url: str, tmp_path: Path) -> None:
    """Redis hangs (``SIGSTOP``: its sockets answer nothing) for 8 s while a game of two people
    and a game against a bot, with chat, go on in one process. The rate limits, the bot leases
    and the chat relay wait on it at most ``KERALA_REDIS_TIMEOUT`` (1 s), then do without it
    for 5 s, and only one request asks again: no game waits 3 s for an event (the socket
    timeout alone would hold every decision 5 s of each 10), and readiness says so at once."""
    private = PrivateRedis(tmp_path)
    env = {"KERALA_RATE_CHAT": ""}
    server = Server(sqlite_url, tmp_path / "server.log", "--redis", private.url, **env)
    try:
        gid, tokens = new_game(server.http)
        people = players_of([server, server], gid, tokens)
        seats = [
            {"name": "Ada", "color": "blue"},
            {"name": "Bot", "color": "red", "kind": "bot", "level": "random"},
        ]
        r = server.http.post("/api/games", json={"seats": seats})
        assert r.status_code == 201, r.text
        # It chats before every third decision: a chat message is relayed through Redis too.
        invite = r.json()["invites"][0]["token"]
        vs_bot = Player(server.ws_url, r.json()["id"], invite, 2, 0.1, chat_every=3)
        players = [*people, vs_bot]
        frozen: list[float] = []

        async def scenario() -> None:
            tasks = [asyncio.create_task(p.run()) for p in players]
            try:
                await until(lambda: all(p.last >= 2 for p in players), 30, "games under way", tasks)
                private.freeze()
                frozen.append(time.monotonic())
                asked = time.monotonic()
                ready = await asyncio.to_thread(server.http.get, "/api/ready")
                frozen.append(time.monotonic() - asked)
                assert ready.status_code == 200, ready.text
                assert ready.json()["redis"].startswith("degraded"), ready.text
                await asyncio.sleep(8)
            finally:
                private.thaw()
                frozen.append(time.monotonic())
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run(scenario())
        start, ready_took, end = frozen
        for p in players:
            seen = [start, *(t for t in p.seen_at if start < t < end), end]
            if p.over:  # the game ended while Redis hung: no wait after its last event
                seen.pop()
            longest = max(b - a for a, b in itertools.pairwise(seen))
            assert longest < 3, f"game {p.gid} waited {longest:.1f} s: {p.summary()}"
            print(f"game {p.gid}: {len(seen) - 2} events, the longest wait {longest:.2f} s")
        assert ready_took < 3, f"readiness took {ready_took:.1f} s with Redis hung"
        check_no_silent_drop(people)
        check_nothing_lost_or_doubled(server.http, gid, people)
        log = server.log_text()
        assert "Traceback" not in log, log[-3000:]
        timed = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} WARNING kerala\.server: "
        for what in ("rate limits", "bot leases", "chat"):  # one line each, with its time
            assert re.search(f"{timed}{what}: Redis failed", log, re.MULTILINE), log[-3000:]
    finally:
        server.stop()
        private.kill()


def play_through(server: Server, restart: PrivatePostgres | None, games: int = 2) -> None:
    """Players on ``server`` and an HTTP prober go on through a fault (a fast restart of
    ``restart``; without it a full disk: the SQLite files may grow no more until it is freed),
    then until every game has moved on; no 5xx but a JSON 503 with ``Retry-After``, no socket
    dropped without a close frame, every decision not stored refused with an error message,
    nothing lost or doubled."""
    created = [new_game(server.http) for _ in range(games)]
    players = {gid: players_of([server, server], gid, tokens) for gid, tokens in created}
    prober = Prober(server.url, [gid for gid, _ in created])

    def refused() -> int:
        return sum(1 for ps in players.values() for p in ps for e in p.errors if e["status"] == 503)

    async def scenario() -> None:
        tasks = [asyncio.create_task(p.run()) for ps in players.values() for p in ps]
        tasks.append(asyncio.create_task(prober.run()))
        try:
            await until(
                lambda: all(p.last >= 3 for ps in players.values() for p in ps),
                30,
                "every game under way",
                tasks[:-1],
            )
            if restart is not None:
                await asyncio.to_thread(restart.restart)
            else:
                # The disk is full: no file of the server may grow past 4 KiB (its SQLite
                # write-ahead log is already longer, so every write fails) until freed.
                # (The soft limit only: raising it again back to the hard one needs no rights.)
                _, hard = resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE)
                resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (4096, hard))
                await until(lambda: refused() > 0, 20, "a decision refused for the full disk")
                ready = await asyncio.to_thread(server.http.get, "/api/ready")
                assert ready.status_code == 503, ready.text
                assert ready.json()["database"].startswith("writes failing"), ready.text
                resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (hard, hard))
            moved = {gid: max(p.last for p in ps) for gid, ps in players.items()}
            took = await until(
                lambda: all(min(p.last for p in ps) > moved[g] + 3 for g, ps in players.items()),
                30,
                "every game moves on after the fault",
                tasks[:-1],
                lambda: " / ".join(p.summary() for ps in players.values() for p in ps),
            )
            print(
                f"{refused()} WebSocket and {prober.unavailable} HTTP 503s; every game moved"
                f" 4 events on {took:.2f} s after the fault"
            )
        finally:
            prober.stop = True
            for t in tasks[:-1]:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())
    assert not prober.bad, prober.bad
    for gid, ps in players.items():
        check_no_silent_drop(ps)
        check_nothing_lost_or_doubled(server.http, gid, ps)
    ready = server.http.get("/api/ready")
    assert ready.json()["ready"] is True, ready.text


def test_postgresql_fast_restart_gives_json_503s_and_no_silent_socket_drop(
    tmp_path: Path,
) -> None:
    pg = PrivatePostgres()
    try:
        server = Server(pg.url, tmp_path / "server.log")
        try:
            play_through(server, pg)
        finally:
            server.stop()
    finally:
        pg.close()


def test_full_sqlite_disk_gives_json_503s_unready_and_no_silent_socket_drop(
    sqlite_url: str, tmp_path: Path
) -> None:
    server = Server(sqlite_url, tmp_path / "server.log")
    try:
        play_through(server, None)
    finally:
        server.stop()


def test_two_servers_started_together_on_an_empty_postgresql_both_come_up(
    pg_url: str, tmp_path: Path
) -> None:
    """Replicas of a deployment start at the same moment: the migrations take a database lock,
    so the second waits for the first's schema instead of failing to create it again."""
    servers: list[Server] = []
    failures: list[BaseException] = []
    go = threading.Barrier(4)  # the three starters and this thread

    def start(i: int) -> None:
        go.wait()
        try:
            servers.append(Server(pg_url, tmp_path / f"server{i}.log"))
        except BaseException as e:  # reported below, with the server's log
            failures.append(e)

    threads = [threading.Thread(target=start, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    go.wait()
    started = time.monotonic()
    for t in threads:
        t.join(120)
    try:
        logs = [(tmp_path / f"server{i}.log").read_text() for i in range(3)]
        assert not failures, (failures, logs)
        for s in servers:
            assert s.http.get("/api/ready").json()["ready"] is True
        print(f"three servers up in {time.monotonic() - started:.1f} s")
    finally:
        for s in servers:
            s.stop()


def test_a_locked_postgresql_table_gives_a_json_503_within_the_lock_timeout(
    make_client: AppFactory, pg_url: str
) -> None:
    """A wait on the database is bounded: a request that meets a lock held elsewhere (a
    migration, an operator's transaction, a frozen session) is refused after
    ``KERALA_DB_LOCK_TIMEOUT`` seconds with a JSON 503, instead of waiting for good."""
    client = make_client(db=pg_url, db_lock_timeout=0.5)
    gid = create(client)["id"]
    answers: list[Any] = []  # TestClient responses
    admin = sa.create_engine(pg_url)
    try:
        with admin.connect() as conn:
            conn.execute(sa.text("LOCK TABLE games IN ACCESS EXCLUSIVE MODE"))
            asker = threading.Thread(target=lambda: answers.append(client.get(f"/api/games/{gid}")))
            asker.start()
            asker.join(10)
            waited_for_good = asker.is_alive()
            conn.rollback()
        asker.join(10)
    finally:
        admin.dispose()
    assert not waited_for_good, "the request still waited on the lock after 10 s"
    r = answers[0]
    assert r.status_code == 503 and r.headers["Retry-After"] == "2", r.text
    assert r.json()["code"] == "database_unavailable" and "try again" in r.json()["detail"]


def test_quick_match_without_redis_is_a_json_503_not_a_crash(
    make_client: AppFactory, tmp_path: Path
) -> None:
    """Quick match keeps its queue in Redis when there is one: with Redis away, joining,
    asking and leaving are refused with the house JSON 503 and ``Retry-After``, not a 500."""
    private = PrivateRedis(tmp_path)
    try:
        client = make_client(redis=private.url, redis_prefix="qm-away")
        body = {"players": 2, "control": "none", "name": "Ada"}
        r = client.post("/api/quickmatch", json=body)
        assert r.status_code == 201, r.text
        ticket, secret = r.json()["ticket"], r.json()["secret"]
        private.kill()
        auth = {"Authorization": f"Bearer {secret}"}
        for r in (
            client.post("/api/quickmatch", json=body),
            client.get(f"/api/quickmatch/{ticket}", headers=auth),
            client.delete(f"/api/quickmatch/{ticket}", headers=auth),
        ):
            assert r.status_code == 503, r.text
            assert r.json()["code"] == "unavailable" and "Redis" in r.json()["detail"], r.text
            assert r.headers["Retry-After"] == "2"
    finally:
        private.kill()


def test_quick_match_with_a_hung_redis_is_refused_within_the_redis_timeout(
    make_client: AppFactory, tmp_path: Path
) -> None:
    """A Redis that hangs answers nothing until a socket timeout: joining quick match is
    refused with the JSON 503 once its rate-limit count and its first request to the queue
    have each waited ``KERALA_REDIS_TIMEOUT`` (1 s): about 2 s, not 6 s."""
    private = PrivateRedis(tmp_path)
    try:
        client = make_client(redis=private.url, redis_prefix="qm-hung")
        body = {"players": 2, "control": "none", "name": "Ada"}
        assert client.post("/api/quickmatch", json=body).status_code == 201
        private.freeze()
        start = time.monotonic()
        r = client.post("/api/quickmatch", json=body)
        took = time.monotonic() - start
        assert r.status_code == 503 and r.json()["code"] == "unavailable", r.text
        assert took < 4.0, f"refused after {took:.1f} s"  # 6 s with Redis's 5 s socket timeout
    finally:
        private.thaw()
        private.kill()


def test_events_for_the_other_processes_wait_in_a_bounded_outbox_while_redis_hangs(
    tmp_path: Path,
) -> None:
    """A publish to a hung Redis waits its socket timeout, while events keep coming: the
    outbox keeps at most ``KERALA_REDIS_OUTBOX`` of them and drops the rest (the other
    processes' gap check finds those), so memory does not grow with the outage. Once Redis
    is back, what was kept is published, and every event is either published or dropped."""
    private = PrivateRedis(tmp_path)
    broker = RedisBroker(private.url, "outbox", 5.0, outbox=100)
    listener = redis.Redis.from_url(private.url)
    pubsub = listener.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("outbox:events")
    received: list[bytes] = []

    def drain() -> int:
        while (m := pubsub.get_message(timeout=0.05)) is not None:
            received.append(m["data"])
        return len(received)

    async def scenario() -> None:
        await broker.start(lambda event, snapshot: None)
        private.freeze()

        def publish(n: int) -> None:
            snap = Snapshot({"to_move": 0, "event_number": n}, b"}", None)
            broker.publish(Event.of(n, "hint", {"seat": 0}), snap)

        publish(1)
        await until(lambda: broker.waiting() == 0, 10, "the first publish waits on Redis")
        for n in range(2, 301):
            publish(n)
        assert broker.waiting() == 100 and broker.dropped == 199
        private.thaw()
        await until(lambda: drain() + broker.dropped == 300, 30, "every event sent or dropped")
        await broker.close()

    try:
        asyncio.run(scenario())
        numbers = [int(json.loads(m.split(b"\n")[1])["number"]) for m in received]
        assert numbers == sorted(numbers) and len(numbers) <= 101, numbers
    finally:
        pubsub.close()
        listener.close()
        private.kill()
