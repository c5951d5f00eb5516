"""Helpers shared by the bot tests: positions reached by real play."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from enginelib import with_hidden
from kerala.bots import make_bot
from kerala.game import GameState, Phase, new_game
from kerala.tiles import TileType


def play_until(
    state: GameState,
    stop: Callable[[GameState], bool],
    specs: Sequence[str] = ("greedy", "greedy"),
    seed: int = 0,
) -> GameState:
    """Play ``state`` with bots until ``stop(state)`` holds at a decision (or the game ends)."""
    bots = [make_bot(specs[i % len(specs)], seed=seed + i) for i in range(state.n)]
    while not state.is_over():
        if state.is_chance():
            state.advance_chance()
            continue
        if stop(state):
            return state
        seat = state.current_player
        state.apply(bots[seat].choose(state.view(seat), state.legal_decisions()))
    return state


def midgame(players: int = 2, seed: int = 1, rounds: int = 12) -> GameState:
    s = new_game(["blue", "red", "green", "purple", "black"][:players], seed=seed)
    return play_until(s, lambda st: st.round >= rounds and st.phase == Phase.PLACE, seed=seed)


def hidden_twin(state: GameState, seed: int = 99) -> GameState:
    """A copy of ``state`` that differs only in what no player may see (docs/rules.md I2).

    The bag is shuffled differently and, under random removal, removed tiles are swapped
    with bag tiles of unplayed colors of another type.
    """
    rng = random.Random(seed)
    played = set(state.colors)
    removed, bag = list(state.removed), list(state.bag)
    swaps = 0
    if state.removal == "random":
        for i, t in enumerate(removed):
            for j, b in enumerate(bag):
                if b.color not in played and b is not t:
                    removed[i], bag[j] = b, t
                    swaps += 1
                    break
            if swaps >= 5:
                break
    while True:
        rng.shuffle(bag)
        if tuple(bag) != state.bag or len(set(bag)) < 2:
            break
    return with_hidden(state, removed=removed, bag=bag)


def tile_counts(tiles: list[TileType]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in tiles:
        out[t.name] = out.get(t.name, 0) + 1
    return out
