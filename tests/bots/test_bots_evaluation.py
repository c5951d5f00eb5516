"""The bots' evaluation and look-ahead helpers agree with the engine's rules."""

from __future__ import annotations

import pytest
from botlib import play_until

from kerala.bots import make_bot
from kerala.bots.evaluation import apply_to_grounds, evaluate, follow_ups
from kerala.bots.match import play_game
from kerala.game import Phase, new_game
from kerala.scoring import score_grounds


@pytest.mark.parametrize("seed", range(6))
def test_final_evaluation_is_a_feasible_sc1_choice(seed: int) -> None:
    """SC1-SC6: with no round left the value is the score of one allowed choice of kept
    areas, so never above the engine's best choice, and equal to it without arches (SC4)."""
    st = play_game([make_bot("greedy", seed=seed), make_bot("random", seed=seed)], seed=seed)
    for g in st.grounds:
        exact = score_grounds(g)
        v = evaluate(g, 0.0)
        assert v <= exact.total
        if exact.arches == 0:
            assert v == exact.total


def test_start_grounds_value() -> None:
    """S2 start: 1 symbol (SC5), 2 standing elephants (SC3), 4 missing colors (SC2)."""
    s = new_game(["blue", "red"], seed=1)
    assert evaluate(s.grounds[0], 0.0) == score_grounds(s.grounds[0]).total == -17


@pytest.mark.parametrize("seed", range(3))
def test_apply_to_grounds_matches_the_engine(seed: int) -> None:
    """P3 (tile on top, elephant moves), G3 (pass), SP1, SP2 on bare grounds as in the engine."""
    s = new_game(["blue", "red", "green"], seed=seed)
    bots = [make_bot("random", seed=seed + i) for i in range(3)]
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        d = bots[seat].choose(s.view(seat), s.legal_decisions())
        g = s.grounds[seat].copy()
        apply_to_grounds(g, d)
        s.apply(d)
        after = s.grounds[seat]
        assert g.stacks == after.stacks
        assert sorted(g.elephants) == sorted(after.elephants)
        assert g.passes == after.passes


@pytest.mark.parametrize("special", ["move-tile", "move-elephant"])
def test_follow_up_generator_lists_the_engines_follow_ups(special: str) -> None:
    """SP1/SP2: the look-ahead's follow-ups are exactly the engine's legal ones."""
    found = 0
    for seed in range(30):
        s = new_game(["blue", "red"], seed=seed)
        s = play_until(
            s, lambda st: st.phase == Phase.FOLLOW_UP and st.pending == special, seed=seed
        )
        while not s.is_over():
            seat = s.current_player
            engine = {repr(d) for d in s.legal_decisions()}
            mine = {repr(d) for d in follow_ups(s.grounds[seat], seat, special)}
            assert mine == engine
            found += 1
            s.apply(s.legal_decisions()[-1])
            s = play_until(
                s, lambda st: st.phase == Phase.FOLLOW_UP and st.pending == special, seed=seed
            )
        if found >= 4:
            return
    raise AssertionError(f"only {found} {special} follow-ups met")


def test_useful_sp2_moves_are_the_ones_next_to_their_color() -> None:
    """SP2: the cut-down move list keeps skipping and exactly the moves that put a stack next
    to another stack of its top color; the fast scoring agrees with the full one on them."""
    from kerala.actions import MoveStack
    from kerala.bots.evaluation import useful_move_stacks
    from kerala.bots.greedy import score_decisions
    from kerala.grounds import NEIGHBOURS, key

    for seed in range(30):
        s = new_game(["blue", "red"], seed=seed)
        s = play_until(
            s,
            lambda st: st.phase == Phase.FOLLOW_UP and st.pending == "move-tile" and st.round > 10,
            seed=seed,
        )
        if s.is_over() or len(s.legal_decisions()) < 20:
            continue
        seat = s.current_player
        g = s.grounds[seat]
        legal = s.legal_decisions()
        useful = useful_move_stacks(g, legal)
        fast = list(follow_ups(g, seat, "move-tile", useful_only=True))
        assert [repr(d) for d in fast] == [repr(d) for d in useful]
        assert len(useful) < len(legal)
        for m in legal:
            if not isinstance(m, MoveStack):
                continue
            color = g.stacks[key(m.from_)][-1][0].color
            near = [key(m.to) + d for d in NEIGHBOURS]
            joins = any(
                n != key(m.from_) and n in g.stacks and g.stacks[n][-1][0].color == color
                for n in near
            )
            assert (m in useful) == joins
        view = s.view(seat)
        full = score_decisions(view, legal)
        quick = score_decisions(view, legal, useful_only=True)
        for d, a, b in zip(legal, full, quick, strict=True):
            if d in useful:
                assert a == b
        return
    raise AssertionError("no large SP2 follow-up met")
