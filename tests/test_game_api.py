"""Tests of the engine's Python API (issue 15): one constructor, imports one way, print(state),
state == state.copy(), the short text form of decisions, undo and replay, the package's
exports, and the runnable examples of docs/engine.md and examples/engine_tour.py."""

from __future__ import annotations

import ast
import doctest
import importlib.metadata
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kerala
from enginelib import random_line
from kerala.actions import (
    DecisionSyntaxError,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    describe,
    parse_cell,
    parse_decision,
    turn_from_json,
    turn_to_json,
)
from kerala.errors import IllegalDecisionError
from kerala.game import _STATE_FIELDS as STATE_FIELDS
from kerala.game import GameState, Phase, new_game, place_decisions, replay
from kerala.grounds import LIMIT
from kerala.tiles import ALL_TILE_TYPES, TileType, tile, tile_from_code
from kerala.views import sample_state

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kerala"
ENGINE = ("tiles", "grounds", "actions", "scoring", "playerview", "game", "views", "notation")


def played(seed: int, colors: list[str], stop: int | None = None) -> GameState:
    """A state reached by random play from a seeded game (``stop`` decisions at most)."""
    s = new_game(colors, seed=seed)
    rng = random.Random(seed)
    done = 0
    while not s.is_over() and (stop is None or done < stop):
        if s.is_chance():
            s.advance_chance()
            continue
        s.apply(rng.choice(s.legal_decisions()))
        done += 1
    return s


def imports_of(path: Path) -> list[tuple[str, list[str], bool]]:
    """(module, names, at top level) for every ``from kerala... import`` in a file."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kerala"):
            out.append((node.module or "", [a.name for a in node.names], id(node) in top))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("kerala"):
                    out.append((a.name, [], id(node) in top))
    return out


# -- the engine's structure (issue 15: "each rule and job written once") -----------------------


def test_views_import_game_and_the_engine_has_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for name in ENGINE:
        deps = set()
        for module, _, _ in imports_of(SRC / f"{name}.py"):
            dep = module.removeprefix("kerala.")
            if dep in ENGINE:
                deps.add(dep)
        graph[name] = deps
    assert "game" in graph["views"]
    assert "views" not in graph["game"]
    # Depth-first search for a cycle.
    state: dict[str, int] = {}

    def visit(n: str, path: list[str]) -> None:
        state[n] = 1
        for m in graph[n]:
            assert state.get(m) != 1, f"import cycle: {' -> '.join([*path, n, m])}"
            if m not in state:
                visit(m, [*path, n])
        state[n] = 2

    for n in ENGINE:
        if n not in state:
            visit(n, [])


def test_engine_modules_import_at_top_level_only() -> None:
    """An import hidden inside a function is how the old cycle hid."""
    for name in ENGINE:
        inner = [m for m, _, top in imports_of(SRC / f"{name}.py") if not top]
        assert inner == [], (name, inner)


def test_no_private_name_crosses_an_engine_module() -> None:
    for path in [SRC / f"{name}.py" for name in ENGINE]:
        for module, names, _ in imports_of(path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            assert private == [], f"{path.relative_to(ROOT)} imports {private} from {module}"


def test_every_state_is_made_by_the_one_constructor() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in sorted(SRC.rglob("*.py"))
        if re.search(r"GameState\.__new__|__new__\(GameState", p.read_text())
    ]
    assert offenders == []
    s = new_game(["blue", "red"], seed=1)
    s.advance_chance()
    view = s.view(0)
    for made in (s.copy(), sample_state(view, random.Random(2)), s.after(0)):
        assert type(made) is GameState
        assert all(hasattr(made, slot) for slot in STATE_FIELDS)


def test_no_outside_module_sets_the_removal_of_a_state() -> None:
    """Replays keep the removal inside the engine: nobody writes ``x.removal = ...`` or
    ``x.removal_known = ...`` outside :mod:`kerala.game`."""
    pattern = re.compile(r"^\s*\w+\.removal(_known)?\s*=", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for p in sorted(SRC.rglob("*.py"))
        if p.name != "game.py" and pattern.search(p.read_text())
    ]
    assert offenders == []


# -- print(state), repr(view) ------------------------------------------------------------------


def test_print_state_draws_the_status_display_and_every_grounds() -> None:
    s = played(3, ["blue", "red", "green"], stop=25)
    text = str(s)
    lines = text.splitlines()
    v = s.view(None)
    assert lines[0] == (f"round {v.round}  phase {v.phase}  to move {v.to_move}  bag {v.bag_count}")
    assert lines[1] == "display: " + (" ".join(t.code for t in v.display) or "-")
    for seat, g in enumerate(v.grounds):
        assert f"seat {seat} {g.color}: {2 - g.passes} elephants standing" in text
        for _, stack in g.stacks:
            top = stack[-1][0]
            assert top.code[0] in text
    # Every stack of every grounds is one cell of its grid.
    cells = sum(len(g.stacks) for g in v.grounds)
    drawn = len(re.findall(r"[BKGRP][123sETa^>v<]", "\n".join(lines[2:])))
    assert drawn == cells


def test_print_state_shows_the_scores_once_the_game_is_over() -> None:
    s = played(5, ["blue", "red"])
    assert s.is_over()
    text = str(s)
    for seat, b in enumerate(s.scores()):
        standing = 2 - s.grounds[seat].passes
        assert (
            f"seat {seat} {s.colors[seat]}: {standing} elephants standing, score {b.total}" in text
        )
    assert "score" not in str(played(5, ["blue", "red"], stop=10))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_i2_print_state_does_not_depend_on_hidden_tiles(n: int) -> None:
    s = played(11, ["blue", "red", "green", "black"][:n], stop=30)
    other = sample_state(s.view(0), random.Random(5))
    assert str(other) == str(s)


def test_repr_of_a_view_is_one_short_line() -> None:
    s = played(2, ["blue", "red", "green", "black", "purple"])
    for seat in (None, 0, 4):
        r = repr(s.view(seat))
        assert "\n" not in r and len(r) < 100, r
        assert r.startswith("<PlayerView of ") and "round" in r


# -- equality and copies -----------------------------------------------------------------------


@given(seed=st.integers(0, 10_000), stop=st.integers(0, 120))
@settings(max_examples=25, deadline=None)
def test_state_equals_its_copy_and_not_a_changed_copy(seed: int, stop: int) -> None:
    s = played(seed, ["blue", "red"], stop=stop)
    c = s.copy()
    assert c == s and c is not s
    assert s.copy(with_rng=False) == s  # the RNG is not part of the position
    if not s.is_over():
        if s.is_chance():
            c.advance_chance()
        else:
            c.apply(c.legal_decisions()[-1])
        assert c != s


def test_state_equality_ignores_bag_order_but_not_bag_content() -> None:
    s = played(4, ["blue", "red"], stop=6)

    def with_bag(bag: Sequence[TileType]) -> GameState:
        # The bag is private: a state with another bag is made by the one constructor.
        return GameState(
            s.colors, s.tileset, s.removal, s.to_remove,
            removed=s.removed, removal_known=s.removal_known, pool=s.pool, bag=bag,
            grounds=s.grounds, round=s.round, turn=s.turn, display=s.display, phase=s.phase,
            pending=s.pending, log=s.log,
        )  # fmt: skip

    assert with_bag(s.bag[::-1]) == s
    other = next(t for t in ALL_TILE_TYPES if t not in s.bag and t.kind != "start")
    assert with_bag((other, *s.bag[1:])) != s
    assert s != "not a state"
    with pytest.raises(TypeError):
        hash(s)


# -- the short text form of decisions ------------------------------------------------------------


def test_tile_codes_are_the_terminals() -> None:
    from kerala.tui.render import tile_code

    for t in ALL_TILE_TYPES:
        assert tile_code(t) == t.code
        assert tile_from_code(t.code) is t
    assert tile("red:arch-black").code == "Rak" and tile("blue:move-elephant").code == "BE"


@given(seed=st.integers(0, 10_000))
@settings(max_examples=15, deadline=None)
def test_every_legal_decision_reads_back_from_its_text(seed: int) -> None:
    for s in random_line(seed, ["blue", "red", "green"], stop=40):
        seat = s.to_move
        assert seat is not None
        for d in s.legal_decisions():
            text = str(d)
            assert "\n" not in text and len(text) <= 20
            assert parse_decision(text, seat) == d
            assert s.parse_decision(text) == d


@given(seed=st.integers(0, 10_000))
@settings(max_examples=10, deadline=None)
def test_p1_p4_place_decisions_of_one_tile_are_that_tiles_share_of_a_turn(seed: int) -> None:
    """``place_decisions`` (the bots' look-ahead at tiles not yet drawn) lists exactly the
    turn's placements of each tile (P1–P4) and the pass while one is left (G3)."""
    for s in random_line(seed, ["blue", "red", "green", "black"], stop=60):
        if s.phase != Phase.PLACE:
            continue
        seat = s.current_player
        g = s.grounds[seat]
        legal = s.legal_decisions()
        for t in set(s.display):
            mine = place_decisions(g, seat, [t])
            assert [d for d in mine if type(d) is Place] == [
                d for d in legal if type(d) is Place and d.take == t
            ]
            assert (Pass(seat) in mine) == (g.passes < 2) == (Pass(seat) in legal)


def test_text_forms_of_each_kind_of_decision() -> None:
    examples = {
        "pass": Pass(1),
        "skip": FollowUpSkip(1),
        "G2 0,0>1,0": Place(seat=1, take=tile("green:e2"), to=(1, 0), from_=(0, 0)),
        "Rak -1,2>-1,3 W": Place(
            seat=1, take=tile("red:arch-black"), to=(-1, 3), from_=(-1, 2), arch="W"
        ),
        "elephant 0,0>2,-1": MoveElephant(seat=1, from_=(0, 0), to=(2, -1)),
        "stack 1,0>2,0": MoveStack(seat=1, from_=(1, 0), to=(2, 0)),
    }
    for text, d in examples.items():
        assert str(d) == text
        assert parse_decision(text, 1) == d
    # A tile may be named as in docs/notation.md, and spaces around numbers are allowed.
    assert parse_decision("green:e2 0, 0 > 1, 0", 1) == examples["G2 0,0>1,0"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not a decision"),
        ("take G2", "not a decision"),
        ("X9 0,0>1,0", "unknown tile 'X9'"),
        ("Bs 0,0>1,0", "start tile"),
        ("Rak 0,0>1,0", "needs its edge"),
        ("Rak 0,0>1,0 Q", "needs its edge"),
        ("G2 0,0>1,0 N", "not an arch"),
        ("stack 0,0>1,0 N", "takes no edge"),
        ("G2 0,0>1,5000", "outside the coordinate range"),
    ],
)
def test_malformed_decision_text_is_refused_saying_what_was_wrong(text: str, fragment: str) -> None:
    with pytest.raises(DecisionSyntaxError, match=re.escape(fragment)):
        parse_decision(text, 0)


def test_state_parse_decision_refuses_an_illegal_decision_naming_the_rule() -> None:
    s = new_game(["blue", "red"], seed=7)
    with pytest.raises(IllegalDecisionError) as info:
        s.parse_decision("pass")
    assert info.value.rule == "G1"
    s.advance_chance()
    before = s.copy()
    with pytest.raises(IllegalDecisionError) as info:
        s.parse_decision(f"{s.display[0].code} 0,0>2,0")
    assert info.value.rule == "P1" and s == before
    done = played(1, ["blue", "red"])
    with pytest.raises(IllegalDecisionError) as info:
        done.parse_decision("pass")
    assert info.value.rule == "G4"


def test_describe_says_a_decision_in_words() -> None:
    place = Place(seat=0, take=tile("blue:move-tile"), to=(1, 0), from_=(0, 0))
    assert describe(place) == "took BT (blue:move-tile) to (1, 0) from (0, 0)"
    assert describe(Pass(0)) == "passed (an elephant lies down)"
    assert describe(FollowUpSkip(0), place=place) == "skipped the move-tile follow-up"
    assert (
        describe(MoveStack(seat=0, from_=(2, 0), to=(0, 1)))
        == "moved the stack from (2, 0) to (0, 1)"
    )


# -- one validator of cells, one split and merge of turns ----------------------------------------


def test_p6_one_cell_reader_for_decisions_records_and_grounds() -> None:
    assert parse_cell([LIMIT, -LIMIT], "to") == (LIMIT, -LIMIT)
    for bad in ([1], [1, True], "1,2", [1.0, 2]):
        with pytest.raises(DecisionSyntaxError, match="to must be a cell"):
            parse_cell(bad, "to")
    with pytest.raises(DecisionSyntaxError, match=r"P6: to: \[2048, 0\] is outside"):
        parse_cell([LIMIT + 1, 0], "to")


def test_sp1_sp2_turn_folds_and_unfolds_its_follow_up() -> None:
    place = Place(seat=0, take=tile("green:move-tile"), to=(1, 0), from_=(0, 0))
    move = MoveStack(seat=0, from_=(1, 0), to=(1, 1))
    turn = turn_to_json(place, move)
    assert turn["move_stack"] == {"from": [1, 0], "to": [1, 1]}
    assert turn_from_json(turn) == (place, move)
    assert turn_to_json(place, FollowUpSkip(0)) == place.to_json()
    assert turn_from_json(Pass(1).to_json()) == (Pass(1), None)
    with pytest.raises(DecisionSyntaxError, match="SP2: green:move-tile allows 'move_stack'"):
        turn_from_json({**place.to_json(), "move_elephant": {"from": [0, 0], "to": [1, 0]}})
    with pytest.raises(DecisionSyntaxError, match="follow only a special tile"):
        turn_from_json({**Pass(0).to_json(), "move_stack": {"from": [0, 0], "to": [1, 0]}})
    with pytest.raises(DecisionSyntaxError, match="at most one"):
        turn_from_json({**turn, "move_elephant": {"from": [0, 0], "to": [1, 0]}})
    with pytest.raises(DecisionSyntaxError, match="takes a tile"):
        turn_from_json(FollowUpSkip(0).to_json())


# -- undo and replay -----------------------------------------------------------------------------


@given(seed=st.integers(0, 10_000), n=st.integers(2, 4))
@settings(max_examples=8, deadline=None)
def test_undo_steps_back_exactly_one_decision(seed: int, n: int) -> None:
    colors = ["blue", "red", "green", "purple"][:n]
    s = new_game(colors, seed=seed)
    rng = random.Random(seed)
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        before = s.copy()
        d = rng.choice(s.legal_decisions())
        s.apply(d)
        if s.is_chance():
            s.advance_chance()  # undo also takes back the draws after the decision
        after = s.copy()
        assert s.undo() == d
        assert s == before
        assert s.view(None) == before.view(None)
        s = after


def test_undo_without_a_decision_raises_index_error() -> None:
    s = new_game(["blue", "red"], seed=1)
    with pytest.raises(IndexError, match="no decision to undo"):
        s.undo()
    s.advance_chance()
    with pytest.raises(IndexError):
        s.undo()


@pytest.mark.parametrize("removal", ["random", "chosen"])
def test_i2_after_k_is_the_state_decision_k_plus_1_was_chosen_in(removal: str) -> None:
    colors = ["blue", "red", "green"]
    if removal == "chosen":
        from enginelib import removal_for

        s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=9)
    else:
        s = new_game(colors, seed=9)
    rng = random.Random(9)
    seen: list[GameState] = []
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seen.append(s.copy())
        s.apply(rng.choice(s.legal_decisions()))
    for k in (0, 1, 7, len(seen) - 1):
        again = s.after(k)
        assert again == seen[k]
        assert again.view(1) == seen[k].view(1)  # the removal is as public as it was
        assert again.rng is None
    steps = list((st.copy(), d) for st, d in s.replay_steps())
    assert [x for x, _ in steps] == seen


def test_replay_from_a_setup_and_a_log_stops_before_decision_upto() -> None:
    s = played(6, ["blue", "red"], stop=30)
    again = replay(s.colors, s.log, removal=s.removal, removed=s.removed)
    assert again == s
    early = replay(s.colors, s.log, removal=s.removal, removed=s.removed, upto=3)
    assert early == s.after(3) and early.phase in (Phase.PLACE, Phase.FOLLOW_UP)
    assert s.after(10**6) == s  # past the last decision: the whole game
    with pytest.raises(ValueError, match="upto must be a number of decisions >= 0, got -1"):
        s.after(-1)


# -- the package ---------------------------------------------------------------------------------


def test_record_and_grounds_readers_are_exported_from_kerala() -> None:
    from kerala import notation

    for name in ("read_record", "write_record", "read_grounds", "write_grounds", "Record"):
        assert getattr(kerala, name) is getattr(notation, name)
        assert name in kerala.__all__
    s = played(8, ["blue", "red"])
    assert kerala.read_record(kerala.write_record(s)).state == s.after(10**6)


def test_version_is_read_from_package_metadata() -> None:
    assert kerala.__version__ == importlib.metadata.version("kerala")


def test_docs_engine_md_examples_run() -> None:
    text = (ROOT / "docs" / "engine.md").read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.S)
    assert blocks, "docs/engine.md has no pycon examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"engine.md[{i}]", "docs/engine.md", 0)
        runner.run(test)
    assert runner.failures == 0


def test_examples_engine_tour_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "engine_tour.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.rstrip().endswith("tour done"), out.stdout[-500:]
    assert "refused:" in out.stdout and "undone" in out.stdout


# -- one turn API: move_stack, peek, outcome; hidden tiles redrawn by the engine ---------------


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 60))
def test_move_stack_and_peek_follow_the_decisions_and_undo(seed: int, n: int) -> None:
    s = played(seed, ["blue", "red", "green"], stop=n)
    stack = [e for e in s.log if not isinstance(e, kerala.TileType)]
    assert s.move_stack == stack
    s.move_stack.clear()  # a new list each time: the state keeps its own
    assert s.move_stack == stack
    if not stack:
        with pytest.raises(IndexError):
            s.peek()
        return
    assert s.peek() is stack[-1]
    assert s.undo() == stack[-1]
    assert s.move_stack == stack[:-1]


def test_outcome_is_none_until_the_end_then_totals_ranks_and_winners_sc7() -> None:
    s = played(4, ["blue", "red", "green", "black"], stop=10)
    assert not s.is_over() and s.outcome() is None
    s = played(4, ["blue", "red", "green", "black"])
    out = s.outcome()
    assert out is not None
    assert list(out.totals) == [b.total for b in s.scores()]
    assert list(out.ranks) == s.ranks()
    assert out.winners == tuple(i for i, r in enumerate(s.ranks()) if r == 1)
    assert out == kerala.Outcome(out.totals, out.ranks, out.winners)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 40), draw=st.integers(0, 10_000))
def test_redrawn_changes_only_what_no_player_has_seen_i2(seed: int, n: int, draw: int) -> None:
    s = played(seed, ["blue", "red"], stop=n)
    before = s.copy()
    t = s.redrawn(random.Random(draw))
    assert s == before  # the state itself is unchanged
    assert t.rng is None
    for seat in (None, 0, 1):
        assert t.view(seat) == s.view(seat)  # every view the same
    assert sorted(t.removed + t.bag, key=str) == sorted(s.removed + s.bag, key=str)
    played_colors = set(s.colors)
    assert [x for x in t.bag if x.color in played_colors] == [
        x for x in s.bag if x.color in played_colors
    ]
    assert len(t.removed) == len(s.removed) and all(x.color not in played_colors for x in t.removed)
    removed, bag = s.hidden_redrawn(random.Random(draw))
    assert (tuple(removed), tuple(bag)) == (t.removed, t.bag)
