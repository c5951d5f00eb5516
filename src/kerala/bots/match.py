"""Playing whole games between bots: the loop every runner (CLI, tournaments) shares.

>>> from kerala.bots import make_bot
>>> state = play_game([make_bot("random", seed=1), make_bot("random", seed=2)], seed=3)
>>> state.is_over(), len(state.scores())
(True, 2)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from kerala.bots import Bot
from kerala.game import GameState, new_game
from kerala.tiles import COLORS

#: Seat colors when none are given: the first n of docs/rules.md's colors.
DEFAULT_COLORS: Final = COLORS


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a series started with ``seed`` (independent of --jobs)."""
    return random.Random(f"kerala:{seed}:{index}").getrandbits(63)


def play_game(
    bots: Sequence[Bot],
    *,
    seed: int | None = None,
    colors: Sequence[str] | None = None,
    state: GameState | None = None,
) -> GameState:
    """Play a game to its end; bot ``i`` plays seat ``i`` from its own view (I1, I2)."""
    if state is None:
        cols = list(colors) if colors is not None else list(DEFAULT_COLORS[: len(bots)])
        state = new_game(cols, seed=seed)
    if len(bots) != state.n:
        raise ValueError(f"{len(bots)} bots for {state.n} seats")
    while not state.is_over():
        if state.is_chance():
            state.advance_chance()
            continue
        seat = state.current_player
        legal = state.legal_decisions()
        decision = bots[seat].choose(state.view(seat), legal)
        state.apply(decision)
    return state
