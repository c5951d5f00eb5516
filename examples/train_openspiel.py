"""Train OpenSpiel's DQN (PyTorch) on ``python_kerala`` through ``rl_environment``.

Needs the ``train`` extra (``pip install 'kerala[train]'``: torch, sb3-contrib) besides
``kerala[rl]``. Runs on a laptop CPU::

    python examples/train_openspiel.py --minutes 10
    python examples/train_openspiel.py --minutes 1 --eval-games 20   # a quick look

Player 0 is a DQN agent (OpenSpiel's ``open_spiel.python.pytorch.dqn``), player 1 plays
uniformly random legal actions. The game is loaded with ``observation="flat"``: OpenSpiel's
agents are MLPs over the information state tensor, and the flat layout (2,327 values for 2
players, every stack as one row, docs/envs.md) is the one meant for them. Every
``--eval-every`` episodes the greedy policy of the agent (no exploration) plays
``--eval-games`` games against ``random`` and against Kerala's ``greedy`` bot and prints one
line of the learning curve: the share of games won (ties count half).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import dqn

import kerala.envs.openspiel  # noqa: F401 - registers python_kerala
from kerala.bots import make_bot
from kerala.envs.encoding import ACTIONS


def bot_action(env: rl_environment.Environment, bot: Any) -> int:
    """The action id a Kerala bot chooses for the player to move (public view only, I1)."""
    engine = env.get_state.engine
    p = engine.current_player
    decision = bot.choose(engine.view(p), engine.legal_decisions())
    return ACTIONS.encode(engine, decision)


def win_rate(
    env: rl_environment.Environment, agent: dqn.DQN, opponent: str, games: int, seed: int
) -> float:
    bot = make_bot(opponent, seed=seed)
    wins = 0.0
    env.seed(seed)
    for _ in range(games):
        ts = env.reset()
        while not ts.last():
            if ts.observations["current_player"] == 0:
                action = agent.step(ts, is_evaluation=True).action
            else:
                action = bot_action(env, bot)
            ts = env.step([action])
        totals = [b.total for b in env.get_state.engine.scores()]
        best = max(totals)
        if totals[0] == best:
            wins += 1.0 / totals.count(best)
    return wins / games


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0, help="training time (evaluation aside)")
    p.add_argument("--eval-every", type=int, default=500, help="episodes between evaluations")
    p.add_argument("--eval-games", type=int, default=100, help="games per evaluation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.eval_every <= 0 or args.eval_games <= 0:
        p.error("--minutes, --eval-every and --eval-games must be positive")
    torch.set_num_threads(args.threads)
    game = pyspiel.load_game("python_kerala", {"players": 2, "observation": "flat"})
    env = rl_environment.Environment(game, seed=args.seed)
    eval_env = rl_environment.Environment(game, seed=args.seed + 1)
    size = env.observation_spec()["info_state"][0]
    agent = dqn.DQN(
        player_id=0,
        state_representation_size=size,
        num_actions=env.action_spec()["num_actions"],
        hidden_layers_sizes=[256, 256],
        replay_buffer_capacity=50_000,
        batch_size=64,
        learning_rate=1e-3,
        optimizer_str="adam",
        epsilon_decay_duration=100_000,
        epsilon_end=0.05,
        min_buffer_size_to_learn=1_000,
        update_target_network_every=1_000,
        seed=args.seed,
    )
    rng = np.random.default_rng(args.seed)
    print(f"# observation {size} values, {args.minutes} min of training", flush=True)
    trained = 0.0
    episodes = steps = 0
    while trained < args.minutes * 60:
        mark = time.perf_counter()
        ts = env.reset()
        while not ts.last():
            if ts.observations["current_player"] == 0:
                action = agent.step(ts).action
            else:
                legal = ts.observations["legal_actions"][1]
                action = legal[int(rng.integers(len(legal)))]
            ts = env.step([action])
            steps += 1
        agent.step(ts)  # the final reward
        episodes += 1
        trained += time.perf_counter() - mark
        if episodes % args.eval_every == 0 or trained >= args.minutes * 60:
            row = {
                "episodes": episodes,
                "steps": steps,
                "train_minutes": round(trained / 60, 2),
                "vs_random": win_rate(eval_env, agent, "random", args.eval_games, 1_000),
                "vs_greedy": win_rate(eval_env, agent, "greedy", args.eval_games, 2_000),
            }
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
