"""Load benchmark of the game server: N concurrent games of scripted WebSocket clients.

Starts ``kerala serve`` on a fresh SQLite file (or uses ``--url`` of a running server), creates
N two-player games, and connects one scripted client per seat over the game's WebSocket. On its
turn a client waits its think time, picks a random legal decision, sends it over the socket and
measures the round trip: from sending until its own socket delivers the event of that decision
(the decision checked, committed to the database, and announced). Bots take no part.

Reports decisions/s, and the p50/p90/p99/max round trip.

    .venv/bin/python benchmarks/load.py --games 200 --think 1.0 --duration 60
    .venv/bin/python benchmarks/load.py --games 200 --think 0 --duration 30   # saturation
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
                return
            msg = loads(raw)
            kind = msg["type"]
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                pending = None
                game = None
            else:
                game = msg["game"]
            if (
                kind == "event"
                and pending is not None
                and msg["event"].get("decision_number") == pending[0]
            ):
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
                await ws.send(
                    json.dumps({"type": "decision", "decision": decision, "expected": expected})
                )


def start_server(db: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kerala", "serve", "--port", "0", "--db", db],
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


async def run(base: str, games: int, think: float, duration: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    colors = ["blue", "black", "green", "red", "purple"]
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        created = []
        for i in range(games):
            a, b = rng.sample(colors, 2)
            r = await http.post(
                "/api/games",
                json={"seats": [{"name": f"a{i}", "color": a}, {"name": f"b{i}", "color": b}]},
            )
            r.raise_for_status()
            created.append(r.json())
    stats = Stats()
    start = time.monotonic()
    stop_at = start + duration
    tasks = [
        seat_client(
            base,
            g["id"],
            inv["seat"],
            inv["token"],
            think,
            stats,
            stop_at,
            random.Random(rng.getrandbits(32)),
        )
        for g in created
        for inv in g["invites"]
    ]
    results = await asyncio.gather(lag_monitor(stats, stop_at), *tasks, return_exceptions=True)
    elapsed = time.monotonic() - start
    failures = [r for r in results if isinstance(r, BaseException)]
    ms = [x * 1000 for x in stats.rtts]
    return {
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
    ap.add_argument("--url", help="a running server (default: start one on a fresh SQLite file)")
    ap.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = ap.parse_args()
    proc = None
    tmp = None
    base = args.url
    if base is None:
        tmp = tempfile.TemporaryDirectory()
        proc, base = start_server(f"sqlite:///{Path(tmp.name) / 'load.sqlite3'}")
    try:
        coro = run(base.rstrip("/"), args.games, args.think, args.duration, args.seed)
        try:
            import uvloop  # the server runs on it too (uvicorn[standard])

            out = uvloop.run(coro)
        except ImportError:
            out = asyncio.run(coro)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(out))
        return
    r = out["rtt_ms"]
    print(
        f"{out['games']} games, {out['clients']} WebSocket clients, think {out['think_s']} s, "
        f"{out['seconds']} s"
    )
    print(
        f"decisions: {out['decisions']} ({out['decisions_per_s']}/s), finished games: "
        f"{out['games_finished']}"
    )
    print(
        f"round trip ms: p50 {r['p50']}  p90 {r['p90']}  p99 {r['p99']}  max {r['max']}  "
        f"mean {r['mean']}"
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
