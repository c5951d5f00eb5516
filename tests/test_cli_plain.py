"""Issue 11.3: ``kerala record plain FILE [--out OUT]`` hands out a record's plain form, the
record without its optional fields, which every reader of format version 1 reads
(docs/notation.md, "The plain form"). Run as a real subprocess (``python -m kerala``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from enginelib import play_random
from kerala.game import GameState
from kerala.notation import plain_record, read_record, write_record
from test_cli import kerala
from test_notation_plain import CLOCK, v1_errors


def timed(state: GameState) -> dict[str, Any]:
    n = sum(len(decs) for _, decs in state.history())
    players = [{"name": "Ada"}, {"name": "Bo", "bot": "easy"}]
    return write_record(state, players, clock=CLOCK, times=[2.5] * n)


def test_record_plain_to_stdout_and_to_a_file(tmp_path: Path) -> None:
    state = play_random(21, ["blue", "red"])
    full = timed(state)
    src = tmp_path / "timed.json"
    src.write_text(json.dumps(full))

    p = kerala("record", "plain", src)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out == plain_record(full) and v1_errors(out) == []
    assert read_record(out).state == state

    dest = tmp_path / "plain.json"
    p = kerala("record", "plain", src, "--out", dest)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert p.stderr.strip() == f"plain record written to {dest}"
    assert json.loads(dest.read_text()) == out
    assert json.loads(src.read_text()) == full, "the full record is left as it was"

    p = kerala("record", "plain", "-", stdin=json.dumps(full))  # standard input
    assert p.returncode == 0 and json.loads(p.stdout) == out


def test_record_plain_refuses_bad_records_in_one_line(tmp_path: Path) -> None:
    doc = timed(play_random(22, ["blue", "red"]))
    doc["rounds"][3]["turns"][0]["seat"] = 1 - doc["rounds"][3]["turns"][0]["seat"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    dest = tmp_path / "plain.json"
    for args, fragment in (
        ((bad, "--out", dest), f"error: {bad}: round 4, turn 1: seat out of order"),
        ((tmp_path / "nope.json",), f"error: {tmp_path / 'nope.json'}: no such file"),
    ):
        p = kerala("record", "plain", *args)
        assert p.returncode == 1, p.stdout + p.stderr
        assert p.stderr.startswith(fragment) and p.stderr.count("\n") == 1, p.stderr
        assert "Traceback" not in p.stderr and p.stdout == ""
    assert not dest.exists(), "a bad record writes nothing"

    good = tmp_path / "good.json"
    good.write_text(json.dumps(timed(play_random(23, ["blue", "red"]))))
    p = kerala("record", "plain", good, "--out", tmp_path)  # a folder
    assert p.returncode == 2 and p.stderr.startswith("error: --out ")
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_record_help_lists_plain() -> None:
    p = kerala("record", "--help")
    assert p.returncode == 0
    assert "plain" in p.stdout and "check" in p.stdout
