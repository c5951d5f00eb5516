"""Issue 11.3: a hand-over in a record's clock events (docs/notation.md, "Clock fields").

A seat handed to a bot by a player in a timed game is a clock event ``{"at", "seat", "kind":
"handover", "bot", "by"}``. The reader accepts it with exactly its fields and refuses a bad
event of any kind in one line naming the event and the field; the plain form drops it with
the rest of ``clock``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from enginelib import play_random
from kerala.errors import NotationError
from kerala.notation import plain_record, read_record, write_record

SCHEMA = json.loads(
    (Path(__file__).parents[1] / "src/kerala/schemas/record.schema.json").read_text()
)
HANDOVER = {"at": 2, "seat": 0, "kind": "handover", "bot": "medium", "by": 1}
CLOCK = {
    "kind": "realtime",
    "minutes": 5,
    "increment": 0,
    "bot": "easy",
    "events": [HANDOVER, {"at": 5, "seat": 0, "kind": "back"}],
}


def timed(events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A two-player record with a clock whose events are ``events`` (default: CLOCK's)."""
    clock = copy.deepcopy(CLOCK)
    if events is not None:
        clock["events"] = events
    return write_record(play_random(5, ["blue", "red"]), clock=clock)


def test_handover_event_is_read_and_kept() -> None:
    doc = timed()
    jsonschema.validate(doc, SCHEMA)
    rec = read_record(json.dumps(doc))
    assert rec.extra["clock"]["events"] == CLOCK["events"]
    # An own seat handed over: ``by`` is the seat itself.
    own = {**HANDOVER, "by": 0}
    assert read_record(timed([own])).extra["clock"]["events"] == [own]
    # The plain form drops the clock, its hand-overs included.
    assert "clock" not in plain_record(doc)


def test_clock_events_lie_within_the_record_in_order() -> None:
    """An event's ``at`` is a replay position: at most the record's decisions, and never
    before the event above it (docs/notation.md, "Clock fields")."""
    rec = read_record(timed([]))
    decisions = sum(len(turns) for _, turns in rec.state.history())
    end = {"at": decisions, "seat": 0, "kind": "back"}
    assert read_record(timed([HANDOVER, end])).extra["clock"]["events"][1] == end
    with pytest.raises(NotationError) as e:
        read_record(timed([{**end, "at": decisions + 1}]))
    assert str(e.value) == (
        f"clock.events[0].at must be at most {decisions} (the decisions in the record), "
        f"got {decisions + 1}"
    )
    with pytest.raises(NotationError) as e:
        read_record(timed([{**HANDOVER, "at": 5}, {**end, "at": 4}]))
    assert "clock.events[1].at must not be before the event above it (at 5)" in str(e.value)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"kind": "nap", "at": 0, "seat": 0}, "clock.events[0].kind must be one of"),
        ({k: v for k, v in HANDOVER.items() if k != "by"}, "clock.events[0].by is missing"),
        ({**HANDOVER, "by": 2}, "clock.events[0].by must be a seat number from 0 to 1, got 2"),
        ({**HANDOVER, "by": None}, "clock.events[0].by must be a seat number"),
        ({**HANDOVER, "bot": ""}, "clock.events[0].bot must be a bot level name"),
        ({**HANDOVER, "seat": -1}, "clock.events[0].seat must be a seat number"),
        ({**HANDOVER, "at": 1.5}, "clock.events[0].at must be a number of decisions"),
        ({**HANDOVER, "at": True}, "clock.events[0].at must be a number of decisions"),
        ({**HANDOVER, "timeout": True}, "clock.events[0]: unexpected field(s) for handover"),
        ({"at": 0, "seat": 0, "kind": "back", "by": 1}, "unexpected field(s) for back: by"),
        ({"at": 0, "seat": 0, "kind": "timeout"}, "clock.events[0].bot is missing"),
        ("handover", "clock.events[0] must be an object"),
    ],
)
def test_bad_clock_events_are_one_line_errors(event: Any, message: str) -> None:
    doc = timed([event])
    with pytest.raises(NotationError) as e:
        read_record(doc)
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)
