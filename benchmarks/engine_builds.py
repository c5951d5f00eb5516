"""The engine's two builds side by side (issue 31; docs/engine.md, "Two builds").

Each figure is measured in a fresh process per build (``KERALA_ENGINE=pure`` and
``=compiled``), one after the other, so both share the machine's state:

- ``kerala bench --players 2`` and ``--players 4``'s random playouts, decisions per CPU second;
- ``benchmarks/bots_mcts_speed.py``: ``mcts`` and ``expert`` iterations per CPU second at a
  mid-game position;
- ``greedy`` against ``greedy``: a tournament's games per CPU second;
- ``benchmarks/envs_bench.py --only pettingzoo openspiel-rl``: environment steps per CPU second;
- with ``--match N``: N 2-player games of ``--bot`` (``mcts:time=0.25:clock=cpu``), one seat
  compiled and one pure (each in its own process), seats swapped every other game; the compiled
  seat's win rate with its 95% Wilson interval (a shared first place counts half).

    python benchmarks/engine_builds.py --seconds 5
    nice python benchmarks/engine_builds.py --skip-speed --match 200 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FORMS = ("pure", "compiled")


def _run(form: str, argv: list[str]) -> str:
    p = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "KERALA_ENGINE": form},
        check=False,
    )
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} ({form}) failed: {p.stderr.strip()[-500:]}")
    return p.stdout


#: Child programs timing their own loop in CPU seconds (a busy machine moves wall-clock figures
#: more than the code does): random playouts as ``kerala bench`` plays them, and greedy games.
_PLAYOUTS = """
import json, sys, time
from kerala.cli import bench_playouts
players, seconds = int(sys.argv[1]), float(sys.argv[2])
c = time.process_time()
r = bench_playouts(players, seconds)
print(json.dumps(r["decisions"] / (time.process_time() - c)))
"""
_GREEDY = """
import json, sys, time
from kerala.bots import make_bot
from kerala.bots.match import play_game
seconds = float(sys.argv[1])
c = time.process_time()
games = 0
while time.process_time() - c < seconds:
    play_game([make_bot("greedy", seed=games), make_bot("greedy", seed=-games)], seed=games)
    games += 1
print(json.dumps(games / (time.process_time() - c)))
"""


def speed(seconds: float) -> dict[str, dict[str, float]]:
    """Every speed figure for each build, measured build after build, per CPU second."""
    out: dict[str, dict[str, float]] = {}
    for form in FORMS:
        fig: dict[str, float] = {}
        for players in (2, 4):
            text = _run(form, [sys.executable, "-c", _PLAYOUTS, str(players), str(seconds)])
            fig[f"bench {players}p decisions/CPU s"] = json.loads(text)
        for bot in ("mcts", "expert"):
            text = _run(
                form,
                [sys.executable, "benchmarks/bots_mcts_speed.py", "--bot", bot, "--seconds",
                 str(min(seconds, 2.0)), "--repeat", "3", "--json"],
            )  # fmt: skip
            fig[f"{bot} iterations/CPU s"] = json.loads(text.strip().splitlines()[-1])[
                "iterations_per_cpu_second"
            ]
        text = _run(form, [sys.executable, "-c", _GREEDY, str(seconds)])
        fig["greedy games/CPU s"] = json.loads(text)
        text = _run(
            form,
            [sys.executable, "benchmarks/envs_bench.py", "--seconds", str(seconds), "--only",
             "pettingzoo", "openspiel-rl", "--json"],
        )  # fmt: skip
        for name, r in json.loads(text)["results"].items():
            fig[f"{name} steps/CPU s"] = r["steps_per_cpu_s"]
        out[form] = fig
    return out


# -- the cross-build match ---------------------------------------------------------------------


def _seat_worker(conn: Connection, spec: str, seed: int) -> None:
    """A seat's bot in a process of its own build: (view, legal) in, a decision out."""
    from kerala.bots import make_bot

    bot = make_bot(spec, seed=seed)
    while True:
        msg = conn.recv()
        if msg is None:
            return
        conn.send(bot.choose(*msg))


def _seat(form: str, spec: str, seed: int) -> tuple[Any, Connection]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    before = os.environ.get("KERALA_ENGINE")
    os.environ["KERALA_ENGINE"] = form  # the spawned interpreter picks its build at import
    try:
        p = ctx.Process(target=_seat_worker, args=(child, spec, seed), daemon=True)
        p.start()
    finally:
        if before is None:
            del os.environ["KERALA_ENGINE"]
        else:
            os.environ["KERALA_ENGINE"] = before
    return p, parent


def match_game(game: int, spec: str) -> float:
    """One game; the compiled seat's points (1 a win, 0.5 a shared first place, else 0)."""
    from kerala.game import new_game

    forms = ("compiled", "pure") if game % 2 == 0 else ("pure", "compiled")
    seats = [_seat(form, spec, 1000 * game + i) for i, form in enumerate(forms)]
    try:
        s = new_game(["blue", "red"], seed=game)
        while not s.is_over():
            if s.is_chance():
                s.advance_chance()
                continue
            seat = s.current_player
            conn = seats[seat][1]
            conn.send((s.view(seat), s.legal_decisions()))
            s.apply(conn.recv())
        ranks = s.ranks()
    finally:
        for p, conn in seats:
            conn.send(None)
            p.join(10)
    mine = forms.index("compiled")
    if ranks[mine] != 1:
        return 0.0
    return 1.0 if ranks.count(1) == 1 else 0.5


def wilson(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = points / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per speed figure")
    ap.add_argument("--skip-speed", action="store_true", help="only the match")
    ap.add_argument("--match", type=int, default=0, metavar="N", help="games of the match")
    ap.add_argument("--bot", default="mcts:time=0.25:clock=cpu", help="the bot spec of both seats")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once")
    args = ap.parse_args(argv)
    if not args.skip_speed:
        figs = speed(args.seconds)
        print(f"{'figure':32s} {'pure':>12s} {'compiled':>12s} {'ratio':>7s}")
        for name in figs["pure"]:
            a, b = figs["pure"][name], figs["compiled"][name]
            print(f"{name:32s} {a:12,.1f} {b:12,.1f} {b / a:6.2f}×", flush=True)
        print(json.dumps(figs))
    if args.match:
        points: list[float] = []
        with ProcessPoolExecutor(args.jobs) as pool:
            for game, got in enumerate(
                pool.map(match_game, range(args.match), [args.bot] * args.match)
            ):
                points.append(got)
                print(f"game {game + 1}: compiled scores {got:g}, {sum(points):g} of {len(points)}",
                      flush=True)  # fmt: skip
        lo, hi = wilson(sum(points), len(points))
        print(
            f"{args.bot}, compiled against pure, {len(points)} games, seats swapped: compiled "
            f"scores {sum(points):g} ({100 * sum(points) / len(points):.1f}%, 95% interval "
            f"{100 * lo:.1f}-{100 * hi:.1f}%)"
        )


if __name__ == "__main__":
    main()
