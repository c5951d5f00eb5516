"""Drawing grounds in 80 columns, and a session driven by scripted lines (hints, scores, load)."""

from __future__ import annotations

import io
import itertools
import json
import random
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from kerala.actions import Place
from kerala.bots import make_bot
from kerala.bots.match import play_game
from kerala.errors import KeralaError
from kerala.game import new_game
from kerala.notation import write_record
from kerala.playerview import LYING, STANDING, cell_text, elephant_markers
from kerala.tiles import tile
from kerala.tui.commands import SeatError, assign_seats
from kerala.tui.render import board, grounds_grid
from kerala.tui.session import Seat, Session, load_session, new_session
from kerala.views import GroundsView


def text_of(renderable: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def long_grounds(length: int, passes: int = 0) -> GroundsView:
    """A line of ``length`` stacks running east, elephants at both ends."""
    stacks = tuple(
        ((x, 0), ((tile("blue:start" if x == 0 else "green:e1"), None),)) for x in range(length)
    )
    return GroundsView("blue", stacks, ((0, 0), (length - 1, 0)), passes)


def test_cell_shows_color_kind_arch_height_and_elephant() -> None:
    stack = ((tile("blue:start"), None), (tile("red:arch-purple"), "W"))
    assert cell_text(stack, "") == "R<p2"
    assert cell_text(stack, STANDING) == "R<p@"
    assert cell_text(((tile("black:move-tile"), None),), "") == "KT  "
    assert cell_text(((tile("green:e3"), None),) * 12, LYING) == "G3+z"


def test_g3_elephants_lie_down_one_per_pass() -> None:
    for passes, expected in [(0, "@@"), (1, "@z"), (2, "zz")]:
        marks = elephant_markers(long_grounds(3, passes))
        assert marks[(0, 0)] + marks[(2, 0)] == expected
    start = GroundsView("red", (((0, 0), ((tile("red:start"), None),)),), ((0, 0), (0, 0)), 1)
    assert elephant_markers(start) == {(0, 0): "&"}


def test_wide_grounds_are_windowed_to_fit_80_columns() -> None:
    g = long_grounds(30)
    grid, note = grounds_grid(g, marks={(31, 0): "1"}, max_cols=14, max_rows=12)
    out = text_of(grid)
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "[1]" in out  # the marked target stays in view
    # ... and both elephants, at 0 and 29: the columns between are left out (a gap column).
    assert out.count("@") == 2 and "⋯" in out
    assert re.fullmatch(r"x 0\.\.\d+, \d+\.\.31 of 0\.\.31", note), note


def test_board_fits_80_columns_for_five_players() -> None:
    bots = [make_bot("random", seed=i) for i in range(5)]
    state = play_game(bots, seed=9)
    view = state.view(None)
    names = [f"Player {i + 1}" for i in range(5)]
    removed = {i: s.removed_cells for i, s in enumerate(state.scores())}
    out = text_of(board(view, names, width=80, height=24, focus_seat=None, removed=removed))
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "game over" in out


def make_reader(lines: list[str], prompts: list[str]) -> Callable[[str], str]:
    it = iter(lines)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def test_hint_and_scores_on_request() -> None:
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    prompts: list[str] = []
    session = new_session(
        console,
        colors=["blue", "red"],
        names=["You", "random bot"],
        bot_specs=[None, "random"],
        seed=2,
        read_line=make_reader(["h", "t", "q", "y"], prompts),
    )
    assert session.run() == 0
    text = out.getvalue()
    assert "hint 1:" in text and "as JSON: {" in text
    assert "Scores so far" in text and "standing elephants" in text
    assert prompts == ["tile> ", "tile> ", "tile> ", "quit without saving? (y/n)> "]


def test_load_continues_a_pending_follow_up_and_keeps_removed_tiles_hidden() -> None:
    # A record that stops right after a special tile was placed ("follow_up": "pending").
    bots = [make_bot("random", seed=1), make_bot("random", seed=2)]
    state = new_game(["blue", "red"], seed=4)
    while True:
        if state.is_chance():
            state.advance_chance()
            continue
        seat = state.current_player
        legal = state.legal_decisions()
        special = [d for d in legal if isinstance(d, Place) and d.take.special]
        if seat == 0 and special:
            state.apply(special[0])
            break
        state.apply(bots[seat].choose(state.view(seat), legal))
    doc = write_record(state, [{"name": "Ada"}, {"name": "Bot", "bot": "random"}])
    assert "removed" not in doc  # I2
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    prompts: list[str] = []
    session = load_session(
        console,
        json.dumps(doc),
        seed=8,
        read_line=make_reader(["s", "save /dev/null", "q", "y"], prompts),
    )
    assert [s.bot_spec for s in session.seats] == [None, "random"]
    assert session.run() == 0
    assert prompts[0] in ("sp1-elephant> ", "sp2-from> ")
    assert "skipped the" in out.getvalue()
    # The game went on after the load: the skip and the bot's turn are in the record.
    after = session.record()
    k = len(doc["rounds"]) - 1
    pending = doc["rounds"][k]["turns"][-1]
    assert pending["follow_up"] == "pending"
    done = after["rounds"][k]["turns"][len(doc["rounds"][k]["turns"]) - 1]
    assert done == {key: v for key, v in pending.items() if key != "follow_up"}  # skipped
    assert after["rounds"][:k] == doc["rounds"][:k]


def test_load_refuses_a_finished_game() -> None:
    state = play_game([make_bot("random", seed=1), make_bot("random", seed=2)], seed=3)
    doc = write_record(state)
    with pytest.raises(KeralaError, match="already over"):
        load_session(Console(file=io.StringIO()), json.dumps(doc), seed=1)


@pytest.mark.parametrize(
    ("players", "humans", "bots", "expected"),
    [
        (None, None, None, [None, "x"]),
        (None, 0, None, ["x", "x"]),
        (None, 2, None, [None, None]),
        (None, 2, ["easy"], [None, None, "easy"]),
        (5, 1, ["hard"], [None, "hard", "hard", "hard", "hard"]),
        (3, 0, ["a", "b", "c"], ["a", "b", "c"]),
    ],
)
def test_seat_assignment(
    players: int | None, humans: int | None, bots: list[str] | None, expected: list[str | None]
) -> None:
    assert assign_seats(players, humans, bots, "x") == expected


@pytest.mark.parametrize(
    ("players", "humans", "bots", "message"),
    [
        (None, 5, ["easy"], "2 to 5 players"),
        (2, 3, None, "--humans must be 0 to 2"),
        (2, 2, ["easy"], "fill all 2 seats"),
        (4, 1, ["a", "b"], "leave 3 bot seats"),
    ],
)
def test_seat_assignment_refusals(
    players: int | None, humans: int | None, bots: list[str] | None, message: str
) -> None:
    with pytest.raises(SeatError, match=message):
        assign_seats(players, humans, bots, "x")


def test_session_refuses_wrong_seat_count() -> None:
    with pytest.raises(ValueError, match="3 seats"):
        Session(
            new_game(["blue", "red"], seed=1),
            [Seat("a", "blue"), Seat("b", "red"), Seat("c", "green")],
            Console(file=io.StringIO()),
            rng=random.Random(1),
        )


# -- issue 14 -------------------------------------------------------------------------------


def test_removed_cell_keeps_its_elephant_marker() -> None:
    from kerala.tui.render import draw_grid, removed_text

    assert removed_text("G23@") == "G2x@"
    assert removed_text("R>gz") == "Rxgz"
    assert removed_text("R>g2") == "R>gx"
    stacks = {(0, 0): ((tile("blue:start"), None),), (1, 0): ((tile("green:e2"), None),)}
    text, _ = draw_grid(stacks, {(1, 0): "@", (0, 0): "z"}, removed=[(1, 0), (0, 0)])
    assert "Bsxz" in text.plain and "G2x@" in text.plain


def test_titles_say_passes_left_and_hints_give_advice() -> None:
    from kerala.actions import Pass
    from kerala.tui.render import advice, grounds_panel, passes_words

    assert [passes_words(long_grounds(2, p)) for p in (0, 1, 2)] == [
        "2 passes left",
        "1 pass left",
        "no pass left",
    ]
    s = new_game(["blue", "red"], seed=1)
    title = grounds_panel(s.view(0), 0, "Ada").title
    assert title is not None and "passes left" in str(title)
    d = Place(seat=0, take=tile("green:e2"), to=(1, 0), from_=(0, 0))
    assert advice(d) == "take G2 (green:e2) to (1, 0) from (0, 0)"
    assert advice(Pass(0)) == "pass (lay an elephant down)"


def test_sp1_menu_names_the_tile_under_each_elephant_move() -> None:
    from kerala.actions import MoveElephant
    from kerala.game import Phase
    from kerala.tui.turn import TurnBuilder

    bots = [make_bot("random", seed=1), make_bot("random", seed=2)]
    for seed in range(40):
        state = new_game(["blue", "red"], seed=seed)
        while not state.is_over():
            if state.is_chance():
                state.advance_chance()
                continue
            legal = state.legal_decisions()
            if state.phase == Phase.FOLLOW_UP and any(isinstance(d, MoveElephant) for d in legal):
                b = TurnBuilder(state)
                q = b.question()
                assert q.kind == "sp1-elephant"
                b.answer("1")
                q = b.question()
                assert q.kind == "sp1-to"
                for o in q.options:
                    top = state.grounds[state.current_player].stack(o.value)[-1][0]
                    assert o.label.startswith(f"({o.value[0]}, {o.value[1]}) {top.code[0]}")
                    assert len(o.label.split()) == 3  # "(x, y) CODE"
                return
            state.apply(bots[state.current_player].choose(state.view(state.current_player), legal))
    raise AssertionError("no move-elephant follow-up in 40 random games")


@settings(max_examples=300, deadline=None)
@given(
    lo=st.integers(-40, 0),
    size=st.integers(1, 60),
    focus=st.lists(st.integers(0, 59), max_size=8),
    limit=st.integers(1, 30),
)
def test_window_lines_fit_and_keep_what_matters(
    lo: int, size: int, focus: list[int], limit: int
) -> None:
    """Whatever the grounds, the grid never takes more lines than given, and keeps every
    choice and elephant row whenever they can fit (gaps between far-apart rows count one line).
    """
    from kerala.tui.render import lines_of, pick_lines

    hi = lo + size - 1
    f = [lo + v % size for v in focus]
    rows = pick_lines(lo, hi, f, limit)
    assert len(rows) <= limit
    drawn = [r for r in rows if r is not None]
    assert drawn == sorted(drawn) and all(lo <= r <= hi for r in drawn)
    assert rows[0] is not None and rows[-1] is not None
    for a, b in itertools.pairwise(rows):
        assert not (a is None and b is None)
        if a is not None and b is not None:
            assert b == a + 1  # a jump is always drawn as a gap
    if f and lines_of(set(f)) <= limit:
        assert set(f) <= set(drawn)
