"""Hints (kerala.bots.hints): the best decisions for a view."""

from __future__ import annotations

import pytest
from botlib import hidden_twin, midgame

from kerala.bots.hints import suggest


@pytest.mark.parametrize("budget", [0, 0.15])
def test_suggest_gives_k_legal_decisions_best_first(budget: float) -> None:
    s = midgame(players=2, seed=2, rounds=10)
    seat = s.current_player
    legal = s.legal_decisions()
    tips = suggest(s.view(seat), legal, k=3, seed=1, budget=budget)
    assert len(tips) == 3
    assert len({repr(d) for d, _ in tips}) == 3
    for d, v in tips:
        assert d in legal
        assert isinstance(v, float)
    values = [v for _, v in tips]
    assert values == sorted(values, reverse=True)
    if budget:
        assert all(0.0 <= v <= 1.0 for v in values)  # win chances


def test_suggest_instant_hint_is_the_greedy_choice() -> None:
    s = midgame(players=3, seed=4, rounds=7)
    seat = s.current_player
    legal = s.legal_decisions()
    (best, _), *_ = suggest(s.view(seat), legal, k=1, budget=0)
    from kerala.bots.greedy import score_decisions

    values = score_decisions(s.view(seat), legal)
    assert values[legal.index(best)] == max(values)


def test_suggest_returns_all_when_fewer_than_k_and_refuses_bad_input() -> None:
    s = midgame(players=2, seed=2, rounds=3)
    seat = s.current_player
    legal = s.legal_decisions()[:2]
    assert len(suggest(s.view(seat), legal, k=10, budget=0)) == 2
    with pytest.raises(ValueError, match="k must be"):
        suggest(s.view(seat), legal, k=0)
    with pytest.raises(ValueError, match="no legal decision"):
        suggest(s.view(seat), [], k=1)
    with pytest.raises(ValueError, match="budget"):
        suggest(s.view(seat), legal, budget=-1)


def test_suggest_ignores_hidden_information() -> None:
    """I2: the same view gives the same hints whatever the bag order and removed tiles."""
    s = midgame(players=2, seed=6, rounds=8)
    twin = hidden_twin(s)
    seat = s.current_player
    a = suggest(s.view(seat), s.legal_decisions(), k=3, budget=0)
    b = suggest(twin.view(seat), twin.legal_decisions(), k=3, budget=0)
    assert a == b
