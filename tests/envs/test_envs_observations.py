"""Observation layouts (kerala.envs.observations), issue 13: compact by default, exact always."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from envlib import decision_states
from hypothesis import given, settings
from hypothesis import strategies as st

from kerala.actions import Decision, Place
from kerala.envs.encoding import ACTIONS, ActionEncoding
from kerala.envs.observations import (
    LAYOUTS,
    MAX_CELLS,
    ROW_FEATURES,
    WINDOW,
    ObservationLayout,
    PlanesLayout,
    observation_layout,
    planes_layout,
)
from kerala.game import GameState, new_game
from kerala.grounds import Grounds, cell, key
from kerala.scoring import score_grounds
from kerala.tiles import COLORS, EDGES, GAME_TILE_TYPES, START_TILES, TileType, tile
from kerala.views import sample_state

Sketch = tuple[dict[tuple[int, int], tuple[TileType, str | None, int]], tuple[object, object]]


def expected(g: Grounds) -> Sketch:
    """The engine's grounds in the observation frame: cell (min_x - 1 + col, min_y - 1 + row)."""
    cells = [cell(k) for k in g.stacks]
    min_x = min(x for x, _ in cells) - 1
    min_y = min(y for _, y in cells) - 1
    stacks = {}
    for k, s in g.stacks.items():
        x, y = cell(k)
        stacks[(x - min_x, y - min_y)] = (s[-1][0], s[-1][1], len(s))
    e0, e1 = (cell(k) for k in g.elephants)
    return stacks, ((e0[0] - min_x, e0[1] - min_y), (e1[0] - min_x, e1[1] - min_y))


def check_exact(layout: ObservationLayout, state: GameState, seat: int) -> np.ndarray:
    """Read every player's grounds back from the observation and compare with the engine."""
    vec = layout.observation(state, seat)
    assert vec.dtype == np.float32 and vec.shape == (layout.size,)
    assert vec.min() >= 0.0 and vec.max() <= 1.0
    got = layout.grounds_from(vec)
    n = state.n
    views = layout.views(vec)
    pf = 10 if layout.name == "full" else 9
    for slot in range(n):
        g = state.grounds[(seat + slot) % n]
        stacks, elephants = expected(g)
        sk = got[slot]
        assert {c: (s.top, s.edge, s.height) for c, s in sk.stacks.items()} == stacks
        assert sk.elephants == elephants
        players = views["players"][slot]
        assert players[pf - 4] == pytest.approx(g.passes / 2)
        assert players[pf - 9 + COLORS.index(g.color)] == 1.0
        # Rebuilt with stand-in covered tiles, the grounds scores exactly as the engine's
        # (SC1 counts tiles, SC2-SC5 read top tiles, arch edges and neighbours).
        # The frame is relative; shift it back to the engine's coordinates to compare cells.
        ox = min(cell(k)[0] for k in g.stacks) - 1
        oy = min(cell(k)[1] for k in g.stacks) - 1
        filler = (tile("blue:e1"), None)
        rebuilt = Grounds.from_cells(
            g.color,
            [
                ((x + ox, y + oy), [filler] * (s.height - 1) + [(s.top, s.edge)])
                for (x, y), s in sk.stacks.items()
            ],
            [(x + ox, y + oy) for x, y in sk.elephants],
            g.passes,
        )
        assert score_grounds(rebuilt) == score_grounds(g)
        if layout.name == "graph":
            check_adjacency(views, slot, g)
        if layout.name == "flat":
            # Row i is the stack of cell index i of the action encoding.
            order = ACTIONS.cell_order(g)
            rows = views["stacks"][slot]
            assert int((rows[:, 2 + 24] > 0.5).sum()) == len(order)
            xs = [cell(k)[0] for k in order]
            assert [round(float(r[0]) * 43) for r in rows[: len(order)]] == [
                x - min(xs) + 1 for x in xs
            ]
    return vec


def check_adjacency(views: dict[str, np.ndarray], slot: int, g: Grounds) -> None:
    order = sorted(g.stacks)
    pos = {k: i for i, k in enumerate(order)}
    want = np.zeros((4, MAX_CELLS, MAX_CELLS), dtype=np.float32)
    for k, i in pos.items():
        x, y = cell(k)
        for d, (dx, dy) in enumerate([(0, -1), (1, 0), (0, 1), (-1, 0)]):
            j = pos.get(key((x + dx, y + dy)))
            if j is not None:
                want[d, i, j] = 1.0
    assert np.array_equal(views["adjacency"][slot], want)


def test_sizes_and_shapes_issue_13() -> None:
    """Issue 13: the default 2-player observation holds at most 20,000 values."""
    compact = observation_layout("compact", 2)
    assert compact.size <= 20_000
    assert dict(compact.pieces)["grounds"] == (2, 25, WINDOW, WINDOW)
    assert dict(compact.pieces)["overflow"] == (2, MAX_CELLS, ROW_FEATURES)
    assert observation_layout("full", 2).size == ACTIONS.obs_size == 231_270
    for n in (2, 3, 4, 5):
        for name in LAYOUTS:
            layout = observation_layout(name, n)
            shapes = dict(layout.pieces)
            assert sum(int(np.prod(s)) for s in shapes.values()) == layout.size
            if name != "full":
                assert shapes["players"] == (n, 9)  # only the seated players
    assert observation_layout("flat", 2).size < 3_000


def test_bad_layouts_are_refused() -> None:
    with pytest.raises(ValueError, match="observation must be one of compact, flat"):
        ObservationLayout("huge", 2)
    with pytest.raises(ValueError, match=r"2\.\.5"):
        ObservationLayout("compact", 6)
    s = new_game(["blue", "red"], seed=1)
    s.advance_chance()
    with pytest.raises(ValueError, match="seat 2"):
        observation_layout("compact", 2).observation(s, 2)
    with pytest.raises(ValueError, match="3 players, game of 2"):
        observation_layout("compact", 3).observation(s, 0)


def test_full_layout_is_todays_layout() -> None:
    """observation="full" keeps the layout of kerala.envs.encoding, value for value."""
    for n in (2, 4):
        full = observation_layout("full", n)
        for i, s in enumerate(decision_states(n, seed=70 + n)):
            if i % 7:
                continue
            for seat in range(n):
                assert np.array_equal(full.observation(s, seat), ACTIONS.observation(s.view(seat)))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_layout_is_exact_in_random_games(n: int) -> None:
    """Reconstruct every grounds from each layout, for every seat, along random games."""
    for game in range(3):
        for i, s in enumerate(decision_states(n, seed=500 + 10 * n + game)):
            if i % 3:
                continue
            for name in LAYOUTS:
                layout = observation_layout(name, n)
                for seat in range(n):
                    check_exact(layout, s, seat)


@pytest.mark.parametrize("name", [*LAYOUTS, "planes"])
def test_layouts_pickle_and_copy_into_layouts_that_observe_the_same(name: str) -> None:
    """Layouts cross processes (vectorised environments, Ray's workers) in both builds."""
    layout: ObservationLayout | PlanesLayout = (
        planes_layout(3) if name == "planes" else observation_layout(name, 3)
    )
    states = list(decision_states(3, seed=77))[::25]
    for other in (pickle.loads(pickle.dumps(layout)), copy.deepcopy(layout)):
        assert type(other) is type(layout) and repr(other) == repr(layout)
        assert other.size == layout.size
        for s in states:
            got = other.observation(s, 1)
            assert np.array_equal(got, layout.observation(s, 1))
            sketches = other.grounds_from(got)
            assert pickle.loads(pickle.dumps(sketches)) == sketches
            assert copy.deepcopy(sketches) == sketches


def test_the_action_encoding_pickles_and_copies_into_an_equal_encoding() -> None:
    encoding = ActionEncoding(MAX_CELLS)
    states = list(decision_states(2, seed=78))[::20]
    for other in (pickle.loads(pickle.dumps(encoding)), copy.deepcopy(encoding)):
        assert type(other) is ActionEncoding
        assert (other.num_actions, other.obs_size) == (encoding.num_actions, encoding.obs_size)
        for s in states:
            assert other.legal_actions(s) == encoding.legal_actions(s)


def long_games(seed: int) -> Iterator[GameState]:
    """2-player games where seat 0 always builds away from its start tile (long grounds)."""
    rng = random.Random(seed)
    s = new_game(["blue", "red"], seed=seed)
    direction = rng.choice([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1)])
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        legal = s.legal_decisions()
        d: Decision
        if s.current_player == 0:
            places = [d for d in legal if type(d) is Place]
            if places:
                d = max(places, key=lambda p: p.to[0] * direction[0] + p.to[1] * direction[1])
            else:
                d = legal[0]
        else:
            d = rng.choice(legal)
        s.apply(d)
        yield s


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_compact_is_exact_for_very_long_grounds_built_in_play(seed: int) -> None:
    """Grounds far longer than the 16-cell window (built by real play) stay exact."""
    compact = observation_layout("compact", 2)
    widest = 0
    overflowed = 0
    for i, s in enumerate(long_games(seed)):
        cells = [cell(k) for k in s.grounds[0].stacks]
        span = max(
            max(x for x, _ in cells) - min(x for x, _ in cells),
            max(y for _, y in cells) - min(y for _, y in cells),
        )
        widest = max(widest, span + 1)
        if i % 4 == 0 or s.is_over():
            vec = check_exact(compact, s, 0)
            check_exact(compact, s, 1)
            overflowed = max(overflowed, int((compact.views(vec)["overflow"][0, :, 26]).sum()))
            for name in ("flat", "graph"):
                check_exact(observation_layout(name, 2), s, 1)
    assert widest > 25 and overflowed > 5  # the test really left the window


def line_state(cells: list[tuple[int, int]], rng: random.Random) -> GameState:
    """Seat 0 owns stacks on ``cells`` (random tiles, arches with edges, heights)."""
    s = new_game(["blue", "red"], seed=5)
    s.advance_chance()
    stacks = []
    for i, c in enumerate(cells):
        height = rng.randint(1, 4)
        tiles: list[tuple[TileType, str | None]] = [
            (rng.choice(GAME_TILE_TYPES), None) for _ in range(height)
        ]
        top = rng.choice(GAME_TILE_TYPES) if i else START_TILES["blue"]
        tiles[-1] = (top, rng.choice(EDGES) if top.is_arch else None)
        stacks.append((c, tiles))
    els = rng.sample(cells, 2) if len(cells) > 1 else [cells[0], cells[0]]
    s.grounds[0] = Grounds.from_cells("blue", stacks, els, rng.randint(0, 2))
    return s


@pytest.mark.parametrize(
    "shape",
    [
        [(i, 0) for i in range(41)],  # the longest grounds 2 players reach (M = 41)
        [(0, -i) for i in range(41)],
        # 31 stacks and none in the window: east along row 15, then north to row 0.
        [(0, 15 - 0)] + [(x, 15) for x in range(1, 16)] + [(15, y) for y in range(15)],
        [(i // 2, (i + 1) // 2) for i in range(41)],  # a staircase
    ],
)
def test_compact_is_exact_for_extreme_grounds(shape: list[tuple[int, int]]) -> None:
    rng = random.Random(len(shape))
    s = line_state(shape, rng)
    for name in LAYOUTS:
        for seat in (0, 1):
            check_exact(observation_layout(name, 2), s, seat)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 41), st.randoms(use_true_random=False))
def test_compact_is_exact_for_random_connected_grounds(m: int, rng: random.Random) -> None:
    cells = [(0, 0)]
    seen = {(0, 0)}
    while len(cells) < m:
        x, y = rng.choice(cells)
        dx, dy = rng.choice([(0, -1), (1, 0), (0, 1), (-1, 0), (1, 0), (1, 0)])
        if (x + dx, y + dy) not in seen:
            seen.add((x + dx, y + dy))
            cells.append((x + dx, y + dy))
    s = line_state(cells, rng)
    for name in ("compact", "flat", "graph"):
        check_exact(observation_layout(name, 2), s, 0)


def test_layouts_hide_removed_tiles_and_bag_order() -> None:
    """I2: states that differ only in hidden tiles give the same observation, every layout."""
    s = new_game(["blue", "red"], seed=21)
    s.advance_chance()
    for _ in range(9):
        s.apply(s.legal_decisions()[-1])
        if s.is_chance():
            s.advance_chance()
    other = sample_state(s.view(0), random.Random(4))
    assert Counter(other.removed) != Counter(s.removed)
    for name in LAYOUTS:
        layout = observation_layout(name, 2)
        for seat in range(2):
            assert np.array_equal(layout.observation(s, seat), layout.observation(other, seat))


def test_fill_writes_in_place_and_the_cache_follows_changes() -> None:
    """fill() writes into the caller's buffer; a changed grounds is never read from the cache."""
    layout = observation_layout("compact", 2)
    buf = np.full(layout.size, 7.0, dtype=np.float32)
    # decision_states yields one state object as it changes: the caches (per grounds, and the
    # drawn tiles per log) must follow it; a copy has new objects and is computed afresh.
    for i, s in enumerate(decision_states(2, seed=9)):
        if i % 3 == 0:
            layout.fill(s, 0, buf)
            assert np.array_equal(buf, layout.observation(s.copy(), 0))
            assert np.array_equal(layout.views(buf)["unseen"], _unseen_by_hand(s))
    layout.fill(s, 0, buf)
    g = s.grounds[0]
    k = next(iter(g.stacks))
    g.stacks[k] = (*g.stacks[k], (tile("green:e3"), None))  # a tile more on one stack
    layout.fill(s, 0, buf)
    views = layout.views(buf)
    sketch = layout.grounds_from(buf)[0]
    assert sketch == layout.grounds_from(layout.observation(s.copy(), 0))[0]
    assert any(st.top == tile("green:e3") for st in sketch.stacks.values())
    assert views["grounds"].shape == (2, 25, 16, 16)


def _unseen_by_hand(s: GameState) -> np.ndarray:
    drawn = Counter(t for t in s.log if isinstance(t, TileType))
    counts = s.tileset.counts
    return np.array([(counts[t] - drawn[t]) / counts[t] for t in GAME_TILE_TYPES], dtype=np.float32)
