"""Measure the bot levels' published ratings (src/kerala/data/bot_ratings.json): not a test.

Plays one tournament per rating group (``kerala.bots.tournament``: seat-rotated, deals shared
per block) between all five levels, and rates its games with :mod:`kerala.ratings`:

- 2p: 80 games, every pair of levels 8 games (seats swapped);
- 3-5p: 4 players, 40 games, every four of the five levels on every seat twice.

The design is balanced on purpose: every level meets every other as often. Rated one after
another, games of one pair alone inflate its winner without bound when it always wins (an
earlier trial added 300 quick games of random, easy and medium, and medium then passed hard,
which had beaten it 4 games of 4).

``hard`` and ``expert`` search for 1 s per decision, which a shared 2-core machine cannot afford
for many games, so they play as ``mcts:time=0.25:clock=cpu`` and ``expert:time=0.25:clock=cpu``
(a quarter of their budget, in CPU time so that a busy machine changes nothing): their published
ratings understate the levels (docs/ratings.md).

Every group is rated from a new player's prior, game after game in tournament order; then its
ratings are shifted so that the five levels average ``mu`` 25, the prior of a new player (a
newcomer starts as strong as the average bot, and their first games against bots place them).

    python benchmarks/bot_ratings.py --work /tmp/bot-ratings            # plays, prints
    python benchmarks/bot_ratings.py --work /tmp/bot-ratings --write    # and writes the file

``--work`` keeps every game's record: a run cut short resumes, and a finished one only rates.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from kerala.bots.tournament import rate_in_order, run_tournament
from kerala.ratings import GROUPS, MU, RatingGroup

#: The entry each level plays as (see the docstring for why hard and expert are cut).
LEVEL_SPECS: dict[str, str] = {
    "random": "random",
    "easy": "easy",
    "medium": "medium",
    "hard": "mcts:time=0.25:clock=cpu",
    "expert": "expert:time=0.25:clock=cpu",
}
SEED = 26
#: Per group: (folder, levels, players, games), rated in this order.
TOURNAMENTS: dict[RatingGroup, list[tuple[str, list[str], int, int]]] = {
    "2p": [("2p-all", list(LEVEL_SPECS), 2, 80)],
    "3-5p": [("4p-all", list(LEVEL_SPECS), 4, 40)],
}
DATA = Path(__file__).resolve().parent.parent / "src" / "kerala" / "data" / "bot_ratings.json"


def measure(work: Path, jobs: int) -> dict[str, Any]:
    """Play (or resume) the tournaments under ``work`` and return the bot_ratings document."""
    level_of = {spec: level for level, spec in LEVEL_SPECS.items()}
    groups: dict[str, Any] = {}
    how: list[str] = []
    for group in GROUPS:
        games: list[tuple[list[str], list[int]]] = []
        seats = dict.fromkeys(LEVEL_SPECS, 0)
        for folder, levels, players, n in TOURNAMENTS[group]:
            entries = [LEVEL_SPECS[lv] for lv in levels]
            print(
                f"{group}: {folder}: {','.join(entries)}, {players} players, {n} games", flush=True
            )
            out = run_tournament(
                entries, players=players, games=n, seed=SEED, jobs=jobs, out=work / folder
            )
            how.append(
                f"kerala tournament --bots {','.join(entries)} --players {players} "
                f"--games {n} --seed {SEED}"
            )
            for result in out.results:
                rec = result["record"]
                names = [level_of[p["bot"]] for p in rec["players"]]
                games.append((names, list(rec["result"]["ranks"])))
                for name in names:
                    seats[name] += 1
        rating = rate_in_order(games, LEVEL_SPECS)
        shift = MU - statistics.fmean(x.mu for x in rating.values())
        groups[group] = {}
        for level in LEVEL_SPECS:
            r = rating[level]
            groups[group][level] = {
                "mu": round(r.mu + shift, 4),
                "sigma": round(r.sigma, 4),
                "measured_as": LEVEL_SPECS[level],
                "games": seats[level],
            }
    return {
        "format": "kerala-bot-ratings",
        "version": 1,
        "measured": {
            "date": datetime.date.today().isoformat(),
            "script": "benchmarks/bot_ratings.py",
            "tournaments": how,
            "method": (
                "each group's games rated in order with kerala.ratings from a new player's "
                "prior, then shifted so that the five levels average mu 25; hard and expert "
                "played at a quarter of their time (measured_as), so they are understated"
            ),
        },
        "groups": groups,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="folder for the tournaments")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once")
    ap.add_argument("--write", action="store_true", help=f"write {DATA.name} into the package")
    args = ap.parse_args(argv)
    doc = measure(args.work, args.jobs)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    from kerala.ratings import Rating

    for group in GROUPS:
        for level, e in doc["groups"][group].items():
            r = Rating(mu=e["mu"], sigma=e["sigma"])
            flag = " provisional" if r.provisional else ""
            print(f"{group:5} {level:7} {r.display:5}{flag}  mu {r.mu:6.2f} sigma {r.sigma:5.2f}")
    if args.write:
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(text, encoding="utf-8")
        print(f"wrote {DATA}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
