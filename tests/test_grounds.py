"""Tests of kerala.grounds: cell keys, the start grounds (S2), connectivity, the cut cells
that SP2 may not move, and SP2's no-hole rule (holes, the Euler number, the move plan)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import DELTAS, connected, holes, make_grounds, random_decisions
from kerala.game import new_game
from kerala.grounds import (
    EDGE_KEY_DELTA,
    EULER_PART,
    LIMIT,
    NEIGHBOURS,
    Grounds,
    cell,
    holes_of,
    key,
    key_object,
    neighbour_keys,
    ring_mask,
    sp2_plan,
)
from kerala.notation import read_grounds, write_grounds
from kerala.tiles import EDGE_DELTA, tile


@given(st.integers(-LIMIT, LIMIT), st.integers(-LIMIT, LIMIT))
def test_p6_cell_keys_round_trip(x: int, y: int) -> None:
    assert cell(key((x, y))) == (x, y)


def test_p6_neighbour_keys_are_n_e_s_w() -> None:
    k = key((3, -2))
    assert [cell(k + d) for d in NEIGHBOURS] == [(3, -3), (4, -2), (3, -1), (2, -2)]
    for edge, (dx, dy) in EDGE_DELTA.items():
        assert cell(k + EDGE_KEY_DELTA[edge]) == (3 + dx, -2 + dy)


@pytest.mark.parametrize("corner", [(0, 0), (-7, 3), (5, -12), (40, 40)])
def test_cell_keys_of_a_small_window_start_in_distinct_slots(corner: tuple[int, int]) -> None:
    """A dict or set finds an int key's first slot by its low bits (an int hashes to itself):
    the cells of any 7 x 7 window must not share one in a table of 64 slots, as the cells of
    a row once all did."""
    x0, y0 = corner
    window = [key((x0 + dx, y0 + dy)) for dx in range(7) for dy in range(7)]
    assert len({k & 63 for k in window}) == 49


def test_keys_sort_as_their_cells_do() -> None:
    cells = [(x, y) for x in (-LIMIT, -3, 0, 2, LIMIT) for y in (-LIMIT, -1, 0, 5, LIMIT)]
    assert sorted(cells, key=key) == sorted(cells)


@pytest.mark.parametrize("seed", [1, 2])
def test_grounds_keep_one_shared_object_per_cell_key(seed: int) -> None:
    """Lookups in the hot loops hit by identity (grounds.key_object): every key a grounds
    holds, after every kind of decision and read back from its notation, is the shared one,
    and so are the neighbour keys the flood fills read."""
    s = new_game(["blue", "red", "green"], seed=seed)
    for _ in random_decisions(s, random.Random(seed)):
        for g in s.grounds:
            held = [*g.stacks, *g.elephants]
            assert all(k is key_object(k) for k in held)
            assert all(n is key_object(n) for k in g.stacks for n in neighbour_keys(k))
    for g in s.grounds:
        back = read_grounds(write_grounds(g))
        assert back.stacks == g.stacks
        assert all(k is key_object(k) for k in [*back.stacks, *back.elephants])


def test_s2_start_grounds() -> None:
    g = Grounds.start("purple")
    assert g.color == "purple" and g.cells() == [(0, 0)]
    assert g.stack((0, 0)) == ((tile("purple:start"), None),)
    assert g.top((0, 0)) is tile("purple:start") and g.top((1, 0)) is None
    assert g.elephant_cells() == [(0, 0), (0, 0)]
    assert g.standing == 2 and g.tile_count() == 1


def test_copy_is_independent() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, [(0, 0), (1, 0)])
    c = g.copy()
    c.stacks[key((2, 0))] = ((tile("green:e1"), None),)
    c.elephants[0] = key((2, 0))
    c.passes = 1
    assert g.cells() == [(0, 0), (1, 0)] and g.elephant_cells() == [(0, 0), (1, 0)]
    assert g.passes == 0


def test_is_connected_orthogonally_not_diagonally() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 1): "red:e1"})
    assert not g.is_connected()
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1", (1, 1): "red:e2"})
    assert g.is_connected()
    assert not g.is_connected(without=key((1, 0)))
    assert g.is_connected(without=key((1, 1)))


def test_articulation_points_of_a_line_and_a_ring() -> None:
    line = make_grounds("blue", {(x, 0): "red:e1" for x in range(4)})
    assert {cell(k) for k in line.articulation_points()} == {(1, 0), (2, 0)}
    ring = make_grounds(
        "blue", {c: "red:e1" for c in [(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)]}
    )
    assert ring.articulation_points() == set()
    two = make_grounds("blue", {(0, 0): "red:e1", (1, 0): "red:e1"})
    assert two.articulation_points() == set()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 25), st.integers(0, 2**32))
def test_sp2_articulation_points_match_brute_force(n: int, seed: int) -> None:
    """The cells whose removal splits the grounds, against removing each cell in turn."""
    rng = random.Random(seed)
    cells = [(0, 0)]
    while len(cells) < n:
        x, y = rng.choice(cells)
        dx, dy = rng.choice(DELTAS)
        if (x + dx, y + dy) not in cells:
            cells.append((x + dx, y + dy))
    rng.shuffle(cells)  # the root of the search should not matter
    g = make_grounds("blue", {c: "red:e1" for c in cells})
    brute = {c for c in cells if not connected(set(cells) - {c})}
    assert g.is_connected()
    for c in cells:
        assert g.is_connected(without=key(c)) == (c not in brute)
    assert {cell(k) for k in g.articulation_points()} == brute
    assert g._articulation_points_iterative() == g.articulation_points()


def test_sp2_articulation_points_of_grounds_too_big_to_recurse() -> None:
    """A comb of 481 cells (beyond any real game) takes the non-recursive path, same answer."""
    cells = {(x, 0) for x in range(40)} | {(x, y) for x in range(0, 40, 2) for y in range(1, 23)}
    cells.add((39, 1))
    g = make_grounds("blue", dict.fromkeys(cells, "red:e1"))
    assert len(g.stacks) == 481
    brute = {c for c in cells if not connected(cells - {c})}
    assert {cell(k) for k in g.articulation_points()} == brute


# -- SP2: no hole ------------------------------------------------------------------------------


def grown(n: int, seed: int, dense: bool) -> list[tuple[int, int]]:
    """A connected grounds of ``n`` cells grown at random from (0, 0); ``dense`` grounds grow
    next to many cells at once, so they often enclose empty cells (holes)."""
    rng = random.Random(seed)
    cells = [(0, 0)]
    while len(cells) < n:
        x, y = rng.choice(cells[-3:] if not dense and rng.random() < 0.5 else cells)
        dx, dy = rng.choice(DELTAS)
        if (x + dx, y + dy) not in cells:
            cells.append((x + dx, y + dy))
    return cells


def hole_regions(cells: set[tuple[int, int]]) -> int:
    """How many separate holes (side-connected groups of hole cells) a grounds has."""
    left = holes(cells)
    count = 0
    while left:
        count += 1
        todo = [left.pop()]
        while todo:
            x, y = todo.pop()
            for dx, dy in DELTAS:
                n = (x + dx, y + dy)
                if n in left:
                    left.remove(n)
                    todo.append(n)
    return count


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32), st.booleans())
def test_sp2_euler_number_counts_the_holes(n: int, seed: int, dense: bool) -> None:
    """SP2 (no hole): the local Euler parts of the empty cells next to a grounds add up to
    4 x (1 - holes), holes counted by flood fill from the rule's words; and holes_of finds
    exactly the rule's hole cells."""
    cells = set(grown(n, seed, dense))
    g = make_grounds("blue", {c: "red:e1" for c in cells})
    frontier = {k + d for k in g.stacks for d in NEIGHBOURS} - set(g.stacks)
    parts = sum(EULER_PART[ring_mask(g.stacks, k)] for k in frontier)
    assert parts == 4 * (1 - hole_regions(cells))
    assert {cell(k) for k in holes_of(g.stacks)} == holes(cells)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**32), st.booleans())
def test_sp2_plan_matches_the_rule_text_on_random_grounds(n: int, seed: int, dense: bool) -> None:
    """SP2, every (source, destination) pair of random grounds (long thin ones and ones with
    holes included), against the rule's words: the source holds no elephant, has an empty
    side and does not split the grounds; the destination is empty, touches a stack other
    than the source, and every hole after the move was one before it."""
    cells = grown(n, seed, dense)
    rng = random.Random(seed)
    elephants = rng.sample(cells, min(2, len(cells)))
    g = make_grounds("blue", {c: "red:e1" for c in cells}, elephants=elephants)
    frontier, sources, drops = sp2_plan(g)
    got = set()
    for source, drop in zip(sources, drops, strict=True):
        got |= {(cell(source), cell(f)) for i, f in enumerate(frontier) if not drop >> i & 1}
    everything = set(cells)
    before = holes(everything)
    expected = set()
    for src in cells:
        if src in elephants:
            continue
        if all((src[0] + dx, src[1] + dy) in everything for dx, dy in DELTAS):
            continue
        rest = everything - {src}
        if not connected(rest):
            continue
        for c in rest:
            for dx, dy in DELTAS:
                dst = (c[0] + dx, c[1] + dy)
                if dst not in everything and holes(rest | {dst}) <= before:
                    expected.add((src, dst))
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32), st.booleans())
def test_sp2_plan_lists_the_frontier_as_met_and_the_sources_as_laid(
    n: int, seed: int, dense: bool
) -> None:
    """The order of the SP2 moves (docs/engine.md): no hash decides it. The frontier comes
    stack by stack in the order they were laid, N, E, S, W around each; the sources in the
    order their stacks were laid (on grounds without holes)."""
    cells = grown(n, seed, dense)
    random.Random(seed).shuffle(cells)
    g = make_grounds("blue", {c: "red:e1" for c in cells})
    frontier, sources, _ = sp2_plan(g)
    met = [k + d for k in g.stacks for d in NEIGHBOURS if k + d not in g.stacks]
    assert frontier == list(dict.fromkeys(met))
    if not holes(set(cells)):
        laid = list(g.stacks)
        assert sources == sorted(sources, key=laid.index)
