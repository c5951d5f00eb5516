"""Issue 11.3 in the terminal: ``kerala play --clock M+S`` shows every seat's clock on each
human turn; a human whose time runs out is replaced by a bot, and the record says so.

The session's time source is injected (``now``): the test moves time, it never sleeps."""

from __future__ import annotations

import datetime as dt
import io
import json
import re

from rich.console import Console
from typer.testing import CliRunner

from kerala.cli import app
from kerala.clocks import parse_realtime
from kerala.notation import read_record
from kerala.tui.session import new_session


class FakeTime:
    def __init__(self) -> None:
        self.t = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.t


def test_terminal_clock_shown_and_timeout_hands_the_seat_to_a_bot() -> None:
    out = io.StringIO()
    fake = FakeTime()
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        fake.t += dt.timedelta(seconds=61)  # the human thinks too long over the first question
        return "?" if len(prompts) == 1 else "q"

    session = new_session(
        Console(file=out, width=100, color_system=None),
        colors=["blue", "red"],
        names=["Ada", "random bot"],
        bot_specs=[None, "random"],
        seed=7,
        read_line=read_line,
        clock=parse_realtime("1+2", "random"),
        now=fake,
    )
    assert session.run() == 0
    assert prompts[1:] == ["end> "]  # after the timeout the bot played every turn of the seat
    text = out.getvalue()
    assert "Clocks: Ada (blue) 1:00 · random bot (red) bot" in text
    assert "Ada (blue) ran out of time: the random bot plays the seat." in text
    record = session.record()
    assert record["clock"]["events"] == [{"at": 0, "seat": 0, "kind": "timeout", "bot": "random"}]
    assert record["players"][0]["bot"] == "random"
    read_record(json.dumps(record))


def test_terminal_clock_charges_each_turn_and_the_record_keeps_times() -> None:
    out = io.StringIO()
    fake = FakeTime()

    def read_line(prompt: str) -> str:
        if prompt == "end> ":
            return "q"
        fake.t += dt.timedelta(seconds=4)  # each answer takes 4 s
        return "1"

    session = new_session(
        Console(file=out, width=100, color_system=None),
        colors=["blue", "red"],
        names=["Ada", "random bot"],
        bot_specs=[None, "random"],
        seed=3,
        read_line=read_line,
        clock=parse_realtime("30+1", "random"),
        now=fake,
    )
    assert session.run() == 0
    shown = re.findall(r"Clocks: Ada \(blue\) (\d+):(\d\d)", out.getvalue())
    secs = [int(m) * 60 + int(s) for m, s in shown]
    assert secs[0] == 1800 and secs[1] < 1800 and secs == sorted(secs, reverse=True)
    record = session.record()
    ada = [t for rd in record["rounds"] for t in rd["turns"] if t["seat"] == 0]
    assert ada and all(t["time"] >= 4 for t in ada)
    assert all("time" not in t for rd in record["rounds"] for t in rd["turns"] if t["seat"] == 1)
    assert read_record(json.dumps(record)).extra["clock"]["events"] == []


def test_play_refuses_a_bad_clock_in_one_line() -> None:
    r = CliRunner().invoke(app, ["play", "--bots", "random", "--clock", "five"])
    assert r.exit_code != 0
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "--clock" in lines[0] and "M+S" in lines[0], r.output
