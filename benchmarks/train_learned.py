"""Train the ``learned`` bot's weights by self-play (issue 29): ``kerala/bots/data/learned.npz``.

The bot (:mod:`kerala.bots.learned`) values a decision as its own evaluation after it minus
``(c + d * left)`` times the next seat's best reply. The search starts from the hand-set
evaluation of ``greedy`` with no reply term (so generation 0 *is* greedy) and moves 12 weights:
the evaluation's ``a`` coefficient of each feature (``feature * left``) and the reply's ``c``
and ``d``; the ``b`` coefficients (``feature * left**2``) stay at the hand-set zero.

The method is the cross-entropy method with common random numbers. Each generation samples
``--population`` weight vectors around the current mean (the mean itself is one of them), and
every one plays the same ``--deals`` 2-player deals, each deal twice with the seats swapped,
against that deal's opponent: ``greedy`` on even deals, on odd deals a snapshot of the
training's own earlier means (self-play against a pool; ``greedy`` while the pool is empty).
A candidate's fitness is its win share plus its mean score margin / 10 (the margin is less
noisy than the win). The mean and spread of the ``--elite`` best become the next mean and
spread (smoothed, with a floor so that the search keeps looking).

The learning curve: at every ``--curve-every`` generations (and the first and last) the mean
plays ``--curve-games`` games against ``greedy`` on deals of their own (the same for every
training seed, none used in training), and the win share with its 95% Wilson interval is
written to ``--curve``.

    python benchmarks/train_learned.py --seeds 1,2,3 --out-dir /tmp/learned \\
        --curve docs/learned_curve.csv --write

``--write`` copies the weights of the seed whose last curve point is best to the package.
Everything is seeded and runs in one process: the same arguments give the same weights.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from kerala.bots import Bot
from kerala.bots.evaluation import FEATURES
from kerala.bots.greedy import GreedyBot
from kerala.bots.learned import WEIGHTS_FILE, LearnedBot, LearnedParams, hand_params, save_params
from kerala.bots.match import game_seed
from kerala.bots.tournament import wilson
from kerala.envs.gymnasium import KeralaEnv

DATA = Path(__file__).resolve().parent.parent / "src" / "kerala" / "bots" / "data"
M = len(FEATURES)
#: The searched entries of ``LearnedParams.as_vector()``: every ``a``, then ``c`` and ``d``.
SEARCHED = [*range(M), 2 * M, 2 * M + 1]
#: Initial spread per searched weight: small for the features that count many things
#: (symbols, arch points, room, cells), larger for the few-valued ones and the reply.
SPREAD = {
    "symbols": 0.05,
    "arch_points": 0.05,
    "standing": 0.25,
    "surplus_tiles": 0.15,
    "missing": 0.25,
    "arch_open": 0.25,
    "arch_cover": 0.25,
    "reach": 0.15,
    "room": 0.05,
    "cells": 0.05,
}
#: The reply's weights start at 0 (greedy) and may move most: that is where the gain is.
REPLY_SPREAD = 0.4
#: Deals of the learning curve: one series for every training seed, apart from training's.
CURVE_SEED = 290_029


@dataclass(frozen=True)
class Result:
    """A learner's share of wins (a shared first counts half) and its summed score margin."""

    wins: float
    margin: float
    games: int


def play_pair(learner: Bot, opponent: Bot, seed: int) -> Result:
    """One deal played twice in the project's Gymnasium env, the learner in seat 0 then seat 1:
    the env deals from ``seed`` and plays the opponent; the learner acts through
    :meth:`KeralaEnv.bot_action` (its own view and legal decisions only)."""
    wins = margin = 0.0
    for me in (0, 1):
        env = KeralaEnv(num_players=2, opponents=opponent, seat=me, reward="margin")
        env.reset(seed=seed)
        done = False
        info: dict[str, object] = {}
        while not done:
            _, _, done, _, info = env.step(env.bot_action(learner))
        totals = cast(list[int], info["totals"])
        rank = cast(int, info["rank"])
        if rank == 1:
            wins += 1.0 / sorted(totals, reverse=True).count(totals[me])
        margin += totals[me] - totals[1 - me]
    return Result(wins, margin, 2)


def vector_params(v: np.ndarray, base: LearnedParams) -> LearnedParams:
    full = np.asarray(base.as_vector(), dtype=np.float64)
    full[SEARCHED] = v
    return LearnedParams.from_vector(full.tolist())


def curve_point(params: LearnedParams, games: int) -> Result:
    total = Result(0.0, 0.0, 0)
    for k in range(games // 2):
        seed = game_seed(CURVE_SEED, k)
        r = play_pair(LearnedBot(params, seed + 1), GreedyBot(seed + 2), seed)
        total = Result(total.wins + r.wins, total.margin + r.margin, total.games + r.games)
    return total


def train(
    seed: int,
    *,
    generations: int,
    population: int,
    deals: int,
    elite: int,
    curve_games: int = 0,
    curve_every: int = 1,
    log: bool = True,
) -> tuple[LearnedParams, list[dict[str, float]]]:
    """The trained weights, and the learning curve (one row per point measured).

    Long because it is the whole loop of the method in one place: sampling, the games of a
    generation on shared deals, the update, the snapshot pool and the curve points.
    """
    rng = np.random.default_rng(seed)
    base = hand_params()
    mean = np.asarray(base.as_vector(), dtype=np.float64)[SEARCHED]
    spread0 = np.asarray([SPREAD[f] for f in FEATURES] + [REPLY_SPREAD, REPLY_SPREAD])
    spread = spread0.copy()
    pool: list[LearnedParams] = []
    curve: list[dict[str, float]] = []
    played = 0
    cpu0 = time.process_time()
    curve_cpu = 0.0  # the curve's own games are not training

    def measure(gen: int) -> None:
        nonlocal curve_cpu
        if curve_games <= 0:
            return
        c0 = time.process_time()
        r = curve_point(vector_params(mean, base), curve_games)
        curve_cpu += time.process_time() - c0
        lo, hi = wilson(r.wins, r.games)
        row = {
            "seed": seed,
            "generation": gen,
            "training_games": played,
            "training_cpu_s": round(time.process_time() - cpu0 - curve_cpu, 1),
            "games": r.games,
            "wins": r.wins,
            "win_rate": round(r.wins / r.games, 4),
            "ci95_low": round(lo, 4),
            "ci95_high": round(hi, 4),
            "mean_margin": round(r.margin / r.games, 2),
        }
        curve.append(row)
        if log:
            print(f"seed {seed} gen {gen}: {row}", file=sys.stderr, flush=True)

    measure(0)
    for gen in range(1, generations + 1):
        cands = [mean] + [
            mean + spread * rng.standard_normal(len(mean)) for _ in range(population - 1)
        ]
        params = [vector_params(c, base) for c in cands]
        fit = np.zeros(len(cands))
        for k in range(deals):
            deal = game_seed(seed * 1_000_003 + gen, k)
            snap = pool[int(rng.integers(len(pool)))] if pool and k % 2 else None
            for i, p in enumerate(params):
                opp: Bot = LearnedBot(snap, deal + 2) if snap else GreedyBot(deal + 2)
                r = play_pair(LearnedBot(p, deal + 1), opp, deal)
                fit[i] += r.wins + r.margin / 10.0
                played += r.games
        order = np.argsort(-fit, kind="stable")[:elite]
        best = np.asarray([cands[i] for i in order])
        mean = 0.7 * best.mean(axis=0) + 0.3 * mean
        spread = np.maximum(0.7 * best.std(axis=0) + 0.3 * spread, 0.25 * spread0)
        pool.append(vector_params(mean, base))
        if log:
            print(
                f"seed {seed} gen {gen}: best fitness {fit[order[0]] / deals / 2:.3f}, "
                f"reply {mean[-2]:.2f}{mean[-1]:+.2f}*left",
                file=sys.stderr,
                flush=True,
            )
        if gen % curve_every == 0 or gen == generations:
            measure(gen)
    return vector_params(mean, base), curve


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seeds", default="1", help="training seeds, comma-separated")
    ap.add_argument("--generations", type=int, default=12)
    ap.add_argument("--population", type=int, default=10)
    ap.add_argument("--deals", type=int, default=12, help="deals per generation (2 games each)")
    ap.add_argument("--elite", type=int, default=4)
    ap.add_argument("--curve-games", type=int, default=100)
    ap.add_argument("--curve-every", type=int, default=2)
    ap.add_argument("--out-dir", type=Path, required=True, help="weights per seed go here")
    ap.add_argument("--curve", type=Path, help="write the learning curves (CSV) here")
    ap.add_argument("--write", action="store_true", help="ship the best seed's weights")
    args = ap.parse_args(argv)
    if args.elite < 1 or args.population < max(2, args.elite):
        ap.error("--population must be at least 2 and at least --elite (>= 1)")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, float]] = []
    finals: dict[int, float] = {}
    for seed in (int(s) for s in args.seeds.split(",")):
        t0 = time.process_time()
        params, curve = train(
            seed,
            generations=args.generations,
            population=args.population,
            deals=args.deals,
            elite=args.elite,
            curve_games=args.curve_games,
            curve_every=args.curve_every,
        )
        path = args.out_dir / f"learned-seed{seed}.npz"
        save_params(
            path,
            params,
            made_by="benchmarks/train_learned.py",
            settings=(
                f"seed={seed} generations={args.generations} population={args.population} "
                f"deals={args.deals} elite={args.elite}"
            ),
        )
        rows += curve
        finals[seed] = curve[-1]["win_rate"] if curve else 0.0
        print(
            f"seed {seed}: {path} in {time.process_time() - t0:.0f} CPU s; reply "
            f"{params.reply[0]:.3f} + {params.reply[1]:.3f} * left",
            flush=True,
        )
    if args.curve and rows:
        with open(args.curve, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    if args.write:
        best = max(finals, key=lambda s: finals[s])
        shutil.copyfile(args.out_dir / f"learned-seed{best}.npz", DATA / WEIGHTS_FILE)
        print(f"shipped seed {best}'s weights to {DATA / WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
