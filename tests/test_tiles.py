"""Tests of kerala.tiles: colors, tile types, the standard tile set and loading other tile sets
(docs/rules.md "Components")."""

from __future__ import annotations

import copy
import pickle
from collections import Counter
from typing import Any

import pytest

from kerala.errors import TileSetError
from kerala.tiles import (
    ALL_TILE_TYPES,
    COLORS,
    EDGE_DELTA,
    EDGES,
    GAME_TILE_TYPES,
    START_TILES,
    TileSet,
    is_tile_name,
    load_tileset,
    tile,
)

PER_COLOR = {"e1": 6, "e2": 5, "e3": 3, "arch": 1, "move-elephant": 1, "move-tile": 1}


def test_a_tile_types_hue_is_its_colors_place_in_colors() -> None:
    assert {t.hue for t in ALL_TILE_TYPES} == set(range(len(COLORS)))
    assert all(COLORS[t.hue] == t.color for t in ALL_TILE_TYPES)


def test_components_five_colors_and_edges() -> None:
    assert COLORS == ("blue", "black", "green", "red", "purple")
    assert EDGES == ("N", "E", "S", "W")
    # P6: x grows east, y grows south.
    assert EDGE_DELTA == {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


def test_components_standard_tile_set_counts() -> None:
    """The reconstruction of docs/rules.md: per color 6 e1, 5 e2, 3 e3, 4 arches, 1 + 1 specials."""
    ts = load_tileset("standard")
    assert ts.name == "standard" and ts.total() == 100
    for color in COLORS:
        per = Counter({t.kind: n for t, n in ts.counts.items() if t.color == color})
        assert sum(per.values()) == 20
        assert per["e1"] == 6 and per["e2"] == 5 and per["e3"] == 3
        assert per["move-elephant"] == 1 and per["move-tile"] == 1
        arches = {k: n for k, n in per.items() if k.startswith("arch-")}
        assert arches == {f"arch-{o}": 1 for o in COLORS if o != color}
        assert per["start"] == 0  # start tiles are not game tiles
    assert len(ts.tiles()) == 100
    assert len(ts.tiles({"red"})) == 20


def test_components_tile_attributes() -> None:
    assert (tile("red:e3").symbols, tile("red:e2").symbols, tile("red:e1").symbols) == (3, 2, 1)
    assert tile("blue:start").symbols == 1  # Decision: the start tile shows 1 elephant symbol
    assert tile("blue:move-elephant").symbols == 0  # the figure on it is no symbol
    assert tile("blue:move-tile").symbols == 0
    a = tile("green:arch-purple")
    assert (a.color, a.kind, a.arch_color, a.is_arch, a.symbols) == (
        "green",
        "arch-purple",
        "purple",
        True,
        0,
    )
    assert tile("green:move-tile").special == "move-tile"
    assert tile("green:move-elephant").special == "move-elephant"
    assert tile("green:e1").special is None and not tile("green:e1").is_arch
    assert START_TILES["black"] is tile("black:start")


def test_tile_types_are_interned_and_survive_copy_and_pickle() -> None:
    t = tile("purple:arch-red")
    assert tile("purple:arch-red") is t
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(t)) is t
    assert repr(t) == "tile('purple:arch-red')" and str(t) == "purple:arch-red"
    assert [x.index for x in ALL_TILE_TYPES] == list(range(len(ALL_TILE_TYPES)))
    assert len(GAME_TILE_TYPES) == 5 * (3 + 4 + 2)


@pytest.mark.parametrize(
    "name", ["blue:arch-blue", "pink:e1", "blue:e4", "blue", "", "Blue:e1", "blue:e1 "]
)
def test_unknown_tile_names_are_refused(name: str) -> None:
    with pytest.raises(TileSetError, match="unknown tile type"):
        tile(name)
    assert not is_tile_name(name)


def test_unknown_tile_non_string() -> None:
    with pytest.raises(TileSetError):
        tile(3)
    assert not is_tile_name(None)


def test_other_tile_set_same_kinds_other_counts() -> None:
    ts = TileSet.from_json({"name": "mine", "per_color": {**PER_COLOR, "e1": 4}})
    assert ts.total() == 90
    assert ts.count(tile("black:e1")) == 4
    # 'counts' overrides single types.
    ts2 = TileSet.from_json(
        {"name": "fix", "per_color": PER_COLOR, "counts": {"red:e3": 2, "blue:arch-red": 2}}
    )
    assert ts2.count(tile("red:e3")) == 2 and ts2.count(tile("blue:arch-red")) == 2
    assert ts2.total() == 100
    back = TileSet.from_json(ts2.to_json())
    assert back == ts2


def test_tile_set_with_counts_only() -> None:
    std = load_tileset("standard")
    doc = std.to_json()
    assert set(doc) == {"format", "version", "name", "counts"}
    assert TileSet.from_json(doc) == std


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        ([], "must be a JSON object"),
        ({"format": "x", "name": "a", "per_color": PER_COLOR}, "unknown tile set format"),
        ({"version": 2, "name": "a", "per_color": PER_COLOR}, "unsupported tile set version"),
        ({"per_color": PER_COLOR}, "non-empty string 'name'"),
        ({"name": "a"}, "give 'per_color' or 'counts'"),
        ({"name": "a", "per_color": []}, "per_color must be an object"),
        ({"name": "a", "per_color": {**PER_COLOR, "e4": 1}}, "unknown kinds in per_color"),
        ({"name": "a", "per_color": {"e1": 1}}, "per_color lacks kinds: e2, e3, arch"),
        ({"name": "a", "per_color": {**PER_COLOR, "e1": -1}}, "must be an integer >= 0"),
        ({"name": "a", "per_color": {**PER_COLOR, "e1": 1.5}}, "must be an integer >= 0"),
        ({"name": "a", "per_color": {**PER_COLOR, "e1": True}}, "must be an integer >= 0"),
        ({"name": "a", "counts": []}, "counts must be an object"),
        ({"name": "a", "counts": {"blue:start": 1}}, "unknown game tile type 'blue:start'"),
        ({"name": "a", "counts": {"blue:e9": 1}}, "unknown game tile type 'blue:e9'"),
        ({"name": "a", "counts": {"blue:e1": 1}}, "no count for blue:e2"),
    ],
)
def test_tile_set_validation(doc: Any, fragment: str) -> None:
    with pytest.raises(TileSetError) as info:
        TileSet.from_json(doc)
    assert fragment in str(info.value)


def test_unknown_shipped_tile_set() -> None:
    with pytest.raises(TileSetError, match="no tile set named 'deluxe'"):
        load_tileset("deluxe")
