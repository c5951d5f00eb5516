"""Issue 11.3: the clock fields of a game record (docs/notation.md, "Clock fields").

A record keeps the time control, its timeouts and take-backs (top-level ``clock``) and the
seconds each turn took (``time`` on a turn). Readers that do not use clocks replay such a
record exactly as the same record without them."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import play_random
from kerala.errors import NotationError
from kerala.game import GameState
from kerala.notation import read_record, write_record

SCHEMA = json.loads(
    (Path(__file__).parents[1] / "src/kerala/schemas/record.schema.json").read_text()
)
CLOCK = {
    "kind": "realtime",
    "minutes": 5,
    "increment": 3,
    "bot": "easy",
    "events": [
        {"at": 4, "seat": 1, "kind": "timeout", "bot": "easy"},
        {"at": 7, "seat": 1, "kind": "back"},
    ],
}


def decisions(state: GameState) -> int:
    return sum(len(decs) for _, decs in state.history())


def without_clock(doc: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out.pop("clock", None)
    for rd in out["rounds"]:
        for t in rd["turns"]:
            t.pop("time", None)
    return out


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_clock_fields_round_trip(seed: int) -> None:
    state = play_random(seed, ["blue", "red", "green"])
    times = [round(0.5 + i * 0.25, 3) for i in range(decisions(state))]
    doc = write_record(state, clock=CLOCK, times=times)
    jsonschema.validate(doc, SCHEMA)
    turns = [t for rd in doc["rounds"] for t in rd["turns"]]
    assert all("time" in t for t in turns)
    # A turn with a follow-up is two decisions: its time is theirs together.
    assert sum(t["time"] for t in turns) == pytest.approx(sum(times))
    rec = read_record(json.dumps(doc))
    assert rec.extra["clock"] == CLOCK
    assert rec.extra["times"] == [t["time"] for t in turns]
    # Written again from what was read, the record is the same.
    assert write_record(rec.state, rec.players, clock=rec.extra["clock"], times=times) == doc
    # Readers that do not use clocks: the same game as the record without its clock fields.
    plain = read_record(without_clock(doc))
    assert write_record(plain.state) == write_record(rec.state) == without_clock(doc)
    assert plain.extra == {}


def test_unknown_times_are_left_out() -> None:
    state = play_random(3, ["blue", "red"])
    n = decisions(state)
    doc = write_record(state, clock={"kind": "correspondence", "hours": 24}, times=[None] * n)
    assert all("time" not in t for rd in doc["rounds"] for t in rd["turns"])
    jsonschema.validate(doc, SCHEMA)
    assert read_record(doc).extra["times"] == [None] * sum(len(r["turns"]) for r in doc["rounds"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.__setitem__("clock", {"kind": "blitz"}), "'clock' must be an object"),
        (lambda d: d["clock"].__setitem__("minutes", -1), "clock.minutes"),
        (lambda d: d["clock"].__setitem__("events", [{"kind": "nap"}]), "clock.events"),
        (lambda d: d["rounds"][0]["turns"][0].__setitem__("time", "3s"), "'time' must be"),
        (lambda d: d["rounds"][0]["turns"][0].__setitem__("time", -2), "'time' must be"),
    ],
)
def test_bad_clock_fields_are_one_line_errors(change: Any, message: str) -> None:
    state = play_random(5, ["blue", "red"])
    doc = write_record(state, clock=dict(CLOCK), times=[1.0] * decisions(state))
    change(doc)
    with pytest.raises(NotationError) as e:
        read_record(doc)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_record_check_accepts_clock_fields(tmp_path: Path) -> None:
    """``kerala record check``, a reader with no use for clocks, accepts a timed record."""
    state = play_random(8, ["blue", "red"])
    f = tmp_path / "timed.json"
    f.write_text(json.dumps(write_record(state, clock=CLOCK, times=[2.0] * decisions(state))))
    out = subprocess.run(
        [sys.executable, "-m", "kerala", "record", "check", str(f)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
