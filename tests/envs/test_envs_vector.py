"""Masks that never lie: no observation handed to a policy has an empty action mask, whatever
the autoreset mode of Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv``, and every id a mask
sets before the end is legal."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv
from hypothesis import given, settings
from hypothesis import strategies as st

import kerala.envs.gymnasium  # noqa: F401 - registers kerala/Kerala-v0
from kerala.envs.gymnasium import NOOP_ACTION

NUM_ENVS = 2


def _make() -> gymnasium.Env[Any, Any]:
    return gymnasium.make("kerala/Kerala-v0", num_players=2, opponents="random")


def _choose(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A masked policy: raises (as ``rng.choice`` of nothing does) on an empty mask."""
    assert masks.shape == (NUM_ENVS, 4368)
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _run(vector: type[SyncVectorEnv] | type[AsyncVectorEnv], mode: AutoresetMode) -> None:
    envs = vector([_make] * NUM_ENVS, autoreset_mode=mode)
    rng = np.random.default_rng(0)
    try:
        obs, _ = envs.reset(seed=1)
        finished = np.zeros(NUM_ENVS, dtype=bool)
        episodes = 0
        while episodes < 3:
            if mode is AutoresetMode.DISABLED and finished.any():
                obs, _ = envs.reset(options={"reset_mask": finished})
            after_end = finished & (mode is AutoresetMode.NEXT_STEP)
            actions = _choose(obs["action_mask"], rng)
            obs, _rewards, terminated, truncated, info = envs.step(actions)
            assert obs["action_mask"].any(axis=1).all(), "an empty mask reached the policy"
            if after_end.any():
                # The env reset on this step: its observation starts a new game, whose first
                # decision is a placement (the pass of the terminal mask is not legal yet).
                for i in np.flatnonzero(after_end):
                    assert not terminated[i]
                    assert obs["action_mask"][i].sum() > 1
            ended = terminated | truncated
            for i in np.flatnonzero(ended):
                # The terminal observation is marked: only the no-op id is set.
                # SAME_STEP hands the terminal observation over in info, not to the policy.
                final = info["final_obs"][i] if "final_obs" in info else None
                mask = obs["action_mask"][i] if final is None else final["action_mask"]
                assert np.flatnonzero(mask).tolist() == [NOOP_ACTION]
            episodes += int(ended.sum())
            finished = ended
    finally:
        envs.close()


@pytest.mark.parametrize(
    "mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
)
def test_sync_vector_env_never_hands_out_an_empty_mask(mode: AutoresetMode) -> None:
    _run(SyncVectorEnv, mode)


@pytest.mark.parametrize(
    "mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
)
def test_async_vector_env_never_hands_out_an_empty_mask(mode: AutoresetMode) -> None:
    _run(AsyncVectorEnv, mode)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 5),
    illegal_action=st.sampled_from(["raise", "terminate"]),
)
def test_every_mask_is_non_empty_and_every_id_it_sets_is_legal(
    seed: int, n: int, illegal_action: str
) -> None:
    """The mask never lies: before the end every id it sets is accepted (an illegal one would
    raise); the observation that ends the episode sets only the no-op id."""
    env = gymnasium.make(
        "kerala/Kerala-v0", num_players=n, opponents="random", illegal_action=illegal_action
    )
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    terminated = False
    while not terminated:
        ids = np.flatnonzero(obs["action_mask"])
        assert len(ids) > 0
        obs, _, terminated, _, info = env.step(int(rng.choice(ids)))
        assert "illegal_action" not in info
    assert np.flatnonzero(obs["action_mask"]).tolist() == [NOOP_ACTION]
    assert "totals" in info
