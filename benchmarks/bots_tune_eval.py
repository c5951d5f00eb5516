"""Tune the hand-set evaluation's weights by self-play (issue 16): an experiment, not shipped.

The evaluation (:mod:`kerala.bots.evaluation`) has seven hand-set weights. This script tunes
them with SPSA (simultaneous perturbation stochastic approximation): every iteration draws a
random direction ``delta`` (each weight up or down by ``--perturb`` of its size), and plays the
``greedy`` bot with the weights moved one way against the ``greedy`` bot with them moved the
other way, on the same deals with the seats mirrored (common random numbers), in 2- and
4-player games. The signal is the mean final score of the seats of one side minus that of the
other: far less noisy than wins, and what the evaluation should lead to. The weights then step
along ``delta`` in proportion to that difference. The result is written to
``src/kerala/bots/data/eval_tuned.json`` (with the settings that made it) and used by
``eval=tuned`` (``expert`` uses it by default).

    python benchmarks/bots_tune_eval.py --iterations 200 --jobs 2 --seed 1
    python benchmarks/bots_tune_eval.py --check 400 --jobs 2     # tuned vs hand, 2p and 4p

Every choice is seeded: the same arguments give the same weights.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from kerala.bots.evaluation import DEFAULT_WEIGHTS, Weights
from kerala.bots.greedy import GreedyBot
from kerala.bots.match import play_game
from kerala.bots.tournament import wilson

COLORS = ["blue", "red", "green", "purple", "black"]
NAMES = [f.name for f in fields(Weights) if f.name != "linear"]


def weights_of(theta: list[float]) -> Weights:
    """Weights from the tuned vector: each weight is ``theta_i`` times its hand-set size."""
    base = asdict(DEFAULT_WEIGHTS)
    return Weights(**{n: max(0.0, t * base[n]) for n, t in zip(NAMES, theta, strict=True)})


def duel(task: tuple[int, int, list[float], list[float], bool]) -> tuple[float, list[float]]:
    """One game: side A (``wa``) and side B (``wb``) alternate seats; A's mean score minus B's,
    and each seat's win share (for ``--check``)."""
    players, seed, wa, wb, flip = task
    rng = random.Random(seed)
    colors = rng.sample(COLORS, players)
    sides = [(i % 2 == 0) != flip for i in range(players)]  # True: side A
    bots = [GreedyBot(seed * 10 + i, weights_of(wa if a else wb)) for i, a in enumerate(sides)]
    st = play_game(bots, seed=seed, colors=colors)
    totals = [g.total for g in st.scores()]
    sa = [t for t, a in zip(totals, sides, strict=True) if a]
    sb = [t for t, a in zip(totals, sides, strict=True) if not a]
    best = max(totals)
    k = totals.count(best)
    share = [1.0 / k if t == best else 0.0 for t in totals]
    wins_a = sum(s for s, a in zip(share, sides, strict=True) if a)
    return sum(sa) / len(sa) - sum(sb) / len(sb), [wins_a, float(players)]


def tune(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    theta = [1.0] * len(NAMES)
    c = args.perturb
    big_a = args.iterations / 10
    history = []
    t0 = time.process_time()
    with ProcessPoolExecutor(args.jobs) as pool:
        for k in range(args.iterations):
            delta = [rng.choice((-1.0, 1.0)) for _ in NAMES]
            plus = [t + c * d for t, d in zip(theta, delta, strict=True)]
            minus = [max(0.0, t - c * d) for t, d in zip(theta, delta, strict=True)]
            tasks = []
            for j in range(args.pairs):
                players = 2 if j % 2 == 0 else 4
                seed = rng.getrandbits(31)
                tasks += [(players, seed, plus, minus, False), (players, seed, plus, minus, True)]
            diffs = [d for d, _ in pool.map(duel, tasks)]
            diff = sum(diffs) / len(diffs)
            step = args.step / (k + 1 + big_a) ** 0.602
            for i, d in enumerate(delta):
                g = diff / (2 * c * d)
                theta[i] = max(0.0, theta[i] + max(-0.1, min(0.1, step * g)))
            history.append(round(diff, 3))
            if k % 10 == 9 or k == args.iterations - 1:
                shown = ", ".join(f"{n}={t:.2f}" for n, t in zip(NAMES, theta, strict=True))
                print(f"iteration {k + 1}: mean diff {sum(history[-10:]) / 10:+.2f}; {shown}")
                sys.stdout.flush()
    w = weights_of(theta)
    return {
        "tool": "benchmarks/bots_tune_eval.py",
        "settings": {
            "iterations": args.iterations,
            "pairs": args.pairs,
            "perturb": args.perturb,
            "step": args.step,
            "seed": args.seed,
        },
        "cpu_seconds": round(time.process_time() - t0, 1),
        "weights": {n: round(getattr(w, n), 4) for n in NAMES},
    }


def check(args: argparse.Namespace) -> None:
    """Tuned (side A) against the hand-set weights (side B), 2 and 4 players."""
    tuned = json.loads(Path(args.out).read_text())["weights"]
    base = asdict(DEFAULT_WEIGHTS)
    wa = [tuned[n] / base[n] if base[n] else 1.0 for n in NAMES]
    wb = [1.0] * len(NAMES)
    rng = random.Random(args.seed + 7)
    with ProcessPoolExecutor(args.jobs) as pool:
        for players in (2, 4):
            tasks = []
            for _ in range(args.check // 2):
                seed = rng.getrandbits(31)
                tasks += [(players, seed, wa, wb, False), (players, seed, wa, wb, True)]
            res = list(pool.map(duel, tasks))
            diff = sum(d for d, _ in res) / len(res)
            wins = sum(w[0] for _, w in res)
            # Per game, side A holds half the seats: its share of the wins, against par 1/2.
            lo, hi = wilson(wins, len(res))
            print(
                f"{players} players, {len(res)} games: tuned holds half the seats and wins "
                f"{wins:.1f} ({wins / len(res):.1%}, 95% CI {lo:.1%}-{hi:.1%}; par 50%), "
                f"mean score difference {diff:+.2f}"
            )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=4, help="mirrored game pairs per iteration")
    ap.add_argument("--perturb", type=float, default=0.25)
    ap.add_argument("--step", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--check", type=int, default=0, help="only compare: games per player count")
    ap.add_argument("--out", default="eval_tuned.json", help="the weights file written or checked")
    args = ap.parse_args(argv)
    if args.check:
        check(args)
        return
    doc = tune(args)
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}: {doc['weights']}")
    if not math.isfinite(sum(doc["weights"].values())):
        raise SystemExit("weights are not finite")


if __name__ == "__main__":
    main()
