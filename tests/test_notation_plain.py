# ruff: noqa: E501
"""Issue 11.3: clock settings in the record "with an optional per-turn time that does not break
older readers" (docs/notation.md, "Optional extensions" and "The plain form").

Readers of format version 1 are strict: a field they do not know is refused (docs/notation.md),
so a reader from before the clock fields refuses a timed record. What every version-1 reader
reads is the plain form: the record without its optional fields (``kerala.notation.
plain_record``). These tests check that a timed (and analysed) record's plain form holds only
version-1 fields, by the record schema shipped before any optional field existed (commit
6042adc, kept verbatim below so that the check runs on any checkout, shallow clones included),
that it replays to the same game and result, and that the reader of that commit (frozen in
tests/data) reads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import play_random, state_after
from kerala.errors import NotationError
from kerala.game import GameState
from kerala.notation import plain_record, read_record, write_record

ROOT = Path(__file__).resolve().parents[1]
#: The commit whose reader knows no optional field (before ``analysis`` and the clock fields).
OLD = "6042adc"
OLD_ARCHIVE = ROOT / "tests" / "data" / f"reader-{OLD}.tar.gz"
#: ``src/kerala/schemas/record.schema.json`` as shipped at 6042adc: version 1 with no optional
#: fields (``additionalProperties: false`` on the record, players, rounds, turns and scores).
V1_SCHEMA_TEXT = r"""{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://kerala.invalid/schemas/record.schema.json",
  "title": "Kerala game record (NOTATION.md), version 1",
  "type": "object",
  "required": ["format", "version", "players", "removal", "rounds"],
  "additionalProperties": false,
  "properties": {
    "format": {"const": "kerala-record"},
    "version": {"const": 1},
    "tileset": {"type": "string"},
    "players": {
      "type": "array",
      "minItems": 2,
      "maxItems": 5,
      "items": {
        "type": "object",
        "required": ["name", "color"],
        "additionalProperties": false,
        "properties": {
          "name": {"type": "string"},
          "color": {"$ref": "#/$defs/color"},
          "bot": {"type": "string"}
        }
      }
    },
    "removal": {"enum": ["random", "chosen"]},
    "removed": {"type": "array", "items": {"$ref": "#/$defs/tile"}},
    "rounds": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["drawn", "turns"],
        "additionalProperties": false,
        "properties": {
          "drawn": {"type": "array", "items": {"$ref": "#/$defs/tile"}, "maxItems": 5},
          "turns": {"type": "array", "items": {"$ref": "#/$defs/turn"}, "maxItems": 5}
        }
      }
    },
    "result": {
      "type": "object",
      "required": ["scores", "ranks"],
      "additionalProperties": false,
      "properties": {
        "scores": {"type": "array", "items": {"$ref": "#/$defs/score"}},
        "ranks": {"type": "array", "items": {"type": "integer", "minimum": 1}}
      }
    }
  },
  "$defs": {
    "color": {"enum": ["blue", "black", "green", "red", "purple"]},
    "cell": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    "tile": {
      "type": "string",
      "pattern": "^(blue|black|green|red|purple):(e1|e2|e3|move-elephant|move-tile|arch-(blue|black|green|red|purple))$"
    },
    "move": {
      "type": "object",
      "required": ["from", "to"],
      "additionalProperties": false,
      "properties": {"from": {"$ref": "#/$defs/cell"}, "to": {"$ref": "#/$defs/cell"}}
    },
    "turn": {
      "oneOf": [
        {
          "type": "object",
          "required": ["seat", "pass"],
          "additionalProperties": false,
          "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 4}, "pass": {"const": true}}
        },
        {
          "type": "object",
          "required": ["seat", "take", "to", "from"],
          "additionalProperties": false,
          "properties": {
            "seat": {"type": "integer", "minimum": 0, "maximum": 4},
            "take": {"$ref": "#/$defs/tile"},
            "to": {"$ref": "#/$defs/cell"},
            "from": {"$ref": "#/$defs/cell"},
            "arch": {"enum": ["N", "E", "S", "W"]},
            "move_elephant": {"$ref": "#/$defs/move"},
            "move_stack": {"$ref": "#/$defs/move"},
            "follow_up": {"const": "pending"}
          },
          "not": {"required": ["move_elephant", "move_stack"]}
        }
      ]
    },
    "score": {
      "type": "object",
      "required": ["seat", "total"],
      "additionalProperties": false,
      "properties": {
        "seat": {"type": "integer", "minimum": 0},
        "total": {"type": "integer"},
        "surplus": {"type": "integer"},
        "missing": {"type": "integer"},
        "standing": {"type": "integer"},
        "arches": {"type": "integer"},
        "symbols": {"type": "integer"},
        "removed_cells": {"type": "array", "items": {"$ref": "#/$defs/cell"}}
      }
    }
  }
}
"""
V1_SCHEMA: dict[str, Any] = json.loads(V1_SCHEMA_TEXT)
CLOCK = {
    "kind": "realtime",
    "minutes": 5,
    "increment": 3,
    "bot": "medium",
    "events": [
        {"at": 4, "seat": 1, "kind": "timeout", "bot": "medium"},
        {"at": 7, "seat": 1, "kind": "back"},
    ],
}
PLAYERS = [{"name": "Ada"}, {"name": "Bo", "bot": "easy"}, {"name": "Cy"}]


def decisions(state: GameState) -> int:
    return sum(len(decs) for _, decs in state.history())


def timed_record(state: GameState) -> dict[str, Any]:
    """The record of ``state`` with every optional field: clock, times and an analysis."""
    times = [round(1.5 + 0.25 * i, 3) for i in range(decisions(state))]
    doc = write_record(state, PLAYERS[: state.n], clock=CLOCK, times=times)
    doc["analysis"] = {"version": 1, "bot": "expert", "seats": [0], "decisions": []}
    return doc


def v1_errors(doc: dict[str, Any]) -> list[str]:
    v = jsonschema.Draft202012Validator(V1_SCHEMA)
    return [e.message for e in v.iter_errors(doc)]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 4))
def test_plain_record_holds_only_version_1_fields(seed: int, n: int) -> None:
    full = timed_record(play_random(seed, ["blue", "red", "green", "black"][:n]))
    assert v1_errors(full), "the full record has fields version 1 does not know"
    assert any("'clock'" in m and "'analysis'" in m for m in v1_errors(full))
    plain = plain_record(full)
    assert v1_errors(plain) == []
    assert "clock" not in plain and "analysis" not in plain
    assert all("time" not in t for rd in plain["rounds"] for t in rd["turns"])
    assert "clock" in full, "the record handed in is left as it was"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_plain_record_replays_to_the_same_game(seed: int) -> None:
    state = play_random(seed, ["blue", "red", "green"])
    full = timed_record(state)
    plain = plain_record(full)
    a, b = read_record(full), read_record(json.dumps(plain))
    assert a.state == b.state == state
    assert a.result == b.result == full["result"]
    assert a.players == b.players
    assert b.extra == {} and a.extra["clock"] == CLOCK
    # The plain form is the record written without optional fields.
    assert plain == write_record(state, PLAYERS[:3])


def test_plain_form_of_a_game_in_progress_and_of_a_plain_record() -> None:
    """A game in progress (a follow-up pending, random removal kept secret) keeps everything
    but the optional fields; the plain form of a plain record is the record itself."""
    for stop in range(6, 30):
        state = state_after(4, ["blue", "red"], stop=stop)
        if state.pending is not None:
            break
    else:
        pytest.fail("no pending follow-up in the first turns")
    full = write_record(state, clock=CLOCK, times=[2.0] * decisions(state))
    plain = plain_record(full)
    assert v1_errors(plain) == []
    assert plain["rounds"][-1]["turns"][-1]["follow_up"] == "pending"
    assert "removed" not in plain
    assert plain_record(plain) == plain == write_record(state)
    assert read_record(plain).state == read_record(full).state


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ({"format": "kerala-grounds", "version": 1}, "format"),
        ({"format": "kerala-record", "version": 2}, "version"),
        ({"format": "kerala-record", "version": 1, "rounds": 3}, "'rounds' must be a list"),
    ],
)
def test_plain_record_refuses_what_is_no_record(doc: Any, message: str) -> None:
    with pytest.raises(NotationError) as e:
        plain_record(doc)
    assert message in str(e.value) and "\n" not in str(e.value)


def old_source(tmp: Path) -> Path:
    """The reader as of :data:`OLD`: the modules ``kerala.notation`` imported at that commit,
    with their package data, frozen in ``tests/data`` so that every checkout has them (``git
    archive 6042adc src`` gives the same files)."""
    with tarfile.open(OLD_ARCHIVE) as tar:
        tar.extractall(tmp, filter="data")
    return tmp / "src"


OLD_READER = (
    "import json, sys\n"
    "from kerala.notation import read_record\n"
    "r = read_record(sys.stdin.read())\n"
    "print(json.dumps([s.total for s in r.state.scores()]))\n"
)


def old_read(src: Path, doc: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-c", OLD_READER],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_reader_from_before_the_clock_fields_reads_the_plain_form(
    tmp_path: Path,
) -> None:
    src = old_source(tmp_path)
    text = (src / "kerala" / "schemas" / "record.schema.json").read_text()
    assert json.loads(text) == V1_SCHEMA, "the schema above is the one shipped at 6042adc"
    for seed, colors in ((3, ["blue", "red"]), (11, ["blue", "red", "green"])):
        state = play_random(seed, colors)
        full = timed_record(state)
        refused = old_read(src, full)
        assert refused.returncode != 0 and "unexpected field(s) in record" in refused.stderr
        read = old_read(src, plain_record(full))
        assert read.returncode == 0, read.stderr
        assert json.loads(read.stdout) == [s.total for s in state.scores()]
