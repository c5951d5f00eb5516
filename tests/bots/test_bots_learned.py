"""The evaluation learned from self-play (issue 16): shipped as package data, retrainable."""

from __future__ import annotations

from botlib import midgame

from kerala.bots import make_bot
from kerala.bots.evaluation import DEFAULT_WEIGHTS, FEATURES, evaluate, features, load_learned
from kerala.bots.greedy import GreedyBot


def test_learned_weights_ship_with_the_package() -> None:
    w = load_learned()
    assert w.linear is not None and len(w.linear) == 2 * len(FEATURES)
    bot = make_bot("greedy:eval=learned", seed=1)
    assert isinstance(bot, GreedyBot) and bot.weights == w


def test_learned_value_is_the_rules_score_at_the_end() -> None:
    """With nothing left to play (left = 0) both evaluations are the rules' score (SC1-SC6,
    SC1's choice ignoring arches); the learned terms only add guesses about the future."""
    w = load_learned()
    assert w.linear is not None  # the learned weights are the linear form
    for seed in (1, 2, 3):
        s = midgame(players=3, seed=seed, rounds=20)
        for g in s.grounds:
            assert evaluate(g, 0.0, w) == evaluate(g, 0.0, DEFAULT_WEIGHTS)
            now, f = features(g)
            assert now == evaluate(g, 0.0, DEFAULT_WEIGHTS)
            assert len(f) == len(FEATURES)
            # At left = 1 the value is the score now plus each coefficient times its feature.
            m = len(FEATURES)
            expect = now + sum((w.linear[i] + w.linear[m + i]) * x for i, x in enumerate(f))
            assert abs(evaluate(g, 1.0, w) - expect) < 1e-9
