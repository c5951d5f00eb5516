"""Every engine value survives pickle and copy unchanged, in whichever build runs (the analysis
pool, Ray's workers and OpenSpiel's serialised states move them between processes)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from enginelib import random_line, snapshot
from kerala.actions import FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.tiles import COLORS, load_tileset, tile


@pytest.mark.parametrize("seats", [2, 4])
def test_a_state_pickled_mid_game_plays_on_identically(seats: int) -> None:
    for i, s in enumerate(random_line(5, COLORS[:seats], stop=60)):
        if i % 7:
            continue
        back = pickle.loads(pickle.dumps(s))
        assert snapshot(back) == snapshot(s)
        assert snapshot(copy.deepcopy(s)) == snapshot(s)
        assert back.legal_decisions() == s.legal_decisions()
        assert back.scores() == s.scores() and back.view(0) == s.view(0)
        assert [pickle.loads(pickle.dumps(g)).stacks for g in s.grounds] == [
            g.stacks for g in s.grounds
        ]


@pytest.mark.parametrize(
    "value",
    [
        Pass(0),
        Place(seat=1, take=tile("blue:e1"), to=(1, 0), from_=(0, 0), arch=None),
        MoveElephant(seat=0, from_=(0, 0), to=(1, 1)),
        MoveStack(seat=2, from_=(0, 1), to=(2, 2)),
        FollowUpSkip(3),
        load_tileset("standard"),
    ],
    ids=repr,
)
def test_frozen_values_round_trip_through_pickle_and_copy(value: Any) -> None:
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.copy(value) == value and copy.deepcopy(value) == value
