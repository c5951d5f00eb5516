"""The Gymnasium env kerala/Kerala-v0 (kerala.envs.gymnasium), checked by Gymnasium's checker."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kerala.envs.gymnasium  # noqa: F401 - registers kerala/Kerala-v0
from kerala.bots import bot_names
from kerala.envs.encoding import MARGIN_BOUND, IllegalActionError
from kerala.envs.gymnasium import NOOP_ACTION, KeralaEnv
from kerala.envs.render import picture_shape
from kerala.tiles import COLORS


def test_greedy_bot_exists() -> None:
    assert "greedy" in bot_names()


@pytest.mark.parametrize(("n", "opponents"), [(2, "greedy"), (4, "greedy"), (5, "random")])
def test_gymnasium_check_env_with_warnings_as_errors(n: int, opponents: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The checker steps unmasked random ids: the penalty mode lets it (the default raises).
        env = gymnasium.make(
            "kerala/Kerala-v0", num_players=n, opponents=opponents, illegal_action="terminate"
        )
        check_env(env.unwrapped)


def _episode(
    env: gymnasium.Env[Any, Any], seed: int, policy_seed: int
) -> tuple[list[int], float, dict[str, Any]]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    actions: list[int] = []
    while True:
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        if terminated:
            return actions, float(reward), info
        assert reward == 0.0


def test_full_episode_against_greedy_bots() -> None:
    env = gymnasium.make("kerala/Kerala-v0", num_players=3, opponents="greedy")
    actions, reward, info = _episode(env, seed=5, policy_seed=1)
    # G2: the learner has one turn per round (90 / 3 = 30 rounds) plus its follow-ups.
    assert len(actions) >= 30
    assert -1.0 <= reward <= 1.0
    totals = info["totals"]
    assert info["score"]["total"] == totals[0]
    lower = sum(t < totals[0] for t in totals)
    higher = sum(t > totals[0] for t in totals)
    assert reward == pytest.approx((lower - higher) / 2)
    assert info["rank"] == 1 + higher
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, KeralaEnv)
    # The terminal mask is not empty: only the no-op id, which a vector env's autoreset ignores.
    assert np.flatnonzero(unwrapped.action_masks()).tolist() == [NOOP_ACTION]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_same_seed_replays_the_same_episode() -> None:
    env = gymnasium.make("kerala/Kerala-v0", num_players=2, opponents="greedy")
    first = _episode(env, seed=11, policy_seed=4)
    second = _episode(env, seed=11, policy_seed=4)
    assert first[0] == second[0] and first[1] == second[1]
    assert first[2]["totals"] == second[2]["totals"]


def _next_display(env: KeralaEnv, generator_seed: int) -> list[str]:
    env.reset(seed=1)
    env.np_random = np.random.default_rng(generator_seed)
    bag = len(env.state_now.bag)
    while len(env.state_now.bag) == bag:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    return [t.name for t in env.state_now.display]


def test_bag_draws_come_from_np_random() -> None:
    env = KeralaEnv(num_players=2, opponents="random")
    assert _next_display(env, 5) == _next_display(env, 5)
    assert len({tuple(_next_display(env, g)) for g in range(6)}) > 1


def test_illegal_action_is_refused_by_default_and_changes_nothing() -> None:
    env = KeralaEnv(num_players=2, opponents="random")
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal now"):
        env.step(np.int64(illegal))
    assert np.array_equal(env.action_masks(), obs["action_mask"])  # nothing changed
    legal = int(np.flatnonzero(obs["action_mask"])[-1])
    env.step(np.int32(legal))


def _final_rewards(reward: str, games: int) -> list[float]:
    """The learner's final rewards over random games against ``random``."""
    env = KeralaEnv(num_players=2, opponents="random", reward=reward)
    out = []
    for seed in range(games):
        out.append(_episode(env, seed=seed, policy_seed=seed)[1])
    return out


@pytest.mark.parametrize(("reward", "penalty"), [("rank", -1.0), ("margin", -MARGIN_BOUND)])
def test_an_illegal_action_costs_at_least_the_worst_reward(reward: str, penalty: float) -> None:
    """With the penalty option, playing illegally never pays better than any final result."""
    env = KeralaEnv(num_players=2, opponents="random", illegal_action="terminate", reward=reward)
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, paid, terminated, truncated, info = env.step(illegal)
    assert (paid, terminated, truncated) == (penalty, True, False)
    assert f"action {illegal} is not legal" in info["illegal_action"]
    assert np.flatnonzero(obs2["action_mask"]).tolist() == [NOOP_ACTION]
    # Random games reach margins far below -1 (the old penalty); none is below the penalty.
    finals = _final_rewards(reward, 6)
    assert min(finals) >= paid
    if reward == "margin":
        assert min(finals) < -1.0


def test_learner_seat_and_point_of_view() -> None:
    """I1: the observation is from the learner's seat, whichever it is."""
    env = KeralaEnv(num_players=4, opponents="random", seat=2)
    obs, info = env.reset(seed=3)
    assert info["seat"] == 2 and env.state_now.current_player == 2
    p = env.layout.views(obs["observation"])
    assert p["players"].shape == (4, 9)  # issue 13: only the seated players
    assert p["players"][0, COLORS.index(COLORS[2])] == 1.0
    seats = set()
    rnd = KeralaEnv(num_players=5, opponents="random", seat="random")
    for s in range(8):
        seats.add(rnd.reset(seed=s)[1]["seat"])
    assert len(seats) > 1


def test_opponents_per_seat() -> None:
    env = KeralaEnv(num_players=3, opponents=["greedy", "random"])
    env.reset(seed=0)
    assert [b.name for b in env._bots.values()] == ["greedy", "random"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 6}, "2..5"),
        ({"num_players": 2, "opponents": "grandmaster"}, "unknown bot 'grandmaster'"),
        ({"num_players": 3, "opponents": ["random"]}, "1 specs for 2 other seats"),
        ({"num_players": 2, "seat": 2}, "seat must be 0..1"),
        ({"num_players": 2, "illegal_action": "ignore"}, "illegal_action"),
        ({"num_players": 2, "render_mode": "svg"}, "render_mode"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KeralaEnv(**kwargs)  # type: ignore[arg-type]


def test_make_refuses_unknown_opponents() -> None:
    with pytest.raises(ValueError, match="unknown bot 'grandmaster'"):
        gymnasium.make("kerala/Kerala-v0", num_players=2, opponents="grandmaster")


def test_rgb_array_render_is_a_picture_that_follows_the_game() -> None:
    env = gymnasium.make(
        "kerala/Kerala-v0", num_players=2, opponents="random", render_mode="rgb_array"
    )
    obs, _ = env.reset(seed=0)
    first = env.render()
    assert isinstance(first, np.ndarray)
    assert first.shape == picture_shape(2) and first.dtype == np.uint8
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    second = env.render()
    assert isinstance(second, np.ndarray)
    assert second.shape == first.shape and not np.array_equal(first, second)
