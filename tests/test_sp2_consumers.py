"""SP2 (no hole) seen from every consumer of the legal list: the environments' action masks,
the terminal's questions, the bots and the hints offer only what the engine lists, so the
move that would leave a hole at its source is nowhere to be chosen. (The server and the
browser take the same list from the engine; tests/server covers their refusals.)"""

from __future__ import annotations

import pytest

from enginelib import sp2_hole_position
from kerala.actions import MoveStack
from kerala.bots import make_bot
from kerala.bots.hints import suggest
from kerala.envs.encoding import ACTIONS
from kerala.game import GameState
from kerala.tui.turn import TurnBuilder

HOLE_MOVE = MoveStack(seat=0, from_=(1, 1), to=(1, 2))


def hole_position() -> GameState:
    s = sp2_hole_position()
    assert HOLE_MOVE not in s.legal_decisions()
    assert not s.is_legal(HOLE_MOVE)
    return s


def test_sp2_env_action_mask_leaves_out_the_hole_move() -> None:
    s = hole_position()
    legal = ACTIONS.legal_actions(s)
    assert set(legal.values()) == set(s.legal_decisions())
    mask = ACTIONS.action_mask(legal)
    assert mask.sum() == len(s.legal_decisions())
    assert all(d != HOLE_MOVE for d in legal.values())


def test_sp2_terminal_offers_no_destination_that_makes_a_hole() -> None:
    s = hole_position()
    tb = TurnBuilder(s)
    q = tb.question()
    assert q.kind == "sp2-from"
    tb.answer(str(1 + [o.value for o in q.options].index((1, 1))))
    q = tb.question()
    assert q.kind == "sp2-to"
    tos = {o.value for o in q.options}
    assert (1, 2) not in tos
    legal = s.legal_decisions()
    assert tos == {d.to for d in legal if isinstance(d, MoveStack) and d.from_ == (1, 1)}


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:iterations=200"])
def test_sp2_bots_choose_from_the_engine_list(spec: str) -> None:
    s = hole_position()
    legal = s.legal_decisions()
    bot = make_bot(spec, seed=3)
    for _ in range(5):
        d = bot.choose(s.view(0), legal)
        assert d in legal and d != HOLE_MOVE


def test_sp2_hints_suggest_only_legal_moves() -> None:
    s = hole_position()
    legal = s.legal_decisions()
    for d, _ in suggest(s.view(0), legal, k=len(legal), budget=0):
        assert d in legal and d != HOLE_MOVE
