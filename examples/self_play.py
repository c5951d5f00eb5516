"""Self-play in a vector env: a tiny masked policy (one preference per action id: put your
network there) learns by REINFORCE; every ``--snapshot-every`` episodes a frozen copy joins
each env's opponent pool. ``python examples/self_play.py --episodes 200`` (``kerala[rl]``)."""

import argparse

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import kerala.envs.gymnasium  # noqa: F401 - registers kerala/Kerala-v0
from kerala.envs.selfplay import SelfPlay, SnapshotPool


class Preferences:
    """``policy(observation, action_mask) -> action``: a softmax over the legal ids."""

    def __init__(self, seed: int) -> None:
        self.theta, self.rng = np.zeros(4368), np.random.default_rng(seed)

    def probs(self, mask: np.ndarray) -> np.ndarray:
        z = np.where(mask > 0, self.theta, -np.inf)
        return np.exp(z - z.max()) / np.exp(z - z.max()).sum()

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(4368, p=self.probs(action_mask)))


def main(argv: list[str] | None = None) -> list[float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--snapshot-every", type=int, default=20)
    args = p.parse_args(argv)
    policy = Preferences(seed=0)

    def make() -> gymnasium.Env:  # each env has its own pool, starting with "random"
        return SelfPlay(
            gymnasium.make("kerala/Kerala-v0", observation="flat"), SnapshotPool(["random"])
        )

    envs = SyncVectorEnv([make] * args.envs, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=0)
    grads, returns = [np.zeros(4368) for _ in range(args.envs)], []
    while len(returns) < args.episodes:
        masks = obs["action_mask"]
        actions = [policy(o, m) for o, m in zip(obs["observation"], masks, strict=True)]
        for i, a in enumerate(actions):  # d log pi(a) / d theta = onehot(a) - pi
            grads[i] += (np.arange(4368) == a) - policy.probs(masks[i])
        obs, rewards, terminated, truncated, _ = envs.step(np.array(actions))
        for i in np.flatnonzero(terminated | truncated):
            policy.theta += 0.05 * rewards[i] * grads[i]
            grads[i], returns = np.zeros(4368), [*returns, float(rewards[i])]
            if len(returns) % args.snapshot_every == 0:
                envs.call("add_snapshot", policy)  # deep-copied: a frozen opponent
    envs.close()
    print(f"{len(returns)} episodes, mean reward of the last 50: {np.mean(returns[-50:]):+.2f}")
    return returns


if __name__ == "__main__":
    main()
