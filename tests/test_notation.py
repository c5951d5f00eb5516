"""Tests of kerala.notation: game records and grounds documents (docs/notation.md).

Round trips, the JSON Schemas, and every refusal the issue names: malformed JSON, unknown
format or version, unknown tile, seat out of order, illegal turn, a draw the bag could not have
produced, a ``result`` the rules do not give; each message names round, turn and reason.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from enginelib import make_grounds, play_random, random_line, removal_for, snapshot, state_after
from kerala.errors import NotationError
from kerala.game import GameState, Phase, new_game
from kerala.grounds import cell
from kerala.notation import (
    read_grounds,
    read_record,
    schema,
    score_document,
    write_grounds,
    write_record,
)
from kerala.scoring import score_grounds
from kerala.tiles import load_tileset, tile

DATA = Path(__file__).parent / "data"
RECORD_SCHEMA = schema("record")
GROUNDS_SCHEMA = schema("grounds")


def finished(seed: int = 5, colors: tuple[str, ...] = ("blue", "red")) -> dict[str, Any]:
    return write_record(play_random(seed, colors), [{"name": f"P{i}"} for i in range(len(colors))])


def refused(doc: Any, *fragments: str) -> NotationError:
    with pytest.raises(NotationError) as info:
        read_record(doc)
    for f in fragments:
        assert f in str(info.value), (f, str(info.value))
    return info.value


def first_round_with_turns(doc: dict[str, Any], pred: Any) -> tuple[int, int]:
    for r, rd in enumerate(doc["rounds"]):
        for i, t in enumerate(rd["turns"]):
            if pred(t):
                return r, i
    raise AssertionError("no such turn")


def state_at_follow_up() -> GameState:
    for seed in range(50):
        for s in random_line(seed, ["blue", "red"]):
            if s.phase == Phase.FOLLOW_UP:
                return s
    raise AssertionError("no follow-up reached")


# -- schemas ---------------------------------------------------------------------------------


def test_schemas_are_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(RECORD_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(GROUNDS_SCHEMA)


@pytest.mark.parametrize("colors", [("blue", "red"), ("green", "black", "purple", "red", "blue")])
def test_written_finished_record_validates_against_schema(colors: tuple[str, ...]) -> None:
    doc = finished(3, colors)
    jsonschema.validate(doc, RECORD_SCHEMA)
    assert "result" in doc and "removed" in doc


def test_written_record_in_progress_with_pending_follow_up_validates() -> None:
    s = state_at_follow_up()
    doc = write_record(s)
    jsonschema.validate(doc, RECORD_SCHEMA)
    assert doc["rounds"][-1]["turns"][-1]["follow_up"] == "pending"
    assert "removed" not in doc and "result" not in doc


def test_written_grounds_validate_against_schema() -> None:
    s = play_random(8, ("blue", "red", "green"))
    for g in s.grounds:
        jsonschema.validate(write_grounds(g), GROUNDS_SCHEMA)
    jsonschema.validate(json.loads((DATA / "worked_example_37.json").read_text()), GROUNDS_SCHEMA)


def test_schema_rejects_what_the_reader_rejects() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["rounds"][0]["turns"][0]["move_elephant"] = {"from": [0, 0], "to": [1, 0]}
    bad["rounds"][0]["turns"][0]["move_stack"] = {"from": [0, 0], "to": [1, 0]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, RECORD_SCHEMA)
    bad = copy.deepcopy(doc)
    bad["rounds"][0]["drawn"][0] = "blue:start"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, RECORD_SCHEMA)
    g = write_grounds(play_random(8, ("blue", "red")).grounds[0])
    g["stacks"][0]["tiles"].append("blue:arch-red")  # arch without edge
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(g, GROUNDS_SCHEMA)


# -- record round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_record_round_trip_replays_to_same_scores(n: int) -> None:
    colors = ("blue", "black", "green", "red", "purple")[:n]
    s = play_random(60 + n, colors)
    doc = write_record(s, [{"name": "A", "bot": "random"}] + [{"name": "B"}] * (n - 1))
    assert doc["players"][0] == {"name": "A", "color": colors[0], "bot": "random"}
    rec = read_record(json.dumps(doc))
    assert rec.state.is_over()
    assert rec.state.scores() == s.scores()
    assert rec.state.log == s.log
    assert write_record(rec.state, rec.players) == doc
    assert rec.result == doc["result"]


def test_record_result_fields_and_ranks() -> None:
    s = play_random(9, ("blue", "red", "green"))
    doc = write_record(s)
    res = doc["result"]
    assert [x["seat"] for x in res["scores"]] == [0, 1, 2]
    assert [x["total"] for x in res["scores"]] == [b.total for b in s.scores()]
    assert res["ranks"] == s.ranks()
    assert set(res["scores"][0]) == {
        "seat",
        "total",
        "surplus",
        "missing",
        "standing",
        "arches",
        "symbols",
        "removed_cells",
    }


def test_record_in_progress_round_trips_mid_round() -> None:
    s = state_after(4, ["blue", "red", "green"], stop=17)
    assert not s.is_over()
    doc = write_record(s)
    rec = read_record(doc)
    assert rec.state.turn == s.turn and rec.state.round == s.round
    assert rec.state.legal_decisions() == s.legal_decisions()
    assert rec.state.grounds[1].stacks == s.grounds[1].stacks
    assert "removed" not in doc and "result" not in doc


def test_record_in_progress_with_partial_draw() -> None:
    colors = ["blue", "red", "green"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors))
    s.apply_draw(tile("blue:e1"))
    s.apply_draw(tile("red:e1"))
    doc = write_record(s)
    assert doc["rounds"] == [{"drawn": ["blue:e1", "red:e1"], "turns": []}]
    assert doc["removed"] == [t.name for t in removal_for(colors)]
    rec = read_record(doc)
    assert rec.state.phase == Phase.DRAW and rec.state.display == s.display


def test_record_pending_follow_up_round_trips() -> None:
    s = state_at_follow_up()
    rec = read_record(write_record(s))
    assert rec.follow_up_pending
    assert rec.state.phase == Phase.FOLLOW_UP
    assert rec.state.legal_decisions() == s.legal_decisions()


def test_record_special_turns_fold_the_follow_up() -> None:
    """SP1/SP2 turns carry ``move_elephant``/``move_stack``; a skip carries nothing."""
    seen: set[str] = set()
    for seed in range(30):
        doc = finished(seed)
        for rd in doc["rounds"]:
            for t in rd["turns"]:
                if t.get("take", "").endswith(("move-elephant", "move-tile")):
                    kind = t["take"].split(":")[1]
                    if "move_elephant" in t:
                        assert kind == "move-elephant"
                        seen.add("me")
                    elif "move_stack" in t:
                        assert kind == "move-tile"
                        seen.add("ms")
                    else:
                        seen.add("skip")
        if seen == {"me", "ms", "skip"}:
            break
    assert seen == {"me", "ms", "skip"}


def test_random_removal_hidden_until_the_end_i2() -> None:
    s = state_after(2, ["blue", "red"], stop=10)
    assert "removed" not in write_record(s)
    assert write_record(s, include_removed=True)["removed"] == [t.name for t in s.removed]
    assert "removed" in finished(2)


def test_record_without_removed_replays_any_consistent_removal() -> None:
    doc = finished(11)
    del doc["removed"]
    rec = read_record(doc)
    assert [b.total for b in rec.state.scores()] == [x["total"] for x in doc["result"]["scores"]]
    assert "removed" not in write_record(rec.state)


def test_chosen_removal_record() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=3)
    rng = random.Random(3)
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
        else:
            legal = s.legal_decisions()
            s.apply(legal[rng.randrange(len(legal))])
    doc = write_record(s)
    assert doc["removal"] == "chosen" and len(doc["removed"]) == 20
    rec = read_record(doc)
    assert rec.state.removal == "chosen" and rec.state.scores() == s.scores()
    del doc["removed"]
    refused(doc, "chosen removal lists the 'removed' tiles")


def test_notation_md_example_turns_parse() -> None:
    from kerala.actions import MoveElephant, MoveStack, Place, decision_from_json

    d = decision_from_json({"seat": 0, "take": "black:e3", "to": [1, 0], "from": [0, 0]})
    assert d == Place(seat=0, take=tile("black:e3"), to=(1, 0), from_=(0, 0))
    arch = {"seat": 0, "take": "purple:arch-red", "to": [2, 0], "from": [1, 0], "arch": "N"}
    assert decision_from_json(arch) == Place(
        seat=0, take=tile("purple:arch-red"), to=(2, 0), from_=(1, 0), arch="N"
    )
    ms = decision_from_json({"seat": 1, "move_stack": {"from": [-1, 0], "to": [3, 1]}})
    assert ms == MoveStack(seat=1, from_=(-1, 0), to=(3, 1))
    me = decision_from_json({"seat": 0, "move_elephant": {"from": [4, 2], "to": [-2, 0]}})
    assert me == MoveElephant(seat=0, from_=(4, 2), to=(-2, 0))


# -- record refusals ----------------------------------------------------------------------------


def test_refuses_malformed_json() -> None:
    err = refused('{"format": "kerala-record", "version": 1,', "malformed JSON", "line 1")
    assert err.round is None
    refused(b'{"format": "\xff"}', "not UTF-8")
    refused("[1, 2]", "must be a JSON object")
    # Found by these tests: both once escaped as RecursionError / ValueError.
    refused("[" * 100_000, "malformed JSON in document: nested too deeply")
    refused('{"version": ' + "1" * 5000 + "}", "malformed JSON in document: Exceeds the limit")
    with pytest.raises(NotationError, match="nested too deeply"):
        read_grounds("{" + '"a": {' * 50_000)


def test_refuses_unknown_format_or_version() -> None:
    doc = finished()
    refused({**doc, "format": "kerala-grounds"}, 'unknown format "kerala-grounds"')
    refused({**doc, "format": None}, "unknown format null")
    refused({**doc, "version": 2}, "unsupported kerala-record version 2", "knows 1")
    refused({k: v for k, v in doc.items() if k != "version"}, "has no 'version' field")
    with pytest.raises(NotationError, match="Unterminated string starting at line 1, column"):
        read_record('{"format": "kerala-rec')
    refused({**doc, "tileset": "deluxe"}, "unknown tile set 'deluxe'")
    refused({**doc, "extra": 1}, "unexpected field(s) in record: extra")


def test_refuses_unknown_tile_naming_round_and_turn() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["rounds"][3]["drawn"][1] = "blue:e4"
    err = refused(bad, "round 4", "unknown tile 'blue:e4' in drawn")
    assert err.round == 3
    bad = copy.deepcopy(doc)
    r, i = first_round_with_turns(doc, lambda t: "take" in t)
    bad["rounds"][r]["turns"][i]["take"] = "blue:elephant"
    err = refused(bad, f"round {r + 1}, turn {i + 1}: illegal turn", 'unknown tile "blue:elephant"')
    assert (err.round, err.turn) == (r, i)
    bad = copy.deepcopy(doc)
    bad["removed"][0] = "pink:e1"
    refused(bad, "unknown tile 'pink:e1' in removed")


def test_refuses_seat_out_of_order() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["rounds"][5]["turns"][0]["seat"] = 0  # round 5 belongs to seat 1
    err = refused(bad, "round 6, turn 1: seat out of order: seat 1 plays now, not 0")
    assert (err.round, err.turn) == (5, 0)
    bad = copy.deepcopy(doc)
    turns = bad["rounds"][2]["turns"]
    turns[0], turns[1] = turns[1], turns[0]
    refused(bad, "round 3, turn 1: seat out of order")
    bad = copy.deepcopy(doc)
    bad["rounds"][2]["turns"][1]["seat"] = "1"
    refused(bad, "round 3, turn 2: seat out of order", 'not "1"')


def test_refuses_illegal_turn_with_the_rule() -> None:
    doc = finished()
    r, i = first_round_with_turns(doc, lambda t: "take" in t and "arch" not in t)
    bad = copy.deepcopy(doc)
    turn = bad["rounds"][r]["turns"][i]
    turn["to"] = [turn["from"][0] + 2, turn["from"][1]]
    err = refused(bad, f"round {r + 1}, turn {i + 1}: illegal turn: P1:")
    assert (err.round, err.turn) == (r, i)
    bad = copy.deepcopy(doc)
    bad["rounds"][r]["turns"][i]["take"] = next(
        n for n in ("blue:e1", "red:e1", "green:e1") if n not in doc["rounds"][r]["drawn"]
    )
    refused(bad, f"round {r + 1}, turn {i + 1}: illegal turn: G2:", "is not in the display")
    # Coordinates that would alias other cells (found by these tests).
    bad = copy.deepcopy(doc)
    turn = bad["rounds"][r]["turns"][i]
    turn["to"] = [turn["to"][0] + 1, turn["to"][1] - 4096]
    turn["from"] = [turn["from"][0] + 1, turn["from"][1] - 4096]
    refused(bad, f"round {r + 1}, turn {i + 1}: illegal turn: P6:", "outside the coordinate range")


def test_refuses_a_third_pass_g3() -> None:
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=1)
    while s.round < 3:
        if s.is_chance():
            s.advance_chance()
        else:
            s.apply(s.legal_decisions()[0])
    doc = write_record(s)
    for r in range(3):
        for t in doc["rounds"][r]["turns"]:
            if t["seat"] == 0:
                t.clear()
                t.update({"seat": 0, "pass": True})
    refused(doc, "round 3, turn 1: illegal turn: G3:")


def test_refuses_draw_the_bag_could_not_produce() -> None:
    # A 4th blue:e3: the tile set has 3 (rounds without turns, so the draw is the first fault).
    doc = finished()
    bad = {k: v for k, v in doc.items() if k != "result"}
    bad["rounds"] = [
        {"drawn": ["blue:e3", "blue:e3"], "turns": []},
        {"drawn": ["blue:e3", "blue:e3"], "turns": []},
    ]
    err = refused(bad, "round 2: a draw the bag could not have produced", "4 × blue:e3")
    assert (err.round, err.turn) == (1, None)
    # A tile the record says was removed: all 20 purple tiles are out.
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors), seed=4)
    s.advance_chance()
    bad = write_record(s)
    assert set(bad["removed"]) == {t.name for t in removal_for(colors)}
    bad["rounds"][0]["drawn"][1] = "purple:e1"
    err = refused(bad, "round 1: a draw the bag could not have produced: 1 × purple:e1")
    assert err.round == 0 and err.turn is None


def test_refuses_draws_that_leave_too_few_tiles_for_a_secret_removal() -> None:
    """S3/S4: a record that keeps the removal secret still cannot draw more than 40 tiles of
    the three unplayed colors in a 2-player game (60 of them, 20 removed)."""
    colors = ["blue", "red"]
    s = new_game(colors, removal="chosen", removed=removal_for(colors))  # the 20 purple tiles
    others = [t for t in load_tileset("standard").tiles() if t.color in ("green", "black")]
    assert len(others) == 40
    for r in range(20):
        for t in others[2 * r : 2 * r + 2]:
            s.apply_draw(t)
        while not s.is_chance() and not s.is_over():
            s.apply(s.legal_decisions()[0])
    doc = write_record(s)
    del doc["removed"]
    doc["removal"] = "random"
    read_record(doc)  # possible so far
    doc["rounds"].append({"drawn": ["purple:e1", "purple:e2"], "turns": []})
    err = refused(doc, "round 21: a draw the bag could not have produced", "too few tiles")
    assert err.round == 20


def test_record_errors_name_the_first_impossible_point() -> None:
    """A draw altered in an early round is reported there, not where the bag finally runs
    out of the substituted tile: the turn that took the original tile is the first fault."""
    doc = finished()
    r, i = first_round_with_turns(doc, lambda t: "take" in t and t["take"].endswith(":e1"))
    bad = copy.deepcopy(doc)
    took = bad["rounds"][r]["turns"][i]["take"]
    color = took.split(":")[0]
    at = bad["rounds"][r]["drawn"].index(took)
    bad["rounds"][r]["drawn"][at] = f"{color}:e2"  # e2 is still in the bag then
    err = refused(bad, f"round {r + 1}, turn {i + 1}: illegal turn: G2:", "not in the display")
    assert (err.round, err.turn) == (r, i)


def test_refuses_wrong_number_of_drawn_tiles() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["rounds"][4]["drawn"] = bad["rounds"][4]["drawn"][:1]
    refused(bad, "round 5: the bag owner draws 2 tiles (G1), 'drawn' lists 1")


def test_refuses_result_the_rules_do_not_give() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["result"]["scores"][1]["total"] += 1
    refused(bad, "the result the rules do not give: seat 1 scores at best")
    bad = copy.deepcopy(doc)
    bad["result"]["scores"][0]["symbols"] -= 1
    refused(bad, "seat 0 symbols is")
    bad = copy.deepcopy(doc)
    bad["result"]["ranks"] = [2, 2]
    refused(bad, "ranks are")
    bad = copy.deepcopy(doc)
    del bad["result"]["scores"][0]["total"]
    refused(bad, "lacks 'total'")
    bad = copy.deepcopy(doc)
    bad["result"]["scores"].pop()
    refused(bad, "'result' scores 1 seats, the game has 2")
    bad = copy.deepcopy(doc)
    bad["result"]["scores"][0]["total"] = "7"
    refused(bad, 'result.scores[0].total must be an integer, got "7"')


def tied_choices(g: Any) -> list[Any]:
    """Every SC1 removal of ``g`` with the best total, by trying every allowed choice."""
    from itertools import combinations, product

    from kerala.scoring import color_areas, score_grounds, score_removal

    areas = color_areas(g)[0]
    per_color = []
    for color in ("blue", "black", "green", "red", "purple"):
        group = [a for a in areas if a.color == color]
        cap = 2 if color == g.color else 1
        keep = min(cap, len(group))
        per_color.append(
            [[a for a in group if a not in kept] for kept in combinations(group, keep)]
        )
    best = score_grounds(g).total
    out = []
    for parts in product(*per_color):
        cells = [cell(k) for part in parts for a in part for k in a.cells]
        b = score_removal(g, cells)
        if b.total == best:
            out.append(b)
    return out


def two_best_choices() -> tuple[dict[str, Any], int, Any, Any]:
    """A finished random record and a seat with two best SC1 choices that differ in surplus."""
    for seed in range(1, 200):
        doc = finished(seed)
        for seat, g in enumerate(read_record(doc).state.grounds):
            ties = tied_choices(g)
            for a in ties:
                for b in ties:
                    if a.surplus != b.surplus:
                        return doc, seat, a, b
    pytest.fail("no random game with two best SC1 choices that differ in surplus")


def test_result_is_checked_against_its_own_removal() -> None:
    """docs/notation.md: total is authoritative; a score listing removed_cells is checked against
    that removal, so either of two best choices with different fields is accepted."""
    doc, seat, a, b = two_best_choices()
    for choice in (a, b):
        ok = copy.deepcopy(doc)
        ok["result"]["scores"][seat] = {"seat": seat, **choice.to_json()}
        read_record(ok)
    # The fields of one choice with the cells of the other: refused, naming the field.
    bad = copy.deepcopy(doc)
    bad["result"]["scores"][seat] = {
        "seat": seat,
        **a.to_json(),
        "removed_cells": b.to_json()["removed_cells"],
    }
    refused(bad, f"seat {seat} surplus is {b.surplus} with those removed_cells")
    # Without removed_cells only total, missing and standing are checked.
    ok = copy.deepcopy(doc)
    ok["result"]["scores"][seat] = {k: v for k, v in bad["result"]["scores"][seat].items()}
    del ok["result"]["scores"][seat]["removed_cells"]
    read_record(ok)


def test_result_removed_cells_must_be_a_legal_removal() -> None:
    """SC1: removed cells are cells of the grounds, whole areas, the right count per color,
    and the choice must give the best total."""
    doc = finished()
    record = read_record(doc)
    seat = next(i for i, g in enumerate(record.state.grounds) if score_grounds(g).removed_cells)
    good = doc["result"]["scores"][seat]["removed_cells"]
    for cells, message in [
        ([[99, 99]], "[99, 99] is not a cell of the grounds"),
        ("everything", "removed_cells must be a list of cells"),
        ([[1, "a"]], "removed_cells[0]"),
        (good[:-1] if len(good) > 1 else [], "SC1:"),
        ([], "SC1:"),
        (good + [c for c in record.state.grounds[seat].cells() if list(c) not in good][:1], "SC1:"),
    ]:
        bad = copy.deepcopy(doc)
        bad["result"]["scores"][seat]["removed_cells"] = cells
        err = refused(bad, f"result.scores[{seat}].removed_cells", message)
        assert "Traceback" not in str(err)


def test_refuses_result_of_unfinished_game_and_turns_after_the_end() -> None:
    doc = finished()
    bad = copy.deepcopy(doc)
    result = bad.pop("result")
    bad["rounds"].pop()
    bad["result"] = result
    refused(bad, "'result' is given but the game is not over")
    bad = copy.deepcopy(doc)
    bad["rounds"].append({"drawn": [], "turns": []})
    refused(bad, "round 41: the game was already over")


def test_refuses_bad_players_and_removal() -> None:
    doc = finished()
    refused({**doc, "players": doc["players"][:1]}, "2 to 5 players")
    p = copy.deepcopy(doc["players"])
    p[1]["color"] = p[0]["color"]
    refused({**doc, "players": p}, "distinct color")
    p = copy.deepcopy(doc["players"])
    p[1]["color"] = "orange"
    refused({**doc, "players": p}, "players[1].color")
    p = copy.deepcopy(doc["players"])
    p[0]["elo"] = 3
    refused({**doc, "players": p}, "players[0]: unexpected field(s) elo")
    refused({**doc, "removal": "secret"}, "'removal' must be 'random' or 'chosen'")
    refused({**doc, "removed": doc["removed"][:5]}, "S3: 2 players remove exactly 20 tiles")
    refused({**doc, "removed": ["blue:e1", *doc["removed"][1:]]}, "S3: removed tile blue:e1")
    refused({**doc, "rounds": {}}, "'rounds' must be a list")


def test_refuses_follow_up_misuse() -> None:
    doc = finished(6)
    r, i = first_round_with_turns(doc, lambda t: "take" in t and "move" not in t["take"])
    bad = copy.deepcopy(doc)
    bad["rounds"][r]["turns"][i]["move_stack"] = {"from": [0, 0], "to": [0, 1]}
    refused(bad, f"round {r + 1}, turn {i + 1}:", "follow only a special tile")
    bad = copy.deepcopy(doc)
    bad["rounds"][r]["turns"][i]["follow_up"] = "pending"
    refused(bad, f"round {r + 1}, turn {i + 1}:")
    for seed in range(40):
        doc = finished(seed)
        try:
            r, i = first_round_with_turns(doc, lambda t: t.get("take", "").endswith("move-tile"))
        except AssertionError:
            continue
        bad = copy.deepcopy(doc)
        bad["rounds"][r]["turns"][i]["move_elephant"] = {"from": [0, 0], "to": [0, 1]}
        bad["rounds"][r]["turns"][i].pop("move_stack", None)
        refused(bad, f"round {r + 1}, turn {i + 1}:", "allows 'move_stack', not 'move_elephant'")
        bad = copy.deepcopy(doc)
        bad["rounds"][r]["turns"][i]["follow_up"] = "pending"
        bad["rounds"][r]["turns"][i].pop("move_stack", None)
        refused(
            bad, f"round {r + 1}, turn {i + 1}:", "only the last turn of a record may be pending"
        )
        bad = copy.deepcopy(doc)
        bad["rounds"][r]["turns"][i]["follow_up"] = "later"
        refused(bad, f"round {r + 1}, turn {i + 1}:", "'follow_up' can only be \"pending\"")
        break
    else:
        raise AssertionError("no move-tile turn found")


def test_refused_record_leaves_no_trace() -> None:
    """A refusal raises; the caller's document is not modified."""
    doc = finished()
    bad = copy.deepcopy(doc)
    bad["rounds"][5]["turns"][0]["seat"] = 0
    frozen = json.dumps(bad, sort_keys=True)
    with pytest.raises(NotationError):
        read_record(bad)
    assert json.dumps(bad, sort_keys=True) == frozen


def test_record_reader_does_not_change_state_of_caller() -> None:
    s = play_random(12, ("blue", "red"))
    before = snapshot(s)
    read_record(write_record(s))
    assert snapshot(s) == before


# -- grounds documents -------------------------------------------------------------------------


def grounds_doc(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "kerala-grounds",
        "version": 1,
        "color": "blue",
        "passes": 1,
        "elephants": [[1, 0], [0, 0]],
        "stacks": [
            {"at": [0, 0], "tiles": ["blue:start", "green:e2"]},
            {"at": [1, 0], "tiles": ["purple:arch-green@W"]},
        ],
    }
    doc.update(over)
    return doc


def test_notation_md_grounds_example_reads_and_scores() -> None:
    g = read_grounds(grounds_doc())
    assert g.color == "blue" and g.passes == 1
    assert g.stack((1, 0)) == ((tile("purple:arch-green"), "W"),)
    b = score_document(json.dumps(grounds_doc()))
    # Green e2 on top of the start tile; the purple arch faces it: +5.
    assert (b.total, b.arches, b.symbols, b.missing, b.standing) == (-7, 5, 2, -15, 1)


def test_grounds_round_trip() -> None:
    s = play_random(13, ("blue", "red", "green", "black"))
    for g in s.grounds:
        doc = write_grounds(g)
        back = read_grounds(json.dumps(doc))
        assert back.stacks == g.stacks and back.elephants == g.elephants
        assert back.passes == g.passes and back.color == g.color
        assert write_grounds(back) == doc


def test_grounds_without_elephants_score() -> None:
    doc = grounds_doc()
    del doc["elephants"]
    assert score_document(doc).total == -7


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"format": "kerala-record"}, 'unknown format "kerala-record"'),
        ({"version": 0}, "unsupported kerala-grounds version 0"),
        ({"color": "pink"}, "'color' must be one of"),
        ({"passes": 3}, "'passes' must be 0, 1 or 2"),
        ({"passes": True}, "'passes' must be 0, 1 or 2"),
        ({"stacks": []}, "'stacks' must be a non-empty list"),
        ({"owner": "Ada"}, "unexpected field(s) in grounds: owner"),
        ({"stacks": [{"at": [0, 0]}]}, "stacks[0] must be an object with 'at' and 'tiles'"),
        ({"stacks": [{"at": [0], "tiles": ["blue:start"]}]}, "stacks[0].at must be a cell"),
        ({"stacks": [{"at": [0, 0], "tiles": []}]}, "stacks[0].tiles must be a non-empty list"),
        ({"stacks": [{"at": [0, 0], "tiles": [5]}]}, "stacks[0].tiles[0] must be a tile name"),
        ({"stacks": [{"at": [0, 0], "tiles": ["blue:st"]}]}, "unknown tile 'blue:st'"),
        (
            {"stacks": [{"at": [0, 0], "tiles": ["blue:start", "red:arch-blue"]}]},
            "stacks[0].tiles[1]: the arch tile red:arch-blue needs its edge",
        ),
        (
            {"stacks": [{"at": [0, 0], "tiles": ["blue:start", "red:arch-blue@X"]}]},
            "needs its edge",
        ),
        (
            {"stacks": [{"at": [0, 0], "tiles": ["blue:start", "red:e1@N"]}]},
            "red:e1 is not an arch and takes no @edge",
        ),
        ({"stacks": [{"at": [0, 0], "tiles": ["red:start"]}]}, "start tile must be blue"),
        (
            {"stacks": [{"at": [0, 0], "tiles": ["red:e1", "blue:start"]}]},
            "the start tile lies at the bottom",
        ),
        ({"stacks": [{"at": [0, 0], "tiles": ["red:e1"]}]}, "exactly one start tile, found 0"),
        (
            {
                "stacks": [
                    {"at": [0, 0], "tiles": ["blue:start"]},
                    {"at": [0, 1], "tiles": ["blue:start"]},
                ]
            },
            "exactly one start tile, found 2",
        ),
        (
            {
                "stacks": [
                    {"at": [0, 0], "tiles": ["blue:start"]},
                    {"at": [0, 0], "tiles": ["red:e1"]},
                ]
            },
            "stacks[1]: cell [0, 0] is listed twice",
        ),
        (
            {"stacks": [{"at": [0, 0], "tiles": ["blue:start", *["red:e3"] * 4]}]},
            "4 tiles red:e3, but the tile set 'standard' has only 3",
        ),
        (
            {
                "stacks": [
                    {"at": [0, 0], "tiles": ["blue:start"]},
                    {"at": [2, 0], "tiles": ["red:e1"]},
                ],
                "elephants": [[0, 0], [2, 0]],
            },
            "not orthogonally connected",
        ),
        (
            {
                "stacks": [
                    {"at": [0, 0], "tiles": ["blue:start"]},
                    {"at": [1, -4096], "tiles": ["red:e1"]},
                ]
            },
            "stacks[1].at: [1, -4096] is outside the coordinate range",
        ),
        ({"elephants": [[0, 0]]}, "'elephants' must list the cells of both elephants"),
        ({"elephants": [[0, 0], [5, 5]]}, "elephants[1]: no stack at [5, 5]"),
        ({"elephants": [[0, 0], [0, 0]]}, "two elephants share a cell only before"),
    ],
)
def test_grounds_document_refusals(change: dict[str, Any], fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        read_grounds(grounds_doc(**change))
    assert fragment in str(info.value)


def test_grounds_diagonal_only_is_not_connected() -> None:
    doc = grounds_doc(
        stacks=[
            {"at": [0, 0], "tiles": ["blue:start"]},
            {"at": [1, 1], "tiles": ["red:e1"]},
        ],
        elephants=[[0, 0], [1, 1]],
    )
    with pytest.raises(NotationError, match="not orthogonally connected"):
        read_grounds(doc)


def test_grounds_malformed_json() -> None:
    with pytest.raises(NotationError, match="malformed JSON"):
        read_grounds("{")
    with pytest.raises(NotationError, match="must be a JSON object"):
        read_grounds("[]")


def test_write_grounds_matches_make_grounds() -> None:
    g = make_grounds(
        "red",
        {(0, 0): ["red:start", "blue:arch-red@S"], (0, 1): "red:e2"},
        elephants=[(0, 0), (0, 1)],
        passes=2,
    )
    assert write_grounds(g) == {
        "format": "kerala-grounds",
        "version": 1,
        "color": "red",
        "passes": 2,
        "elephants": [[0, 0], [0, 1]],
        "stacks": [
            {"at": [0, 0], "tiles": ["red:start", "blue:arch-red@S"]},
            {"at": [0, 1], "tiles": ["red:e2"]},
        ],
    }
