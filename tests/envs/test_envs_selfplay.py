"""Opponents as bot objects and policies, and self-play against a pool of snapshots."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest

import kerala.envs.gymnasium  # noqa: F401 - registers kerala/Kerala-v0
from kerala.actions import Decision
from kerala.bots import make_bot
from kerala.envs.encoding import IllegalActionError
from kerala.envs.gymnasium import KeralaEnv, PolicyOpponent
from kerala.envs.selfplay import SelfPlay, SnapshotPool
from kerala.views import PlayerView

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "self_play.py"


class CountingBot:
    """A bot object (the kerala.bots.Bot protocol) that records what it was shown."""

    def __init__(self) -> None:
        self.name = "counting"
        self.views: list[PlayerView] = []

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        self.views.append(view)
        return legal[-1]


class Recorder:
    """A policy object: the last legal id, remembering every mask it got."""

    def __init__(self) -> None:
        self.masks: list[npt.NDArray[np.int8]] = []
        self.sizes: set[int] = set()

    def __call__(
        self, observation: npt.NDArray[np.float32], action_mask: npt.NDArray[np.int8]
    ) -> int:
        self.masks.append(action_mask)
        self.sizes.add(observation.shape[0])
        return int(np.flatnonzero(action_mask)[-1])


def _play(env: gymnasium.Env, seed: int) -> dict:  # type: ignore[type-arg]
    obs, info = env.reset(seed=seed)
    while True:
        obs, _reward, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if terminated:
            return info


def test_a_bot_object_is_an_opponent() -> None:
    bot = CountingBot()
    env = KeralaEnv(num_players=2, opponents=bot)
    info = _play(env, 0)
    assert "totals" in info and len(bot.views) >= 30  # G2: one turn a round at least
    assert all(v.seat == 1 for v in bot.views)  # I1: it sees its own seat's view


def test_a_policy_sees_its_own_seat_and_a_legal_mask() -> None:
    policy = Recorder()
    env = KeralaEnv(num_players=3, opponents=[policy, "random"], observation="flat")
    _play(env, 1)
    assert policy.sizes == {env.layout.size}
    assert policy.masks and all(m.dtype == np.int8 and m.any() for m in policy.masks)
    assert isinstance(env._bots[1], PolicyOpponent) and env._bots[2].name == "random"


def test_a_plain_function_is_a_policy() -> None:
    def first(observation: npt.NDArray[np.float32], action_mask: npt.NDArray[np.int8]) -> np.int64:
        return np.int64(np.flatnonzero(action_mask)[0])

    env = KeralaEnv(num_players=2, opponents=first)
    assert "totals" in _play(env, 2)
    assert env._bots[1].name == "first"


def test_an_illegal_policy_action_names_the_opponent() -> None:
    env = KeralaEnv(num_players=2, opponents=lambda o, m: int(np.flatnonzero(m == 0)[0]), seat=1)
    with pytest.raises(IllegalActionError, match="opponent policy '<lambda>' in seat 0"):
        env.reset(seed=0)


def test_opponents_of_the_wrong_kind_are_refused() -> None:
    with pytest.raises(TypeError, match="bot spec, a bot"):
        KeralaEnv(num_players=2, opponents=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bot spec, a bot"):
        KeralaEnv(num_players=3, opponents=["random", 3.5])  # type: ignore[list-item]


def test_set_opponents_takes_effect_at_the_next_reset() -> None:
    env = KeralaEnv(num_players=2, opponents="random")
    env.reset(seed=0)
    bot = make_bot("greedy", seed=1)
    env.set_opponents([bot])
    assert env._bots[1].name == "random"
    env.reset(seed=0)
    assert env._bots[1] is bot


def test_the_pool_deep_copies_snapshots_and_keeps_the_newest() -> None:
    pool = SnapshotPool(["random"], max_size=2)
    policy = Recorder()
    pool.add(policy)
    policy.sizes.add(-1)
    first = pool.snapshots[0]
    assert isinstance(first, Recorder) and first is not policy and -1 not in first.sizes
    pool.add(policy)
    pool.add(policy, copy_policy=False)
    assert len(pool) == 3 and pool.snapshots[-1] is policy and first not in pool.snapshots
    assert next(iter(pool)) == "random"  # a starting opponent is never dropped
    rng = np.random.default_rng(0)
    assert {type(pool.sample(rng)).__name__ for _ in range(40)} == {"str", "Recorder"}
    with pytest.raises(RuntimeError, match="pool is empty"):
        SnapshotPool().sample(rng)


def test_self_play_draws_opponents_from_the_pool_per_episode() -> None:
    pool = SnapshotPool()
    env = SelfPlay(gymnasium.make("kerala/Kerala-v0", num_players=3), pool)
    with pytest.raises(RuntimeError, match="pool is empty"):
        env.reset(seed=0)
    learner = Recorder()
    env.add_snapshot(learner)
    env.add_snapshot("random")
    drawn = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        assert len(info["opponents"]) == 2
        drawn.update(info["opponents"])
    assert drawn == {"Recorder", "random"}
    for seed in range(3):
        _play(env, seed)
    # The snapshot played; the learner's own object was not touched.
    snapshot = pool.snapshots[0]
    assert isinstance(snapshot, Recorder) and snapshot.masks and learner.masks == []
    # A seed replays the draw.
    assert env.reset(seed=3)[1]["opponents"] == env.reset(seed=3)[1]["opponents"]


def test_self_play_in_a_vector_env_reaches_every_copy() -> None:
    def make() -> gymnasium.Env:
        return SelfPlay(gymnasium.make("kerala/Kerala-v0"), SnapshotPool(["random"]))

    envs = gymnasium.vector.SyncVectorEnv([make, make])
    envs.call("add_snapshot", Recorder())
    assert envs.get_attr("pool")[0] is not envs.get_attr("pool")[1]
    assert [len(p) for p in envs.get_attr("pool")] == [2, 2]
    envs.close()
    workers = gymnasium.vector.AsyncVectorEnv([make, make])
    try:
        workers.call("add_snapshot", Recorder())
        assert [len(p) for p in workers.get_attr("pool")] == [2, 2]
        _, infos = workers.reset(seed=0)
        drawn = {name for names in infos["opponents"] for name in names}
        assert drawn and drawn <= {"random", "Recorder"}
    finally:
        workers.close()


def _load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("self_play_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_self_play_example_trains_in_a_vector_env(capsys: pytest.CaptureFixture[str]) -> None:
    example = _load_example()
    returns = example.main(["--episodes", "6", "--envs", "2", "--snapshot-every", "2"])
    assert len(returns) >= 6 and all(-1.0 <= r <= 1.0 for r in returns)
    assert "episodes, mean reward" in capsys.readouterr().out
    # The promise: self-play with a vector env in under 50 lines (blank lines aside).
    lines = [line for line in EXAMPLE.read_text().splitlines() if line.strip()]
    assert len(lines) < 50
    assert "SelfPlay" in EXAMPLE.read_text() and "SyncVectorEnv" in EXAMPLE.read_text()
