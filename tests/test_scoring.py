"""Tests of kerala.scoring: end-of-game scoring SC1–SC7 on hand-computed positions.

Every position here was scored by hand from docs/rules.md; the property test at the end compares the
engine's exact SC1 choice with a brute force over every allowed choice of surplus areas.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import (
    DELTAS,
    areas_of,
    brute_force_score,
    make_grounds,
    play_random,
    score_with_removed,
)
from kerala.grounds import Grounds, Placed
from kerala.notation import read_grounds
from kerala.scoring import ScoreBreakdown, color_areas, rank, score_grounds
from kerala.tiles import COLORS, EDGES, GAME_TILE_TYPES, START_TILES

DATA = Path(__file__).parent / "data"


def fields(b: ScoreBreakdown) -> tuple[int, int, int, int, int, int]:
    return (b.total, b.surplus, b.missing, b.standing, b.arches, b.symbols)


# -- the worked example of docs/rules.md / the Kosmos rulebook (000) ----------------------------


def test_sc1_to_sc6_worked_example_37_points() -> None:
    """docs/rules.md worked example: surplus -6, no missing color, 1 standing elephant, 2 arches,
    symbols 6 + 11 + 3 + 8 + 4 = 32: total 37 (SC1–SC6)."""
    g = read_grounds((DATA / "worked_example_37.json").read_text())
    b = score_grounds(g)
    assert fields(b) == (37, -6, 0, 1, 10, 32)
    assert dict(b.symbols_by_color) == {
        "blue": 6,
        "purple": 11,
        "black": 3,
        "green": 8,
        "red": 4,
    }
    # The second black area (1 tile) and the second green area (a stack of 2) are surplus.
    assert b.removed_cells == ((4, 3), (5, 2))
    assert brute_force_score(g)["total"] == 37


def test_worked_example_document_is_what_the_rulebook_describes() -> None:
    """The fixture itself: a blue player, one pass, every color present before removal."""
    doc = json.loads((DATA / "worked_example_37.json").read_text())
    assert doc["color"] == "blue" and doc["passes"] == 1
    tops = {s["tiles"][-1].split(":")[0] for s in doc["stacks"]}
    assert tops == set(COLORS)


# -- SC1 surplus areas ---------------------------------------------------------------------


def test_sc1_second_area_of_other_color_is_removed_at_minus_2_per_tile() -> None:
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e3",
            (2, 0): "blue:e1",
            (3, 0): "red:e1",
        },
    )
    b = score_grounds(g)
    # Keep red e3 (2 tiles saved worth +3 symbols vs +1); remove (3, 0): -2.
    # Blue (own color) keeps both of its areas.
    assert b.removed_cells == ((3, 0),)
    assert b.surplus == -2
    assert b.symbols == 1 + 3 + 1
    assert b.missing == -15
    assert b.total == -2 - 15 + 2 + 0 + 5


def test_sc1_covered_tiles_count_minus_2_each() -> None:
    """A removed stack scores -2 for every tile in it, covered ones included."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e3",
            (2, 0): "blue:e2",
            (3, 0): ["green:e1", "black:e2", "red:e1"],
        },
    )
    # Red areas: {(1,0)} worth 2*1 + 3 = 5, {(3,0)} worth 2*3 + 1 = 7: the stack stays.
    b = score_grounds(g)
    assert b.removed_cells == ((1, 0),)
    assert b.surplus == -2
    # Force the other choice by hand to see the -6 of the 3-tile stack.
    assert score_with_removed(g, [(3, 0)])["surplus"] == -6
    assert b.total == score_with_removed(g, [(1, 0)])["total"]


def test_sc1_exact_keeps_tall_stack_over_more_symbols() -> None:
    """Greedy by symbols keeps the e3; the exact choice keeps the 3-tile stack (7 > 5)."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e3",
            (2, 0): "blue:e1",
            (3, 0): ["green:e1", "black:e1", "red:e1"],
        },
    )
    b = score_grounds(g)
    assert b.removed_cells == ((1, 0),)
    assert b.surplus == -2 and b.symbols == 1 + 1 + 1


@pytest.mark.parametrize("ordered", [True, False])
def test_sc1_areas_are_one_color_each_with_its_hue(ordered: bool) -> None:
    """Each area is a connected group of one top color, its hue that color's place in COLORS;
    both numberings find the same areas."""
    for seed in (3, 4):
        for g in play_random(seed, COLORS[:3]).grounds:
            areas, area_of, _ = color_areas(g, ordered=ordered)
            assert sorted(area_of) == sorted(g.stacks)
            for a in areas:
                assert COLORS[a.hue] == a.color
                assert {g.stacks[k][-1][0].color for k in a.cells} == {a.color}
                assert all(area_of[k] == a.index for k in a.cells)
            other = color_areas(g, ordered=not ordered)[0]
            assert {frozenset(a.cells) for a in areas} == {frozenset(a.cells) for a in other}


def test_sc1_own_color_keeps_two_areas_others_one() -> None:
    g = make_grounds(
        "red",
        {
            (0, 0): "red:start",
            (1, 0): "blue:e1",
            (2, 0): "red:e2",
            (3, 0): "blue:e2",
            (4, 0): "red:e3",
            (5, 0): "blue:e3",
        },
    )
    b = score_grounds(g)
    # Red (own): 3 areas, keeps the two best (e3 and e2), removes the start tile (1 symbol).
    # Blue: 3 areas, keeps e3 only.
    assert b.removed_cells == ((0, 0), (1, 0), (3, 0))
    assert b.surplus == -6
    assert b.symbols == 2 + 3 + 3
    assert b.total == -6 - 15 + 2 + 8


def test_sc1_same_grounds_scored_for_other_owner_keeps_only_one_of_that_color() -> None:
    stacks = {
        (0, 0): "red:e1",
        (1, 0): "blue:e1",
        (2, 0): "red:e2",
    }
    as_red = score_grounds(make_grounds("red", {**stacks, (0, 1): "red:start"}))
    as_green = score_grounds(make_grounds("green", {**stacks, (0, 1): "green:start"}))
    # Red owner keeps both red areas ((0,0)+(0,1) start is one area); green owner removes one.
    assert as_red.surplus == 0
    assert as_green.surplus == -2


def test_sc1_arches_tie_colors_so_greedy_is_wrong() -> None:
    """Greedy per color keeps red e3 and green e3 (10); the exact choice keeps the red arch and
    the small green area it faces: 2 + 4 + 5 = 11."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e3",
            (2, 0): "blue:e1",
            (3, 0): "green:e3",
            (0, 1): "blue:e1",
            (0, 2): "red:arch-green@E",
            (1, 2): "green:e2",
        },
    )
    b = score_grounds(g)
    assert b.removed_cells == ((1, 0), (3, 0))
    assert b.arches == 5
    assert b.surplus == -4
    greedy = score_with_removed(g, [(0, 2), (1, 2)])
    assert greedy["total"] < b.total
    assert b.total == brute_force_score(g)["total"]


def test_sc1_arch_chain_across_three_colors() -> None:
    """Keeping a chain of arch-linked small areas beats each color's best area."""
    g = make_grounds(
        "purple",
        {
            (0, 0): "purple:start",
            (1, 0): "red:e3",
            (2, 0): "green:e3",
            (3, 0): "black:e3",
            (0, 1): "purple:e1",
            (0, 2): "red:arch-green@E",
            (1, 2): "green:arch-black@E",
            (2, 2): "black:e1",
        },
    )
    b = score_grounds(g)
    assert b.arches == 10
    assert b.removed_cells == ((1, 0), (2, 0), (3, 0))
    assert b.total == brute_force_score(g)["total"]


def test_sc1_removal_that_splits_the_grounds_does_not_matter() -> None:
    """The removed middle tile leaves two parts; both parts still score."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (2, 0): "green:e3",
            (3, 0): "red:e3",
        },
    )
    b = score_grounds(g)
    assert b.removed_cells == ((1, 0),)
    assert b.symbols == 1 + 3 + 3  # blue start and green stay, though cut off from each other
    assert b.missing == -10


# -- SC2 missing colors -------------------------------------------------------------------


def test_sc2_start_grounds_miss_four_colors() -> None:
    b = score_grounds(Grounds.start("blue"))
    assert fields(b) == (-20 + 2 + 1, 0, -20, 2, 0, 1)


def test_sc2_covered_color_counts_as_missing() -> None:
    """A color only under other tiles is the top color of no cell: -5."""
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): ["red:e1", "green:e1"]})
    b = score_grounds(g)
    assert b.missing == -5 * 3  # black, red, purple
    assert b.symbols == 2


def test_sc2_all_five_colors_whatever_the_player_count() -> None:
    """Missing colors are counted over all 5 colors, also in a 2-player game."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "black:e1",
            (2, 0): "green:e1",
            (3, 0): "red:e1",
            (4, 0): "purple:e1",
        },
    )
    assert score_grounds(g).missing == 0


# -- SC3 standing elephants -------------------------------------------------------------


def test_sc3_one_point_per_standing_elephant() -> None:
    for passes, standing in ((0, 2), (1, 1), (2, 0)):
        g = make_grounds("blue", {(0, 0): "blue:start"}, passes=passes)
        b = score_grounds(g)
        assert b.standing == standing
        assert b.total == -20 + 1 + standing


# -- SC4 arches --------------------------------------------------------------------------


def test_sc4_arch_facing_matching_color_scores_5() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:arch-blue@W"})
    assert score_grounds(g).arches == 5


def test_sc4_arch_edge_direction_matters_p6() -> None:
    """P6: W is (-1, 0); the same arch facing N, E or S faces nothing or another color."""
    for edge in EDGES:
        g = make_grounds(
            "blue",
            {
                (0, 0): "blue:start",
                (1, 0): f"red:arch-blue@{edge}",
                (1, 1): "green:e1",
            },
        )
        assert score_grounds(g).arches == (5 if edge == "W" else 0), edge


def test_sc4_arch_facing_other_color_or_nothing_scores_0() -> None:
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:arch-green@W",  # faces blue
            (2, 0): "red:arch-black@E",  # faces nothing
        },
    )
    b = score_grounds(g)
    assert b.arches == 0
    assert b.total == -15 + 2 + 1


def test_sc4_covered_arch_does_not_score() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): ["red:arch-blue@W", "green:e1"]},
    )
    b = score_grounds(g)
    assert b.arches == 0
    assert b.symbols == 2


def test_sc4_arch_facing_covered_matching_color_does_not_score() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): ["blue:start", "green:e1"], (1, 0): "red:arch-blue@W"},
    )
    assert score_grounds(g).arches == 0


def test_sc4_arch_facing_an_arch_tile_of_its_color_scores() -> None:
    """The faced tile's color is its tile color, also when it is an arch itself."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:arch-green@E",
            (2, 0): "green:arch-red@W",
        },
    )
    assert score_grounds(g).arches == 10


def test_sc4_two_arches_facing_one_tile_score_twice() -> None:
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:arch-blue@W",
            (0, 1): "green:arch-blue@N",
        },
    )
    assert score_grounds(g).arches == 10


def test_sc4_arch_facing_a_removed_area_does_not_score() -> None:
    """SC1 then SC4: an arch only scores if what it faces remains."""
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (2, 0): "green:e3",
            (3, 0): ["black:e1", "black:e2", "red:e3"],  # red area worth 6 + 3 = 9
            (1, 1): "purple:arch-red@N",  # faces (1, 0) red, worth 2 + 1 = 3
        },
    )
    b = score_grounds(g)
    # Keeping (1,0) red: value 3 + 5 arch = 8 < 9 for the tall red stack: the arch is lost.
    assert b.removed_cells == ((1, 0),)
    assert b.arches == 0
    assert b.total == brute_force_score(g)["total"]


# -- SC5 symbols -------------------------------------------------------------------------


def test_sc5_symbols_of_top_tiles_only_start_tile_one() -> None:
    g = make_grounds(
        "green",
        {
            (0, 0): "green:start",
            (1, 0): ["green:e3", "green:e1"],
            (2, 0): "green:move-elephant",
            (3, 0): "green:move-tile",
            (4, 0): "green:arch-red@N",
            (0, 1): "green:e2",
        },
    )
    b = score_grounds(g)
    assert b.symbols == 1 + 1 + 2
    assert dict(b.symbols_by_color)["green"] == 4


# -- SC6 total, breakdown fields --------------------------------------------------------


def test_sc6_total_is_sum_of_parts_and_json_uses_notation_fields() -> None:
    g = read_grounds((DATA / "worked_example_37.json").read_text())
    b = score_grounds(g)
    j = b.to_json()
    assert list(j) == [
        "total",
        "surplus",
        "missing",
        "standing",
        "arches",
        "symbols",
        "removed_cells",
    ]
    parts = ("surplus", "missing", "standing", "arches", "symbols")
    assert j["total"] == sum(j[p] for p in parts)
    assert j["removed_cells"] == [[4, 3], [5, 2]]
    assert ScoreBreakdown.from_json(j) == b


# -- SC7 ranks ---------------------------------------------------------------------------


def test_sc7_tied_players_share_the_placement() -> None:
    assert rank([10, 10, 5]) == [1, 1, 3]
    assert rank([5, 10, 10, 7]) == [4, 1, 1, 3]
    assert rank([3, 3, 3]) == [1, 1, 1]
    assert rank([-4, 12]) == [2, 1]


# -- exactness against brute force ------------------------------------------------------


@st.composite
def small_grounds(draw: st.DrawFn) -> Grounds:
    """A connected grounds of up to 10 cells, stacks of 1-3 random tiles, arches included."""
    color = draw(st.sampled_from(COLORS))
    n = draw(st.integers(1, 10))
    rng = random.Random(draw(st.integers(0, 2**32)))
    cells = [(0, 0)]
    while len(cells) < n:
        x, y = rng.choice(cells)
        dx, dy = rng.choice(DELTAS)
        if (x + dx, y + dy) not in cells:
            cells.append((x + dx, y + dy))
    # Few colors so that areas of one color recur and arches often face their color.
    palette = rng.sample(COLORS, rng.randint(2, 4))
    types = [t for t in GAME_TILE_TYPES if t.color in palette]
    stacks = {}
    for c in cells:
        stack: list[Placed] = [(START_TILES[color], None)] if c == (0, 0) else []
        for _ in range(rng.randint(0 if c == (0, 0) else 1, 2)):
            t = rng.choice(types)
            stack.append((t, rng.choice(EDGES) if t.is_arch else None))
        stacks[c] = stack
    return Grounds.from_cells(color, stacks.items(), passes=rng.randint(0, 2))


@settings(max_examples=150, deadline=None)
@given(small_grounds())
def test_sc1_exact_choice_matches_brute_force(g: Grounds) -> None:
    """SC1: the engine's choice gives the best total over every allowed choice (SC1–SC6)."""
    b = score_grounds(g)
    best = brute_force_score(g)
    assert b.total == best["total"]
    # The reported removed cells are a valid SC1 choice that gives exactly the breakdown.
    stacks = {c: g.stack(c) for c in g.cells()}
    removed = set(b.removed_cells)
    kept_per_color: dict[str, int] = {}
    for color, cells in areas_of(stacks):
        assert cells <= removed or not (cells & removed), "areas are removed whole"
        if not cells & removed:
            kept_per_color[color] = kept_per_color.get(color, 0) + 1
    for color, kept in kept_per_color.items():
        assert kept <= (2 if color == g.color else 1)
    by_hand = score_with_removed(g, removed)
    assert fields(b) == (
        by_hand["total"],
        by_hand["surplus"],
        by_hand["missing"],
        by_hand["standing"],
        by_hand["arches"],
        by_hand["symbols"],
    )
