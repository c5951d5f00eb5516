"""Tests of the ``kerala`` command (``python -m kerala``), run as a real subprocess:
``score``, ``record check``, ``simulate``, ``bench`` and the refusal of bad arguments."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from enginelib import play_random, state_after
from kerala.notation import write_grounds, write_record

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "worked_example_37.json"


def kerala(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "kerala", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def no_traceback(p: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout


# -- score ---------------------------------------------------------------------------------


def test_score_table_is_laid_out_like_the_scoring_pad() -> None:
    p = kerala("score", EXAMPLE)
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if "│" in line]
    labels = [r.split("│")[1].strip() for r in rows]
    assert labels == [
        "blue symbols",
        "black symbols",
        "green symbols",
        "red symbols",
        "purple symbols",
        "standing elephants",
        "arches",
        "surplus areas",
        "missing colors",
        "total",
    ]
    values = [r.split("│")[2].strip() for r in rows]
    assert values == ["6", "3", "8", "4", "11", "+1", "+10", "-6", "+0", "37"]
    assert f"{EXAMPLE}: removed cells: (4, 3), (5, 2)" in p.stdout


def test_score_json_prints_notation_fields_per_file(tmp_path: Path) -> None:
    s = play_random(3, ("blue", "red"))
    files = []
    for i, g in enumerate(s.grounds):
        f = tmp_path / f"g{i}.json"
        f.write_text(json.dumps(write_grounds(g)))
        files.append(f)
    p = kerala("score", "--json", EXAMPLE, *files)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert lines[0] == {
        "file": str(EXAMPLE),
        "color": "blue",
        "total": 37,
        "surplus": -6,
        "missing": 0,
        "standing": 1,
        "arches": 10,
        "symbols": 32,
        "removed_cells": [[4, 3], [5, 2]],
    }
    assert [x["total"] for x in lines[1:]] == [b.total for b in s.scores()]
    assert [x["color"] for x in lines[1:]] == ["blue", "red"]


def test_score_several_grounds_side_by_side(tmp_path: Path) -> None:
    s = play_random(4, ("green", "black", "red"))
    files = []
    for g in s.grounds:
        f = tmp_path / f"{g.color}.json"
        f.write_text(json.dumps(write_grounds(g)))
        files.append(f)
    p = kerala("score", *files)
    assert p.returncode == 0, p.stderr
    total_row = next(r for r in p.stdout.splitlines() if r.startswith("│ total"))
    assert [int(x) for x in total_row.split("│")[2:-1]] == [b.total for b in s.scores()]


def test_score_bad_file_says_which_and_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    doc = json.loads(EXAMPLE.read_text())
    doc["stacks"][0]["tiles"] = ["blue:start", "red:arch-blue"]
    bad.write_text(json.dumps(doc))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    p = kerala("score", EXAMPLE, bad, broken, tmp_path / "missing.json")
    assert p.returncode == 1
    no_traceback(p)
    err = " ".join(p.stderr.split())
    assert f"{bad}: stacks[0].tiles[1]: the arch tile red:arch-blue needs its edge" in err
    assert f"{broken}: malformed JSON" in err
    assert f"{tmp_path / 'missing.json'}: no such file" in err
    assert "37" in p.stdout  # the good file is still scored


def test_score_needs_a_file() -> None:
    p = kerala("score")
    assert p.returncode == 2
    assert "Missing argument" in p.stderr
    no_traceback(p)


# -- record check ---------------------------------------------------------------------------


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc))
    return path


def test_record_check_json_lines_and_exit_status(tmp_path: Path) -> None:
    s = play_random(5, ("blue", "red", "green"))
    doc = write_record(s)
    good = write(tmp_path / "good.json", doc)
    bad_doc = copy.deepcopy(doc)
    bad_doc["result"]["scores"][2]["total"] += 3
    bad = write(tmp_path / "bad.json", bad_doc)
    p = kerala("record", "check", "--json", good, bad)
    assert p.returncode == 1
    no_traceback(p)
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert lines[0] == {
        "file": str(good),
        "ok": True,
        "error": None,
        "totals": [b.total for b in s.scores()],
    }
    assert set(lines[1]) == {"file", "ok", "error", "totals"}
    assert lines[1]["file"] == str(bad) and lines[1]["ok"] is False
    assert "the result the rules do not give: seat 2 total" in lines[1]["error"]
    assert lines[1]["totals"] is None


def test_record_check_all_good_exits_0_and_in_progress_is_ok(tmp_path: Path) -> None:
    s = state_after(1, ["blue", "red"], stop=9)
    progress = write(tmp_path / "progress.json", write_record(s))
    done = write(tmp_path / "done.json", write_record(play_random(2, ("blue", "red"))))
    p = kerala("record", "check", "--json", progress, done)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert lines[0]["ok"] and lines[0]["totals"] is None
    assert lines[1]["ok"] and len(lines[1]["totals"]) == 2
    p = kerala("record", "check", progress, done)
    assert p.returncode == 0
    assert "valid game in progress" in p.stdout and "finished, totals" in p.stdout


def test_record_check_names_round_and_turn(tmp_path: Path) -> None:
    doc = write_record(play_random(6, ("blue", "red")))
    doc["rounds"][7]["turns"][1]["seat"] = doc["rounds"][7]["turns"][0]["seat"]
    bad = write(tmp_path / "bad.json", doc)
    p = kerala("record", "check", bad)
    assert p.returncode == 1
    no_traceback(p)
    assert "round 7, turn 1: seat out of order" in " ".join(p.stdout.split())


def test_record_check_malformed_and_missing_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("not json")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    p = kerala("record", "check", "--json", junk, tmp_path / "nope.json", deep, tmp_path)
    assert p.returncode == 1
    no_traceback(p)
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert "malformed JSON" in lines[0]["error"]
    assert lines[1]["error"] == f"{tmp_path / 'nope.json'}: no such file"
    assert lines[2]["error"] == "malformed JSON in document: nested too deeply"
    assert lines[3]["error"].startswith(f"{tmp_path}: cannot read")
    assert [x["ok"] for x in lines] == [False] * 4


# -- simulate ---------------------------------------------------------------------------------


def test_simulate_writes_records_that_check(tmp_path: Path) -> None:
    out = tmp_path / "records"
    p = kerala(
        "simulate",
        "--games",
        "4",
        "--players",
        "3",
        "--bots",
        "random,random,random",
        "--seed",
        "7",
        "--records",
        out,
        "--json",
    )
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout.splitlines()[-1])
    assert summary["games"] == 4 and summary["players"] == 3
    assert [x["seat"] for x in summary["seats"]] == [0, 1, 2]
    assert sum(x["wins"] for x in summary["seats"]) == 4
    files = sorted(out.glob("*.json"))
    assert len(files) == 4
    for f in files:
        doc = json.loads(f.read_text())
        assert doc["removal"] == "random" and len(doc["removed"]) == 10
        assert "result" in doc
        assert [pl["bot"] for pl in doc["players"]] == ["random"] * 3
    check = kerala("record", "check", "--json", *files)
    assert check.returncode == 0, check.stdout
    results = [json.loads(x) for x in check.stdout.splitlines()]
    assert all(r["ok"] for r in results)
    for seat in range(3):
        mean = sum(r["totals"][seat] for r in results) / 4
        assert abs(mean - summary["seats"][seat]["mean_score"]) < 1e-9


def test_simulate_is_reproducible_and_independent_of_jobs() -> None:
    args = ("simulate", "--games", "4", "--players", "2", "--seed", "3", "--json")
    a = kerala(*args)
    b = kerala(*args, "--jobs", "2")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_simulate_table_summary() -> None:
    p = kerala("simulate", "--games", "2", "--players", "2", "--seed", "1")
    assert p.returncode == 0, p.stderr
    assert "2 games, 2 players" in p.stdout
    assert "mean score" in p.stdout and "pass" in p.stdout


# -- bench --------------------------------------------------------------------------------------


def test_bench_json_last_line() -> None:
    p = kerala("bench", "--players", "4", "--seconds", "0.2", "--json")
    assert p.returncode == 0, p.stderr
    last = json.loads(p.stdout.strip().splitlines()[-1])
    assert set(last) == {"games", "decisions", "seconds"}
    assert isinstance(last["games"], int) and last["games"] >= 1
    assert isinstance(last["decisions"], int) and last["decisions"] > last["games"]
    assert isinstance(last["seconds"], float) and last["seconds"] >= 0.2
    assert "games/s" in p.stdout and "decisions/s" in p.stdout


# -- bad arguments ----------------------------------------------------------------------------


def test_bad_arguments_give_a_clear_error() -> None:
    cases = [
        (("simulate", "--players", "7"), "--players"),
        (("simulate", "--games", "0"), "--games"),
        (("simulate", "--bots", "random,random,random"), "--bots names 3 bots for 2 players"),
        (("simulate", "--bots", "nosuch"), "unknown bot 'nosuch'"),
        (("simulate", "--bots", "mcts:time"), "--bots"),
        (("bench", "--players", "1"), "--players"),
        (("bench", "--seconds", "abc"), "--seconds"),
        (("frobnicate",), "No such command 'frobnicate'"),
        (("record", "check"), "Missing argument"),
    ]
    for args, fragment in cases:
        p = kerala(*args)
        assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
        no_traceback(p)
        assert fragment in " ".join(p.stderr.split()), (args, p.stderr)


def test_simulate_records_dir_that_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = kerala("simulate", "--games", "1", "--records", blocker / "sub")
    assert p.returncode == 2
    no_traceback(p)
    assert "--records" in p.stderr
