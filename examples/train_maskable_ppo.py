"""Train sb3-contrib's MaskablePPO on ``kerala/Kerala-v0`` and print win rates as it learns.

Needs the ``train`` extra (``pip install 'kerala[train]'``: torch, sb3-contrib). Runs on a
laptop CPU::

    python examples/train_maskable_ppo.py --minutes 30
    python examples/train_maskable_ppo.py --minutes 2 --eval-games 20   # a quick look

The learner plays seat 0 of a 2-player game (``--players`` for more) against ``random``
opponents (``--opponents``), in the default ``compact`` observation layout. The policy reads
that layout as it is meant to be read (docs/envs.md): a small convolutional net over the
``grounds`` planes (players × 25 planes, 16 × 16) and a dense layer over everything else
(the ``overflow`` rows of stacks outside the window, ``players``, ``display``, ``unseen``,
``phase``, ``progress``). Illegal actions are masked with ``env.unwrapped.action_masks()``.
``--reward margin`` trains on the score margin (times ``--margin-scale``) instead of the
``rank`` reward: a denser signal, since every point counts; evaluation is by wins either way.

Every ``--eval-every`` steps it plays ``--eval-games`` games against ``random`` and against
``greedy`` with the current policy (deterministic, masked) on fixed seeds and prints one line
of the learning curve; at the end, ``--final-games`` games against ``random``. Training time
is wall-clock time spent learning, evaluations aside; ``cpu_minutes`` is the CPU time of the
whole process so far (evaluations included), which tells how busy a shared machine was. Rewards are
``+1`` for a win, ``-1`` for a loss (the env's ``rank`` reward); a tie counts half a win.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

import kerala.envs.gymnasium  # noqa: F401 - registers kerala/Kerala-v0
from kerala.envs.observations import ObservationLayout, observation_layout


class ObservationOnly(gymnasium.ObservationWrapper[Any, Any, Any]):
    """Keep only the observation vector; the mask goes through ``ActionMasker``."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]  # type: ignore[index]

    def observation(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        return observation["observation"]


def make_env(
    players: int, opponents: str, reward: str = "rank", scale: float = 1.0
) -> gymnasium.Env[Any, Any]:
    env = gymnasium.make(
        "kerala/Kerala-v0", num_players=players, opponents=opponents, reward=reward
    )
    if scale != 1.0:
        env = gymnasium.wrappers.TransformReward(env, lambda r: r * scale)
    return ActionMasker(ObservationOnly(env), lambda e: e.unwrapped.action_masks())


class CompactExtractor(BaseFeaturesExtractor):
    """A conv net over the ``grounds`` planes plus a dense layer over the other pieces."""

    def __init__(self, observation_space: gymnasium.spaces.Box, layout: ObservationLayout):
        super().__init__(observation_space, features_dim=128)
        shapes = dict(layout.pieces)
        n, planes, w, _ = shapes["grounds"]
        self.grid_shape = (n * planes, w, w)
        self.grid_size = n * planes * w * w
        assert layout.offsets["grounds"] == 0  # the planes come first in the compact layout
        rest = layout.size - self.grid_size
        # Small on purpose: a 2-core CPU spends most of PPO's time in these layers.
        self.conv = nn.Sequential(
            nn.Conv2d(n * planes, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        conv_out = 16 * ((w + 1) // 2) ** 2
        self.dense = nn.Sequential(nn.Linear(rest, 64), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(conv_out + 64, 128), nn.ReLU())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        grid = obs[:, : self.grid_size].reshape(-1, *self.grid_shape)
        return self.head(torch.cat([self.conv(grid), self.dense(obs[:, self.grid_size :])], 1))


def win_rate(model: MaskablePPO, players: int, opponent: str, games: int, seed: int) -> float:
    """Share of games won by the policy (ties count half), on seeds ``seed …``."""
    env = make_env(players, opponent)
    wins = 0.0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        info: dict[str, Any] = {}
        while not done:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, _reward, done, _truncated, info = env.step(int(action))
        totals = info["totals"]
        best = max(totals)
        if totals[0] == best:
            wins += 1.0 / totals.count(best)
    return wins / games


class Curve(BaseCallback):
    """Evaluates every ``every`` steps and stops training at the time limit."""

    def __init__(self, args: argparse.Namespace, started: float) -> None:
        super().__init__()
        self.args = args
        self.started = started
        self.next_eval = args.eval_every
        self.train_seconds = 0.0
        self.mark = time.perf_counter()
        self.rows: list[dict[str, float]] = []

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.args.eval_every
            self.evaluate()
        return self.train_seconds + (time.perf_counter() - self.mark) < self.args.minutes * 60

    def evaluate(self) -> None:
        self.train_seconds += time.perf_counter() - self.mark
        a = self.args
        row = {
            "steps": self.num_timesteps,
            "train_minutes": round(self.train_seconds / 60, 2),
            "cpu_minutes": round(time.process_time() / 60, 2),
            "vs_random": win_rate(self.model, a.players, "random", a.eval_games, 10_000),
            "vs_greedy": win_rate(self.model, a.players, "greedy", a.eval_games // 2, 20_000),
        }
        self.rows.append(row)
        print(json.dumps(row), flush=True)
        self.mark = time.perf_counter()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, choices=[2, 3, 4, 5])
    p.add_argument("--opponents", default="random", help="bot spec of the other seats")
    p.add_argument("--minutes", type=float, default=30.0, help="training time (evaluation aside)")
    p.add_argument("--eval-every", type=int, default=20_000, help="steps between evaluations")
    p.add_argument("--eval-games", type=int, default=100, help="games vs random per evaluation")
    p.add_argument("--final-games", type=int, default=400, help="final games vs random")
    p.add_argument(
        "--reward",
        default="rank",
        choices=["rank", "margin"],
        help="training reward: rank (+1/-1) or margin (points, times --margin-scale)",
    )
    p.add_argument("--margin-scale", type=float, default=0.05, help="scale of margin rewards")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--save", help="save the trained model to this path")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.eval_every <= 0 or args.eval_games <= 1:
        p.error("--minutes, --eval-every and --eval-games must be positive (eval-games >= 2)")
    torch.set_num_threads(args.threads)
    layout = observation_layout("compact", args.players)
    scale = args.margin_scale if args.reward == "margin" else 1.0
    env = make_env(args.players, args.opponents, args.reward, scale)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=2048,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        ent_coef=0.01,
        seed=args.seed,
        policy_kwargs={
            "features_extractor_class": CompactExtractor,
            "features_extractor_kwargs": {"layout": layout},
            "net_arch": {"pi": [], "vf": [64]},
        },
        verbose=0,
    )
    params = sum(t.numel() for t in model.policy.parameters())
    print(
        f"# {params} parameters, observation {layout.size} values, {args.minutes} min, "
        f"reward {args.reward}",
        flush=True,
    )
    started = time.perf_counter()
    curve = Curve(args, started)
    curve.init_callback(model)
    row0 = {
        "steps": 0,
        "train_minutes": 0.0,
        "vs_random": win_rate(model, args.players, "random", args.eval_games, 10_000),
        "vs_greedy": win_rate(model, args.players, "greedy", args.eval_games // 2, 20_000),
    }
    print(json.dumps(row0), flush=True)
    curve.mark = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=curve)
    curve.train_seconds += time.perf_counter() - curve.mark
    final = win_rate(model, args.players, "random", args.final_games, 50_000)
    steps = model.num_timesteps
    print(
        json.dumps(
            {
                "final_vs_random": final,
                "final_games": args.final_games,
                "steps": steps,
                "train_minutes": round(curve.train_seconds / 60, 2),
                "cpu_minutes": round(time.process_time() / 60, 2),
                "steps_per_s": round(steps / max(curve.train_seconds, 1e-9), 1),
            }
        ),
        flush=True,
    )
    if args.save:
        model.save(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
