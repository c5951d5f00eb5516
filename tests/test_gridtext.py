"""The text grid of grounds (issue 14, ``kerala.gridtext``): what a person types to score.

Round trips over grounds of random games (hypothesis), the rulebook's worked example, and the
line and column of every mistake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import state_after
from kerala.errors import KeralaError
from kerala.gridtext import GridTextError, format_grid, parse_grid, read_grid
from kerala.grounds import Grounds
from kerala.notation import read_grounds, write_grounds
from kerala.scoring import score_grounds
from kerala.tiles import COLORS

EXAMPLE = Path(__file__).parent / "data" / "worked_example_37.json"

WORKED_EXAMPLE = """\
Bs  B3 B2 K3  .     .
P^b P3 P3 P3  P2    .
G3z G3 G2 R2  R^p   K1
.   .  .  R2@ B1/G1 .
"""


def same(a: Grounds, b: Grounds) -> None:
    assert a.color == b.color and a.passes == b.passes
    assert a.stacks == b.stacks
    assert sorted(a.elephants) == sorted(b.elephants)


def test_worked_example_typed_as_text_scores_37() -> None:
    """docs/rules.md's worked example (tests/data/worked_example_37.json) in the text form."""
    g = parse_grid(WORKED_EXAMPLE)
    ref = read_grounds(EXAMPLE.read_text())
    same(g, ref)
    assert score_grounds(g).total == 37
    assert format_grid(ref) == WORKED_EXAMPLE.rstrip("\n")


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 5),
    stop=st.integers(1, 200),
)
def test_format_then_parse_gives_the_same_grounds(seed: int, players: int, stop: int) -> None:
    """Any grounds of a game survives the text form: stacks, elephants, passes, score."""
    state = state_after(seed, COLORS[:players], stop)
    for g in state.grounds:
        text = format_grid(g)
        back = parse_grid(text)
        same(back, g)
        assert score_grounds(back) == score_grounds(g)
        # The text form and the JSON document describe the same grounds.
        assert read_grounds(read_grid(text)).stacks == read_grounds(write_grounds(g)).stacks


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="BKGRPs123ETa^>v<kgbrp@z&./ \n#:xX9", max_size=60))
def test_any_text_is_read_or_refused_with_line_and_column(text: str) -> None:
    try:
        parse_grid(text)
    except GridTextError as e:
        lines = text.splitlines() or [""]
        assert 1 <= e.line <= max(1, len(lines))
        assert e.column >= 1
        assert str(e).startswith(f"line {e.line}, column {e.column}: ")
    except KeralaError as e:  # a whole-grounds check after the grid was read
        raise AssertionError(f"refused without a place: {e}") from None


def test_letters_may_be_lower_case_and_settings_are_checked() -> None:
    upper = parse_grid("Bs@ G2z R>k")
    lower = parse_grid("bs@ g2z r>K")
    same(upper, lower)
    g = parse_grid("color: blue\npasses: 2\nBs G1\n")
    assert g.passes == 2 and g.elephants == []
    with pytest.raises(GridTextError, match=r"line 2, column 1: 'passes:' is given twice"):
        parse_grid("passes: 1\npasses: 1\nBs")
    with pytest.raises(GridTextError, match=r"line 2, column 1: 'color:' belongs before"):
        parse_grid("Bs\ncolor: blue\n")
    with pytest.raises(GridTextError, match=r"line 2, column 1: the start tile must be red"):
        parse_grid("color: red\nBs\n")
    with pytest.raises(GridTextError, match=r"passes: 2, but the grid shows 1 lying"):
        parse_grid("passes: 2\nBs@ G1z\n")


def test_cells_outside_the_coordinate_range_are_refused_with_their_place() -> None:
    with pytest.raises(GridTextError, match=r"line 2, column 1: this cell would be \(5000, 0\)"):
        parse_grid("origin: 5000, 0\nBs G1\n")


def test_origin_moves_the_cells() -> None:
    g = parse_grid("origin: 3, -2\nG1 Bs\n")
    assert g.cells() == [(3, -2), (4, -2)]
    assert json.loads(json.dumps(read_grid("G1 Bs")))["stacks"][1]["at"] == [0, 0]
    # Written back, the origin line says where the grid starts.
    assert format_grid(g).splitlines()[0] == "origin: 3, -2"
