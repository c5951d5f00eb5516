"""Hints (kerala.bots.hints): suggestions for a view and post-game analysis of a record."""

from __future__ import annotations

import pytest
from botlib import hidden_twin, midgame

from kerala.bots import make_bot
from kerala.bots.hints import analyze, suggest
from kerala.game import new_game
from kerala.match import play_game
from kerala.notation import read_record, write_record
from kerala.tiles import TileType


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


def test_analysis_of_a_finished_record() -> None:
    st = play_game([make_bot("greedy", seed=1), make_bot("random", seed=2)], seed=12)
    doc = write_record(st, [{"name": "G", "bot": "greedy"}, {"name": "R", "bot": "random"}])
    reviews = analyze(doc)
    assert len(reviews) > 60
    assert all(r.cost >= 0 for r in reviews)
    greedy_cost = sum(r.cost for r in reviews if r.seat == 0)
    random_cost = sum(r.cost for r in reviews if r.seat == 1)
    # The greedy player always played the greedy choice: it cost nothing by that measure.
    assert greedy_cost == 0
    assert random_cost > 10
    assert {r.seat for r in reviews} == {0, 1}
    assert all(r.to_json()["cost"] == r.cost for r in reviews)


def test_analysis_covers_every_decision_with_a_choice_in_order() -> None:
    st = play_game([make_bot("random", seed=3), make_bot("random", seed=4)], seed=2)
    doc = write_record(st)
    reviews = analyze(doc, seats=[1])
    # Replay by hand: seat 1's decisions that had a choice, in play order.
    rec = read_record(doc)
    replay = new_game(list(rec.state.colors), removal="chosen", removed=rec.state.removed)
    expected = []
    for ev in rec.state.log:
        if isinstance(ev, TileType):
            replay.apply_draw(ev)
            continue
        if ev.seat == 1 and len(replay.legal_decisions()) > 1:
            expected.append((replay.round, ev))
        replay.apply(ev)
    assert [(r.round, r.played) for r in reviews] == expected
    assert all(r.seat == 1 for r in reviews)


def test_analysis_with_mcts_on_a_short_budget() -> None:
    st = play_game([make_bot("greedy", seed=1), make_bot("random", seed=2)], seed=3)
    reviews = analyze(write_record(st), method="mcts", budget=0.003, seats=[1])
    assert reviews and all(0 <= r.cost <= 1 for r in reviews)


def test_analysis_refuses_a_bad_method_or_seat() -> None:
    st = play_game([make_bot("random", seed=1), make_bot("random", seed=2)], seed=3)
    doc = write_record(st)
    with pytest.raises(ValueError, match="method"):
        analyze(doc, method="oracle")
    with pytest.raises(ValueError, match="seat 5"):
        analyze(doc, seats=[5])
