"""Issue 13 options of the three envs: layouts, rewards, reproducible opponents."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator

import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from open_spiel.python.observation import make_observation
from pettingzoo.test import api_test

import kerala.envs.gymnasium
import kerala.envs.openspiel  # noqa: F401 - registers python_kerala
from kerala.actions import Place
from kerala.bots.mcts import MCTSBot
from kerala.envs.encoding import margin_returns, ranked_returns
from kerala.envs.gymnasium import HARD_ITERATIONS, KeralaEnv, reproducible_spec
from kerala.envs.observations import LAYOUTS, observation_layout
from kerala.envs.pettingzoo import env as pz_env
from kerala.envs.pettingzoo import raw_env

_API = importlib.import_module("pettingzoo.test.api_test")


@pytest.fixture
def dict_observation_env() -> Iterator[None]:
    """kerala_v0 joins api_test's lists of dict-observation envs (see test_envs_pettingzoo)."""
    lists = (_API.env_obs_dicts, _API.env_obs_space)
    for names in lists:
        names.append("kerala_v0")
    yield
    for names in lists:
        names.remove("kerala_v0")


# -- layouts in every env --------------------------------------------------------------


@pytest.mark.parametrize("layout", ["flat", "graph", "full"])
def test_pettingzoo_api_test_for_each_layout(layout: str, dict_observation_env: None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(pz_env(num_players=2, observation=layout), num_cycles=300)


@pytest.mark.parametrize("layout", ["flat", "graph", "full"])
def test_gymnasium_check_env_for_each_layout(layout: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(
            "kerala/Kerala-v0",
            num_players=3,
            opponents="random",
            observation=layout,
            illegal_action="terminate",  # the checker steps unmasked random ids
        )
        check_env(env.unwrapped)
        space = env.observation_space
        assert isinstance(space, gymnasium.spaces.Dict)
        assert space["observation"].shape == (observation_layout(layout, 3).size,)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_openspiel_tensors_for_each_layout(layout: str) -> None:
    """The tensor is filled in place into the observer's buffer; pieces keep their shapes."""
    game = pyspiel.load_game("python_kerala", {"players": 3, "observation": layout})
    lay = observation_layout(layout, 3)
    assert game.observation_tensor_size() == lay.size
    observer = make_observation(game)
    buffer = observer.tensor
    assert {k: v.shape for k, v in observer.dict.items()} == dict(lay.pieces)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for player in range(3):
        observer.set_from(state, player)
        assert observer.tensor is buffer  # in place
        want = lay.observation(state.engine, player)
        assert np.array_equal(buffer, want)
        assert np.array_equal(state.observation_tensor(player), want)
        assert np.array_equal(state.information_state_tensor(player), want)
    assert np.array_equal(state.observation_tensor(), state.observation_tensor(0))
    with pytest.raises(ValueError, match="no tensor for player 3"):
        state.observation_tensor(3)


def test_openspiel_observer_takes_a_layout_parameter() -> None:
    game = pyspiel.load_game("python_kerala", {"players": 2})
    observer = make_observation(game, params={"observation": "flat"})
    assert observer.tensor.shape == (observation_layout("flat", 2).size,)
    with pytest.raises(ValueError, match="only 'observation'"):
        make_observation(game, params={"layout": "flat"})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"observation": "pixels"}, "'observation' must be one of"),
        ({"reward": "elo"}, "reward must be one of rank, margin"),
    ],
)
def test_openspiel_bad_parameters_are_refused(params: dict[str, str], message: str) -> None:
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game("python_kerala", params)


@pytest.mark.parametrize("n", [2, 3])
def test_openspiel_random_sim_test_with_serialization_for_flat_and_margin(n: int) -> None:
    game = pyspiel.load_game("python_kerala", {"players": n, "observation": "flat"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    margin = pyspiel.load_game("python_kerala", {"players": n, "reward": "margin"})
    pyspiel.random_sim_test(margin, num_sims=1, serialize=True, verbose=False)


# -- rewards ---------------------------------------------------------------------------


def test_margin_returns_are_zero_sum() -> None:
    assert margin_returns([30, 20]) == [10.0, -10.0]
    r = margin_returns([30, 10, 30, -4, 12])
    assert sum(r) == pytest.approx(0.0)
    assert r[3] == -4 - (30 + 10 + 30 + 12) / 4


def _random_game(e: object, seed: int) -> dict[str, float]:
    e.reset(seed=seed)  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    got: dict[str, float] = {}
    for agent in e.agent_iter():  # type: ignore[attr-defined]
        obs, reward, terminated, truncated, _info = e.last()  # type: ignore[attr-defined]
        got[agent] = got.get(agent, 0.0) + reward
        if terminated or truncated:
            e.step(None)  # type: ignore[attr-defined]
        else:
            e.step(rng.choice(np.flatnonzero(obs["action_mask"])))  # type: ignore[attr-defined]
    return got


def test_pettingzoo_margin_reward() -> None:
    rank = raw_env(num_players=3)
    margin = raw_env(num_players=3, reward="margin")
    got_rank = _random_game(rank, 4)
    got_margin = _random_game(margin, 4)
    totals = [b.total for b in margin.state_now.scores()]
    assert [b.total for b in rank.state_now.scores()] == totals  # same seed, same game
    agents = rank.possible_agents
    assert [got_rank[a] for a in agents] == ranked_returns(totals)
    assert [got_margin[a] for a in agents] == margin_returns(totals)


def test_gymnasium_margin_reward_and_openspiel_margin_returns() -> None:
    env = KeralaEnv(num_players=2, opponents="random", reward="margin")
    obs, _ = env.reset(seed=6)
    rng = np.random.default_rng(0)
    reward, terminated = 0.0, False
    while not terminated:
        obs, reward, terminated, _, info = env.step(
            int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    totals = info["totals"]
    assert reward == totals[0] - totals[1]
    game = pyspiel.load_game("python_kerala", {"reward": "margin"})
    assert game.max_utility() == -game.min_utility() >= 300
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
    totals = [b.total for b in state.engine.scores()]
    assert state.returns() == margin_returns(totals)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"observation": "pixels"}, "observation must be one of compact, flat, graph, full"),
        ({"reward": "elo"}, "reward must be one of rank, margin"),
    ],
)
def test_bad_layout_or_reward_is_refused(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KeralaEnv(num_players=2, **kwargs)
    with pytest.raises(ValueError, match=message):
        raw_env(num_players=2, **kwargs)  # type: ignore[arg-type]  # a **dict may fill any keyword


# -- reproducible opponents --------------------------------------------------------------


def _trajectory(env: KeralaEnv, seed: int, steps: int | None) -> tuple[list[object], list[int]]:
    """The whole public log (every opponent decision and draw) and the learner's actions."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    terminated = False
    while not terminated and (steps is None or len(actions) < steps):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(a)
        obs, _, terminated, _, _ = env.step(a)
    return list(env.state_now.log), actions


@pytest.mark.parametrize(
    ("level", "steps"),
    [
        ("random", None),
        ("greedy", None),
        ("easy", None),
        ("medium", None),
        ("soft-greedy", None),
        ("hard", 2),
        ("mcts", 3),
        ("expert", 1),
    ],
)
def test_same_seed_replays_the_same_episode_at_every_level(level: str, steps: int | None) -> None:
    """Issue 13: reset(seed=s) replays the same episode for every opponent level.

    The searching levels play a few decisions only (hard: 600 iterations each), enough for
    their searches to matter: a time budget already differed at the first decision.
    """
    env = KeralaEnv(num_players=2, opponents=level, seat=1)
    assert env.reproducible
    first = _trajectory(env, 3, steps)
    second = _trajectory(env, 3, steps)
    assert first == second
    assert sum(1 for ev in first[0] if isinstance(ev, Place) and ev.seat == 0) >= 1
    other = _trajectory(env, 4, steps)
    assert other != first  # the seed matters


def test_hard_uses_an_iteration_budget_and_time_stays_possible() -> None:
    env = KeralaEnv(num_players=3, opponents=["hard", "mcts:time=0.01"])
    env.reset(seed=0)
    hard, timed = env._bots[1], env._bots[2]
    assert isinstance(hard, MCTSBot) and isinstance(timed, MCTSBot)
    assert hard.name == "hard"
    assert (hard.iterations, hard.time_budget) == (HARD_ITERATIONS, None)
    assert timed.time_budget == 0.01 and timed.iterations is None
    assert not env.reproducible  # documented: a time budget depends on the machine
    assert reproducible_spec("mcts:iterations=20") == ("mcts:iterations=20", True)
    assert reproducible_spec("expert") == ("expert:iterations=600", True)
    assert reproducible_spec("greedy") == ("greedy", True)
