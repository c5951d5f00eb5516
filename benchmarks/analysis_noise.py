"""How much the post-game analysis moves when it looks again, and how often it flags good play.

Plays ``--games`` games of a bot against itself, then reviews every decision with a choice
**twice**, with independent seeds, at the analysis budget (``--review``, CPU seconds; the server's
default is 0.2). It reports:

- the noise: how far the two searches' win-chance costs of the same decision lie apart
  (percentiles of ``|cost1 - cost2|``), which is how far a cost can move by chance alone;
- the flags per seat and game that good play gets, with a single search and with the shipped
  rule (a flag must survive a second search, :func:`kerala.bots.analysis.confirmed_cost`), for
  the shipped thresholds and any others given with ``--thresholds``.

The raw costs go to ``--out`` (JSON), and ``--from FILE`` recomputes the report from them without
searching again.

    .venv/bin/python benchmarks/analysis_noise.py --games 20 --out /tmp/noise.json
    .venv/bin/python benchmarks/analysis_noise.py --from /tmp/noise.json --thresholds 0.1,0.15,0.2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kerala.bots import make_bot
from kerala.bots.analysis import (
    THRESHOLDS,
    confirmed_cost,
    decision_points,
    search_point,
    verdict,
)
from kerala.bots.greedy import score_decisions
from kerala.bots.match import play_game
from kerala.notation import write_record

COLORS = ("blue", "red", "green", "black", "white")


def one_game(game: int, players: int, bot: str, review: float) -> list[dict[str, Any]]:
    """The raw costs of every decision with a choice in one self-play game."""
    state = play_game(
        [make_bot(bot, seed=1000 * game + k) for k in range(players)],
        seed=game,
        colors=COLORS[:players],
    )
    rows = []
    for p in decision_points(write_record(state, [{"name": f"P{k}"} for k in range(players)])):
        a = search_point(p, review, seed=1)
        b = search_point(p, review, seed=2)
        legal = list(p.legal)
        pts = score_decisions(p.view, legal)
        rows.append(
            {
                "game": game,
                "seat": p.seat,
                "agreed": a.best == p.played,
                "cost1": a.cost,
                "cost2": b.cost,
                "best_win": a.best_win,
                "points": max(0.0, pts[legal.index(a.best)] - pts[legal.index(p.played)]),
            }
        )
    return rows


def percentile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def flags(
    rows: Sequence[Mapping[str, Any]], th: Mapping[str, tuple[float, float]], confirm: bool
) -> int:
    n = 0
    for r in rows:
        if r["agreed"]:
            continue
        f = verdict(r["cost1"], r["points"], r["best_win"], th)
        if f is not None and confirm and r["cost1"] >= th["inaccuracy"][0]:
            f = verdict(confirmed_cost(r["cost1"], r["cost2"]), r["points"], r["best_win"], th)
        n += f is not None
    return n


def report(rows: Sequence[Mapping[str, Any]], extra: Sequence[tuple[float, float, float]]) -> None:
    seats = len({(r["game"], r["seat"]) for r in rows})
    diff = [abs(r["cost1"] - r["cost2"]) for r in rows]
    print(f"{len(rows)} decisions with a choice, {seats} seat-games")
    print(
        "noise |cost1 - cost2| (win chance): "
        + ", ".join(f"p{int(q * 100)} {percentile(diff, q):.3f}" for q in (0.5, 0.9, 0.95, 0.99))
        + f", max {max(diff, default=0.0):.3f}"
    )
    sets = [("shipped", THRESHOLDS)]
    for w in extra:
        sets.append(
            (
                f"{w[0]:g}/{w[1]:g}/{w[2]:g}",
                {"blunder": (w[2], 8.0), "mistake": (w[1], 4.0), "inaccuracy": (w[0], 2.0)},
            )
        )
    print("| thresholds (inaccuracy/mistake/blunder) | flags per seat, one search | confirmed |")
    print("|---|---|---|")
    for name, th in sets:
        if name == "shipped":
            kinds = ("inaccuracy", "mistake", "blunder")
            name = "shipped " + "/".join(f"{th[k][0]:g}" for k in kinds)
        one = flags(rows, th, confirm=False) / max(1, seats)
        two = flags(rows, th, confirm=True) / max(1, seats)
        print(f"| {name} | {one:.2f} | {two:.2f} |")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--bot", default="expert:time=0.25:clock=cpu")
    ap.add_argument("--review", type=float, default=0.2)
    ap.add_argument("--out", help="write the raw costs here (JSON)")
    ap.add_argument("--from", dest="source", help="report on raw costs written by --out")
    ap.add_argument(
        "--thresholds",
        action="append",
        default=[],
        help="other win-chance thresholds to report, inaccuracy,mistake,blunder (repeatable)",
    )
    args = ap.parse_args(argv)
    try:
        extra = [tuple(float(x) for x in t.split(",")) for t in args.thresholds]
        if any(len(t) != 3 for t in extra):
            raise ValueError("three numbers")
    except ValueError:
        print("--thresholds takes three numbers: inaccuracy,mistake,blunder", file=sys.stderr)
        return 2
    if args.source:
        with open(args.source) as f:
            rows = json.load(f)["rows"]
    else:
        rows = []
        t0 = time.monotonic()
        for g in range(args.games):
            rows += one_game(g, args.players, args.bot, args.review)
            print(f"game {g + 1}/{args.games}: {time.monotonic() - t0:.0f} s", file=sys.stderr)
            if args.out:
                meta = {"bot": args.bot, "review": args.review, "players": args.players}
                with open(args.out, "w") as f:
                    json.dump({"meta": meta, "rows": rows}, f)
    report(rows, extra)  # type: ignore[arg-type]
    if rows:
        print(f"mean cost1 {statistics.fmean(r['cost1'] for r in rows):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
