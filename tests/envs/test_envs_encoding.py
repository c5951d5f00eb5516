"""The shared action encoding and observation layout (kerala.envs.encoding)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from envlib import decision_states
from hypothesis import given, settings
from hypothesis import strategies as st

from kerala.actions import FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.envs.encoding import (
    ACTIONS,
    PASS_ACTION,
    SKIP_ACTION,
    TILE_POSITION,
    ActionEncoding,
    max_cells_for,
    ranked_returns,
)
from kerala.game import GameState, Phase, new_game
from kerala.grounds import Grounds
from kerala.tiles import COLORS, GAME_TILE_TYPES, MOVE_ELEPHANT, MOVE_TILE, load_tileset, tile
from kerala.views import sample_state
from kerala.vocabulary import Special

GAMES = {2: 25, 3: 15, 4: 15, 5: 15}


def test_sizes_follow_from_the_standard_tile_set() -> None:
    # S3/S4: 2 players have the most turns each (80 / 2 = 40), so 41 cells at most.
    assert max_cells_for(load_tileset("standard")) == 41
    assert ACTIONS.max_cells == 41
    assert ACTIONS.frontier_slots == 84
    assert ACTIONS.sp1_base == 2 + 25 * 8 + 20 * 32
    assert ACTIONS.num_actions == 842 + 2 * 41 + 41 * 84 == 4368
    assert len(GAME_TILE_TYPES) == 45


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_legal_decision_round_trips_exactly_once(n: int) -> None:
    """Every legal decision of many random games has one id, which decodes back to it."""
    seen: Counter[str] = Counter()
    for game in range(GAMES[n]):
        for s in decision_states(n, seed=1000 * n + game):
            legal = s.legal_decisions()
            ids = [ACTIONS.encode(s, d) for d in legal]
            assert len(set(ids)) == len(legal), "two legal decisions share an id"
            assert all(0 <= a < ACTIONS.num_actions for a in ids)
            for a, d in zip(ids, legal, strict=True):
                assert ACTIONS.decode(s, a) == d
                seen[type(d).__name__ + ("-arch" if type(d) is Place and d.arch else "")] += 1
            table = ACTIONS.legal_actions(s)
            assert list(table) == sorted(ids)
            assert [table[a] for a in ids] == legal
            mask = ACTIONS.action_mask(table)
            assert mask.dtype == np.int8 and int(mask.sum()) == len(legal)
    # The games exercised every kind of decision, follow-ups included (SP1, SP2).
    for kind in ("Pass", "Place", "Place-arch", "MoveElephant", "MoveStack", "FollowUpSkip"):
        assert seen[kind] > 0, kind


def test_decode_refuses_non_canonical_and_out_of_range_ids() -> None:
    s = new_game(["blue", "red"], seed=3)
    s.advance_chance()
    # Both elephants share the start tile (S2): only slot 0 names them.
    t = s.display[0]
    slot1 = ACTIONS.encode(
        s, Place(seat=0, take=t, to=(0, -1), from_=(0, 0), arch="N" if t.is_arch else None)
    )
    assert ACTIONS.decode(s, slot1).from_ == (0, 0)  # type: ignore[union-attr]
    width = 4 if t.is_arch else 1
    with pytest.raises(ValueError, match="canonical"):
        ACTIONS.decode(s, slot1 + 4 * width)
    with pytest.raises(ValueError, match="outside"):
        ACTIONS.decode(s, ACTIONS.num_actions)
    with pytest.raises(ValueError, match="outside"):
        ACTIONS.decode(s, -1)
    assert ACTIONS.decode(s, PASS_ACTION) == Pass(0)
    assert ACTIONS.decode(s, SKIP_ACTION) == FollowUpSkip(0)


def _line_state(vertical: bool, pending: Special) -> GameState:
    """Seat 0 owns a straight line of 41 stacks, the largest grounds 2 players reach."""
    s = new_game(["blue", "red"], seed=5)
    s.advance_chance()
    cells = [(0, i) if vertical else (i, 0) for i in range(41)]
    stacks = [((0, 0), [(tile("blue:start"), None)])]
    stacks += [(c, [(tile("red:e1"), None)]) for c in cells[1:]]
    s.grounds[0] = Grounds.from_cells("blue", stacks, [cells[-1], cells[20]])
    s.phase = Phase.FOLLOW_UP
    s.pending = pending
    return s


@pytest.mark.parametrize("vertical", [False, True])
def test_largest_grounds_fits_actions_and_observation(vertical: bool) -> None:
    s = _line_state(vertical, MOVE_TILE)
    legal = s.legal_decisions()
    table = ACTIONS.legal_actions(s)
    assert len(table) == len(legal)
    # A line of 41 cells has 2 * 41 + 2 = 84 empty neighbours: the last frontier slot is used.
    used_slots = {(a - ACTIONS.sp2_base) % 84 for a in table if a >= ACTIONS.sp2_base}
    assert 83 in used_slots and max(table) < ACTIONS.num_actions
    assert len(ACTIONS.frontier_order(s.grounds[0])) == ACTIONS.frontier_slots
    far = MoveStack(seat=0, from_=(0, 0), to=(0, 41) if vertical else (41, 0))
    assert far in legal
    assert ACTIONS.decode(s, ACTIONS.encode(s, far)) == far
    obs = ACTIONS.observation_dict(s.view(0))
    own = obs["grounds"][0]
    assert own[24].sum() == 41  # every stack is inside the frame
    row, col = np.argwhere(own[5 + 6] == 1)[0]  # the start tile (kind plane "start")
    assert (row, col) == (1, 1)
    s.pending = MOVE_ELEPHANT
    for d in s.legal_decisions():
        assert isinstance(d, MoveElephant | FollowUpSkip)
        assert ACTIONS.decode(s, ACTIONS.encode(s, d)) == d


def test_too_large_grounds_are_refused() -> None:
    small = ActionEncoding(max_cells=3)
    s = _line_state(False, MOVE_TILE)
    with pytest.raises(ValueError, match="more than the encoding's 3"):
        small.legal_actions(s)


def test_observation_pieces_and_point_of_view() -> None:
    """I1: the observer is player slot 0; the others follow clockwise."""
    s = new_game(["blue", "red", "green"], seed=11)
    s.advance_chance()
    for seat in range(3):
        p = ACTIONS.observation_dict(s.view(seat))
        assert [p[k].shape for k in ("grounds", "display", "unseen", "players")] == [
            (5, 25, 43, 43),
            (45,),
            (45,),
            (5, 10),
        ]
        for slot in range(3):
            color = s.colors[(seat + slot) % 3]
            assert p["players"][slot, 1 + COLORS.index(color)] == 1.0
            assert p["grounds"][slot, COLORS.index(color), 1, 1] == 1.0  # start tile color
            assert p["grounds"][slot, 22, 1, 1] == p["grounds"][slot, 23, 1, 1] == 1.0
        assert not p["players"][3:].any() and not p["grounds"][3:].any()
        assert p["players"][(0 - seat) % 3, 7] == 1.0  # seat 0 owns the bag (G1)
        assert p["players"][(0 - seat) % 3, 9] == 1.0  # and moves first (G2)
        for t in s.display:
            assert p["display"][TILE_POSITION[t]] > 0
        assert p["phase"].tolist() == [1.0, 0.0, 0.0]
        assert p["progress"][0] == pytest.approx(len(s.bag) / 100)
    vec = ACTIONS.observation(s.view(0))
    assert vec.dtype == np.float32 and vec.shape == (ACTIONS.obs_size,)
    assert vec.min() >= 0.0 and vec.max() <= 1.0


def test_observation_hides_removed_tiles_and_bag_order() -> None:
    """I2: states differing only in hidden tiles give the same observation to every seat."""
    s = new_game(["blue", "red"], seed=21)
    s.advance_chance()
    for _ in range(9):
        s.apply(s.legal_decisions()[-1])
        if s.is_chance():
            s.advance_chance()
    other = sample_state(s.view(0), random.Random(4))
    assert Counter(other.removed) != Counter(s.removed)  # the hidden part really differs
    for seat in range(2):
        assert np.array_equal(
            ACTIONS.observation(s.view(seat)), ACTIONS.observation(other.view(seat))
        )


def test_watcher_views_have_no_observation() -> None:
    s = new_game(["blue", "red"], seed=2)
    s.advance_chance()
    with pytest.raises(ValueError, match="seat"):
        ACTIONS.observation(s.view(None))


def test_ranked_returns_are_zero_sum_sc7() -> None:
    assert ranked_returns([10, 20]) == [-1.0, 1.0]
    assert ranked_returns([5, 5, 5]) == [0.0, 0.0, 0.0]
    r = ranked_returns([30, 10, 30, -4, 12])
    assert sum(r) == pytest.approx(0.0)
    assert r[0] == r[2] == 0.75 and r[3] == -1.0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 41), st.randoms(use_true_random=False))
def test_connected_grounds_bounds_behind_the_sizes(m: int, rng: random.Random) -> None:
    """The two facts the encoding's sizes rest on, for random connected grounds of m cells:
    at most 2m + 2 empty neighbours (F), and width + height <= m + 1 (the 43-wide frame)."""
    cells = {(0, 0)}
    while len(cells) < m:
        x, y = rng.choice(sorted(cells))
        dx, dy = rng.choice([(0, -1), (1, 0), (0, 1), (-1, 0)])
        cells.add((x + dx, y + dy))
    stacks = [(c, [(tile("blue:e1"), None)]) for c in cells]
    g = Grounds.from_cells("blue", stacks, [(0, 0), (0, 0)])
    assert len(ACTIONS.frontier_order(g)) <= 2 * m + 2 <= ACTIONS.frontier_slots
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    assert (max(xs) - min(xs) + 1) + (max(ys) - min(ys) + 1) <= m + 1 <= ACTIONS.frame - 1
