"""Helpers shared by the environment tests: random games that exercise every decision kind."""

from __future__ import annotations

import random
from collections.abc import Iterator

from kerala.actions import Decision, Place
from kerala.game import GameState, new_game
from kerala.tiles import COLORS


def pick(state: GameState, rng: random.Random) -> Decision:
    """A random legal decision that favours special tiles, so that SP1/SP2 follow-ups occur."""
    legal = state.legal_decisions()
    special = [d for d in legal if type(d) is Place and d.take.special is not None]
    if special and rng.random() < 0.6:
        return rng.choice(special)
    return rng.choice(legal)


def decision_states(n: int, seed: int) -> Iterator[GameState]:
    """Every state of one random game of ``n`` players where a player decides."""
    rng = random.Random(seed)
    s = new_game(list(COLORS[:n]), seed=seed)
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        yield s
        s.apply(pick(s, rng))
