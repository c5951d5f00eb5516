"""The turn builder: its menus offer exactly the engine's legal decisions and apply nothing."""

from __future__ import annotations

import json
import random

import pytest

from kerala.actions import Decision, FollowUpSkip, MoveStack, Pass, Place
from kerala.game import GameState, Phase, new_game
from kerala.tiles import tile
from kerala.tui.turn import TurnBuilder, TurnInputError


def random_states(count: int, seed: int = 0) -> list[GameState]:
    """Positions from random play, each waiting for a player's placement."""
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        s = new_game(["blue", "red", "green"][: rng.choice((2, 3))], seed=rng.getrandbits(32))
        for _ in range(rng.randrange(0, 60)):
            if s.is_over():
                break
            if s.is_chance():
                s.advance_chance()
                continue
            legal = s.legal_decisions()
            s.apply(legal[rng.randrange(len(legal))])
        if not s.is_over():
            if s.is_chance():
                s.advance_chance()
            if s.phase == Phase.PLACE:
                out.append(s)
    return out


def explore(state: GameState, answers: list[str], found: set[Decision]) -> None:
    """Every complete first decision reachable through the menus (skipping any follow-up)."""
    b = TurnBuilder(state)
    for a in answers:
        b.answer(a)
    if b.result is not None:
        found.add(b.result[0])
        return
    q = b.question()
    if q.kind.startswith("sp"):
        b.answer("s")
        assert b.result is not None and isinstance(b.result[1], FollowUpSkip)
        found.add(b.result[0])
        return
    for i in range(len(q.options)):
        explore(state, [*answers, str(i + 1)], found)


def test_menus_offer_exactly_the_legal_placements_p1_to_p6() -> None:
    for s in random_states(12):
        log_before = list(s.log)
        found: set[Decision] = set()
        explore(s, [], found)
        b = TurnBuilder(s)
        if b.question().can_pass:
            b.answer("p")
            assert b.result == [Pass(s.current_player)]
            found.add(Pass(s.current_player))
        assert found == set(s.legal_decisions())
        assert s.log == log_before  # building a turn never touches the game


def state_with_special(kind: str) -> tuple[GameState, Place]:
    """A position where the player to move can place a ``kind`` special tile, found by seed."""
    for seed in range(200):
        for s in random_states(1, seed):
            places = [
                d for d in s.legal_decisions() if isinstance(d, Place) and d.take.special == kind
            ]
            if places and len(s.grounds[s.current_player].stacks) >= 4:
                return s, places[0]
    raise AssertionError("no position found")


@pytest.mark.parametrize("kind", ["move-elephant", "move-tile"])
def test_follow_up_menus_offer_exactly_the_legal_moves_sp1_sp2(kind: str) -> None:
    s, place = state_with_special(kind)
    log_before = list(s.log)
    preview = s.copy(with_rng=False)
    preview.apply(place)
    expected = set(preview.legal_decisions())
    # Reach the follow-up question by typing the placement, then walk every menu path.
    b = TurnBuilder(s)
    b.typed(json.dumps(place.to_json()))
    assert b.result is None
    assert b.question().kind == ("sp1-elephant" if kind == "move-elephant" else "sp2-from")
    found: set[Decision] = {FollowUpSkip(s.current_player)}

    def walk(answers: list[str]) -> None:
        b = TurnBuilder(s)
        b.typed(json.dumps(place.to_json()))
        for a in answers:
            b.answer(a)
        if b.result is not None:
            assert b.result[0] == place
            found.add(b.result[1])
            return
        for i in range(len(b.question().options)):
            walk([*answers, str(i + 1)])

    walk([])
    assert found == expected
    assert s.log == log_before and s.phase == Phase.PLACE  # nothing was applied


def test_arch_asks_for_the_edge_and_takes_a_letter() -> None:
    s = new_game(
        ["blue", "red"],
        removal="chosen",
        removed=[tile("green:e1")] * 6
        + [tile("green:e2")] * 5
        + [tile("green:e3")] * 3
        + [tile("purple:e1")] * 6,
    )
    s.apply_draw(tile("red:arch-green"))
    s.apply_draw(tile("blue:e1"))
    b = TurnBuilder(s)
    b.answer("1")  # red:arch-green, first in the display
    q = b.question()
    assert q.kind == "target"
    b.answer("1")  # (0, -1)
    q = b.question()
    assert q.kind == "edge"
    assert [o.value for o in q.options] == ["N", "E", "S", "W"]
    assert "faces (0, 0)" in q.options[2].label  # S faces the start tile
    with pytest.raises(TurnInputError, match="not understood"):
        b.answer("X")
    b.answer("e")
    assert b.result == [
        Place(seat=0, take=tile("red:arch-green"), to=(0, -1), from_=(0, 0), arch="E")
    ]


def test_back_undoes_one_answer_at_a_time() -> None:
    s = random_states(1, seed=3)[0]
    b = TurnBuilder(s)
    b.answer("1")
    assert b.question().kind == "target"
    assert b.back()
    assert b.question().kind == "tile"
    assert not b.back()
    with pytest.raises(TurnInputError, match="nothing to go back to"):
        b.answer("b")


def test_g3_no_pass_once_both_elephants_lie() -> None:
    s = new_game(["blue", "red"], seed=1)
    while s.grounds[0].passes < 2 or s.current_player != 0:
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        s.apply(Pass(seat) if Pass(seat) in legal else legal[0])
    if s.is_chance():
        s.advance_chance()
    b = TurnBuilder(s)
    assert not b.question().can_pass
    with pytest.raises(TurnInputError, match="G3"):
        b.answer("p")
    with pytest.raises(TurnInputError, match="G3: both elephants already lie"):
        b.typed('{"pass": true}')
    assert b.result is None


def test_typed_turn_with_its_follow_up_folded_in() -> None:
    s, place = state_with_special("move-tile")
    preview = s.copy(with_rng=False)
    preview.apply(place)
    move = next(d for d in preview.legal_decisions() if isinstance(d, MoveStack))
    turn = {**place.to_json(), "move_stack": {"from": list(move.from_), "to": list(move.to)}}
    del turn["seat"]  # the seat may be left out
    b = TurnBuilder(s)
    b.typed(json.dumps(turn))
    assert b.result == [place, move]
    wrong = {**place.to_json(), "move_elephant": {"from": [0, 0], "to": [0, 1]}}
    b = TurnBuilder(s)
    with pytest.raises(TurnInputError, match="SP2"):
        b.typed(json.dumps(wrong))
    assert b.result is None and b.question().kind == "tile"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ('{"take": 3}', "unknown tile 3"),
        ('{"take": "blue:e1", "to": [1, 0]}', "needs 'to' and 'from'"),
        ('{"pass": true, "follow_up": "pending"}', "belongs in saved records"),
        ('{"skip": true}', "takes a tile"),
        # issue 14: no "starting at at column"
        ('{"take": "blue:e', r"malformed JSON: Unterminated string starting at column 10$"),
    ],
)
def test_typed_turn_errors_say_what_is_wrong(text: str, message: str) -> None:
    s = random_states(1, seed=5)[0]
    b = TurnBuilder(s)
    with pytest.raises(TurnInputError, match=message):
        b.typed(text)
    assert b.result is None
