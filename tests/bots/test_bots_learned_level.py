"""The ``learned`` level (issue 29): registered, legal and reproducible, weights shipped as NumPy
arrays, only the player's view seen (docs/rules.md I1, I2), and a training run that learns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from botlib import hidden_twin, midgame

from kerala.actions import Decision, Place
from kerala.bots import BotSpecError, bot_names, make_bot
from kerala.bots.evaluation import FEATURES
from kerala.bots.greedy import score_decisions
from kerala.bots.learned import (
    LearnedBot,
    LearnedParams,
    hand_params,
    load_params,
    save_params,
)
from kerala.bots.levels import LEVELS
from kerala.game import GameState, Phase, new_game


def test_learned_is_a_registered_level_without_options() -> None:
    assert "learned" in bot_names()
    assert "learned" in LEVELS
    assert make_bot("learned", seed=1).name == "learned"
    with pytest.raises(BotSpecError, match="learned takes no options"):
        make_bot("learned:depth=2")


def play_recorded(players: int, seed: int) -> tuple[GameState, list[Decision]]:
    specs = ["learned", "greedy", "learned", "random", "learned"][:players]
    bots = [make_bot(spec, seed=seed + i) for i, spec in enumerate(specs)]
    s = new_game(["blue", "red", "green", "purple", "black"][:players], seed=seed)
    taken: list[Decision] = []
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        d = bots[seat].choose(s.view(seat), legal)
        assert d in legal
        s.apply(d)  # checked: an illegal decision raises
        if specs[seat] == "learned":
            taken.append(d)
    return s, taken


@pytest.mark.parametrize("players", [2, 3])
def test_learned_plays_a_seeded_game_to_the_end_legally_and_the_same_twice(players: int) -> None:
    first, taken = play_recorded(players, seed=29)
    again, taken_again = play_recorded(players, seed=29)
    assert first.is_over() and again.is_over()
    assert len(taken) >= 30
    assert taken == taken_again
    assert [s.total for s in first.scores()] == [s.total for s in again.scores()]


def test_shipped_weights_are_plain_arrays_of_the_expected_shape() -> None:
    from importlib import resources

    src = resources.files("kerala.bots").joinpath("data", "learned.npz")
    with src.open("rb") as f, np.load(f, allow_pickle=False) as doc:
        assert doc["coef"].shape == (2, len(FEATURES))
        assert doc["reply"].shape == (2,)
        assert [str(x) for x in doc["features"]] == list(FEATURES)
        assert np.all(np.isfinite(doc["coef"])) and np.all(np.isfinite(doc["reply"]))
    p = load_params()
    assert len(p.linear) == 2 * len(FEATURES)
    # The shipped weights are learned: not the hand-set starting point, and the reply counts.
    assert p != hand_params()
    assert p.reply != (0.0, 0.0)


def test_weights_file_round_trips_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    p = LearnedParams.from_vector([0.1 * i for i in range(2 * len(FEATURES) + 2)])
    path = tmp_path / "w.npz"
    save_params(path, p, made_by="a test")
    assert load_params(path) == p
    other = tmp_path / "other.npz"
    np.savez(other, coef=np.zeros((2, len(FEATURES))))
    with pytest.raises(KeyError):
        load_params(other)
    wrong = tmp_path / "wrong.npz"
    np.savez(
        wrong,
        format=np.asarray("kerala-learned-v1"),
        features=np.asarray(FEATURES),
        coef=np.zeros((3, len(FEATURES))),
        reply=np.zeros(2),
    )
    with pytest.raises(ValueError, match="shape"):
        load_params(wrong)


@pytest.mark.parametrize("rounds", [0, 8, 21])
def test_i2_hidden_tiles_do_not_change_the_learned_choice(rounds: int) -> None:
    """I2: states that differ only in bag order and removed tiles give the same decision
    (the bot is handed the player's view and the legal decisions, nothing else)."""
    s = midgame(players=2, seed=5, rounds=rounds)
    twin = hidden_twin(s)
    assert twin.bag != s.bag
    seat = s.current_player
    assert s.view(seat).to_json() == twin.view(seat).to_json()
    a = make_bot("learned", seed=42)
    b = make_bot("learned", seed=42)
    assert isinstance(a, LearnedBot) and isinstance(b, LearnedBot)
    legal = s.legal_decisions()
    assert a.scores(s.view(seat), legal) == b.scores(twin.view(seat), twin.legal_decisions())
    assert a.choose(s.view(seat), legal) == b.choose(twin.view(seat), twin.legal_decisions())


def test_with_the_hand_weights_and_no_reply_it_values_decisions_as_greedy_does() -> None:
    bot = LearnedBot(hand_params())
    for seed, rounds in ((1, 3), (2, 14), (3, 30)):
        s = midgame(players=2, seed=seed, rounds=rounds)
        legal = s.legal_decisions()
        ours = bot.scores(s.view(s.current_player), legal)
        theirs = score_decisions(s.view(s.current_player), legal)
        assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("seed", [4, 6])
def test_reply_term_is_the_next_players_best_value_after_the_decision(seed: int) -> None:
    """First to move in a 2-player round, a decision costs ``c`` times the best value the
    other seat then reaches (computed here by playing the decision and asking greedy's
    scorer about every legal reply)."""
    s = midgame(players=2, seed=seed, rounds=10)
    seat = s.current_player
    assert seat == s.round % 2  # the bag owner moves first (G2)
    base = hand_params()
    with_reply = LearnedBot(LearnedParams(base.linear, (0.7, 0.0)))
    without = LearnedBot(base)
    legal = s.legal_decisions()
    a = with_reply.scores(s.view(seat), legal)
    b = without.scores(s.view(seat), legal)
    checked = 0
    for d, va, vb in zip(legal, a, b, strict=True):
        if type(d) is Place and d.take.special is not None:
            continue  # the reply comes after the follow-up; the plain tiles suffice here
        after = s.copy()
        after.apply(d)
        assert after.phase == Phase.PLACE and after.current_player == 1 - seat
        replies = after.legal_decisions()
        best = max(score_decisions(after.view(1 - seat), replies, base.weights))
        assert va == pytest.approx(vb - 0.7 * best, abs=1e-9)
        checked += 1
    assert checked >= 4
