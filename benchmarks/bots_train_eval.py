"""Learn the bots' evaluation from self-play (issue 16): ``kerala/bots/data/eval_weights.json``.

Plays ``--games`` self-play games per player count (2, 3, 4 by default) with the ``greedy``
bot (the first iteration with the hand-set weights, every later ``--iterations`` with the
weights learned by the one before), and records, at the end of every round, each player's
grounds features (:data:`kerala.bots.evaluation.FEATURES`) and the share of the game still to
play; the target is that player's final score. A least-squares fit (NumPy) gives the
weights: the learned evaluation predicts the final score of a grounds from what it shows
now: the rules' score now plus ``left * (a + b * left)`` times each feature, so that it is
the rules' score at the end (the fit is of the final score minus the score now).

    python benchmarks/bots_train_eval.py --games 300 --iterations 2 --seed 1

Every choice the bots make is seeded, so the same arguments give the same weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from kerala.bots.evaluation import DEFAULT_WEIGHTS, FEATURES, Weights, features
from kerala.bots.greedy import GreedyBot
from kerala.game import Phase, new_game

COLORS = ["blue", "red", "green", "purple", "black"]
OUT = Path(__file__).resolve().parent.parent / "src" / "kerala" / "bots" / "data"


def self_play(players: int, seed: int, w: Weights) -> tuple[list[list[float]], list[float]]:
    rng = random.Random(seed)
    colors = rng.sample(COLORS, players)
    s = new_game(colors, seed=seed)
    bots = [GreedyBot(seed * 10 + i, weights=w) for i in range(players)]
    total = s.tileset.total() - s.to_remove
    rows: list[tuple[int, list[float]]] = []
    last_round = -1
    while not s.is_over():
        if s.is_chance():
            if s.phase == Phase.DRAW and s.round != last_round and s.round > 0:
                last_round = s.round
                left = len(s.bag) / total
                for i, g in enumerate(s.grounds):
                    now, f = features(g)
                    rows.append((i, [*f, left, now]))
            s.advance_chance()
            continue
        seat = s.current_player
        s.apply(bots[seat].choose(s.view(seat), s.legal_decisions()))
    finals = [sc.total for sc in s.scores()]
    return [r for _, r in rows], [float(finals[i]) for i, _ in rows]


def design(x: np.ndarray) -> np.ndarray:
    f, left = x[:, :-2], x[:, -2:-1]
    return np.hstack([f * left, f * left * left, left, left * left])


def fit(rows: list[list[float]], y: list[float]) -> tuple[np.ndarray, float, float]:
    """Least squares of (final score - score now) on the design; R^2 of the final score."""
    a = np.asarray(rows, dtype=float)
    x = design(a)
    now = a[:, -1]
    t = np.asarray(y, dtype=float)
    coef, *_ = np.linalg.lstsq(x, t - now, rcond=None)
    pred = now + x @ coef
    r2 = 1 - float(np.sum((t - pred) ** 2) / np.sum((t - t.mean()) ** 2))
    base = 1 - float(np.sum((t - now) ** 2) / np.sum((t - t.mean()) ** 2))
    return coef, r2, base


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games per player count")
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT / "eval_weights.json")
    args = ap.parse_args(argv)
    counts = [int(p) for p in args.players.split(",")]
    w = DEFAULT_WEIGHTS
    m = len(FEATURES)
    doc: dict[str, Any] = {}
    for it in range(args.iterations):
        start = time.process_time()
        rows: list[list[float]] = []
        ys: list[float] = []
        for p in counts:
            for gi in range(args.games):
                r, y = self_play(p, args.seed * 1_000_003 + it * 100_000 + p * 10_000 + gi, w)
                rows.extend(r)
                ys.extend(y)
            print(f"iteration {it}: {p} players done", file=sys.stderr)
        coef, r2, r2_now = fit(rows, ys)
        w = Weights(linear=tuple(float(c) for c in coef[: 2 * m]))
        doc = {
            "format": "kerala-eval-weights",
            "features": list(FEATURES),
            "coef": [round(float(c), 4) for c in coef[:m]],
            "coef_left": [round(float(c), 4) for c in coef[m : 2 * m]],
            "bias": [round(float(c), 4) for c in coef[2 * m :]],
            "r2": round(r2, 4),
            "r2_score_now": round(r2_now, 4),
            "samples": len(ys),
            "games_per_player_count": args.games,
            "player_counts": counts,
            "iteration": it + 1,
            "seed": args.seed,
            "made_by": "benchmarks/bots_train_eval.py",
        }
        print(
            f"iteration {it}: {len(ys)} samples, R^2 {r2:.3f} (score now alone {r2_now:.3f}), "
            f"{time.process_time() - start:.0f} CPU s",
            file=sys.stderr,
        )
        for name, a, b in zip(FEATURES, doc["coef"], doc["coef_left"], strict=True):
            print(f"  {name:14s} {a:+8.3f} x left {b:+8.3f} x left^2", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
