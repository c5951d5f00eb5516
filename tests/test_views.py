"""Tests of kerala.views: a player's view holds every public fact (I1) and nothing hidden (I2),
and sample_state turns a view back into a consistent full state."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest

from enginelib import random_line, removal_for, state_after, with_hidden
from kerala.game import GameState, Phase, new_game
from kerala.tiles import load_tileset, tile
from kerala.views import PlayerView, sample_state, view_from_json

PUBLIC_FIELDS = {
    "seat",
    "colors",
    "tileset",
    "tileset_counts",
    "removal",
    "removed",
    "to_remove",
    "grounds",
    "display",
    "bag_count",
    "round",
    "turn",
    "phase",
    "to_move",
    "pending",
    "rounds",
}


def midgame(seed: int, colors: list[str], stop: int = 25) -> GameState:
    return state_after(seed, colors, stop)


def hidden_variant(s: GameState) -> GameState:
    """The same public position with other hidden facts: bag order, removed tiles, RNG."""
    removed, bag = list(s.removed), list(s.bag)
    random.Random(1).shuffle(bag)
    players = set(s.colors)
    for i, r in enumerate(removed):
        j = next((j for j, b in enumerate(bag) if b.color not in players and b is not r), None)
        if j is not None:
            removed[i], bag[j] = bag[j], removed[i]
            break
    else:
        raise AssertionError("no unplayed tile in the bag to swap")
    t = with_hidden(s, removed=removed, bag=bag, rng=random.Random(12345))
    assert Counter(t.removed) != Counter(s.removed)
    return t


def test_i1_view_fields_are_the_public_ones() -> None:
    assert {f.name for f in dataclasses.fields(PlayerView)} == PUBLIC_FIELDS


def test_i1_view_shows_every_public_fact() -> None:
    s = midgame(1, ["blue", "red", "green"])
    v = s.view(1)
    assert v.seat == 1 and v.colors == s.colors and v.n == 3
    assert v.display == tuple(s.display)
    assert v.bag_count == len(s.bag)
    assert v.round == s.round and v.turn == s.turn and v.to_move == s.to_move
    assert v.phase == s.phase.name.lower() and v.pending == s.pending
    for gv, g in zip(v.grounds, s.grounds, strict=True):
        back = gv.to_grounds()
        assert back.stacks == g.stacks  # stacks with all tiles and arch edges
        assert back.elephants == g.elephants and back.passes == g.passes
    assert [list(d) for d, _ in v.rounds] == s.drawn_rounds()
    assert [list(t) for _, t in v.rounds] == [t for _, t in s.history()]
    assert v.tileset == "standard"
    assert dict(v.tileset_counts) == dict(load_tileset("standard").counts)
    assert v.drawn() == Counter(t for d in s.drawn_rounds() for t in d)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_i2_view_does_not_depend_on_hidden_information(n: int) -> None:
    """Views of two states that differ only in bag order, removed tiles and RNG are equal."""
    colors = ["blue", "black", "green", "red", "purple"][:n]
    s = midgame(n, colors)
    t = hidden_variant(s)
    for seat in (*range(n), None):
        assert s.view(seat) == t.view(seat)
        assert json.dumps(s.view(seat).to_json()) == json.dumps(t.view(seat).to_json())


def test_i2_view_json_has_no_bag_removed_or_seed() -> None:
    s = midgame(3, ["blue", "red"])
    doc = s.view(0).to_json()
    assert doc["removed"] is None and doc["bag_count"] == len(s.bag)
    assert set(doc) == {
        "seat",
        "colors",
        "tileset",
        "removal",
        "removed",
        "grounds",
        "display",
        "bag_count",
        "round",
        "turn",
        "phase",
        "to_move",
        "pending",
        "decisions",
    }
    text = json.dumps(doc)
    for word in ("seed", "rng", "random.Random", '"bag"', "pool"):
        assert word not in text


def test_i2_view_holds_no_rng_or_state_objects() -> None:
    s = midgame(4, ["blue", "red", "green"])
    v = s.view(2)
    for f in dataclasses.fields(v):
        value = getattr(v, f.name)
        assert not isinstance(value, random.Random | GameState)
    assert not hasattr(v, "bag") and not hasattr(v, "rng")


def test_i2_during_random_removal_the_view_hides_it() -> None:
    s = new_game(["blue", "red"], seed=5)
    s.sample_draw(random.Random(0))
    s.sample_draw(random.Random(1))
    v = s.view(0)
    assert v.phase == "removal" and v.removed is None
    assert v.bag_count == 80  # the bag that will be


def test_i1_chosen_removal_is_public() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=1)
    s.advance_chance()
    v = s.view(1)
    assert v.removed == tuple(removal_for(colors))
    assert v.to_json()["removed"] == [t.name for t in removal_for(colors)]


def test_view_seat_must_exist() -> None:
    s = new_game(["blue", "red"], seed=1)
    with pytest.raises(ValueError, match="seat 2 is not in this 2-player game"):
        s.view(2)
    with pytest.raises(ValueError):
        s.view(-1)
    assert s.view(None).seat is None


def test_view_from_json_parses_tiles_and_decisions() -> None:
    s = midgame(6, ["blue", "red"])
    doc = json.loads(json.dumps(s.view(0).to_json()))
    parsed = view_from_json(doc)
    assert parsed["display"] == s.display
    assert [r["turns"] for r in parsed["decisions"]] == [t for _, t in s.history()]


@pytest.mark.parametrize(("seed", "n"), [(1, 2), (2, 3), (3, 4), (4, 5)])
def test_sample_state_is_consistent_with_the_view(seed: int, n: int) -> None:
    colors = ["blue", "black", "green", "red", "purple"][:n]
    s = midgame(seed, colors, stop=15 + seed)
    v = s.view(s.to_move)
    for k in range(3):
        d = sample_state(v, random.Random(k))
        assert d.view(s.to_move) == v
        # Same decisions; their order may follow the grounds' insertion order.
        assert set(d.legal_decisions()) == set(s.legal_decisions())
        assert len(d.legal_decisions()) == len(s.legal_decisions())
        assert d.rng is None
        assert len(d.bag) == len(s.bag)
        # The unseen tiles are the same multiset; only their split and order may differ.
        assert Counter(d.bag) + Counter(d.removed) == Counter(s.bag) + Counter(s.removed)
        assert len(d.removed) == s.to_remove
        assert all(t.color not in colors for t in d.removed)
        # The sampled state plays on to the end.
        rng = random.Random(k)
        while not d.is_over():
            if d.is_chance():
                d.advance_chance(rng)
            else:
                legal = d.legal_decisions()
                d.apply(legal[rng.randrange(len(legal))])


def test_sample_state_under_chosen_removal_keeps_the_removed_tiles() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=7)
    rng = random.Random(7)
    for _ in range(11):
        if s.is_chance():
            s.advance_chance()
        legal = s.legal_decisions()
        s.apply(legal[rng.randrange(len(legal))])
    d = sample_state(s.view(0), random.Random(0))
    assert d.removed == s.removed
    assert Counter(d.bag) == Counter(s.bag)


def test_sample_state_at_follow_up_and_during_removal() -> None:
    for seed in range(40):
        line = random_line(seed, ["blue", "red"])
        found = next((x for x in line if x.phase == Phase.FOLLOW_UP), None)
        if found is not None:
            break
    assert found is not None
    d = sample_state(found.view(found.to_move), random.Random(0))
    assert set(d.legal_decisions()) == set(found.legal_decisions())
    s = new_game(["blue", "red", "green"], seed=2)
    s.sample_draw(random.Random(3))
    d = sample_state(s.view(0), random.Random(0))
    assert d.phase == Phase.REMOVAL
    d.advance_chance(random.Random(1))
    assert len(d.removed) == 10 and len(d.bag) + len(d.display) == 90
    assert tile("purple:e1") in d.removed + d.bag + tuple(d.display)
