"""The ``learned`` bot's benchmark (issue 29): its win rate against each opponent, and its speed.

For each opponent of ``--against`` (default ``greedy,random``) it plays the tournament schedule
of :mod:`kerala.bots.tournament` (2 players, each deal twice with the seats swapped, so each
bot holds each seat in half of the games) through ``benchmarks/bots_strength.py``, and prints
the learned bot's wins with a 95% Wilson interval, its mean score margin, and its time per
decision (mean and p99, wall clock, forced decisions left out).

    python benchmarks/learned_eval.py --games 400
    python benchmarks/learned_eval.py --games 400 --bot greedy --against random

Target: ``learned`` wins at least 55% of 400 games against ``greedy``, under 20 ms a decision.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bots_strength


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--bot", default="learned", help="the bot measured (a bot spec)")
    ap.add_argument("--against", default="greedy,random", help="opponents, comma-separated")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2029)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    rows = []
    for opp in (o.strip() for o in args.against.split(",") if o.strip()):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "summary.json"
            bots_strength.main(
                [
                    "--bots",
                    f"{args.bot},{opp}",
                    "--players",
                    "2",
                    "--games",
                    str(args.games),
                    "--seed",
                    str(args.seed),
                    "--jobs",
                    str(args.jobs),
                    "--json",
                    str(out),
                ]
            )
            summary = json.loads(out.read_text())
        me = summary["per_bot"][args.bot]
        them = summary["per_bot"][opp]
        lo, hi = summary["first_entry_ci95"]
        rows.append(
            f"| `{args.bot}` | `{opp}` | {summary['games']} | {me['wins']:g} "
            f"({summary['first_entry_win_rate']:.1%}) | {lo:.1%}–{hi:.1%} | "
            f"{me['mean_score'] - them['mean_score']:+.1f} | "
            f"{me.get('time_mean', 0) * 1e3:.1f} ms | {me.get('time_p99', 0) * 1e3:.1f} ms |"
        )
    print()
    print("| bot | against | games | wins | 95% interval | mean margin | time mean | time p99 |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
