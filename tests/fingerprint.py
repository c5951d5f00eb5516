"""What the engine computes, as one JSON document: run in each build, the documents must be equal
(tests/test_engine_builds.py; docs/engine.md, "Two builds").

It covers the perft lines (every legal list, in order), seeded random games (their records,
scores and ranks) for 2 to 5 players, the seeded decisions of every bot level, and what the
environments see: every layout's observation and the legal action ids along seeded games. Run as a
script, it prints the document and, on stderr, the engine's form.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from enginelib import play_random
from kerala import engineform
from kerala.actions import decision_from_json
from kerala.bots import make_bot
from kerala.envs.encoding import ACTIONS
from kerala.envs.observations import LAYOUTS, observation_layout, planes_layout
from kerala.game import GameState, Phase, new_game
from kerala.notation import write_record
from kerala.tiles import COLORS, tile

DATA = Path(__file__).resolve().parent / "data"
#: The bots, each seeded: deterministic in both builds (iteration budgets, not time).
BOTS = ("random", "greedy", "easy", "medium", "mcts:iterations=120", "expert:iterations=60")


def perft_lines() -> list[list[str]]:
    """Every legal list along the perft fixture's lines (tests/data/perft.json)."""
    out = []
    for game in json.loads((DATA / "perft.json").read_text())["games"]:
        s = new_game(game["colors"])
        for name in game["removed"]:
            s.apply_draw(tile(name))
        line: list[str] = []
        for rd in game["rounds"]:
            for name in rd["drawn"]:
                s.apply_draw(tile(name))
            for _count, d in rd["points"]:
                line.append(" | ".join(str(x) for x in s.legal_decisions()))
                s.apply(decision_from_json(d))
        out.append(line)
    return out


def seeded_game(seed: int, seats: int) -> dict[str, Any]:
    s = play_random(seed, COLORS[:seats])
    return {
        "record": write_record(s, include_removed=True),
        "scores": [b.to_json() for b in s.scores()],
        "ranks": s.ranks(),
    }


def bot_decisions(seed: int, seats: int) -> list[str]:
    """Each bot's choice at positions of a seeded game played on by ``greedy``."""
    s: GameState = new_game(list(COLORS[:seats]), seed=seed)
    mover = make_bot("greedy", seed=seed)
    out = []
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        if s.phase == Phase.PLACE and s.round in (3, 17, 31) and s.turn == 0:
            for spec in BOTS:
                out.append(f"{spec}: {make_bot(spec, seed=seed).choose(s.view(seat), legal)}")
        s.apply(mover.choose(s.view(seat), legal))
    return out


def environments(seed: int, seats: int) -> list[str]:
    """At every 7th decision of a seeded random game: each layout's observation for each seat
    (a digest of its bytes) and the legal action ids."""
    layouts = [observation_layout(name, seats) for name in LAYOUTS] + [planes_layout(seats)]
    rng = random.Random(seed)
    s = new_game(list(COLORS[:seats]), seed=seed)
    out = []
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        legal = s.legal_decisions()
        if rng.randrange(7) == 0:
            for layout in layouts:
                for seat in range(seats):
                    data = layout.observation(s, seat).tobytes()
                    out.append(f"{layout!r} {seat}: {hashlib.sha256(data).hexdigest()}")
            out.append(" ".join(map(str, sorted(ACTIONS.legal_actions(s)))))
        s.apply(legal[rng.randrange(len(legal))])
    return out


def fingerprint() -> dict[str, Any]:
    return {
        "perft": perft_lines(),
        "games": [seeded_game(seed, seats) for seats in (2, 3, 4, 5) for seed in (1, 2)],
        "bots": [bot_decisions(seed, seats) for seats in (2, 4) for seed in (7,)],
        "environments": [environments(seed, seats) for seats in (2, 5) for seed in (3,)],
    }


if __name__ == "__main__":
    print(f"engine: {engineform.describe()}", file=sys.stderr)
    print(json.dumps(fingerprint(), sort_keys=True))
