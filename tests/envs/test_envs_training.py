"""The ``learned`` bot's training (benchmarks/train_learned.py) runs through the project's
Gymnasium env: a project bot plays the learner's seat from its own view, and a tiny run writes
weights of the right shape that moved, the same from the same seed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from kerala.bots import make_bot
from kerala.bots.evaluation import FEATURES
from kerala.bots.learned import hand_params, load_params
from kerala.envs.encoding import ACTIONS
from kerala.envs.gymnasium import KeralaEnv

TRAIN_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "train_learned.py"


def test_a_project_bot_plays_the_learners_seat_from_its_own_view() -> None:
    env = KeralaEnv(num_players=2, opponents="random", seat=1, reward="margin")
    obs, _ = env.reset(seed=4)
    bot, twin = make_bot("greedy", seed=0), make_bot("greedy", seed=0)
    done, steps = False, 0
    info: dict[str, object] = {}
    while not done:
        a = env.bot_action(bot)
        assert obs["action_mask"][a] == 1  # a legal action, as the mask says
        s = env.state_now
        chosen = twin.choose(s.view(1), s.legal_decisions())  # the same bot, by hand
        assert ACTIONS.encode(s, chosen) == a
        obs, _, done, _, info = env.step(a)
        steps += 1
    assert steps >= 40 and info["rank"] in (1, 2)
    assert not np.any(obs["action_mask"][1:])  # the end: only the no-op id


def load_train_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_learned", TRAIN_SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["train_learned"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_a_tiny_training_run_writes_weights_of_the_right_shape_that_moved(tmp_path: Path) -> None:
    train = load_train_script()
    train.main(
        [
            "--seeds",
            "7",
            "--generations",
            "1",
            "--population",
            "3",
            "--elite",
            "2",
            "--deals",
            "1",
            "--curve-games",
            "2",
            "--out-dir",
            str(tmp_path),
            "--curve",
            str(tmp_path / "curve.csv"),
        ]
    )
    learned = load_params(tmp_path / "learned-seed7.npz")
    start = hand_params()
    assert len(learned.linear) == len(start.linear)
    assert learned != start
    # Only the searched weights move: the ``left**2`` coefficients keep their hand value.
    m = len(FEATURES)
    assert learned.linear[m:] == start.linear[m:]
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0].startswith("seed,generation,training_games")
    assert len(rows) == 3  # generation 0 and 1
    # The same seed gives the same weights.
    again, _ = train.train(7, generations=1, population=3, deals=1, elite=2, log=False)
    assert again == learned
