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
import gc
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

try:  # the server's JSON library (the web extra): the client parses faster too
    from orjson import loads
except ImportError:
    from json import loads  # type: ignore[assignment]


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        #: When each measured round trip ended (``time.monotonic``, shared by all processes).
        self.done_at: list[float] = []
        #: When the last client got its first message (connected and synced).
        self.last_synced = 0.0
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
    ws_url = base.replace("http://", "ws://") + f"/api/games/{gid}/ws"
    loop = asyncio.get_running_loop()
    # One deadline for the whole session: a timer per message would cost the client more CPU
    # than the server spends on the decision.
    try:
        async with asyncio.timeout_at(loop.time() + max(0.1, stop_at - time.monotonic())):
            # No pings of its own (a browser sends none): 2000 sockets pinging every 20 s
            # would add 100 messages a second; the server still pings them.
            async with connect(
                ws_url, max_size=None, open_timeout=60, compression=None, ping_interval=None
            ) as ws:
                # The token goes in the first message, never in the URL (docs/api.md).
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await seat_session(ws, gid, seat, think, stats, rng)
    except TimeoutError:
        pass


def read_message(raw: str | bytes) -> Any:
    """A server message without the seat's view, the biggest part of it, which a scripted
    client never looks at: parsing it would cost the client more CPU than the rest of its
    work on a decision. The view is the ``game``'s ``"view"`` field, between ``"seat"`` and
    ``"legal"`` (the last field: docs/api.md); a quote inside a JSON string is escaped, so the
    markers cannot come from a name. Anything else is parsed whole."""
    text = raw if isinstance(raw, str) else raw.decode()
    i = text.find(',"view":')
    j = text.rfind(',"legal":')
    if 0 < i < j:
        try:
            return loads(text[:i] + text[j:])
        except ValueError:
            pass
    return loads(text)


async def seat_session(
    ws: Any, gid: str, seat: int, think: float, stats: Stats, rng: random.Random
) -> None:
    """Play one seat until the game ends (or the deadline cancels it)."""
    pending: tuple[int, float] | None = None
    msg = read_message(await ws.recv())
    stats.last_synced = max(stats.last_synced, time.monotonic())
    try:
        while True:
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
                    stats.done_at.append(time.monotonic())
                    pending = None
            if game is None:
                msg = read_message(await ws.recv())
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
            msg = read_message(await ws.recv())
    except asyncio.CancelledError:
        # The deadline: report what is still awaited.
        if pending is not None and time.perf_counter() - pending[1] > 5:
            stats.unanswered += 1
        raise


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (``None``: gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.extend(int(x) for x in f.read().split())
    except OSError:
        pass
    return out


def _tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        todo.extend(_children(p))
    return pids


class CpuMeter:
    """CPU seconds spent by each part of the set-up while the clients play.

    Polls ``/proc`` twice a second, so that processes that come and go during the run (a
    database connection opened under load and closed again) are counted too: *servers* (the
    server processes and their bot workers), *postgres* (the backends of the benchmark's
    database and the server's background processes), *redis* (redis-server) and *clients* (this
    process and its client processes). A process first seen after the start counts from zero.
    """

    _PG_BACKGROUND = (
        "checkpointer",
        "background writer",
        "walwriter",
        "autovacuum launcher",
        "logical replication launcher",
        "stats collector",
    )

    def __init__(self, servers: list[int], dbname: str | None) -> None:
        self.servers = servers
        self.dbname = dbname
        self.start: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.part: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._sys0 = self._machine()

    @staticmethod
    def _machine() -> tuple[float, float]:
        """(busy, total) CPU seconds of the whole machine, all cores."""
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + v[4]
        return (sum(v) - idle) / _TICK, sum(v) / _TICK

    def _parts(self) -> dict[int, str]:
        parts: dict[int, str] = {}
        for p in _tree(os.getpid()):
            parts[p] = "clients"
        for s in self.servers:  # children of this process too
            for p in _tree(s):
                parts[p] = "servers"
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in parts:
                continue
            cmd = _cmdline(int(name))
            if cmd.startswith("redis-server"):
                parts[int(name)] = "redis"
            elif cmd.startswith("postgres:") and self.dbname is not None:
                rest = cmd.split(":", 2)[-1].strip()
                if rest.startswith(self._PG_BACKGROUND) or f" {self.dbname} " in f" {rest} ":
                    parts[int(name)] = "postgres"
        return parts

    def _sample(self, first: bool) -> None:
        for pid, part in self._parts().items():
            t = _cpu_seconds(pid)
            if t is None:
                continue
            if pid not in self.start:
                self.start[pid] = t if first else 0.0
                self.part[pid] = part
            self.last[pid] = t

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self._sample(False)

    def begin(self) -> None:
        self._sample(True)
        self._sys0 = self._machine()
        self._thread.start()

    def end(self) -> dict[str, float]:
        """CPU seconds by part since :meth:`begin`, and the machine's busy seconds."""
        self._stop.set()
        self._thread.join()
        self._sample(False)
        out: dict[str, float] = {}
        for pid, t in self.last.items():
            part = self.part[pid]
            out[part] = out.get(part, 0.0) + max(0.0, t - self.start[pid])
        busy1, _ = self._machine()
        out["machine"] = busy1 - self._sys0[0]
        return out


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


def sa_database(url: str) -> str | None:
    import sqlalchemy as sa

    name: str | None = sa.make_url(url).database
    return name


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


async def play(
    clients: list[tuple[str, str, int, str, int]],
    think: float,
    start_at: float,
    stop_at: float,
) -> dict[str, Any]:
    """Play the given seats (base URL, game id, seat, token, seed) from ``start_at`` to
    ``stop_at`` (monotonic clock, shared by every process of the machine); the raw figures."""
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    # No cyclic garbage collection while the clients play: with 2000 sockets a full collection
    # held the client up for over 300 ms, which showed as the server's round trip. The clients
    # make little cyclic garbage in one run; it is collected at the end.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats = Stats()
    tasks = [
        seat_client(base, gid, seat, token, think, stats, stop_at, random.Random(seed))
        for base, gid, seat, token, seed in clients
    ]
    results = await asyncio.gather(lag_monitor(stats, stop_at), *tasks, return_exceptions=True)
    gc.enable()
    gc.unfreeze()
    return {
        "rtts": stats.rtts,
        "last_synced": stats.last_synced,
        "done_at": stats.done_at,
        "fanout": stats.fanout,
        "lag": stats.lag,
        "errors": stats.errors,
        "finished": stats.finished,
        "unanswered": stats.unanswered,
        "acked": stats.acked,
        "failures": [repr(r) for r in results if isinstance(r, BaseException)],
    }


def _loop_run(coro: Any) -> Any:
    try:
        import uvloop  # the server runs on it too (uvicorn[standard])

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


def play_process(
    clients: list[tuple[str, str, int, str, int]], think: float, start_at: float, stop_at: float
) -> dict[str, Any]:
    """One client process (``--client-processes``): its share of the games."""
    return dict(_loop_run(play(clients, think, start_at, stop_at)))


def create_games(bases: list[str], games: int, rng: random.Random) -> list[dict[str, Any]]:
    colors = ["blue", "black", "green", "red", "purple"]

    async def go() -> list[dict[str, Any]]:
        sem = asyncio.Semaphore(16)
        async with httpx.AsyncClient(timeout=60) as http:

            async def make(i: int) -> dict[str, Any]:
                a, b = rng.sample(colors, 2)
                async with sem:
                    r = await http.post(
                        bases[i % len(bases)] + "/api/games",
                        json={
                            "seats": [{"name": f"a{i}", "color": a}, {"name": f"b{i}", "color": b}]
                        },
                    )
                r.raise_for_status()
                created: dict[str, Any] = r.json()
                return created

            return list(await asyncio.gather(*(make(i) for i in range(games))))

    return list(_loop_run(go()))


def stored_counts(bases: list[str], created: list[dict[str, Any]]) -> dict[str, int]:
    """Each game's decision number as the database holds it (read on any process)."""

    async def go() -> dict[str, int]:
        sem = asyncio.Semaphore(16)
        async with httpx.AsyncClient(timeout=60) as http:

            async def check(i: int, g: dict[str, Any]) -> tuple[str, int]:
                async with sem:
                    r = await http.get(bases[i % len(bases)] + f"/api/games/{g['id']}")
                return g["id"], int(r.json()["decision_number"])

            return dict(await asyncio.gather(*(check(i, g) for i, g in enumerate(created))))

    return dict(_loop_run(go()))


def run(
    bases: list[str],
    games: int,
    think: float,
    duration: float,
    seed: int,
    client_processes: int = 1,
    meter: CpuMeter | None = None,
    cpu_warmup: float = 20.0,
) -> dict[str, Any]:
    rng = random.Random(seed)
    created = create_games(bases, games, rng)
    clients = [
        (
            bases[(n + inv["seat"]) % len(bases)],  # a game's seats on different processes
            g["id"],
            int(inv["seat"]),
            inv["token"],
            rng.getrandbits(32),
        )
        for n, g in enumerate(created)
        for inv in g["invites"]
    ]
    parts: list[dict[str, Any]]
    # CPU is measured once every client has connected and played a while (connecting 2000
    # sockets is not what a decision costs): from ``cpu_warmup`` s after the start.
    warm = min(cpu_warmup, duration / 2)
    if client_processes <= 1:
        start = time.monotonic()
        if meter is not None:
            threading.Timer(warm, meter.begin).start()
        parts = [_loop_run(play(clients, think, start, start + duration))]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # Both seats of a game in the same process (the fan-out is measured there).
        shares: list[list[tuple[str, str, int, str, int]]] = [[] for _ in range(client_processes)]
        for i, c in enumerate(clients):
            shares[(i // 2) % client_processes].append(c)
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(client_processes, mp_context=ctx) as pool:
            # Started once every process has imported what it needs.
            list(pool.map(abs, range(client_processes)))
            start = time.monotonic() + 1.0
            futures = [
                pool.submit(play_process, share, think, start, start + duration) for share in shares
            ]
            if meter is not None:
                time.sleep(max(0.0, start + warm - time.monotonic()))
                meter.begin()
            parts = [f.result() for f in futures]
    elapsed = time.monotonic() - start
    cpu = meter.end() if meter is not None else None
    rtts = [x for p in parts for x in p["rtts"]]
    fanout = [x for p in parts for x in p["fanout"]]
    lag = [x for p in parts for x in p["lag"]]
    errors: dict[str, int] = {}
    acked: dict[str, int] = {}
    for p in parts:
        for k, v in p["errors"].items():
            errors[k] = errors.get(k, 0) + v
        for k, v in p["acked"].items():
            acked[k] = max(acked.get(k, 0), v)
    failures = [f for p in parts for f in p["failures"]]
    ms = [x * 1000 for x in rtts]
    fan = [x * 1000 for x in fanout]
    # Every decision a client saw accepted must be in the database.
    stored = stored_counts(bases, created)
    lost = sum(max(0, acked.get(gid, 0) - n) for gid, n in stored.items())
    out: dict[str, Any] = {
        "processes": len(bases),
        "games": games,
        "clients": len(clients),
        "client_processes": max(1, client_processes),
        "think_s": think,
        "seconds": round(elapsed, 2),
        "decisions": len(ms),
        "decisions_per_s": round(len(ms) / elapsed, 1),
        "games_finished": sum(p["finished"] for p in parts),
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
        "unanswered": sum(p["unanswered"] for p in parts),
        "lost": lost,
        "client_loop_lag_ms": {
            "p50": round(pct([x * 1000 for x in lag], 50), 2),
            "p99": round(pct([x * 1000 for x in lag], 99), 2),
        },
        "load_average": os.getloadavg()[0],
        "refusals": errors,
        "client_failures": failures[:5],
    }
    steady = [
        r * 1000
        for p in parts
        for r, t in zip(p["rtts"], p["done_at"], strict=True)
        if t >= start + warm
    ]
    measured = len(steady)
    synced = max(p["last_synced"] for p in parts)
    out["all_connected_after_s"] = round(synced - start, 1) if synced else None
    out["warmup_s"] = round(warm, 1)
    out["rtt_ms_after_warmup"] = {
        "p50": round(pct(steady, 50), 2),
        "p90": round(pct(steady, 90), 2),
        "p99": round(pct(steady, 99), 2),
        "max": round(max(steady), 2) if steady else None,
    }
    # After the warm-up (the clients connect meanwhile): the rate the server keeps up with.
    out["decisions_per_s_after_warmup"] = round(measured / max(1e-9, duration - warm), 1)
    if cpu is not None and measured:
        # Milliseconds of CPU per decision, by part: what decides a small machine's capacity.
        out["cpu_ms_per_decision"] = {k: round(v * 1000 / measured, 3) for k, v in cpu.items()}
        out["cpu_window_s"] = round(duration - warm, 1)
    return out


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
    ap.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="processes the WebSocket clients are spread over (both seats of a game in one)",
    )
    ap.add_argument("--no-cpu", action="store_true", help="do not measure CPU per decision by part")
    ap.add_argument(
        "--cpu-warmup",
        type=float,
        default=20.0,
        help="seconds of play before CPU is measured (the clients connect meanwhile)",
    )
    ap.add_argument("--json", action="store_true", help="print only the JSON summary")
    args = ap.parse_args()
    procs: list[subprocess.Popen[str]] = []
    tmp = None
    bases: list[str] = [u.rstrip("/") for u in args.url or []]
    pg_drop = None
    dbname = None
    if not bases:
        if args.processes > 1 and not (args.postgres and args.redis):
            raise SystemExit("--processes > 1 needs --postgres and --redis")
        if args.postgres:
            db, pg_drop = fresh_postgres(args.postgres)
            dbname = sa_database(db)
        else:
            tmp = tempfile.TemporaryDirectory()
            db = f"sqlite:///{Path(tmp.name) / 'load.sqlite3'}"
        prefix = f"kerala_load_{os.getpid()}"
        for _ in range(args.processes):
            proc, base = start_server(db, args.redis if args.processes > 1 else None, prefix)
            procs.append(proc)
            bases.append(base)
    try:
        meter = None
        if not args.no_cpu and procs and Path("/proc/stat").exists():
            meter = CpuMeter([p.pid for p in procs], dbname)
        out = run(
            bases,
            args.games,
            args.think,
            args.duration,
            args.seed,
            args.client_processes,
            meter,
            args.cpu_warmup,
        )
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
        f"decisions: {out['decisions']} ({out['decisions_per_s']}/s; "
        f"{out['decisions_per_s_after_warmup']}/s after {out['warmup_s']:g} s), finished games: "
        f"{out['games_finished']}"
    )
    print(
        f"round trip ms: p50 {r['p50']}  p90 {r['p90']}  p99 {r['p99']}  max {r['max']}  "
        f"mean {r['mean']}"
    )
    w = out["rtt_ms_after_warmup"]
    print(
        f"  after {out['warmup_s']:g} s: p50 {w['p50']}  p90 {w['p90']}  p99 {w['p99']}  "
        f"max {w['max']}   (every client synced after {out['all_connected_after_s']} s)"
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
    cpu = out.get("cpu_ms_per_decision")
    if cpu:
        print(
            "CPU ms per decision: "
            + "  ".join(f"{k} {v:.2f}" for k, v in cpu.items() if k != "machine")
            + f"   (whole machine {cpu['machine']:.2f})"
        )
    if out["refusals"] or out["client_failures"]:
        print(f"refusals {out['refusals']}  client failures {out['client_failures']}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
