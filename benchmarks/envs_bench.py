"""Environment steps per second for the PettingZoo, OpenSpiel and Gymnasium wrappers.

Every environment is driven with uniformly random *legal* actions (read from the action mask or
``legal_actions()``); a step is one decision of one player (follow-ups included). Chance nodes
(draws) are not counted as steps, but their cost is included.

- ``pettingzoo``: ``env.last()`` (observation + mask), the observation copied (as a learner's
  buffer would), then ``env.step`` for every decision, in the default (``compact``) layout;
  ``pettingzoo-flat`` and ``pettingzoo-full`` the same in those layouts;
- ``go_v5``: the same loop on PettingZoo's own ``go_v5`` (19×19), the reference of issue 13;
- ``pettingzoo-noobs``: the same loop reading only ``raw_env.legal_actions()`` (no
  observation tensor built), the cost of the rules and the encoding alone;
- ``openspiel``: ``state.legal_actions()`` and ``apply_action``; chance sampled from
  ``chance_outcomes()``; no tensors;
- ``openspiel-obs``: the same plus the acting player's observation tensor at every decision,
  through ``open_spiel.python.observation.make_observation`` (the game's default ``compact``
  observer, filled in place in its NumPy buffer);
- ``openspiel-rl``: OpenSpiel's own ``rl_environment.Environment`` (what its DQN, NFSP, PPO
  use): each step builds every player's information state tensor and legal actions, in the
  game's default layout (``compact``); ``openspiel-rl-flat`` and ``openspiel-rl-planes`` the
  same with the game parameter ``observation="flat"`` or ``"planes"``;
- ``gymnasium``: ``env.step`` of the learner (seat 0) with ``opponents="random"``; a step
  includes the opponents' turns, so it is also reported per decision of any player;
- ``gymnasium-greedy``: the same with ``opponents="greedy"``.

Each line gives steps per wall-clock second and per CPU second of the process (every loop is
single-threaded): on a shared machine the second is the steadier figure, close to what an idle
core gives; the CPU share says how busy the machine was.

Usage::

    .venv/bin/python benchmarks/envs_bench.py --players 2 --seconds 5
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _aec_loop(make: Callable[[], Any], seconds: float) -> tuple[int, int, float]:
    """Random legal actions through ``env.last()``, the observation copied at every step."""
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    seed = 0
    e = make()
    while time.perf_counter() - start < seconds:
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            buffer = np.array(obs["observation"], copy=True)
            assert buffer.size
            e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            steps += 1
            if time.perf_counter() - start > 3 * seconds:
                break  # a game of Go can last long; stop mid-game past the budget
        games += 1
        seed += 1
    return steps, games, time.perf_counter() - start


def bench_go(seconds: float) -> tuple[int, int, float]:
    from pettingzoo.classic import go_v5

    return _aec_loop(lambda: go_v5.env(), seconds)


def bench_pettingzoo(
    players: int, seconds: float, observe: bool, layout: str = "compact"
) -> tuple[int, int, float]:
    from kerala.envs.pettingzoo import env as make_env
    from kerala.envs.pettingzoo import raw_env

    if observe:
        return _aec_loop(lambda: make_env(num_players=players, observation=layout), seconds)
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        r = raw_env(num_players=players)
        r.reset(seed=seed)
        while not r.state_now.is_over():
            legal = r.legal_actions()
            r.step(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
        seed += 1
    return steps, games, time.perf_counter() - start


def bench_openspiel(players: int, seconds: float, observe: bool) -> tuple[int, int, float]:
    import pyspiel
    from open_spiel.python.observation import make_observation

    import kerala.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_kerala", {"players": players})
    observer = make_observation(game)
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probs = np.array([p for _, p in outcomes])
                state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs))][0])
                continue
            if observe:
                observer.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def bench_rl_environment(players: int, seconds: float, layout: str) -> tuple[int, int, float]:
    import pyspiel
    from open_spiel.python import rl_environment

    import kerala.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_kerala", {"players": players, "observation": layout})
    env = rl_environment.Environment(game)
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            legal = ts.observations["legal_actions"][p]
            ts = env.step([legal[int(rng.integers(len(legal)))]])
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def bench_gymnasium(players: int, seconds: float, opponents: str) -> tuple[int, int, float]:
    import gymnasium

    import kerala.envs.gymnasium  # noqa: F401

    env = gymnasium.make("kerala/Kerala-v0", num_players=players, opponents=opponents)
    rng = np.random.default_rng(0)
    steps = games = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        obs, _info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, _reward, terminated, _truncated, _info = env.step(action)
            steps += 1
        games += 1
        seed += 1
    return steps, games, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4, 5])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per environment")
    parser.add_argument("--only", nargs="*", help="run only these benchmarks")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be > 0")
    n, sec = args.players, args.seconds
    runs: dict[str, Callable[[], tuple[int, int, float]]] = {
        "go_v5": lambda: bench_go(sec),
        "pettingzoo": lambda: bench_pettingzoo(n, sec, observe=True),
        "pettingzoo-flat": lambda: bench_pettingzoo(n, sec, observe=True, layout="flat"),
        "pettingzoo-full": lambda: bench_pettingzoo(n, sec, observe=True, layout="full"),
        "pettingzoo-noobs": lambda: bench_pettingzoo(n, sec, observe=False),
        "openspiel": lambda: bench_openspiel(n, sec, observe=False),
        "openspiel-obs": lambda: bench_openspiel(n, sec, observe=True),
        "openspiel-rl": lambda: bench_rl_environment(n, sec, "compact"),
        "openspiel-rl-flat": lambda: bench_rl_environment(n, sec, "flat"),
        "openspiel-rl-planes": lambda: bench_rl_environment(n, sec, "planes"),
        "gymnasium": lambda: bench_gymnasium(n, sec, "random"),
        "gymnasium-greedy": lambda: bench_gymnasium(n, sec, "greedy"),
    }
    unknown = sorted(set(args.only or ()) - set(runs))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(runs)}")
    results = {}
    for name, run in runs.items():
        if args.only and name not in args.only:
            continue
        cpu = time.process_time()
        steps, games, elapsed = run()
        cpu = time.process_time() - cpu
        results[name] = {
            "steps": steps,
            "games": games,
            "seconds": round(elapsed, 2),
            "cpu_seconds": round(cpu, 2),
            "steps_per_s": round(steps / elapsed, 1),
            "steps_per_cpu_s": round(steps / cpu, 1),
            "games_per_s": round(games / elapsed, 3),
        }
        if not args.json:
            print(
                f"{name:19s} {n} players: {steps / elapsed:8.1f} steps/s, "
                f"{steps / cpu:8.1f} per CPU s ({steps} steps, {games} games, "
                f"{elapsed:.1f} s, CPU {100 * cpu / elapsed:.0f}%)",
                flush=True,
            )
    if args.json:
        print(
            json.dumps(
                {"players": n, "python": platform.python_version(), "results": results}, indent=2
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
