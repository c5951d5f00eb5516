"""A tour of the engine's Python API (docs/engine.md): run it, read it, copy from it.

    python examples/engine_tour.py

Every step prints what it shows; ``tests/test_game_api.py`` runs this file and checks that it
ends with ``tour done``.
"""

from __future__ import annotations

import random

import kerala
from kerala import (
    GameState,
    IllegalDecisionError,
    new_game,
    read_grounds,
    read_record,
    score_grounds,
    write_grounds,
    write_record,
)


def main() -> None:
    print(f"kerala {kerala.__version__}")

    # A game: two seats, a seeded RNG for the draws (chance nodes are explicit).
    state: GameState = new_game(["blue", "red"], seed=7)
    state.advance_chance()  # the random removal (S3) and the first draw (G1)
    print(state)  # the public picture: status, display, every grounds

    # Decisions are values with a short text form in the terminal's tile codes.
    legal = state.legal_decisions()
    print(f"{len(legal)} legal decisions, e.g. {', '.join(str(d) for d in legal[:4])}")
    d = state.parse_decision(str(legal[0]))
    print(f"{d!s} is {d!r}: {kerala.describe(d)}")

    # An illegal decision is refused with the rule it breaks, and changes nothing.
    before = state.copy()
    try:
        state.parse_decision("pass" if state.grounds[0].passes > 1 else "B1 5,5>6,5")
    except IllegalDecisionError as e:
        print(f"refused: {e} (rule {e.rule})")
    assert state == before

    # Apply and undo: undo steps back one decision (and the draws after it).
    state.apply(d)
    print(f"after {d}: seat {state.to_move} to move")
    assert state.undo() == d and state == before
    print("undone: the state equals the copy taken before")

    # Play on at random to the end.
    rng = random.Random(1)
    while not state.is_over():
        if state.is_chance():
            state.advance_chance()
        else:
            state.apply(rng.choice(state.legal_decisions()))
    print(state)
    print("ranks:", state.ranks())

    # The record round trip, and replaying to any decision.
    doc = write_record(state, [{"name": "Ada"}, {"name": "Bo"}])
    again = read_record(doc).state
    assert again.scores() == state.scores()
    k = 10
    early = state.after(k)  # the state in which decision k + 1 was chosen
    print(f"after {k} decisions: round {early.round}, {early.view(None)!r}")

    # A grounds document: write one seat's grounds and score it again.
    g = read_grounds(write_grounds(state.grounds[0]))
    print("seat 0 scores", score_grounds(g).total)
    print("tour done")


if __name__ == "__main__":
    main()
