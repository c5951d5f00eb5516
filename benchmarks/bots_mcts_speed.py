"""``mcts`` speed benchmark (issue 5): iterations per second at a mid-game 2-player position.

``--bot expert`` measures the ``expert`` search instead (its samples, issue 16).

The position: a 2-player game (seed ``--seed``) played by two ``greedy`` bots up to round
``--round`` (of 40), at the first player's placement. The search runs ``--repeat`` times for
``--seconds`` CPU seconds each on one core; the median iterations per CPU second is printed
(and the rate per wall-clock second, which on a busy machine measures the machine).

    python benchmarks/bots_mcts_speed.py --seconds 2 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from kerala.bots import make_bot
from kerala.bots.expert import ExpertBot
from kerala.bots.mcts import MCTSBot
from kerala.game import GameState, Phase, new_game


def midgame(seed: int, round_: int) -> GameState:
    s = new_game(["blue", "red"], seed=seed)
    bots = [make_bot("greedy", seed=1), make_bot("greedy", seed=2)]
    while not (s.round >= round_ and s.phase == Phase.PLACE):
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        s.apply(bots[seat].choose(s.view(seat), s.legal_decisions()))
    return s


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--round", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="last line is JSON")
    ap.add_argument("--bot", choices=["mcts", "expert"], default="mcts", help="whose search")
    args = ap.parse_args(argv)
    s = midgame(args.seed, args.round)
    seat = s.current_player
    view, legal = s.view(seat), s.legal_decisions()
    rates = []
    wall_rates = []
    for i in range(args.repeat):
        # Budget in CPU seconds: on a busy machine wall-clock rates measure the machine.
        kind = ExpertBot if args.bot == "expert" else MCTSBot
        bot = kind(i, time_budget=args.seconds, cpu_clock=True)
        t = time.perf_counter()
        c = time.process_time()
        bot.search(view, legal)
        rates.append(bot.last_iterations / (time.process_time() - c))
        wall_rates.append(bot.last_iterations / (time.perf_counter() - t))
    med = statistics.median(rates)
    shown = ", ".join(f"{r:,.0f}" for r in rates)
    print(
        f"mid-game 2-player position (round {s.round}, {len(legal)} legal decisions, "
        f"{len(s.grounds[seat].stacks)} cells): {med:,.0f} iterations per CPU second "
        f"(median of {args.repeat} × {args.seconds:g} CPU s; all: {shown}); "
        f"per wall-clock second: {statistics.median(wall_rates):,.0f}"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "iterations_per_cpu_second": med,
                    "runs": rates,
                    "iterations_per_wall_second": wall_rates,
                    "legal": len(legal),
                }
            )
        )


if __name__ == "__main__":
    main()
