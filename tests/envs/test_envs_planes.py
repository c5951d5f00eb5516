"""The ``planes`` layout of python_kerala (issue 13): one CHW tensor, true shape, exact always."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from envlib import decision_states
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.observation import make_observation
from test_envs_observations import expected, line_state, long_games

import kerala.envs.openspiel  # noqa: F401 - registers python_kerala
from kerala.envs.observations import (
    CELL_FEATURES,
    MAX_CELLS,
    ROW_FEATURES,
    WINDOW,
    PlanesLayout,
    observation_layout,
    planes_layout,
)
from kerala.game import GameState


def check_planes(state: GameState, seat: int) -> np.ndarray:
    """Lay out by hand the documented channel list from ``compact``, compare with the planes
    tensor, and read every grounds back from the tensor alone (compared with the engine)."""
    n = state.n
    planes = planes_layout(n)
    compact = observation_layout("compact", n)
    vec = planes.observation(state, seat)
    assert vec.dtype == np.float32 and vec.shape == (planes.size,)
    assert planes.channels == 61 * n + 95
    t = planes.views(vec)["planes"]
    assert t.shape == (planes.channels, WINDOW, WINDOW)
    c = compact.views(compact.observation(state, seat))
    for s in range(n):
        for f in range(CELL_FEATURES):
            assert np.array_equal(t[CELL_FEATURES * s + f], c["grounds"][s, f])
        for j in range(ROW_FEATURES):
            plane = t[CELL_FEATURES * n + ROW_FEATURES * s + j].reshape(-1)
            assert np.array_equal(plane[:MAX_CELLS], c["overflow"][s, :, j])
            assert not plane[MAX_CELLS:].any()
    tail = np.concatenate(
        [c["players"].reshape(-1), c["display"], c["unseen"], c["phase"], c["progress"]]
    )
    feats = t[(CELL_FEATURES + ROW_FEATURES) * n :]
    assert np.array_equal(feats, np.broadcast_to(tail[:, None, None], feats.shape))
    for slot, sketch in enumerate(planes.grounds_from(vec)):
        stacks, elephants = expected(state.grounds[(seat + slot) % n])
        assert {k: (s.top, s.edge, s.height) for k, s in sketch.stacks.items()} == stacks
        assert sketch.elephants == elephants
    return vec


@pytest.mark.parametrize("seed", [1, 2])
def test_planes_is_exact_for_very_long_grounds_issue_13(seed: int) -> None:
    """Issue 13: grounds far outside the 16-cell window stay exact through the overflow planes."""
    overflowed = 0
    for i, s in enumerate(long_games(seed)):
        if i % 6 == 0 or s.is_over():
            vec = check_planes(s, 0)
            check_planes(s, 1)
            rows = planes_layout(2).views(vec)["planes"][2 * CELL_FEATURES + ROW_FEATURES - 1]
            overflowed = max(overflowed, int(rows.sum()))
    assert overflowed > 5  # seat 0's overflow stack flags: the window was really left


@pytest.mark.parametrize(
    "shape",
    [
        [(i, 0) for i in range(41)],  # the longest grounds 2 players reach (M = 41)
        [(0, -i) for i in range(41)],
        [(i // 2, (i + 1) // 2) for i in range(41)],  # a staircase
    ],
)
def test_planes_is_exact_for_extreme_grounds_issue_13(shape: list[tuple[int, int]]) -> None:
    s = line_state(shape, random.Random(len(shape)))
    for seat in (0, 1):
        check_planes(s, seat)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 41), st.randoms(use_true_random=False))
def test_planes_is_exact_for_random_connected_grounds_issue_13(m: int, rng: random.Random) -> None:
    cells = [(0, 0)]
    seen = {(0, 0)}
    while len(cells) < m:
        x, y = rng.choice(cells)
        dx, dy = rng.choice([(0, -1), (1, 0), (0, 1), (-1, 0), (1, 0)])
        if (x + dx, y + dy) not in seen:
            seen.add((x + dx, y + dy))
            cells.append((x + dx, y + dy))
    check_planes(line_state(cells, rng), 0)


@pytest.mark.parametrize("n", [3, 5])
def test_planes_for_more_players_in_play(n: int) -> None:
    for i, s in enumerate(decision_states(n, seed=n)):
        if i % 15 == 0:
            check_planes(s, i % n)


def test_to_compact_refuses_a_tensor_that_is_no_planes_observation() -> None:
    s = line_state([(0, 0), (1, 0)], random.Random(1))
    planes = planes_layout(2)
    vec = planes.observation(s, 0)
    bad = vec.copy()
    bad[-1] = 0.5  # one value of the constant "progress: 1" plane
    with pytest.raises(ValueError, match="not constant"):
        planes.to_compact(bad)
    bad = vec.copy()
    bad[2 * CELL_FEATURES * WINDOW * WINDOW + MAX_CELLS] = 1.0
    with pytest.raises(ValueError, match="past its 41 rows"):
        planes.to_compact(bad)


# -- OpenSpiel -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_openspiel_reports_the_true_chw_shape_issue_13(n: int) -> None:
    """Issue 13: the tensor shapes are the true [C, H, W] (chess: [20, 8, 8]), C = 61 n + 95."""
    game = pyspiel.load_game("python_kerala", {"players": n, "observation": "planes"})
    assert isinstance(game.layout, PlanesLayout)
    want = [61 * n + 95, WINDOW, WINDOW]
    assert game.observation_tensor_shape() == want
    assert game.information_state_tensor_shape() == want
    assert game.observation_tensor_size() == int(np.prod(want))
    assert game.information_state_tensor_size() == int(np.prod(want))
    if n == 2:
        assert game.observation_tensor_shape() == [217, 16, 16]  # 55,552 values


def test_openspiel_observer_buffer_equals_the_state_tensor_issue_13() -> None:
    """The observer writes in place into its buffer; it equals the state's tensors."""
    game = pyspiel.load_game("python_kerala", {"players": 3, "observation": "planes"})
    observer = make_observation(game)
    buffer = observer.tensor
    assert list(observer.dict) == ["planes"]
    assert observer.dict["planes"].shape == (278, 16, 16)
    assert np.shares_memory(observer.dict["planes"], buffer)
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    checked = 0
    while not state.is_terminal() and checked < 40:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        for player in range(3):
            observer.set_from(state, player)
            assert observer.tensor is buffer  # in place
            assert np.array_equal(buffer, state.observation_tensor(player))
            assert np.array_equal(buffer, state.information_state_tensor(player))
            assert np.array_equal(buffer, check_planes(state.engine, player))
        state.apply_action(int(rng.choice(state.legal_actions())))
        checked += 1


def test_openspiel_defaults_to_compact_and_offers_every_layout() -> None:
    """``compact`` is the default (as in the other envs), reported flat; planes on request."""
    game = pyspiel.load_game("python_kerala")
    assert game.observation_tensor_shape() == [observation_layout("compact", 2).size]
    assert next(iter(make_observation(game).dict)) == "grounds"
    in_planes = pyspiel.load_game("python_kerala", {"observation": "planes"})
    pyspiel.random_sim_test(in_planes, num_sims=1, serialize=True, verbose=False)
    planes = make_observation(game, params={"observation": "planes"})
    assert planes.tensor.shape == (planes_layout(2).size,)
    with pytest.raises(ValueError, match="one of planes, compact, flat, graph, full"):
        pyspiel.load_game("python_kerala", {"observation": "pixels"})
