"""Load benchmark of the game server: N concurrent games of scripted WebSocket clients.

Starts ``kerala serve`` on a fresh SQLite file (or uses ``--url`` of a running server), creates
N two-player games, and connects one scripted client per seat over the game's WebSocket. On its
turn a client waits its think time, picks a random legal decision, sends it over the socket and
measures the round trip: from sending until its own socket delivers the event of that decision
(the decision checked, committed to the database, and announced). Bots take no part.

With ``--processes P`` it starts P server processes on one fresh PostgreSQL database (made on
the ``--postgres`` server, dropped afterwards) and one Redis (``--redis``, a key prefix of its
own), and connects the two seats of a game to different processes: every event then reaches
the other seat through Redis. It also measures that *fan-out* (from sending a decision until
the other seat's socket, on the other process, delivers its event), and checks afterwards that
no decision a client saw accepted is missing from the database ("lost").

Reports decisions/s, the p50/p90/p99/max round trip, refusals, unanswered and lost decisions.

    .venv/bin/python benchmarks/load.py --games 200 --think 1.0 --duration 60
    .venv/bin/python benchmarks/load.py --games 200 --think 0 --duration 30   # saturation
    .venv/bin/python benchmarks/load.py --games 1000 --think 3 --duration 60 --processes 2 \
        --postgres postgresql://postgres@127.0.0.1:5432/test --redis redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

try:  # the server's JSON library (the web extra): the client parses faster too
    from orjson import loads
except ImportError:
    from json import loads


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.lag: list[float] = []
        self.errors: dict[str, int] = {}
        self.finished = 0
        #: (game, decision number) -> when it was sent; and the other seat's delivery delays.
        self.sent_at: dict[tuple[str, int], float] = {}
        self.fanout: list[float] = []
        #: Decisions sent over 5 s before the end whose event never came back.
        self.unanswered = 0
        #: Per game: the highest decision number a client saw accepted.
        self.acked: dict[str, int] = {}


async def seat_client(
    base: str,
    gid: str,
    seat: int,
    token: str,
    think: float,
    stats: Stats,
    stop_at: float,
    rng: random.Random,
) -> None:
    ws_url = base.replace("http://", "ws://") + f"/api/games/{gid}/ws?token={token}"
    async with connect(ws_url, max_size=None, open_timeout=60) as ws:
        pending: tuple[int, float] | None = None
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(
                    ws.recv(), timeout=max(0.1, stop_at - time.monotonic())
                )
            except TimeoutError:
                break
            msg = loads(raw)
            kind = msg["type"]
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                pending = None
                game = None
            else:
                game = msg["game"]
            if kind == "event":
                number = msg["event"].get("decision_number")
                if number is not None:
                    stats.acked[gid] = max(stats.acked.get(gid, 0), number)
                    if msg["event"].get("seat") != seat:
                        t = stats.sent_at.pop((gid, number), None)
                        if t is not None:
                            stats.fanout.append(time.perf_counter() - t)
                if pending is not None and number == pending[0]:
                    stats.rtts.append(time.perf_counter() - pending[1])
                    pending = None
            if game is None:
                continue
            if game["status"] == "over":
                if seat == 0:
                    stats.finished += 1
                return
            if game["to_move"] == seat and game["legal"] and pending is None:
                if think > 0:
                    await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                decision = rng.choice(game["legal"])
                expected = game["decision_number"]
                pending = (expected + 1, time.perf_counter())
                stats.sent_at[(gid, expected + 1)] = pending[1]
                await ws.send(
                    json.dumps({"type": "decision", "decision": decision, "expected": expected})
                )
        if pending is not None and time.perf_counter() - pending[1] > 5:
            stats.unanswered += 1


def start_server(
    db: str, redis: str | None = None, prefix: str | None = None
) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    args = ["--redis", redis] if redis else []
    if prefix:
        env["KERALA_REDIS_PREFIX"] = prefix
    proc = subprocess.Popen(
        [sys.executable, "-m", "kerala", "serve", "--port", "0", "--db", db, *args],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"(http://[^/\s]+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    base = m.group(1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/api/health").status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not answer")


def fresh_postgres(server: str) -> tuple[str, Any]:
    """A new database on the PostgreSQL ``server``, and a function that drops it."""
    import secrets

    import sqlalchemy as sa

    name = f"kerala_load_{secrets.token_hex(4)}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    url = sa.make_url(server).set(database=name).render_as_string(hide_password=False)
    return url, drop


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


async def lag_monitor(stats: Stats, stop_at: float) -> None:
    """How late this client's own event loop wakes up: part of every measured round trip."""
    while time.monotonic() < stop_at:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        stats.lag.append(time.perf_counter() - t - 0.01)


async def run(
    bases: list[str], games: int, think: float, duration: float, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    colors = ["blue", "black", "green", "red", "purple"]
    sem = asyncio.Semaphore(16)
    async with httpx.AsyncClient(timeout=60) as http:

        async def make(i: int) -> dict[str, Any]:
            a, b = rng.sample(colors, 2)
            async with sem:
                r = await http.post(
                    bases[i % len(bases)] + "/api/games",
                    json={"seats": [{"name": f"a{i}", "color": a}, {"name": f"b{i}", "color": b}]},
                )
            r.raise_for_status()
            created: dict[str, Any] = r.json()
            return created

        created = list(await asyncio.gather(*(make(i) for i in range(games))))
    stats = Stats()
    start = time.monotonic()
    stop_at = start + duration
    tasks = [
        seat_client(
            bases[(n + inv["seat"]) % len(bases)],  # a game's seats on different processes
            g["id"],
            inv["seat"],
            inv["token"],
            think,
            stats,
            stop_at,
            random.Random(rng.getrandbits(32)),
        )
        for n, g in enumerate(created)
        for inv in g["invites"]
    ]
    results = await asyncio.gather(lag_monitor(stats, stop_at), *tasks, return_exceptions=True)
    elapsed = time.monotonic() - start
    failures = [r for r in results if isinstance(r, BaseException)]
    ms = [x * 1000 for x in stats.rtts]
    fan = [x * 1000 for x in stats.fanout]
    # Every decision a client saw accepted must be in the database (read on any process).
    lost = 0
    async with httpx.AsyncClient(timeout=60) as http:

        async def check(i: int, g: dict[str, Any]) -> int:
            async with sem:
                r = await http.get(bases[i % len(bases)] + f"/api/games/{g['id']}")
            stored = r.json()["decision_number"]
            return max(0, stats.acked.get(g["id"], 0) - stored)

        lost = sum(await asyncio.gather(*(check(i, g) for i, g in enumerate(created))))
    return {
        "processes": len(bases),
        "games": games,
        "clients": len(tasks),
        "think_s": think,
        "seconds": round(elapsed, 2),
        "decisions": len(ms),
        "decisions_per_s": round(len(ms) / elapsed, 1),
        "games_finished": stats.finished,
        "rtt_ms": {
            "p50": round(pct(ms, 50), 2),
            "p90": round(pct(ms, 90), 2),
            "p99": round(pct(ms, 99), 2),
            "max": round(max(ms), 2) if ms else None,
            "mean": round(statistics.fmean(ms), 2) if ms else None,
        },
        "fanout_ms": {
            "p50": round(pct(fan, 50), 2),
            "p99": round(pct(fan, 99), 2),
            "max": round(max(fan), 2) if fan else None,
        },
        "unanswered": stats.unanswered,
        "lost": lost,
        "client_loop_lag_ms": {
            "p50": round(pct([x * 1000 for x in stats.lag], 50), 2),
            "p99": round(pct([x * 1000 for x in stats.lag], 99), 2),
        },
        "load_average": os.getloadavg()[0],
        "refusals": stats.errors,
        "client_failures": [repr(f) for f in failures[:5]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--think", type=float, default=1.0, help="mean think time per decision, s")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--url",
        action="append",
        help="a running server (repeat for several; default: start them)",
    )
    ap.add_argument("--processes", type=int, default=1, help="server processes to start")
    ap.add_argument(
        "--postgres",
        help="PostgreSQL server URL: a fresh database is made on it (needed for --processes > 1)",
    )
    ap.add_argument("--redis", help="Redis URL (needed for --processes > 1)")
    ap.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = ap.parse_args()
    procs: list[subprocess.Popen[str]] = []
    tmp = None
    bases: list[str] = [u.rstrip("/") for u in args.url or []]
    pg_drop = None
    if not bases:
        if args.processes > 1 and not (args.postgres and args.redis):
            raise SystemExit("--processes > 1 needs --postgres and --redis")
        if args.postgres:
            db, pg_drop = fresh_postgres(args.postgres)
        else:
            tmp = tempfile.TemporaryDirectory()
            db = f"sqlite:///{Path(tmp.name) / 'load.sqlite3'}"
        prefix = f"kerala_load_{os.getpid()}"
        for _ in range(args.processes):
            proc, base = start_server(db, args.redis if args.processes > 1 else None, prefix)
            procs.append(proc)
            bases.append(base)
    try:
        coro = run(bases, args.games, args.think, args.duration, args.seed)
        try:
            import uvloop  # the server runs on it too (uvicorn[standard])

            out = uvloop.run(coro)
        except ImportError:
            out = asyncio.run(coro)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        if tmp is not None:
            tmp.cleanup()
        if pg_drop is not None:
            pg_drop()
    if args.json:
        print(json.dumps(out))
        return
    r = out["rtt_ms"]
    print(
        f"{out['games']} games on {out['processes']} server process(es), {out['clients']} "
        f"WebSocket clients, think {out['think_s']} s, {out['seconds']} s"
    )
    print(
        f"decisions: {out['decisions']} ({out['decisions_per_s']}/s), finished games: "
        f"{out['games_finished']}"
    )
    print(
        f"round trip ms: p50 {r['p50']}  p90 {r['p90']}  p99 {r['p99']}  max {r['max']}  "
        f"mean {r['mean']}"
    )
    f = out["fanout_ms"]
    print(
        f"fan-out to the other seat ms: p50 {f['p50']}  p99 {f['p99']}  max {f['max']}   "
        f"unanswered {out['unanswered']}  lost {out['lost']}"
    )
    lag = out["client_loop_lag_ms"]
    print(
        f"client loop lag ms: p50 {lag['p50']}  p99 {lag['p99']}   "
        f"(load average {out['load_average']:.2f} on {os.cpu_count()} CPUs)"
    )
    if out["refusals"] or out["client_failures"]:
        print(f"refusals {out['refusals']}  client failures {out['client_failures']}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
