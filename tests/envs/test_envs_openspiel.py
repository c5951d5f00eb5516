"""The OpenSpiel game python_kerala (kerala.envs.openspiel), checked by OpenSpiel's own tools."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots as openspiel_evaluate_bots

import kerala.envs.openspiel  # noqa: F401 - registers python_kerala
from kerala.envs.encoding import ACTIONS
from kerala.envs.openspiel import KeralaState, evaluate_bots, resample
from kerala.game import REMOVAL_COUNT
from kerala.tiles import GAME_TILE_TYPES


def _play_random(state: KeralaState, rng: np.random.RandomState, decisions: int) -> None:
    """Apply chance outcomes and random legal actions until ``decisions`` were taken."""
    taken = 0
    while not state.is_terminal() and taken < decisions:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            taken += 1
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_sim_test(n: int) -> None:
    game = pyspiel.load_game("python_kerala", {"players": n})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_facts() -> None:
    game = pyspiel.load_game("python_kerala")
    assert game.num_players() == 2
    assert game.num_distinct_actions() == ACTIONS.num_actions
    assert game.max_chance_outcomes() == len(GAME_TILE_TYPES)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    # compact is the default layout, as in the other envs (several pieces: reported flat).
    assert game.information_state_tensor_shape() == [15127]
    assert game.observation_tensor_shape() == [15127]
    # S3: 2 players start with 20 secret removals, then 2 display draws (G1): 22 chance nodes.
    state = game.new_initial_state()
    chance = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[-1][0])
        chance += 1
    assert chance == REMOVAL_COUNT[2] + 2
    assert state.current_player() == 0


@pytest.mark.parametrize("players", [1, 6, "two"])
def test_bad_player_count_is_refused(players: object) -> None:
    with pytest.raises((ValueError, pyspiel.SpielError, TypeError)):
        pyspiel.load_game("python_kerala", {"players": players})


def test_info_state_hides_removed_tiles_and_resampling_keeps_it() -> None:
    """I2: a resampled state (other removed tiles, other bag) looks the same to the player."""
    game = pyspiel.load_game("python_kerala", {"players": 3})
    state = game.new_initial_state()
    _play_random(state, np.random.RandomState(5), decisions=17)
    player = state.current_player()
    other = resample(state, player, random.Random(2))
    assert other.engine.removed != state.engine.removed
    for p in range(3):
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.observation_string(p) == state.observation_string(p)
        assert np.array_equal(other.observation_tensor(p), state.observation_tensor(p))
    assert other.legal_actions() == state.legal_actions()
    # The removal chance outcomes are in the history, but in no player's information: its
    # draw tokens are exactly the display draws.
    assert len(state.history()) > REMOVAL_COUNT[3]
    info = state.information_state_string(player)
    draws = [tok for tok in info.split("|", 1)[1].split() if tok.startswith("d")]
    assert len(draws) == sum(len(drawn) for drawn in state.engine.drawn_rounds())
    via_api = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert via_api.information_state_string(player) == info
    # The resampled state is a genuine OpenSpiel state: same public actions, other removals.
    k = REMOVAL_COUNT[3]
    assert other.history()[k:] == state.history()[k:]
    assert sorted(other.history()[:k]) != sorted(state.history()[:k])
    replay = game.new_initial_state()
    for a in other.history():
        replay.apply_action(a)
    assert str(replay) == str(other) and replay.engine.removed == other.engine.removed


def test_resample_during_the_secret_removal() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 2})
    state = game.new_initial_state()
    for _ in range(7):
        state.apply_action(state.chance_outcomes()[0][0])
    other = resample(state, 0, random.Random(9))
    assert len(other.history()) == 7 and other.is_chance_node()
    assert other.information_state_string(0) == state.information_state_string(0)


def test_info_state_strings_differ_between_players_and_histories() -> None:
    game = pyspiel.load_game("python_kerala")
    a = game.new_initial_state()
    _play_random(a, np.random.RandomState(1), decisions=3)
    b = a.clone()
    legal = b.legal_actions()
    a.apply_action(legal[0])
    b.apply_action(legal[-1])
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.information_state_string(0) != a.information_state_string(1)


def test_pickle_clone_and_serialize_round_trip() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 4})
    state = game.new_initial_state()
    _play_random(state, np.random.RandomState(8), decisions=30)
    for copy in (
        pickle.loads(pickle.dumps(state)),
        state.clone(),
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
    ):
        assert str(copy) == str(state)
        assert copy.history() == state.history()
        assert copy.legal_actions() == state.legal_actions()
        assert copy.information_state_string(1) == state.information_state_string(1)
    assert pickle.loads(pickle.dumps(game)).num_players() == 4
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()  # the clone is independent


def _play(game: pyspiel.Game, bots: list[pyspiel.Bot], seed: int) -> list[float]:
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    returns: list[float] = state.returns()
    return returns


def test_ismcts_with_the_game_resampler_plays_a_full_game() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 2})
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rs)
    rng = random.Random(3)
    bot.set_resampler(lambda state, player: resample(state, player, rng))
    returns = _play(game, [bot, bot], seed=1)
    assert sum(returns) == pytest.approx(0.0) and set(returns) <= {-1.0, 0.0, 1.0}


def test_mcts_plays_a_full_game_against_ismcts() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 3})
    rs = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    m = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=evaluator, random_state=rs)
    # Without set_resampler, ISMCTS falls back to State.resample_from_infostate (ours).
    i = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rs)
    returns = _play(game, [m, i, m], seed=2)
    assert sum(returns) == pytest.approx(0.0)


def _ismcts(game: pyspiel.Game, seed: int) -> ismcts.ISMCTSBot:
    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rs)
    rng = random.Random(seed)
    bot.set_resampler(lambda state, player: resample(state, player, rng))
    return bot


def test_openspiel_evaluate_bots_stops_on_ismcts_restart_at() -> None:
    """Why kerala.envs.openspiel.evaluate_bots exists: OpenSpiel's loop calls restart_at."""
    game = pyspiel.load_game("python_kerala")
    bots = [_ismcts(game, 0), _ismcts(game, 1)]
    with pytest.raises(pyspiel.SpielError, match="RestartAt"):
        openspiel_evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))


def test_evaluate_bots_plays_an_ismcts_game_to_the_end() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 2})
    bots = [_ismcts(game, 0), _ismcts(game, 1)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(2))
    assert state.is_terminal() and returns == state.returns()
    assert sum(returns) == pytest.approx(0.0) and set(returns) <= {-1.0, 0.0, 1.0}
    # Against OpenSpiel's MCTSBot and its uniform random bot, in a 3-player game.
    game3 = pyspiel.load_game("python_kerala", {"players": 3})
    rs = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    m = mcts.MCTSBot(game3, uct_c=2.0, max_simulations=3, evaluator=evaluator, random_state=rs)
    bots3 = [_ismcts(game3, 4), m, pyspiel.make_uniform_random_bot(2, 5)]
    assert sum(evaluate_bots(game3.new_initial_state(), bots3, rs)) == pytest.approx(0.0)


def test_chance_outcomes_depend_on_the_secret_removals() -> None:
    """The MCTSBot caveat: two states a player cannot tell apart (other removed tiles) have
    different draw probabilities, so a search over chance_outcomes() of the true state uses
    information the player does not have."""
    game = pyspiel.load_game("python_kerala", {"players": 2})
    state = game.new_initial_state()
    _play_random(state, np.random.RandomState(6), decisions=5)
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    player = 0
    other = resample(state, player, random.Random(1))
    assert other.information_state_string(player) == state.information_state_string(player)
    assert dict(other.chance_outcomes()) != dict(state.chance_outcomes())
