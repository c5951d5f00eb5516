"""Tests of the ``kerala`` command (``python -m kerala``), run as a real subprocess:
``score``, ``record check``, ``simulate``, ``bench`` and the refusal of bad arguments."""

from __future__ import annotations

import copy
import io
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from enginelib import play_random, state_after
from interrupts import ctrl_c_at_record
from kerala.notation import write_grounds, write_record

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "worked_example_37.json"


def kerala(
    *args: str | Path, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the ``kerala`` command as a user does, in a fresh process."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "kerala", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def no_traceback(p: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout


def pad_rows(out: str) -> list[str]:
    """The rows of the scoring pad table, wherever it stands (beside the grounds or below)."""
    lines = out.splitlines()
    top = next(i for i, line in enumerate(lines) if "┏" in line)
    col = lines[top].index("┏")
    return [line[col:] for line in lines[top:] if line[col : col + 1] == "│"]


# -- score ---------------------------------------------------------------------------------


def test_score_table_is_laid_out_like_the_scoring_pad() -> None:
    p = kerala("score", EXAMPLE)
    assert p.returncode == 0, p.stderr
    rows = pad_rows(p.stdout)
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
    assert f"{EXAMPLE}: removed surplus cells (x, SC1): (4, 3), (5, 2)" in p.stdout


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
    total_row = next(r for r in pad_rows(p.stdout) if r.startswith("│ total "))
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
    assert "missing argument 'FILE…'" in p.stderr
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
    assert set(lines[1]) == {"file", "ok", "error", "round", "turn", "totals"}
    assert lines[1]["file"] == str(bad) and lines[1]["ok"] is False
    assert "the result the rules do not give: seat 2 " in lines[1]["error"]
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
    # Rounds and turns are counted from 1 in messages (docs/notation.md): index 7 is round 8.
    assert f"bad {bad}: round 8, turn 2: seat out of order" in p.stdout


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
    # Issue 14: the file is named once (in "file"), never twice ("x.json: x.json: ...").
    assert lines[1] == {
        "file": str(tmp_path / "nope.json"),
        "ok": False,
        "error": "no such file",
        "totals": None,
    }
    assert lines[2]["error"] == "malformed JSON in document: nested too deeply"
    assert lines[3]["error"] == "is a folder, not a file"
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
    assert set(last) == {"games", "decisions", "seconds", "engine"}
    assert last["engine"] in {"pure", "compiled"}
    assert p.stdout.startswith("engine: ")
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
        (("frobnicate",), "error: no such command 'frobnicate' (see kerala --help)"),
        (("record", "check"), "error: missing argument 'FILE…' (see kerala record check --help)"),
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


# -- issue 14: the text grid in `kerala score` ----------------------------------------------

WORKED_EXAMPLE_GRID = """\
# The worked example of the rulebook (docs/rules.md SC1-SC6): total 37
Bs  B3 B2 K3  .     .
P^b P3 P3 P3  P2    .
G3z G3 G2 R2  R^p   K1
.   .  .  R2@ B1/G1 .
"""


def kerala_in(stdin: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "kerala", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_score_reads_the_worked_example_as_a_text_grid(tmp_path: Path) -> None:
    f = tmp_path / "mine.txt"
    f.write_text(WORKED_EXAMPLE_GRID)
    from_file = kerala("score", "--json", f)
    from_stdin = kerala_in(WORKED_EXAMPLE_GRID, "score", "--json", "-")
    as_json = kerala("score", "--json", EXAMPLE)
    for p in (from_file, from_stdin, as_json):
        assert p.returncode == 0, p.stderr
    a, b, c = (json.loads(p.stdout) for p in (from_file, from_stdin, as_json))
    assert a["total"] == b["total"] == c["total"] == 37
    for doc in (a, b):
        del doc["file"]
    del c["file"]
    assert a == b == c


def test_score_draws_the_grounds_with_removed_cells_beside_the_pad() -> None:
    p = kerala_in(WORKED_EXAMPLE_GRID, "score", "-")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    # The grounds frame (titled stdin) and the pad share their lines: side by side.
    assert "stdin" in lines[0] and "Scoring pad" in lines[0]
    row2 = next(line for line in lines if line.startswith("│   2 "))
    row3 = next(line for line in lines if line.startswith("│   3 "))
    # (5, 2) and (4, 3) are removed (SC1): x in place of the height, elephants kept.
    assert "K1x" in row2 and "G3 z" in row2
    assert "G1x" in row3 and "R2 @" in row3
    assert "│ total              │    37 │" in row2 + "".join(lines)
    assert "stdin: removed surplus cells (x, SC1): (4, 3), (5, 2)" in p.stdout


def test_text_grid_and_json_side_by_side_in_one_call(tmp_path: Path) -> None:
    f = tmp_path / "grid.txt"
    f.write_text(WORKED_EXAMPLE_GRID)
    p = kerala("score", f, EXAMPLE)
    assert p.returncode == 0, p.stderr
    total_row = next(r for r in pad_rows(p.stdout) if r.startswith("│ total "))
    assert [int(x) for x in total_row.split("│")[2:-1]] == [37, 37]


@pytest.mark.parametrize(
    ("grid", "where", "fragment"),
    [
        # a ragged row: the second row is one cell short
        ("Bs G2 G1\nK1 K2\n", "line 2, column 6", "this row has 2 cells, the first row 3"),
        # a ragged row: one cell too many, pointed at the extra token
        ("Bs G2\nK1 K2 P3\n", "line 2, column 7", "this row has 3 cells, the first row 2"),
        # unknown codes
        ("Bs X2\n", "line 1, column 4", "unknown color letter 'X'"),
        ("Bs G7\n", "line 1, column 5", "unknown tile kind '7'"),
        ("Bs R?k\n", "line 1, column 5", "unknown tile kind '?k'"),
        ("Bs R>r\n", "line 1, column 6", "an arch joins two colors"),
        # two tiles of the wrong kind: a second start tile, a start tile on top of another
        ("Bs G2\n.  Bs\n", "line 2, column 4", "a second start tile"),
        ("G1/Bs G2\n", "line 1, column 4", "the start tile lies at the bottom of its stack"),
        # more tiles of a type than the box holds (3 purple e3)
        ("Bs P3 P3 P3 P3\n", "line 1, column 13", "4 tiles P3 (purple:e3), but the box has only 3"),
        # an arch on top needs its edge; a covered one may leave it out
        ("Bs Rak\n", "line 1, column 4", "the arch on top needs the edge it faces"),
        # not connected (P2), elephants
        ("Bs . G2\n", "line 1, column 6", "not connected to the start tile"),
        ("Bs@ G2\n", "line 1, column 1", "1 elephant(s) marked; a player has 2"),
        ("passes: 3\nBs\n", "line 1, column 9", "passes is 0, 1 or 2"),
        ("Bs G2\ncolour: red\n", "line 2, column 1", "unknown setting 'colour'"),
        ("G2 G3\n", "line 1, column 1", "no start tile"),
    ],
)
def test_bad_grids_say_line_and_column(grid: str, where: str, fragment: str) -> None:
    p = kerala_in(grid, "score", "-")
    assert p.returncode == 1, p.stdout
    no_traceback(p)
    line = p.stderr.strip()
    assert "\n" not in line  # one line, never wrapped
    assert line.startswith(f"error: stdin: {where}: "), line
    assert fragment in line, line


def test_covered_arch_without_edge_and_header_settings() -> None:
    grid = "color: red\npasses: 2\norigin: -1, 0\n.  Rs/Bak/G1 K2\n"
    p = kerala_in(grid, "score", "--json", "-")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["color"] == "red" and doc["standing"] == 0  # passes 2: no standing elephant


# -- issue 14: one voice ------------------------------------------------------------------------


def test_version() -> None:
    from importlib.metadata import version

    p = kerala("--version")
    assert p.returncode == 0
    assert p.stdout.strip().startswith(f"kerala {version('kerala')} (engine: ")
    assert p.stdout.strip().endswith(")")
    assert "None" not in p.stdout


def test_help_shows_real_metavariables_in_readme_order() -> None:
    score = kerala("score", "--help").stdout
    assert "Usage: kerala score [OPTIONS] FILE…" in score
    for bad in ("{files}", "<bool>", "<list[Path]>", "<int>", "<str>"):
        assert bad not in score
    sim = kerala("simulate", "--help").stdout
    assert "--games N " in sim and "--records DIR " in sim
    assert not re.search(r"<[a-zA-Z]+(\[.*?\])?>", sim), sim
    top = kerala("--help").stdout
    listed = [
        line.split()[0]
        for line in top[top.index("Commands:") :].splitlines()[1:]
        if line.startswith("  ") and not line.startswith("    ")
    ]
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    documented = [c for c in listed if f"`kerala {c}" in readme]
    assert {"serve", "play", "score", "record", "simulate", "tournament", "bench"} <= set(listed)
    assert documented == sorted(documented, key=lambda c: readme.index(f"`kerala {c}")), listed
    assert "..." not in top  # no command's description is cut short
    assert "Usage: kerala [OPTIONS] COMMAND [ARGS]…" in top


def test_errors_are_one_unwrapped_line_in_one_style(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "40", "NO_COLOR": "1", "TERM": "dumb"}
    deep = tmp_path / "a-rather-long-folder-name-for-the-test" / "and-a-long-file-name.json"
    for args in (
        ["score", str(deep)],  # from the command
        ["simulate", "--games", "many"],  # from the option parser
        ["bench", "--seconds", "nan"],
    ):
        p = subprocess.run(
            [sys.executable, "-m", "kerala", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert p.returncode in (1, 2), p
        no_traceback(p)
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
        if args[0] == "score":
            assert lines[0] == f"error: {deep}: no such file"


def test_wording_of_file_errors(tmp_path: Path) -> None:
    p = kerala("record", "check", tmp_path / "nonexist.json")
    assert p.returncode == 1
    assert p.stdout.strip() == f"bad {tmp_path / 'nonexist.json'}: no such file"
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    p = kerala("simulate", "--games", "1", "--records", blocker)
    assert p.returncode == 2
    assert "Errno" not in p.stderr
    assert f"error: --records {blocker}: a file of that name exists; give a folder" in p.stderr


def test_record_check_totals_are_not_python_lists(tmp_path: Path) -> None:
    s = play_random(5, ("blue", "red"))
    f = write(tmp_path / "done.json", write_record(s, [{"name": "A"}, {"name": "B"}]))
    p = kerala("record", "check", f)
    assert p.returncode == 0, p.stdout
    totals = ", ".join(str(b.total) for b in s.scores())
    assert p.stdout.strip() == f"ok  {f}: finished, totals {totals}"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("inf", "must be finite, got inf"),
        ("nan", "not a number (nan)"),
        ("0", "must be at least 0.01 seconds, got 0"),
    ],
)
def test_bench_refuses_endless_or_senseless_seconds(value: str, message: str) -> None:
    p = kerala("bench", "--seconds", value)
    assert p.returncode == 2
    no_traceback(p)
    assert f"error: invalid value for '--seconds': {message}" in p.stderr


# -- progress and Ctrl-C in simulate ---------------------------------------------------------


def test_simulate_ctrl_c_stops_within_2_s_and_keeps_whole_records(
    tmp_path: Path,
) -> None:
    out = tmp_path / "records"
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    args = ["simulate", "--games", "2000", "--jobs", "2", "--records", str(out), "--seed", "5"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "kerala", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while len(list(out.glob("game-*.json"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the series ended before it could be interrupted"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 2.0, f"Ctrl-C took {took:.1f} s"
    assert proc.returncode == 130
    assert "Traceback" not in stderr
    m = re.search(r"interrupted: (\d+) of 2000 games finished; their records are in (.+)", stderr)
    assert m, stderr
    files = sorted(out.glob("*.json"))
    assert len(files) == int(m.group(1)) and 0 < len(files) < 2000
    assert not list(out.glob(".*tmp"))  # no half-written file left behind
    for f in files:
        assert "result" in json.loads(f.read_text())
    assert f"{m.group(1)} games, 2 players" in stdout  # the summary of what was finished


@pytest.mark.parametrize("when", ["after", "during"])
def test_simulate_ctrl_c_while_a_record_is_written_counts_exactly_the_records_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], when: str
) -> None:
    """Ctrl-C lands while the third game's record is written: just after the file is whole
    (it counts), or before (no file, and it does not count). Either way the count said is the
    number of records on disk."""
    import kerala.cli

    monkeypatch.setattr(kerala.cli, "write_atomic", ctrl_c_at_record(3, when))
    out = tmp_path / "records"
    with pytest.raises(SystemExit) as e:
        kerala.cli.main(["simulate", "--games", "5", "--records", str(out), "--seed", "5"])
    assert e.value.code == 130
    files = sorted(out.glob("game-*.json"))
    assert len(files) == (3 if when == "after" else 2)
    said = capsys.readouterr().err
    assert f"interrupted: {len(files)} of 5 games finished" in " ".join(said.split()), said


def _progress_counts(args: list[str], total: int) -> tuple[list[tuple[float, int]], str]:
    """Run ``kerala`` in an 80x24 pty; the ``done/total`` counts seen, with their times."""
    import pexpect

    env = {**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kerala", *args],
        env=env,
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=120,
    )
    log = io.StringIO()
    child.logfile_read = log
    seen: list[tuple[float, int]] = []
    while child.expect([rf"(\d+)/{total}\b", pexpect.EOF]) == 0:
        seen.append((time.monotonic(), int(child.match.group(1))))
    child.close()
    return seen, log.getvalue()


def test_simulate_progress_moves_every_second_with_eta() -> None:
    seen, text = _progress_counts(["simulate", "--games", "1500", "--jobs", "2"], 1500)
    counts = [c for _, c in seen]
    assert counts == sorted(counts) and len(set(counts)) >= 3, counts
    assert "ETA" in text and "Traceback" not in text
    # While games finish faster than one a second, the bar moves at least once a second.
    moves = [t for (t, c), (_, prev) in zip(seen[1:], seen, strict=False) if c != prev]
    gaps = [b - a for a, b in itertools.pairwise(moves)]
    assert gaps and max(gaps) < 1.5, gaps


def test_simulate_progress_moves_per_finished_game() -> None:
    # Games slower than the bar's refresh (a searching bot, seconds per game): the count moves
    # by the games just finished (at most one per worker), not by batches. (Fast games may
    # finish several per refresh: then the bar moves once a second, the test above.)
    args = ["simulate", "--games", "6", "--jobs", "2", "--bots", "mcts:time=0.02"]
    seen, _ = _progress_counts(args, 6)
    counts = sorted(set(c for _, c in seen))
    assert counts[0] == 0
    steps = [b - a for a, b in itertools.pairwise(counts)]
    assert steps and max(steps) <= 2, counts


def test_cells_are_shown_as_written_and_markup_is_not_eaten(tmp_path: Path) -> None:
    doc = json.loads(EXAMPLE.read_text())
    doc["stacks"][0]["at"] = [True, 1]
    bad = write(tmp_path / "bad.json", doc)
    p = kerala("score", bad)
    assert p.returncode == 1
    # "[x, y]" is text, not console markup ("cell  of"); the value is JSON, not Python.
    assert p.stderr.strip() == (
        f"error: {bad}: stacks[0].at must be a cell [x, y] of two integers, got [true, 1]"
    )
