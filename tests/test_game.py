"""Tests of kerala.game: setup (S1–S4), rounds (G1–G4), placing (P1–P6), specials (SP1–SP3),
chance nodes, checked application and copies.

Positions are built by hand (:func:`enginelib.position`) or reached by imposing draws.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from enginelib import (
    connected,
    holes,
    make_grounds,
    play_random,
    position,
    removal_for,
    rule_text_decisions,
    snapshot,
    sp2_hole_position,
)
from kerala.actions import FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.errors import IllegalDecisionError, IllegalDrawError, SetupError
from kerala.game import CHANCE, TERMINAL, GameState, Phase, new_game, sp1_moves
from kerala.grounds import cell, holes_of, key
from kerala.tiles import COLORS, EDGES, TileSet, load_tileset, tile

TS = load_tileset("standard")


def refuse(s: GameState, d: object, rule: str) -> IllegalDecisionError:
    """Apply ``d``, expect a refusal naming ``rule``, and check nothing changed."""
    before = snapshot(s)
    with pytest.raises(IllegalDecisionError) as info:
        s.apply(d)
    assert info.value.rule == rule, str(info.value)
    assert str(info.value).startswith(f"{rule}: ")
    assert snapshot(s) == before
    assert not s.is_legal(d)
    return info.value


def places(s: GameState) -> list[Place]:
    return [d for d in s.legal_decisions() if isinstance(d, Place)]


# -- S1 players and colors -----------------------------------------------------------------


@pytest.mark.parametrize("colors", [["blue"], [*COLORS, "blue"], []])
def test_s1_two_to_five_players(colors: list[str]) -> None:
    with pytest.raises(SetupError, match="S1"):
        new_game(colors, seed=1)


def test_s1_colors_distinct_and_known() -> None:
    with pytest.raises(SetupError, match="S1: every player needs a distinct color"):
        new_game(["blue", "blue"], seed=1)
    with pytest.raises(SetupError, match="S1: unknown color 'orange'"):
        new_game(["blue", "orange"], seed=1)


def test_s1_seat_0_holds_the_bag_first() -> None:
    s = new_game(["green", "red", "blue"], seed=4)
    assert s.colors == ("green", "red", "blue")
    assert s.current_player == CHANCE and s.to_move is None
    s.advance_chance()
    assert s.owner == 0 and s.current_player == 0


# -- S2 start ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s2_start_tile_with_both_elephants(n: int) -> None:
    s = new_game(COLORS[:n], seed=n)
    for color, g in zip(COLORS[:n], s.grounds, strict=True):
        assert g.color == color
        assert g.cells() == [(0, 0)]
        assert g.stack((0, 0)) == ((tile(f"{color}:start"), None),)
        assert g.elephant_cells() == [(0, 0), (0, 0)]
        assert g.passes == 0 and g.standing == 2


# -- S3 removal ----------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(2, 20), (3, 10), (4, 4), (5, 0)])
def test_s3_random_removal_count_and_colors(n: int, k: int) -> None:
    colors = COLORS[:n]
    s = new_game(colors, seed=11)
    assert s.phase == (Phase.REMOVAL if k else Phase.DRAW)
    # The removal is a chance node over the tiles of unplayed colors only.
    if k:
        outcomes = s.chance_outcomes()
        assert {t.color for t, _ in outcomes} == set(COLORS) - set(colors)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    s.advance_chance()
    assert len(s.removed) == k
    assert all(t.color not in colors for t in s.removed)
    assert s.removal == "random"


def test_s3_random_removal_is_seeded_and_reproducible() -> None:
    a = new_game(["blue", "red"], seed=99)
    b = new_game(["blue", "red"], seed=99)
    c = new_game(["blue", "red"], seed=100)
    for s in (a, b, c):
        s.advance_chance()
    assert a.removed == b.removed and a.display == b.display and a.bag == b.bag
    assert (a.removed, a.display) != (c.removed, c.display)


def test_s3_chosen_removal_is_validated() -> None:
    colors = ["blue", "red"]
    ok = removal_for(colors)
    s = new_game(colors, removal="chosen", removed=ok)
    assert s.removed == tuple(ok) and s.phase == Phase.DRAW
    with pytest.raises(SetupError, match="S3: 2 players remove exactly 20 tiles, 19"):
        new_game(colors, removal="chosen", removed=ok[:19])
    with pytest.raises(SetupError, match="S3: blue:e1 is of a color a player plays"):
        new_game(colors, removal="chosen", removed=[*ok[:19], tile("blue:e1")])
    too_many = [tile("green:e3")] * 4 + ok[:16]
    with pytest.raises(SetupError, match="S3: the tile set has no more green:e3"):
        new_game(colors, removal="chosen", removed=too_many)
    with pytest.raises(SetupError, match="S3: 2 players remove exactly 20 tiles, 0"):
        new_game(colors, removal="chosen")
    with pytest.raises(SetupError, match="S3: the tile set has no more"):
        new_game(colors, removal="chosen", removed=[*ok[:19], tile("green:start")])
    with pytest.raises(SetupError, match="S3: random removal takes no list"):
        new_game(colors, removed=ok)
    with pytest.raises(SetupError, match="S3: removal must be 'random' or 'chosen'"):
        new_game(colors, removal="secret")  # type: ignore[arg-type]  # refused at run time


def test_s3_chosen_removal_with_five_players_is_empty() -> None:
    s = new_game(COLORS, removal="chosen", removed=[])
    assert s.removed == () and s.bag_size == 100


# -- S4 the bag --------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "size"), [(2, 80), (3, 90), (4, 96), (5, 100)])
def test_s4_bag_holds_all_other_tiles(n: int, size: int) -> None:
    s = new_game(COLORS[:n], seed=5)
    s.advance_chance()
    assert len(s.bag) + len(s.display) == size
    assert size % n == 0
    total = Counter(s.bag) + Counter(s.display) + Counter(s.removed)
    assert total == Counter(TS.tiles())


def test_s4_tile_set_whose_bag_is_no_multiple_of_the_players_is_refused() -> None:
    odd = TileSet.from_json(
        {
            "name": "odd",
            "per_color": {
                "e1": 7,
                "e2": 5,
                "e3": 3,
                "arch": 1,
                "move-elephant": 1,
                "move-tile": 1,
            },
        }
    )
    with pytest.raises(SetupError, match="S4: 85 tiles would go in the bag, not a multiple of 2"):
        new_game(["blue", "red"], tileset=odd, seed=1)


def test_s3_tile_set_too_small_for_the_removal_is_refused() -> None:
    tiny = TileSet.from_json(
        {
            "name": "tiny",
            "per_color": {
                "e1": 1,
                "e2": 0,
                "e3": 0,
                "arch": 0,
                "move-elephant": 0,
                "move-tile": 0,
            },
        }
    )
    with pytest.raises(SetupError, match="S3: the tile set has only 3 tiles of unplayed colors"):
        new_game(["blue", "red"], tileset=tiny, seed=1)


def test_s4_other_tile_set_plays_a_whole_game() -> None:
    """The tile set is data: 21 per color, 5 players, 105 tiles, 21 rounds."""
    ts = TileSet.from_json(
        {
            "name": "bigger",
            "per_color": {
                "e1": 7,
                "e2": 5,
                "e3": 3,
                "arch": 1,
                "move-elephant": 1,
                "move-tile": 1,
            },
        }
    )
    s = new_game(COLORS, tileset=ts, seed=3)
    rng = random.Random(3)
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
        else:
            legal = s.legal_decisions()
            s.apply(legal[rng.randrange(len(legal))])
    assert s.round == 20
    assert sum(len(d) for d in s.drawn_rounds()) == 105


# -- chance nodes ------------------------------------------------------------------------


def test_g1_chance_outcomes_are_the_bag_with_probabilities() -> None:
    s = new_game(["blue", "red"], removal="chosen", removed=removal_for(["blue", "red"]))
    outcomes = s.chance_outcomes()
    counts = Counter(s.bag)
    assert {t: p for t, p in outcomes} == {t: n / len(s.bag) for t, n in counts.items()}
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert s.legal_decisions() == []


def test_g1_imposed_draw_must_be_in_the_bag() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors))
    before = snapshot(s)
    with pytest.raises(IllegalDrawError, match="purple:e1 is not in the bag"):
        s.apply_draw(tile("purple:e1"))  # all purple tiles were removed
    assert snapshot(s) == before
    # blue:e3 exists 3 times: a 4th draw of it is impossible.
    for pair in (("blue:e3", "blue:e3"), ("blue:e3", "blue:e1")):
        for name in pair:
            s.apply_draw(tile(name))
        for _ in range(2):
            s.apply(places(s)[0])
    assert s.phase == Phase.DRAW
    before = snapshot(s)
    with pytest.raises(IllegalDrawError, match="blue:e3 is not in the bag"):
        s.apply_draw(tile("blue:e3"))
    assert snapshot(s) == before
    s.apply_draw(tile("blue:e2"))


def test_chance_draw_refused_at_a_decision_point() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    before = snapshot(s)
    with pytest.raises(IllegalDrawError, match="no draw is due"):
        s.apply_draw(tile("blue:e2"))
    with pytest.raises(IllegalDrawError, match="no draw is due"):
        s.sample_draw(random.Random(1))
    assert snapshot(s) == before
    assert s.chance_outcomes() == []


def test_advance_chance_needs_an_rng() -> None:
    s = new_game(["blue", "red"])
    with pytest.raises(IllegalDrawError, match="no RNG"):
        s.advance_chance()
    s.advance_chance(random.Random(1))
    assert s.phase == Phase.PLACE


def test_same_seed_same_game() -> None:
    a = play_random(21, ["blue", "red", "green"])
    b = play_random(21, ["blue", "red", "green"])
    assert a.log == b.log and a.scores() == b.scores()
    # Seed 0 is a seed too.
    z1, z2 = new_game(["blue", "red"], seed=0), new_game(["blue", "red"], seed=0)
    z1.advance_chance()
    z2.advance_chance()
    assert z1.display == z2.display and z1.removed == z2.removed


def test_decision_refused_at_chance_node_g1() -> None:
    s = new_game(["blue", "red"], seed=1)
    refuse(s, Pass(0), "G1")


# -- G1 rounds and the bag owner ----------------------------------------------------------


def test_g1_g2_owner_rotates_and_plays_first_then_clockwise() -> None:
    """G1: owner of round r is seat r mod n and draws n tiles; G2: owner first, clockwise."""
    colors = ["blue", "red", "green", "black"]
    s = new_game(colors, seed=8)
    rng = random.Random(8)
    seen: list[list[int]] = []
    while not s.is_over():
        if s.is_chance():
            assert s.phase in (Phase.REMOVAL, Phase.DRAW)
            s.advance_chance()
            assert len(s.display) == 4
            assert s.owner == s.round % 4
            seen.append([])
            continue
        if s.phase == Phase.PLACE:
            seen[-1].append(s.current_player)
        legal = s.legal_decisions()
        s.apply(legal[rng.randrange(len(legal))])
    assert len(seen) == 96 // 4
    for r, order in enumerate(seen):
        assert order == [(r + i) % 4 for i in range(4)]


# -- G2 one turn each --------------------------------------------------------------------


def test_g2_wrong_seat_is_refused() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    refuse(s, Pass(1), "G2")
    refuse(s, Place(seat=1, take=tile("blue:e1"), to=(1, 0), from_=(0, 0)), "G2")


def test_g2_tile_must_be_in_the_display() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    refuse(s, Place(seat=0, take=tile("blue:e2"), to=(1, 0), from_=(0, 0)), "G2")


def test_g2_identical_tile_types_give_one_decision() -> None:
    s = position(["blue", "red", "green"], ["blue:e1", "blue:e1", "red:e2"])
    # Two tile types x 4 targets + pass: the duplicate blue:e1 gives no extra decisions.
    assert len(s.legal_decisions()) == 2 * 4 + 1
    assert len(set(s.legal_decisions())) == len(s.legal_decisions())
    s.apply(Place(seat=0, take=tile("blue:e1"), to=(1, 0), from_=(0, 0)))
    assert Counter(s.display) == Counter([tile("blue:e1"), tile("red:e2")])


def test_g2_taken_tile_leaves_the_display_and_turn_passes() -> None:
    s = position(["blue", "red", "green"], ["blue:e1", "red:e2", "green:e3"])
    s.apply(Place(seat=0, take=tile("red:e2"), to=(0, 1), from_=(0, 0)))
    assert s.display == [tile("blue:e1"), tile("green:e3")]
    assert s.current_player == 1
    refuse(s, Place(seat=1, take=tile("red:e2"), to=(0, 1), from_=(0, 0)), "G2")


# -- G3 passing ----------------------------------------------------------------------------


def test_g3_pass_lays_an_elephant_down_at_most_twice() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors))
    draws = iter(["blue:e1", "red:e1", "blue:e2", "red:e2", "blue:e3", "red:e3"])
    for expected_passes in (1, 2):
        s.apply_draw(tile(next(draws)))
        s.apply_draw(tile(next(draws)))
        seat = s.current_player
        assert Pass(seat) in s.legal_decisions()
        s.apply(Pass(seat))
        assert s.grounds[seat].passes == expected_passes
        assert s.grounds[seat].standing == 2 - expected_passes
        s.apply(Pass(1 - seat))
        # G3: tiles left in the display leave the game at the round's end.
        assert s.display == [] and s.phase == Phase.DRAW
    s.apply_draw(tile(next(draws)))
    s.apply_draw(tile(next(draws)))
    seat = s.current_player
    assert seat == 0
    assert Pass(0) not in s.legal_decisions()
    err = refuse(s, Pass(0), "G3")
    assert "no passes left" in str(err)


def test_g3_left_over_display_tiles_leave_the_game() -> None:
    colors = ["blue", "red", "green"]
    s = position(colors, ["blue:e1", "red:e2", "green:e3"])
    bag_before = len(s.bag)
    s.apply(Pass(0))
    s.apply(Pass(1))
    s.apply(Place(seat=2, take=tile("green:e3"), to=(1, 0), from_=(0, 0)))
    assert s.display == [] and len(s.bag) == bag_before and s.round == 1
    assert s.phase == Phase.DRAW
    s.advance_chance(random.Random(0))
    assert tile("blue:e1") not in s.display or s.bag.count(tile("blue:e1")) < 6


# -- G4 the end --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_g4_game_ends_when_the_bag_is_empty_at_round_end(n: int) -> None:
    s = play_random(40 + n, COLORS[:n])
    assert s.is_over() and s.current_player == TERMINAL and s.to_move is None
    assert s.bag == () and s.display == []
    rounds = {2: 40, 3: 30, 4: 24, 5: 20}[n]
    assert len(s.history()) == rounds and s.round == rounds - 1
    assert s.legal_decisions() == []
    refuse(s, Pass(0), "G4")
    assert [b.total for b in s.scores()] == [b.total for b in s.scores()]
    assert len(s.ranks()) == n


# -- P1 adjacency --------------------------------------------------------------------------


def test_p1_target_must_be_adjacent_to_the_moving_elephant() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    targets = {d.to for d in places(s)}
    assert targets == {(0, -1), (1, 0), (0, 1), (-1, 0)}
    assert all(d.from_ == (0, 0) for d in places(s))
    refuse(s, Place(seat=0, take=tile("blue:e1"), to=(1, 1), from_=(0, 0)), "P1")
    refuse(s, Place(seat=0, take=tile("blue:e1"), to=(2, 0), from_=(0, 0)), "P1")
    refuse(s, Place(seat=0, take=tile("blue:e1"), to=(0, 0), from_=(0, 0)), "P1")


def test_p1_moving_elephant_must_stand_on_from() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    err = refuse(s, Place(seat=0, take=tile("blue:e1"), to=(2, 0), from_=(1, 0)), "P1")
    assert "no elephant of seat 0 stands on [1, 0]" in str(err)


def test_p1_either_elephant_may_move() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, elephants=[(0, 0), (1, 0)])
    s = position(["blue", "red"], ["green:e1", "red:e2"], {0: g})
    froms = {d.from_ for d in places(s)}
    assert froms == {(0, 0), (1, 0)}
    # 2 tile types x (3 targets from each elephant): the other elephant's cell is excluded.
    assert len(places(s)) == 2 * (3 + 3)


# -- P2 building over ----------------------------------------------------------------------


def test_p2_building_over_the_start_tile_and_any_stack_repeatedly() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): ["red:e1", "green:e2"], (2, 0): "black:e1"},
        elephants=[(1, 0), (2, 0)],
    )
    s = position(["blue", "red"], ["green:e1", "red:e2"], {0: g})
    # Over the start tile (P2: the start tile included).
    s.apply(Place(seat=0, take=tile("green:e1"), to=(0, 0), from_=(1, 0)))
    assert [t.name for t, _ in s.grounds[0].stack((0, 0))] == ["blue:start", "green:e1"]
    # Over the 2-tile stack the elephant just left (any stack, any number of times).
    s.apply(Pass(1))
    s.apply_draw(tile("red:e3"))
    s.apply_draw(tile("black:e2"))
    assert s.current_player == 1
    s.apply(Pass(1))
    d = Place(seat=0, take=tile("red:e3"), to=(1, 0), from_=(0, 0))
    assert d in s.legal_decisions()
    s.apply(d)
    assert [t.name for t, _ in s.grounds[0].stack((1, 0))] == ["red:e1", "green:e2", "red:e3"]


def test_p2_empty_target_starts_a_stack() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    s.apply(Place(seat=0, take=tile("red:e1"), to=(-1, 0), from_=(0, 0)))
    assert s.grounds[0].stack((-1, 0)) == ((tile("red:e1"), None),)


# -- P3 the tile goes on top, the elephant moves onto it -------------------------------------


def test_p3_tile_on_top_and_elephant_moves_onto_it() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, elephants=[(0, 0), (0, 0)])
    s = position(["blue", "red"], ["green:e2", "red:e2"], {0: g})
    s.apply(Place(seat=0, take=tile("green:e2"), to=(1, 0), from_=(0, 0)))
    g = s.grounds[0]
    assert g.top((1, 0)) == tile("green:e2")
    assert g.stack((1, 0))[0][0] == tile("red:e1")
    assert sorted(g.elephant_cells()) == [(0, 0), (1, 0)]


# -- P4 one elephant per cell -------------------------------------------------------------


def test_p4_target_with_other_elephant_is_illegal() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, elephants=[(0, 0), (1, 0)])
    s = position(["blue", "red"], ["green:e2", "red:e2"], {0: g})
    assert all(d.to != (1, 0) or d.from_ != (0, 0) for d in places(s))
    err = refuse(s, Place(seat=0, take=tile("green:e2"), to=(1, 0), from_=(0, 0)), "P4")
    assert "holds the other elephant" in str(err)
    refuse(s, Place(seat=0, take=tile("green:e2"), to=(0, 0), from_=(1, 0)), "P4")


def test_p4_both_on_start_before_first_placement_one_decision_per_target() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    assert s.grounds[0].elephant_cells() == [(0, 0), (0, 0)]
    assert len(places(s)) == 2 * 4
    s.apply(Place(seat=0, take=tile("blue:e1"), to=(0, 1), from_=(0, 0)))
    assert sorted(s.grounds[0].elephant_cells()) == [(0, 0), (0, 1)]


# -- P5 lying elephants move -------------------------------------------------------------


def test_p5_lying_elephants_move_like_standing_ones() -> None:
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, elephants=[(0, 0), (1, 0)])
    standing = position(["blue", "red"], ["green:e2", "red:e2"], {0: g})
    lying_g = g.copy()
    lying_g.passes = 2
    lying = position(["blue", "red"], ["green:e2", "red:e2"], {0: lying_g})
    assert set(places(lying)) == set(places(standing))
    assert Pass(0) not in lying.legal_decisions()


# -- P6 coordinates, arch edges, a placement is always possible -----------------------------


def test_p6_arch_needs_an_edge_each_edge_one_decision() -> None:
    s = position(["blue", "red"], ["blue:arch-red", "red:e1"])
    arch = [d for d in places(s) if d.take == tile("blue:arch-red")]
    assert len(arch) == 4 * 4
    assert {d.arch for d in arch} == set(EDGES)
    refuse(s, Place(seat=0, take=tile("blue:arch-red"), to=(1, 0), from_=(0, 0)), "P6")
    refuse(s, Place(seat=0, take=tile("red:e1"), to=(1, 0), from_=(0, 0), arch="N"), "P6")


def test_p6_coordinates_x_east_y_south() -> None:
    s = position(["blue", "red"], ["blue:arch-red", "red:e1"])
    s.apply(Place(seat=0, take=tile("blue:arch-red"), to=(0, -1), from_=(0, 0), arch="S"))
    # The arch north of the start tile, facing south onto it.
    g = s.grounds[0]
    assert g.stack((0, -1)) == ((tile("blue:arch-red"), "S"),)
    assert key((0, -1)) == key((0, 0)) - 1
    assert key((1, 0)) > key((0, 0))


def test_p6_a_placement_is_always_possible() -> None:
    """At every PLACE point of random games there is a placement (the display is not empty)."""
    for seed in range(3):
        rng = random.Random(seed)
        s = new_game(COLORS[: 2 + seed], seed=seed)
        while not s.is_over():
            if s.is_chance():
                s.advance_chance()
                continue
            legal = s.legal_decisions()
            if s.phase == Phase.PLACE:
                assert any(isinstance(d, Place) for d in legal)
            s.apply(legal[rng.randrange(len(legal))])


# -- SP1 move elephant ---------------------------------------------------------------------


def sp1_state() -> GameState:
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (2, 0): "green:e1",
            (0, 1): "black:e2",
        },
        elephants=[(2, 0), (0, 1)],
    )
    return position(["blue", "red"], ["blue:move-elephant", "red:e2"], {0: g})


def test_sp1_follow_up_moves_either_elephant_to_any_free_stack() -> None:
    s = sp1_state()
    s.apply(Place(seat=0, take=tile("blue:move-elephant"), to=(3, 0), from_=(2, 0)))
    assert s.phase == Phase.FOLLOW_UP and s.pending == "move-elephant"
    assert s.current_player == 0
    legal = s.legal_decisions()
    assert legal[0] == FollowUpSkip(0)
    moves = {(d.from_, d.to) for d in legal if isinstance(d, MoveElephant)}
    free = {(0, 0), (1, 0), (2, 0)}
    assert moves == {(e, t) for e in ((3, 0), (0, 1)) for t in free}
    assert len(legal) == 1 + 6
    s.apply(MoveElephant(seat=0, from_=(0, 1), to=(0, 0)))
    assert sorted(s.grounds[0].elephant_cells()) == [(0, 0), (3, 0)]
    assert (s.current_player, s.phase) == (1, Phase.PLACE)


def test_sp1_with_one_free_stack_or_none() -> None:
    """SP1 lists one move per elephant and free stack, down to one free stack, or none."""
    one = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, [(1, 0), (1, 0)])
    assert sp1_moves(one, 0) == [MoveElephant(seat=0, from_=(1, 0), to=(0, 0))]
    two = make_grounds(
        "blue", {(0, 0): "blue:start", (1, 0): "red:e1", (2, 0): "red:e2"}, [(1, 0), (2, 0)]
    )
    assert sp1_moves(two, 1) == [
        MoveElephant(seat=1, from_=(1, 0), to=(0, 0)),
        MoveElephant(seat=1, from_=(2, 0), to=(0, 0)),
    ]
    none = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, [(0, 0), (1, 0)])
    assert sp1_moves(none, 0) == []


def test_sp1_is_optional() -> None:
    s = sp1_state()
    s.apply(Place(seat=0, take=tile("blue:move-elephant"), to=(3, 0), from_=(2, 0)))
    s.apply(FollowUpSkip(0))
    assert sorted(s.grounds[0].elephant_cells()) == [(0, 1), (3, 0)]
    assert s.current_player == 1


def test_sp1_refusals() -> None:
    s = sp1_state()
    s.apply(Place(seat=0, take=tile("blue:move-elephant"), to=(3, 0), from_=(2, 0)))
    refuse(s, MoveElephant(seat=0, from_=(0, 1), to=(3, 0)), "SP1")  # onto the other elephant
    refuse(s, MoveElephant(seat=0, from_=(0, 1), to=(5, 5)), "SP1")  # onto no tile
    refuse(s, MoveElephant(seat=0, from_=(1, 0), to=(0, 0)), "SP1")  # no elephant there
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(1, 1)), "SP1")  # the other special's follow-up
    refuse(
        s, Place(seat=0, take=tile("red:e2"), to=(1, 1), from_=(0, 1)), "SP1"
    )  # a second placement
    refuse(s, Pass(0), "SP1")
    refuse(s, MoveElephant(seat=1, from_=(0, 1), to=(0, 0)), "G2")


# -- SP2 move tile -------------------------------------------------------------------------


def sp2_state() -> GameState:
    # Layout (x east, y south), elephants E at (2, 1) and (0, 2):
    #   (0,0) (1,0) (2,0)
    #   (0,1) (1,1) (2,1)E
    #   (0,2)E
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (2, 0): "green:e1",
            (0, 1): "black:e2",
            (1, 1): ["red:e3", "purple:e1"],
            (2, 1): "green:e2",
            (0, 2): "red:e2",
        },
        elephants=[(2, 1), (0, 2)],
    )
    return position(["blue", "red"], ["blue:move-tile", "red:e2"], {0: g})


def test_sp2_moves_a_whole_stack_keeping_its_order() -> None:
    s = sp2_state()
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 1), from_=(2, 1)))
    assert s.phase == Phase.FOLLOW_UP and s.pending == "move-tile"
    stack = s.grounds[0].stack((1, 1))
    s.apply(MoveStack(seat=0, from_=(1, 1), to=(2, 2)))
    g = s.grounds[0]
    assert g.stack((2, 2)) == stack and g.stack((1, 1)) == ()
    assert g.is_connected()
    assert s.current_player == 1


def test_sp2_source_must_hold_no_elephant() -> None:
    s = sp2_state()
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 1), from_=(2, 1)))
    refuse(s, MoveStack(seat=0, from_=(0, 2), to=(1, 2)), "SP2")
    refuse(
        s, MoveStack(seat=0, from_=(3, 1), to=(4, 0)), "SP2"
    )  # the new tile carries the elephant


def test_sp2_source_must_not_be_built_around() -> None:
    g = make_grounds(
        "blue",
        {
            (0, 0): "blue:start",
            (1, 0): "red:e1",
            (-1, 0): "red:e2",
            (0, 1): "green:e1",
            (0, -1): "green:e2",
            (1, -1): "black:e1",
        },
        elephants=[(1, 0), (0, 1)],
    )
    s = position(["blue", "red"], ["blue:move-tile", "red:e2"], {0: g})
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(2, 0), from_=(1, 0)))
    err = refuse(s, MoveStack(seat=0, from_=(0, 0), to=(3, 0)), "SP2")
    assert "built around" in str(err)
    assert not any(isinstance(d, MoveStack) and d.from_ == (0, 0) for d in s.legal_decisions())


def test_sp2_source_must_not_split_grounds() -> None:
    s = sp2_state()
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 1), from_=(2, 1)))
    # (0, 1) links (0, 2) to the rest; (2, 1) links the new tile (it holds an elephant too).
    err = refuse(s, MoveStack(seat=0, from_=(0, 1), to=(1, 2)), "SP2")
    assert "split" in str(err)
    sources = {d.from_ for d in s.legal_decisions() if isinstance(d, MoveStack)}
    assert sources == {(0, 0), (1, 0), (2, 0), (1, 1)}


def test_sp2_destination_empty_not_source_and_next_to_another_stack() -> None:
    s = sp2_state()
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 1), from_=(2, 1)))
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(1, 1)), "SP2")  # not empty
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(1, 0)), "SP2")  # the source itself
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(1, -1)), "SP2")  # touches only the source
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(5, 5)), "SP2")  # touches nothing
    refuse(s, MoveStack(seat=0, from_=(7, 7), to=(1, 2)), "SP2")  # no stack at the source
    refuse(s, MoveElephant(seat=0, from_=(0, 2), to=(0, 0)), "SP2")  # the other special's follow-up
    # Next to another stack, not to an elephant (docs/rules.md decision): far from both elephants.
    s.apply(MoveStack(seat=0, from_=(1, 0), to=(-1, 0)))
    assert s.grounds[0].top((-1, 0)) == tile("red:e1")


def test_sp2_legal_moves_match_the_rule_text() -> None:
    """Every (source, destination) pair the rule text allows, computed independently."""
    s = sp2_state()
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(3, 1), from_=(2, 1)))
    g = s.grounds[0]
    cells = set(g.cells())
    els = set(g.elephant_cells())
    nb = ((0, -1), (1, 0), (0, 1), (-1, 0))

    expected = set()
    for src in cells:
        if src in els:
            continue
        if all((src[0] + dx, src[1] + dy) in cells for dx, dy in nb):
            continue
        rest = cells - {src}
        if not connected(rest):
            continue
        for x in range(-3, 6):
            for y in range(-3, 5):
                dst = (x, y)
                if dst in cells:
                    continue
                # SP2 (no hole): every hole after the move was one before it.
                if any((x + dx, y + dy) in rest for dx, dy in nb) and holes(rest | {dst}) <= holes(
                    cells
                ):
                    expected.add((src, dst))
    got = {(d.from_, d.to) for d in s.legal_decisions() if isinstance(d, MoveStack)}
    assert got == expected
    assert len(got) > 10


def test_sp2_start_tile_stack_can_be_moved_and_keeps_being_scored() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): "red:e1", (2, 0): "green:e1"},
        elephants=[(1, 0), (2, 0)],
    )
    s = position(["blue", "red"], ["blue:move-tile", "red:e2"], {0: g})
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(2, 1), from_=(2, 0)))
    s.apply(MoveStack(seat=0, from_=(0, 0), to=(1, 1)))
    assert s.grounds[0].top((1, 1)) == tile("blue:start")
    assert s.scores()[0].symbols == 1 + 1 + 1


# -- SP3 specials act only when placed from the display --------------------------------------


def test_sp3_special_moved_by_sp2_does_nothing() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): "green:e1", (0, 1): "red:move-elephant"},
        elephants=[(0, 0), (1, 0)],
    )
    s = position(["blue", "red"], ["blue:move-tile", "red:e2"], {0: g})
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(2, 0), from_=(1, 0)))
    s.apply(MoveStack(seat=0, from_=(0, 1), to=(1, 1)))
    assert s.grounds[0].top((1, 1)) == tile("red:move-elephant")
    assert s.phase == Phase.PLACE and s.current_player == 1 and s.pending is None


def test_sp3_covered_special_does_nothing() -> None:
    g = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): "red:move-tile"},
        elephants=[(0, 0), (0, 0)],
    )
    s = position(["blue", "red"], ["green:e1", "red:e2"], {0: g})
    s.apply(Place(seat=0, take=tile("green:e1"), to=(1, 0), from_=(0, 0)))
    assert s.phase == Phase.PLACE and s.current_player == 1
    # Building a special over another special: only the new one acts.
    g2 = make_grounds(
        "blue",
        {(0, 0): "blue:start", (1, 0): "red:move-tile"},
        elephants=[(0, 0), (0, 0)],
    )
    s2 = position(["blue", "red"], ["green:move-elephant", "red:e2"], {0: g2})
    s2.apply(Place(seat=0, take=tile("green:move-elephant"), to=(1, 0), from_=(0, 0)))
    assert s2.pending == "move-elephant"
    assert not any(isinstance(d, MoveStack) for d in s2.legal_decisions())


def test_sp3_special_left_in_the_display_does_nothing() -> None:
    s = position(["blue", "red"], ["blue:move-tile", "red:move-elephant"])
    s.apply(Pass(0))
    s.apply(Pass(1))
    assert s.phase == Phase.DRAW and s.pending is None and s.display == []


# -- checked application, copies ----------------------------------------------------------


def test_not_a_decision_is_refused() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    before = snapshot(s)
    with pytest.raises(IllegalDecisionError):
        s.apply("pass")
    assert snapshot(s) == before


def test_copy_is_independent() -> None:
    s = new_game(["blue", "red"], seed=3)
    s.advance_chance()
    c = s.copy()
    c.apply(c.legal_decisions()[0])
    assert s.turn == 0 and s.grounds[0].cells() == [(0, 0)]
    assert c.turn == 1
    # With the RNG copied the copy draws the same tiles as the original would.
    a, b = s.copy(), s.copy()
    for x in (a, b):
        x.apply(Pass(0))
        x.apply(Pass(1))
        x.advance_chance()
    assert a.display == b.display
    assert s.copy(with_rng=False).rng is None


def test_history_lists_draws_and_decisions_per_round() -> None:
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    s.apply(Pass(0))
    d = Place(seat=1, take=tile("blue:e1"), to=(1, 0), from_=(0, 0))
    s.apply(d)
    assert s.history() == [([tile("blue:e1"), tile("red:e1")], [Pass(0), d])]
    assert s.drawn_rounds() == [[tile("blue:e1"), tile("red:e1")]]


def test_scores_and_ranks_of_a_finished_game_are_consistent() -> None:
    s = play_random(7, ["blue", "red", "green"])
    totals = [b.total for b in s.scores()]
    assert s.ranks() == [1 + sum(o > t for o in totals) for t in totals]


@pytest.mark.parametrize("colors", [["blue", "red"], ["purple", "green", "black", "red", "blue"]])
def test_state_conserves_tiles_through_a_game(colors: list[str]) -> None:
    s = new_game(colors, seed=2)
    rng = random.Random(2)
    discarded: Counter[object] = Counter()
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        legal = s.legal_decisions()
        d = legal[rng.randrange(len(legal))]
        left = Counter(s.display) - Counter([d.take] if isinstance(d, Place) else [])
        s.apply(d)
        if s.phase in (Phase.DRAW, Phase.OVER):
            discarded += left
    on_grounds = Counter(t for g in s.grounds for st in g.stacks.values() for t, _ in st)
    starts = Counter(tile(f"{c}:start") for c in colors)
    assert on_grounds + discarded + Counter(s.removed) == Counter(TS.tiles()) + starts


def test_p6_cells_beyond_the_coordinate_range_are_refused() -> None:
    """Found by these tests: (1, -4097) and (1, -4096) once aliased (0, -1) and (0, 0), so
    apply accepted a placement that legal_decisions does not list."""
    s = position(["blue", "red"], ["blue:e1", "red:e1"])
    d = Place(seat=0, take=tile("blue:e1"), to=(1, -4097), from_=(1, -4096))
    assert d not in s.legal_decisions()
    refuse(s, d, "P6")
    refuse(s, Place(seat=0, take=tile("blue:e1"), to=(0, 5000), from_=(0, 0)), "P6")
    g = make_grounds("blue", {(0, 0): "blue:start", (1, 0): "red:e1"}, elephants=[(0, 0), (0, 0)])
    s = position(["blue", "red"], ["blue:move-tile", "red:e1"], {0: g})
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=(0, 1), from_=(0, 0)))
    refuse(s, MoveStack(seat=0, from_=(1, 0), to=(4097, -4095)), "P6")


def sp2_after_move_tile(stacks: dict[tuple[int, int], str], elephant: tuple[int, int]) -> GameState:
    """Blue to follow up a move-tile placed east of ``elephant`` (its other elephant too)."""
    g = make_grounds("blue", stacks, elephants=[elephant, elephant])
    s = position(["blue", "red"], ["blue:move-tile", "red:e1"], {0: g})
    to = (elephant[0] + 1, elephant[1])
    s.apply(Place(seat=0, take=tile("blue:move-tile"), to=to, from_=elephant))
    assert s.phase == Phase.FOLLOW_UP and s.pending == "move-tile"
    return s


def block(rows: list[str]) -> dict[tuple[int, int], str]:
    """Stacks from a picture: ``#`` a tile, ``.`` empty; (0, 0) is the top-left character."""
    return {
        (x, y): "red:e1" if (x, y) != (0, 0) else "blue:start"
        for y, row in enumerate(rows)
        for x, ch in enumerate(row)
        if ch == "#"
    }


def test_sp2_move_must_not_leave_a_hole_at_the_source() -> None:
    """SP2 (no hole): the source (1, 1) has one empty neighbour, (1, 2); moving the stack
    there would leave (1, 1) empty with tiles on all four sides: refused (this reading
    replaced the older one, under which the move was legal)."""
    s = sp2_hole_position()
    d = MoveStack(seat=0, from_=(1, 1), to=(1, 2))
    assert d not in s.legal_decisions()
    err = refuse(s, d, "SP2")
    assert "hole at [1, 1]" in str(err)
    # The same stack may go where it leaves no hole: (1, 1) stays open to the south.
    ok = MoveStack(seat=0, from_=(1, 1), to=(-1, 0))
    assert ok in s.legal_decisions()
    s.apply(ok)
    assert s.grounds[0].top((-1, 0)) == tile("red:e2")


def test_sp2_destination_must_not_close_a_one_cell_hole() -> None:
    """SP2 (no hole): (1, 1) is open to the south until a stack fills (1, 2)."""
    s = sp2_after_move_tile(
        block(
            [
                "###",
                "#.#",
                "#..",
                "#..",
            ]
        ),
        (2, 1),
    )
    # The move-tile went to (3, 1). Moving (0, 3) to (1, 2) encloses (1, 1).
    d = MoveStack(seat=0, from_=(0, 3), to=(1, 2))
    assert d not in s.legal_decisions()
    err = refuse(s, d, "SP2")
    assert "hole at [1, 1]" in str(err)
    # To (2, 2) instead: (1, 1) still leads out through (1, 2).
    assert MoveStack(seat=0, from_=(0, 3), to=(2, 2)) in s.legal_decisions()


def test_sp2_destination_must_not_close_a_region_of_several_cells() -> None:
    """SP2 (no hole): the empty 2x2 region (1..2, 1..2) leads out only through (2, 3)."""
    s = sp2_after_move_tile(
        block(
            [
                "####",
                "#..#",
                "#..#",
                "##..",
                "#...",
            ]
        ),
        (3, 1),
    )
    # The move-tile went to (4, 1). The stack on (0, 4) would close the region at (2, 3).
    d = MoveStack(seat=0, from_=(0, 4), to=(2, 3))
    assert d not in s.legal_decisions()
    err = refuse(s, d, "SP2")
    assert "hole at [1, 1], [1, 2], [2, 1], [2, 2]" in str(err)
    # At (3, 3) it leaves (2, 3) empty on the box's edge: the region still leads out.
    assert MoveStack(seat=0, from_=(0, 4), to=(3, 3)) in s.legal_decisions()


def test_sp2_a_stack_may_move_into_an_old_hole() -> None:
    """SP2: holes left by ordinary placements are allowed, and a stack may fill one."""
    s = sp2_after_move_tile(
        block(
            [
                "###",
                "#.#",
                "###",
                "#..",
            ]
        ),
        (2, 2),
    )
    g = s.grounds[0]
    assert {cell(k) for k in holes_of(g.stacks)} == {(1, 1)}
    legal = s.legal_decisions()
    assert MoveStack(seat=0, from_=(0, 3), to=(1, 1)) in legal  # fills the old hole
    assert MoveStack(seat=0, from_=(0, 3), to=(1, 3)) in legal  # leaves it: it was a hole before
    s.apply(MoveStack(seat=0, from_=(0, 3), to=(1, 1)))
    assert holes_of(s.grounds[0].stacks) == set()


def test_sp2_legal_moves_match_the_rule_text_with_and_without_holes() -> None:
    """Every SP2 point of seeded random games: the engine's moves are exactly those that the
    rule's words allow (tests/enginelib.py, holes found by flood fill from the box), with
    grounds that already have holes among them."""
    with_holes = 0
    points = 0
    for seed in range(60):
        rng = random.Random(seed)
        s = new_game(["blue", "red"], seed=seed)
        while not s.is_over():
            if s.is_chance():
                s.advance_chance(rng)
                continue
            legal = s.legal_decisions()
            if s.phase == Phase.FOLLOW_UP and s.pending == "move-tile":
                points += 1
                with_holes += bool(holes_of(s.grounds[s.current_player].stacks))
                assert set(legal) == rule_text_decisions(s)
            s.apply(legal[rng.randrange(len(legal))])
    assert points > 100 and with_holes > 3


def test_g4_special_on_the_last_turn_still_gets_its_follow_up() -> None:
    s = new_game(["blue", "red"], seed=31)
    rng = random.Random(31)
    while not (s.phase == Phase.PLACE and not s.bag and s.turn == s.n - 1):
        if s.is_chance():
            s.advance_chance()
        else:
            legal = s.legal_decisions()
            s.apply(legal[rng.randrange(len(legal))])
    seat = s.current_player
    # Put a move-elephant tile in the display by hand (a constructed position).
    s.display = [tile("blue:move-elephant")]
    frm = s.grounds[seat].elephant_cells()[0]
    place = next(d for d in places(s) if d.from_ == frm)
    s.apply(place)
    assert (s.is_over(), s.phase, s.current_player) == (False, Phase.FOLLOW_UP, seat)
    moves = [d for d in s.legal_decisions() if isinstance(d, MoveElephant)]
    assert moves
    s.apply(moves[0])
    assert s.is_over() and s.current_player == TERMINAL


def test_decisions_from_the_engine_caches_are_ordinary_frozen_values() -> None:
    """The engine builds cached decisions by filling their slots directly: they must equal,
    hash and print like decisions built the ordinary way, and stay frozen."""
    s = new_game(["blue", "red", "green"], seed=12)
    rng = random.Random(12)
    seen = 0
    while not s.is_over():
        if s.is_chance():
            s.advance_chance(rng)
            continue
        legal = s.legal_decisions()
        for d in legal:
            if isinstance(d, Place | MoveStack | MoveElephant):
                same = type(d)(**{name: getattr(d, name) for name in d.FIELDS})
                assert d == same and hash(d) == hash(same) and repr(d) == repr(same)
                with pytest.raises(AttributeError):
                    d.seat = 4  # type: ignore[misc]
                seen += 1
        s.apply(legal[rng.randrange(len(legal))])
    assert seen > 1000
