"""Self-play for the Gymnasium env: a policy against a pool of its own snapshots.

>>> import gymnasium
>>> import kerala.envs.gymnasium  # registers kerala/Kerala-v0
>>> def first_legal(observation, action_mask):
...     return int(np.flatnonzero(action_mask)[0])
>>> env = SelfPlay(gymnasium.make("kerala/Kerala-v0", num_players=3), SnapshotPool(["random"]))
>>> env.add_snapshot(first_legal)
>>> obs, info = env.reset(seed=0)
>>> len(info["opponents"]), len(env.pool)
(2, 2)

- :class:`SnapshotPool` holds opponents (:data:`kerala.envs.gymnasium.Opponent`: bot specs, bot
  objects, policies ``policy(observation, action_mask) -> action``). :meth:`SnapshotPool.add`
  deep-copies what it is given, so a callable object holding its parameters (a NumPy array, a
  torch module) is frozen as it is at that moment; a plain function is kept as it is (a function
  is not copied), so give it its parameters as a frozen object. ``max_size`` keeps the newest
  snapshots; the opponents the pool was created with are never dropped.
- :class:`SelfPlay` wraps a ``kerala/Kerala-v0`` env: at each ``reset`` it draws one opponent
  per other seat, uniformly from the pool, from its own generator (seeded by
  ``reset(seed=...)``, so a seed replays the draw), seats them with
  :meth:`~kerala.envs.gymnasium.KeralaEnv.set_opponents`, and names them in
  ``info["opponents"]``. :meth:`SelfPlay.add_snapshot` adds to its pool; in a vector env call
  ``envs.call("add_snapshot", policy)``, which reaches every copy of the env, in
  ``SyncVectorEnv`` and in the processes of ``AsyncVectorEnv`` alike (give each env its own
  pool, as a factory that builds one does).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

import gymnasium
import numpy as np

from kerala.envs.gymnasium import KeralaEnv, ObsDict, Opponent


def opponent_name(opponent: Opponent) -> str:
    """A short name: the spec itself, a bot's ``name``, or a policy's (class) name."""
    if isinstance(opponent, str):
        return opponent
    name = getattr(opponent, "name", None) or getattr(opponent, "__name__", None)
    return str(name) if name else type(opponent).__name__


class SnapshotPool:
    """Opponents to draw from: fixed ones given at creation, then snapshots added later."""

    def __init__(self, opponents: Iterable[Opponent] = (), max_size: int | None = None) -> None:
        if max_size is not None and max_size < 1:
            raise ValueError(f"max_size must be at least 1, got {max_size}")
        self.fixed: list[Opponent] = list(opponents)
        self.snapshots: list[Opponent] = []
        self.max_size = max_size

    def add(self, policy: Opponent, *, copy_policy: bool = True) -> None:
        """Add a snapshot (deep-copied unless ``copy_policy`` is false); the oldest snapshot
        goes when there are more than ``max_size``."""
        self.snapshots.append(copy.deepcopy(policy) if copy_policy else policy)
        if self.max_size is not None and len(self.snapshots) > self.max_size:
            del self.snapshots[0]

    def __len__(self) -> int:
        return len(self.fixed) + len(self.snapshots)

    def __iter__(self) -> Iterator[Opponent]:
        yield from self.fixed
        yield from self.snapshots

    def sample(self, rng: np.random.Generator) -> Opponent:
        """One opponent, uniformly over the pool."""
        if not len(self):
            raise RuntimeError(
                "the snapshot pool is empty: add a snapshot, or create the pool with a "
                "starting opponent such as SnapshotPool(['random'])"
            )
        i = int(rng.integers(len(self)))
        return self.fixed[i] if i < len(self.fixed) else self.snapshots[i - len(self.fixed)]


class SelfPlay(gymnasium.Wrapper[ObsDict, np.int64, ObsDict, np.int64]):
    """A ``kerala/Kerala-v0`` env whose opponents are drawn from a pool at every reset."""

    def __init__(self, env: gymnasium.Env[ObsDict, np.int64], pool: SnapshotPool | None = None):
        super().__init__(env)
        if not isinstance(env.unwrapped, KeralaEnv):
            raise TypeError(f"SelfPlay wraps a kerala/Kerala-v0 env, got {env.unwrapped!r}")
        self.kerala: KeralaEnv = env.unwrapped
        self.pool = pool if pool is not None else SnapshotPool()
        self._draws = np.random.default_rng()

    def add_snapshot(self, policy: Opponent, copy_policy: bool = True) -> None:
        """Add ``policy`` to the pool (see :meth:`SnapshotPool.add`)."""
        self.pool.add(policy, copy_policy=copy_policy)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        if seed is not None:
            self._draws = np.random.default_rng(seed)
        chosen = [self.pool.sample(self._draws) for _ in range(self.kerala.num_players - 1)]
        self.kerala.set_opponents(chosen)
        obs, info = self.env.reset(seed=seed, options=options)
        info["opponents"] = [opponent_name(o) for o in chosen]
        return obs, info


__all__ = ["SelfPlay", "SnapshotPool", "opponent_name"]
