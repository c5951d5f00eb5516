"""The quick-match queue under a crowd: N people (2-5 players wanted, random ratings) join
over a few seconds through two processes that share one Redis queue, each running the
pairing loop as `kerala serve` does (kerala.server.quickmatch). Games are not created (a
stand-in records each group), so the figures are the queue's: time to pairing and the rating
spread within games, per player count.

    .venv/bin/python benchmarks/quickmatch_bench.py --players 1000 --arrive 20 --processes 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import random
import secrets
import statistics
import sys
import time
from typing import Any

from kerala.server.matchmaking import Group
from kerala.server.quickmatch import QuickMatch, RedisQueue
from kerala.server.settings import Settings


def worker(
    specs: list[tuple[int, float, float]], start: float, opts: dict[str, Any], out: Any
) -> None:
    """Join ``specs`` (players, rating, arrival offset) at their times, pair until all served."""

    async def main() -> None:
        settings = Settings(**opts)
        assert settings.redis is not None
        queue = RedisQueue(settings.redis, settings.redis_prefix)
        n = 0

        def create(group: Group) -> tuple[str, dict[str, tuple[int, str]], Any]:
            nonlocal n
            n += 1
            gid = f"{secrets.token_hex(4)}-{n}"
            return gid, {t.id: (i, "x") for i, t in enumerate(group.tickets)}, None

        quick = QuickMatch(queue, settings, create, lambda _: None)
        quick.start()
        mine: list[tuple[str, str, int, float]] = []
        for players, rating, at in specs:
            await asyncio.sleep(max(0.0, start + at - time.time()))
            t, secret = await quick.join(players, "fast", "P", rating, None)
            mine.append((t.id, secret, players, rating))
        results: dict[str, Any] = {}
        deadline = time.time() + opts["quickmatch_widest"] / opts["quickmatch_widen"] + 30
        print(f"{mp.current_process().name}: {len(mine)} joined", file=sys.stderr, flush=True)
        while len(results) < len(mine) and time.time() < deadline:
            for tid, secret, players, rating in mine:
                if tid not in results:
                    st = await quick.status(tid, secret)
                    if st["status"] == "matched":
                        results[tid] = {**st, "players": players, "rating": rating}
            await asyncio.sleep(0.2)
        print(
            f"{mp.current_process().name}: {len(results)} of {len(mine)} paired",
            file=sys.stderr,
            flush=True,
        )
        out.put({"results": results, "waiting": len(mine) - len(results)})
        await quick.close()

    asyncio.run(main())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=1000, help="people joining")
    ap.add_argument("--arrive", type=float, default=20.0, help="seconds over which they join")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args(argv)
    if args.players < 1 or args.processes < 1 or args.arrive < 0:
        print("--players and --processes must be at least 1, --arrive at least 0", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    specs = [
        (rng.randint(2, 5), rng.gauss(1500, 300), rng.uniform(0, args.arrive))
        for _ in range(args.players)
    ]
    opts = {
        "redis": args.redis,
        "redis_prefix": f"kerala-bench-{secrets.token_hex(4)}",
        "quickmatch_interval": 0.5,
        "quickmatch_window": 100.0,
        "quickmatch_widen": 10.0,
        "quickmatch_widest": 800.0,
        "quickmatch_abandon": 3600.0,
        "quickmatch_max_waiting": 100_000,
        "db": "sqlite:///:memory:",
    }
    start = time.time() + 2
    out: Any = mp.Queue()
    procs = [
        mp.Process(
            target=worker,
            args=(sorted(specs[k :: args.processes], key=lambda s: s[2]), start, opts, out),
        )
        for k in range(args.processes)
    ]
    for p in procs:
        p.start()
    parts = [out.get() for _ in procs]
    for p in procs:
        p.join()
    results: dict[str, Any] = {}
    for part in parts:
        results.update(part["results"])
    left = sum(part["waiting"] for part in parts)
    games: dict[str, list[dict[str, Any]]] = {}
    for r in results.values():
        games.setdefault(r["game"], []).append(r)
    print(
        f"{args.players} people joined over {args.arrive:g} s through {args.processes} "
        f"processes: {len(results)} paired into {len(games)} games, {left} still waiting"
    )
    print("| players | people paired | games | wait p50 | p90 | max | spread p50 | p90 | max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in range(2, 6):
        rs = [r for r in results.values() if r["players"] == n]
        gs = [g for g in games.values() if g[0]["players"] == n]
        if not rs:
            continue
        waits = sorted(r["waited"] for r in rs)
        spreads = sorted(max(x["rating"] for x in g) - min(x["rating"] for x in g) for g in gs)

        def q(xs: list[float], p: float) -> float:
            return xs[min(len(xs) - 1, int(p * len(xs)))]

        print(
            f"| {n} | {len(rs)} | {len(gs)} | {statistics.median(waits):.1f} s | "
            f"{q(waits, 0.9):.1f} s | {max(waits):.1f} s | {statistics.median(spreads):.0f} | "
            f"{q(spreads, 0.9):.0f} | {max(spreads):.0f} |"
        )
    assert all(len(g) == g[0]["players"] for g in games.values()), "a game with a wrong size"
    print(json.dumps({"paired": len(results), "games": len(games), "waiting": left}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
