"""Strength and time-keeping benchmark of the bots (issue 5): not a test, run by hand.

Plays a seat-rotated series (the tournament schedule: deals shared by each block of seat
rotations) between bot entries and prints the first entry's win rate with a 95% interval,
mean scores, and the decision-time percentiles of every bot spec with a time budget.

    python benchmarks/bots_strength.py --bots greedy,random --players 2 --games 400
    python benchmarks/bots_strength.py --bots mcts:time=0.25,greedy --games 200 --jobs 2
    python benchmarks/bots_strength.py --bots mcts:time=0.25,greedy,greedy,greedy \
        --players 4 --games 100 --jobs 2
    python benchmarks/bots_strength.py --bots expert:time=0.25:clock=cpu,mcts:time=0.25:clock=cpu \
        --games 400 --log expert.jsonl

Targets (issue 16): expert:time=0.25 >= 70% vs mcts:time=0.25 (2p, 400 games), >= 40% vs three
mcts (4p, 200 games), p99 within 10% of the budget.
Targets (issue 5): greedy >= 95% vs random (2p, 400 games); mcts:time=0.25 >= 70% vs greedy
(2p, 200 games); >= 40% vs three greedy (4p, 100 games); p99 decision time of mcts within 10%
of its budget. ``--jobs`` plays games in parallel processes, one core each: run it only with
as many idle cores. On a busy machine add ``:clock=cpu`` to the mcts spec (0.25 s of one core's
CPU time per decision); ``--log`` keeps every game so that a cut-short run can be summarized
with ``--from-log`` (logs of one schedule split with ``--start`` may be concatenated).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from kerala.actions import Decision
from kerala.bots import Bot, make_bot
from kerala.bots.match import play_game
from kerala.bots.tournament import GameSpec, schedule, wilson
from kerala.views import PlayerView


class Timed:
    """Wraps a bot and records the wall time of each decision it is asked for."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []
        self.cpu_times: list[float] = []
        #: MCTS iterations per searched decision (empty for other bots).
        self.iterations: list[int] = []

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        t = time.perf_counter()
        c = time.process_time()
        d = self.bot.choose(view, legal)
        if len(legal) > 1:  # a forced decision is answered without search
            self.times.append(time.perf_counter() - t)
            self.cpu_times.append(time.process_time() - c)
            its = getattr(self.bot, "last_iterations", None)
            if isinstance(its, int):
                self.iterations.append(its)
        return d


def play(spec: GameSpec) -> dict[str, Any]:
    bots = [Timed(make_bot(e, seed=s)) for e, s in zip(spec.entries, spec.bot_seeds, strict=True)]
    st = play_game(bots, seed=spec.seed, colors=list(spec.colors))
    return {
        "index": spec.index,
        "entries": list(spec.entries),
        "totals": [g.total for g in st.scores()],
        "ranks": st.ranks(),
        "times": [b.times for b in bots],
        "iterations": [b.iterations for b in bots],
        "cpu_times": [b.cpu_times for b in bots],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", required=True)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", help="also write the summary to this file")
    ap.add_argument("--log", help="append each game's result to this JSON-lines file")
    ap.add_argument("--start", type=int, default=0, help="skip the schedule's first games")
    ap.add_argument(
        "--from-log", help="only summarize the games in this JSON-lines file (a cut-short run)"
    )
    args = ap.parse_args(argv)
    entries = [b.strip() for b in args.bots.split(",") if b.strip()]
    plan = schedule(entries, players=args.players, games=args.games, seed=args.seed)
    plan = plan[args.start :]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    if args.from_log:
        with open(args.from_log) as f:
            results = [json.loads(line) for line in f if line.strip()]
        # Several logs of one schedule may be concatenated: count each game once.
        by_index = {r.get("index", i): r for i, r in enumerate(results)}
        results = [by_index[i] for i in sorted(by_index)]
        if not results:
            ap.error(f"--from-log {args.from_log}: no games in it")
        for r in results:
            if sorted(r["entries"]) != sorted(entries) or len(r["ranks"]) != args.players:
                ap.error(
                    f"--from-log {args.from_log}: game {r.get('index')} was played by "
                    f"{','.join(r['entries'])}, not by --bots {','.join(entries)} with "
                    f"--players {args.players}"
                )
    else:
        log = open(args.log, "a") if args.log else None  # noqa: SIM115
        games = map(play, plan)
        pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
        if pool is not None:
            games = pool.map(play, plan)
        for i, r in enumerate(games, 1):
            results.append(r)
            if log is not None:
                log.write(json.dumps(r) + "\n")
                log.flush()
            print(f"\r{i}/{len(plan)} games", end="", file=sys.stderr, flush=True)
        if pool is not None:
            pool.shutdown()
        print(file=sys.stderr)
    wall = time.perf_counter() - start
    names = list(dict.fromkeys(entries))
    wins = dict.fromkeys(names, 0.0)
    seats = dict.fromkeys(names, 0)
    scores: dict[str, list[int]] = {n: [] for n in names}
    times: dict[str, list[float]] = {n: [] for n in names}
    iters: dict[str, list[int]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    first_wins = 0.0  # the first entry's share of games won
    for r in results:
        firsts = r["ranks"].count(1)
        for seat, e in enumerate(r["entries"]):
            seats[e] += 1
            scores[e].append(r["totals"][seat])
            times[e].extend(r["times"][seat])
            iters[e].extend(r["iterations"][seat])
            cpu[e].extend(r.get("cpu_times", [[]] * len(r["entries"]))[seat])
            if r["ranks"][seat] == 1:
                wins[e] += 1 / firsts
                if e == entries[0]:
                    first_wins += 1 / firsts
    n = len(results)
    lo, hi = wilson(first_wins, n)
    summary: dict[str, Any] = {
        "bots": entries,
        "players": args.players,
        "games": n,
        "seed": args.seed,
        "wall_seconds": wall,
        "first_entry": entries[0],
        "first_entry_win_rate": first_wins / n,
        "first_entry_ci95": [lo, hi],
        "per_bot": {},
    }
    print(f"{n} games, {args.players} players, bots {entries}, {wall:.0f} s wall")
    print(
        f"{entries[0]} won {first_wins:g}/{n} games = {first_wins / n:.1%} "
        f"(95% CI {lo:.1%}-{hi:.1%})"
    )
    for e in names:
        ts = sorted(times[e])
        row: dict[str, Any] = {
            "seats": seats[e],
            "wins": wins[e],
            "mean_score": statistics.fmean(scores[e]),
            "decisions": len(ts),
        }
        if ts:
            row["time_mean"] = statistics.fmean(ts)
            row["time_p50"] = ts[len(ts) // 2]
            row["time_p99"] = ts[min(len(ts) - 1, int(0.99 * len(ts)))]
            row["time_max"] = ts[-1]
        if cpu[e]:
            cs = sorted(cpu[e])
            row["cpu_p50"] = cs[len(cs) // 2]
            row["cpu_p99"] = cs[min(len(cs) - 1, int(0.99 * len(cs)))]
            row["cpu_max"] = cs[-1]
        if iters[e]:
            its = sorted(iters[e])
            row["iterations_median"] = its[len(its) // 2]
            row["iterations_mean"] = statistics.fmean(its)
        summary["per_bot"][e] = row
        line = f"  {e}: seats {seats[e]}, wins {wins[e]:g}, mean score {row['mean_score']:.1f}"
        if ts:
            line += (
                f", decision time mean {row['time_mean'] * 1e3:.1f} ms, p50 "
                f"{row['time_p50'] * 1e3:.1f} ms, p99 {row['time_p99'] * 1e3:.1f} ms, "
                f"max {row['time_max'] * 1e3:.1f} ms over {len(ts)} decisions"
            )
        if cpu[e]:
            line += (
                f"; CPU time p50 {row['cpu_p50'] * 1e3:.1f} ms, p99 {row['cpu_p99'] * 1e3:.1f} ms,"
                f" max {row['cpu_max'] * 1e3:.1f} ms"
            )
        if iters[e]:
            line += f", median {row['iterations_median']} MCTS iterations per decision"
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
