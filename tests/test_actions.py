"""Tests of kerala.actions: decisions are frozen values with an exact JSON round trip (the turn
form of docs/notation.md), and malformed JSON decisions are refused with what was wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from enginelib import random_line
from kerala.actions import (
    Decision,
    DecisionSyntaxError,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    decision_from_json,
    decision_to_json,
)
from kerala.errors import KeralaError
from kerala.tiles import tile

EXAMPLES: list[Decision] = [
    Pass(1),
    Place(seat=0, take=tile("black:e3"), to=(1, 0), from_=(0, 0)),
    Place(seat=2, take=tile("purple:arch-red"), to=(2, 0), from_=(1, 0), arch="N"),
    Place(seat=4, take=tile("green:move-tile"), to=(-3, 7), from_=(-3, 6)),
    MoveElephant(seat=0, from_=(4, 2), to=(-2, 0)),
    MoveStack(seat=1, from_=(-1, 0), to=(3, 1)),
    FollowUpSkip(3),
]


@pytest.mark.parametrize("d", EXAMPLES, ids=repr)
def test_decision_json_round_trip(d: Decision) -> None:
    j = d.to_json()
    assert decision_to_json(d) == j
    assert decision_from_json(j) == d
    assert decision_from_json(json.loads(json.dumps(j))) == d
    assert hash(decision_from_json(j)) == hash(d)


@pytest.mark.parametrize("d", EXAMPLES, ids=repr)
def test_decision_repr_is_code(d: Decision) -> None:
    namespace = {
        "Pass": Pass,
        "Place": Place,
        "MoveElephant": MoveElephant,
        "MoveStack": MoveStack,
        "FollowUpSkip": FollowUpSkip,
        "tile": tile,
    }
    assert eval(repr(d), namespace) == d


@pytest.mark.parametrize(
    "d",
    [
        Pass(0),
        Place(seat=0, take=tile("black:e3"), to=(1, 0), from_=(0, 0)),
        MoveElephant(seat=0, from_=(0, 0), to=(1, 0)),
        MoveStack(seat=0, from_=(0, 0), to=(1, 0)),
        FollowUpSkip(0),
    ],
    ids=str,
)
def test_decisions_are_frozen(d: Decision) -> None:
    """Every field refuses assignment and deletion, in either build (compiled, mypyc's
    read-only attributes refuse; pure, kerala.frozen's refusal, a FrozenInstanceError)."""
    before = d.to_json()
    for name in d.FIELDS:
        with pytest.raises(AttributeError):
            setattr(d, name, 1)
        with pytest.raises(AttributeError):
            delattr(d, name)
    assert d.to_json() == before


def test_decisions_take_their_fields_as_their_constructor_says() -> None:
    with pytest.raises(TypeError):
        Place(0, tile("black:e3"), (1, 0), (0, 0))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        MoveStack(seat=0, from_=(0, 0))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Pass(seat=0, skip=True)  # type: ignore[call-arg]
    assert Place(seat=0, take=tile("black:e3"), to=(1, 0), from_=(0, 0)).arch is None
    assert Pass(seat=2) == Pass(2) != FollowUpSkip(2)


def test_notation_md_turn_shapes() -> None:
    assert Pass(1).to_json() == {"seat": 1, "pass": True}
    assert Place(
        seat=0, take=tile("purple:arch-red"), to=(2, 0), from_=(1, 0), arch="N"
    ).to_json() == {
        "seat": 0,
        "take": "purple:arch-red",
        "to": [2, 0],
        "from": [1, 0],
        "arch": "N",
    }
    assert MoveStack(seat=1, from_=(-1, 0), to=(3, 1)).to_json() == {
        "seat": 1,
        "move_stack": {"from": [-1, 0], "to": [3, 1]},
    }
    assert FollowUpSkip(0).to_json() == {"seat": 0, "skip": True}


def test_every_legal_decision_of_random_games_round_trips() -> None:
    for seed in range(3):
        for s in random_line(seed, ["blue", "red", "green"], stop=60):
            for d in s.legal_decisions():
                assert decision_from_json(json.loads(json.dumps(d.to_json()))) == d


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [
        ([], "a decision must be a JSON object"),
        ({"pass": True}, "'seat' must be an integer >= 0, got null"),
        ({"seat": -1, "pass": True}, "'seat' must be an integer >= 0"),
        ({"seat": True, "pass": True}, "'seat' must be an integer >= 0, got true"),
        ({"seat": "0", "pass": True}, "'seat' must be an integer >= 0"),
        ({"seat": 0, "pass": False}, "'pass' must be true"),
        ({"seat": 0, "pass": True, "take": "blue:e1"}, "unexpected field(s) take"),
        ({"seat": 0, "skip": 1}, "'skip' must be true"),
        ({"seat": 0}, "a decision needs one of 'pass', 'take'"),
        ({"seat": 0, "take": "blue:e7", "to": [0, 1], "from": [0, 0]}, 'unknown tile "blue:e7"'),
        ({"seat": 0, "take": "blue:start", "to": [0, 1], "from": [0, 0]}, "unknown tile"),
        ({"seat": 0, "take": 5, "to": [0, 1], "from": [0, 0]}, "unknown tile 5"),
        ({"seat": 0, "take": "blue:e1", "to": [0, 1]}, "a placement needs 'to' and 'from'"),
        ({"seat": 0, "take": "blue:e1", "to": [0], "from": [0, 0]}, "to must be a cell [x, y]"),
        (
            {"seat": 0, "take": "blue:e1", "to": [0, 1.0], "from": [0, 0]},
            "to must be a cell [x, y]",
        ),
        (
            {"seat": 0, "take": "blue:e1", "to": [0, 1], "from": [True, 0]},
            "from must be a cell [x, y]",
        ),
        (
            {"seat": 0, "take": "blue:e1", "to": [0, 1], "from": [0, 0], "arch": "N"},
            "blue:e1 is not an arch tile",
        ),
        (
            {"seat": 0, "take": "blue:arch-red", "to": [0, 1], "from": [0, 0]},
            "needs 'arch' (N, E, S, W)",
        ),
        (
            {"seat": 0, "take": "blue:arch-red", "to": [0, 1], "from": [0, 0], "arch": "X"},
            "'arch' must be one of N, E, S, W, got \"X\"",
        ),
        (
            {"seat": 0, "take": "blue:e1", "to": [0, 1], "from": [0, 0], "move_stack": {}},
            "unexpected field(s) move_stack",
        ),
        ({"seat": 0, "move_stack": [1, 2]}, "'move_stack' must be an object"),
        ({"seat": 0, "move_stack": {"from": [0, 0]}}, "'move_stack' needs both 'from' and 'to'"),
        (
            {"seat": 0, "move_elephant": {"from": [0, 0], "to": [1, 0], "via": [2, 2]}},
            "unexpected field(s) via",
        ),
        (
            {"seat": 0, "move_elephant": {"from": [0, 0], "to": "a1"}},
            "move_elephant.to must be a cell",
        ),
    ],
)
def test_malformed_decisions_are_refused(obj: Any, fragment: str) -> None:
    with pytest.raises(DecisionSyntaxError) as info:
        decision_from_json(obj)
    assert fragment in str(info.value)
    assert isinstance(info.value, KeralaError) and isinstance(info.value, ValueError)
