"""Tournaments: schedule, report.json, resuming after an interruption, Ray == local."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from interrupts import ctrl_c_at_record
from kerala.bots.tournament import (
    TournamentError,
    run_tournament,
    schedule,
    wilson,
)
from kerala.cli import app
from kerala.notation import read_record
from kerala.ratings import Rating, rate

REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["games", "bots", "head_to_head", "players", "seed"],
    "properties": {
        "games": {"type": "integer", "minimum": 0},
        "bots": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": [
                    "games",
                    "wins",
                    "win_rate",
                    "mean_score",
                    "win_rate_ci95",
                    "rating",
                    "seats",
                ],
                "properties": {
                    "games": {"type": "integer", "minimum": 0},
                    "wins": {"type": "number", "minimum": 0},
                    "win_rate": {"type": "number", "minimum": 0, "maximum": 1},
                    "mean_score": {"type": "number"},
                    "win_rate_ci95": {
                        "type": "array",
                        "items": {"type": "number", "minimum": 0, "maximum": 1},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "rating": {
                        "type": "object",
                        "required": ["mu", "sigma", "conservative", "display", "provisional"],
                        "properties": {
                            "display": {"type": "integer"},
                            "provisional": {"type": "boolean"},
                        },
                    },
                },
            },
        },
    },
}


def test_schedule_rotates_seats_and_colors_and_shares_deals() -> None:
    plan = schedule(["a", "b", "c"], players=3, games=30, seed=4)
    seats: Counter[tuple[str, int]] = Counter()
    colors: Counter[tuple[str, str]] = Counter()
    for g in plan:
        for s, (e, c) in enumerate(zip(g.entries, g.colors, strict=True)):
            seats[(e, s)] += 1
            colors[(e, c)] += 1
        assert sorted(g.entries) == ["a", "b", "c"]
    assert set(seats.values()) == {10}  # every bot plays every seat equally
    assert len({c for _, c in colors}) == 5  # colors rotate over all five
    for block in range(10):
        deals = {g.seed for g in plan[3 * block : 3 * block + 3]}
        assert len(deals) == 1  # one deal per block of seat rotations
    assert len({g.seed for g in plan}) == 10
    # The schedule depends on the seed and the index only.
    assert schedule(["a", "b", "c"], players=3, games=5, seed=4) == plan[:5]


def test_lineups_with_more_or_fewer_bots_than_seats() -> None:
    plan = schedule(["a", "b", "c"], players=2, games=12, seed=0)
    pairs = Counter(frozenset(g.entries) for g in plan)
    assert set(pairs.values()) == {4} and len(pairs) == 3
    plan = schedule(["m", "g"], players=4, games=4, seed=0)
    assert all(sorted(g.entries) == ["g", "g", "m", "m"] for g in plan)


def test_wilson_interval() -> None:
    lo, hi = wilson(95, 100)
    assert 0.88 < lo < 0.95 < hi < 0.99
    assert wilson(0, 0) == (0.0, 1.0)


def test_report_json_schema_and_counts(tmp_path: Path) -> None:
    out = tmp_path / "t"
    outcome = run_tournament(["random", "greedy"], players=2, games=6, seed=1, out=out)
    report = json.loads((out / "report.json").read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report == outcome.report
    assert report["games"] == 6
    assert set(report["bots"]) == {"random", "greedy"}
    b = report["bots"]
    assert b["random"]["games"] == b["greedy"]["games"] == 6
    assert b["random"]["wins"] + b["greedy"]["wins"] == pytest.approx(6)
    assert b["greedy"]["win_rate"] == b["greedy"]["wins"] / 6
    assert b["greedy"]["seats"] == {"0": 3, "1": 3}
    assert b["greedy"]["rating"]["mu"] > b["random"]["rating"]["mu"]
    h = report["head_to_head"]
    assert h["greedy"]["random"]["games"] == 6
    assert h["greedy"]["random"]["rate"] + h["random"]["greedy"]["rate"] == pytest.approx(1)
    records = sorted((out / "records").glob("game-*.json"))
    assert len(records) == 6
    scores: list[int] = []
    for p in records:
        rec = read_record(p.read_text())  # every record is a valid, finished game
        assert rec.state.is_over()
        scores += [s.total for s in rec.state.scores()]
    mean_all = (b["random"]["mean_score"] + b["greedy"]["mean_score"]) / 2
    assert mean_all == pytest.approx(sum(scores) / len(scores))
    for png in ("scores.png", "ratings.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_ratings_are_openskill_over_the_games_in_order(tmp_path: Path) -> None:
    """One rating system everywhere: the report's ratings are kerala.ratings over its records."""
    out = tmp_path / "t"
    report = run_tournament(
        ["random", "greedy", "easy"], players=3, games=6, seed=2, out=out
    ).report
    rating = {n: Rating() for n in ("random", "greedy", "easy")}
    for p in sorted((out / "records").glob("game-*.json")):
        rec = json.loads(p.read_text())
        names = [pl["bot"] for pl in rec["players"]]
        new = rate([rating[n] for n in names], rec["result"]["ranks"])
        rating.update(zip(names, new, strict=True))
    for n, r in rating.items():
        got = report["bots"][n]["rating"]
        assert (got["mu"], got["sigma"]) == pytest.approx((r.mu, r.sigma), rel=1e-12)
        assert got["display"] == r.display and got["provisional"] == r.provisional
        assert got["conservative"] == pytest.approx(r.mu - 3 * r.sigma)
    assert report["rating_system"].startswith("OpenSkill Plackett-Luce")


def test_shared_first_place_counts_one_kth_win(tmp_path: Path) -> None:
    """SC7: a first place shared by k players counts 1/k win to each."""
    outcome = run_tournament(["random", "random"], players=2, games=2, seed=0)
    # Two entries with one name: every game's win (shared or not) goes to 'random'.
    assert outcome.report["bots"]["random"]["wins"] == pytest.approx(2)
    assert outcome.report["bots"]["random"]["games"] == 4
    from kerala.bots.tournament import build_report

    fake = {
        "index": 0,
        "record": {
            "players": [{"bot": "a"}, {"bot": "b"}, {"bot": "c"}],
            "result": {
                "scores": [{"total": 40}, {"total": 40}, {"total": 12}],
                "ranks": [1, 1, 3],
            },
        },
    }
    rep = build_report([fake], ["a", "b", "c"], {"players": 3, "seed": 0})
    assert rep["bots"]["a"]["wins"] == rep["bots"]["b"]["wins"] == 0.5
    assert rep["bots"]["c"]["wins"] == 0
    assert rep["head_to_head"]["a"]["b"]["rate"] == 0.5


def test_resume_after_interruption_loses_and_repeats_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t"
    calls = []

    def stop_after_three(done: int, total: int) -> None:
        calls.append(done)
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(
            ["random", "greedy"], players=2, games=8, seed=5, out=out, on_progress=stop_after_three
        )
    assert len(list((out / "records").glob("game-*.json"))) == 3
    before = {p.name: p.read_text() for p in (out / "records").glob("game-*.json")}
    # Resume: only the 5 missing games are played; the saved ones are kept as they were.
    resumed = run_tournament(["random", "greedy"], players=2, games=8, seed=5, out=out)
    assert (resumed.resumed, resumed.played) == (3, 5)
    for name, text in before.items():
        assert (out / "records" / name).read_text() == text
    fresh = run_tournament(["random", "greedy"], players=2, games=8, seed=5)
    assert resumed.report == fresh.report


def test_resume_after_kill(tmp_path: Path) -> None:
    """A killed run (SIGKILL) leaves only whole games; the rerun completes the same tournament."""
    out = tmp_path / "t"
    cmd = [
        sys.executable, "-m", "kerala", "tournament", "--bots", "greedy,random",
        "--games", "16", "--seed", "2", "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len(list((out / "records").glob("game-*.json"))) >= 3:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    saved = len(list((out / "records").glob("game-*.json")))
    assert 3 <= saved < 16
    result = subprocess.run(
        [*cmd, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    report = json.loads(result.stdout)
    assert report["games"] == 16
    assert not list((out / "records").glob(".*tmp"))
    fresh = run_tournament(["greedy", "random"], players=2, games=16, seed=2)
    assert report == fresh.report


def _sigint_default() -> None:
    # A shell may start background jobs with SIGINT ignored; a user's Ctrl-C is not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_at_once_and_the_rerun_resumes(tmp_path: Path, jobs: str) -> None:
    out = tmp_path / "t"
    cmd = [
        sys.executable, "-m", "kerala", "tournament", "--bots", "greedy,random",
        "--games", "16", "--seed", "4", "--jobs", jobs, "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_default
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(list((out / "records").glob("game-*.json"))) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    saved = len(list((out / "records").glob("game-*.json")))
    if proc.returncode == 0:  # the run beat the signal: nothing to resume, but nothing lost
        assert saved == 16
        return
    assert proc.returncode == 130
    assert f"interrupted: {saved} of 16 games finished, saved in {out}" in err
    assert 2 <= saved < 16
    before = {p.name: p.read_bytes() for p in (out / "records").glob("game-*.json")}
    resumed = run_tournament(["greedy", "random"], players=2, games=16, seed=4, out=out)
    assert resumed.resumed == saved and resumed.played == 16 - saved
    for name, data in before.items():
        assert (out / "records" / name).read_bytes() == data
    fresh = run_tournament(["greedy", "random"], players=2, games=16, seed=4)
    assert resumed.report == fresh.report


def test_another_tournament_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "t"
    run_tournament(["random", "greedy"], players=2, games=2, seed=1, out=out)
    with pytest.raises(TournamentError, match="holds another tournament"):
        run_tournament(["random", "greedy"], players=2, games=2, seed=2, out=out)
    # A damaged record is named, not silently replayed or counted.
    (out / "records" / "game-00001.json").write_text("{ not json")
    with pytest.raises(TournamentError, match=r"game-00001\.json: not a valid game record"):
        run_tournament(["random", "greedy"], players=2, games=2, seed=1, out=out)


def test_ray_backend_matches_local(tmp_path: Path) -> None:
    specs = ["random", "greedy"]
    local = run_tournament(specs, players=2, games=4, seed=8, out=tmp_path / "local")
    ray_run = run_tournament(
        specs,
        players=2,
        games=4,
        seed=8,
        jobs=1,
        backend="ray",
        out=tmp_path / "ray",
        ray_init={"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024},
    )
    assert ray_run.report == local.report
    for i in range(4):
        name = f"game-{i:05d}.json"
        assert (tmp_path / "ray" / "records" / name).read_text() == (
            tmp_path / "local" / "records" / name
        ).read_text()


def test_local_jobs_match_a_single_process(tmp_path: Path) -> None:
    one = run_tournament(["random", "greedy"], players=2, games=4, seed=3)
    two = run_tournament(["random", "greedy"], players=2, games=4, seed=3, jobs=2)
    assert one.report == two.report


def test_cli_tournament(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["tournament", "--bots", "random,greedy", "--games", "2", "--seed", "3", "--json"],
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["games"] == 2 and set(report["bots"]) == {"random", "greedy"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,nosuch"], "unknown bot 'nosuch'"),
        (["--bots", "random,mcts:time=x"], "time='x' is not a number"),
        (["--bots", "random,greedy", "--backend", "spark"], "--backend must be"),
        (["--bots", "random,greedy", "--address", "1.2.3.4:6379"], "--address is only for"),
        (["--bots", ","], "--bots names no bot"),
    ],
)
def test_cli_refuses_bad_options(args: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "never"
    res = CliRunner().invoke(app, ["tournament", *args, "--games", "2", "--out", str(out)])
    assert res.exit_code == 2
    assert message in res.output
    assert not out.exists()  # refused before anything was written


def test_one_bot_against_three_copies_of_another() -> None:
    """A repeated spec fills several seats; the report keys each name once, as given."""
    outcome = run_tournament(["random", "greedy", "greedy", "greedy"], players=4, games=4, seed=6)
    bots = outcome.report["bots"]
    assert set(bots) == {"random", "greedy"}
    assert bots["random"]["games"] == 4 and bots["greedy"]["games"] == 12
    assert bots["random"]["seats"] == {"0": 1, "1": 1, "2": 1, "3": 1}
    assert bots["random"]["wins"] + bots["greedy"]["wins"] == pytest.approx(4)
    assert outcome.report["head_to_head"]["greedy"]["random"]["games"] == 12


# -- issue 14 ----------------------------------------------------------------------------------


def kerala(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "kerala", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.parametrize("bots", ["random", "greedy"])
def test_a_tournament_of_one_bot_is_refused(bots: str, tmp_path: Path) -> None:
    p = kerala("tournament", "--bots", bots, "--games", "2", "--out", tmp_path / "t")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    name = bots.split(",")[0]
    assert p.stderr.startswith(
        f"error: --bots names only '{name}': a tournament needs at least two bots, e.g. --bots "
    )
    assert len(p.stderr.splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_resume_never_shrinks_what_is_on_disk(tmp_path: Path) -> None:
    out = tmp_path / "t"
    base = ("tournament", "--bots", "random,greedy", "--seed", "3", "--out", out, "--json")
    first = kerala(*base, "--games", "6")
    assert first.returncode == 0, first.stderr
    report = (out / "report.json").read_text()
    records = {p.name: p.read_bytes() for p in (out / "records").glob("game-*.json")}
    assert len(records) == 6
    # Fewer games than the folder holds: refused, and nothing on disk changes.
    fewer = kerala(*base, "--games", "2")
    assert fewer.returncode == 2
    assert fewer.stderr.strip() == (
        f"error: --out {out} holds a tournament of 6 games (6 finished); a run with --games 2 "
        "would report fewer than are there: ask for --games 6 (to resume) or more (to extend "
        "it), or use another --out"
    )
    assert (out / "report.json").read_text() == report
    assert {p.name: p.read_bytes() for p in (out / "records").glob("game-*.json")} == records
    assert json.loads((out / "tournament.json").read_text())["games"] == 6
    # More games extend it: the six are kept, two more are played, the report covers eight.
    more = kerala(*base, "--games", "8")
    assert more.returncode == 0, more.stderr
    assert json.loads(more.stdout)["games"] == 8
    for name, data in records.items():
        assert (out / "records" / name).read_bytes() == data
    fresh = run_tournament(["random", "greedy"], players=2, games=8, seed=3)
    assert json.loads(more.stdout) == fresh.report


def test_another_tournament_is_named_in_words(tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert kerala("tournament", "--bots", "random,greedy", "--games", "2", "--out", out)
    p = kerala("tournament", "--bots", "random,greedy", "--games", "2", "--seed", "9", "--out", out)
    assert p.returncode == 2
    assert p.stderr.strip() == (
        f"error: --out {out} holds another tournament (--bots random,greedy --players 2 "
        "--seed 0); use the same --bots, --players and --seed to resume it, or another --out"
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = kerala("tournament", "--bots", "random,greedy", "--games", "2", "--out", blocker)
    assert p.returncode == 2
    assert "Errno" not in p.stderr
    assert f"error: --out {blocker}: a file of that name exists; give a folder" in p.stderr


def test_ctrl_c_within_2_s_says_what_was_finished(tmp_path: Path) -> None:
    out = tmp_path / "t"
    cmd = [
        sys.executable, "-m", "kerala", "tournament", "--bots", "random,greedy",
        "--games", "400", "--jobs", "2", "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_default
    )
    deadline = time.monotonic() + 60
    while len(list((out / "records").glob("game-*.json"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 2.0, f"Ctrl-C took {took:.1f} s"
    assert proc.returncode == 130 and "Traceback" not in err
    saved = len(list((out / "records").glob("game-*.json")))
    assert f"interrupted: {saved} of 400 games finished, saved in {out}" in err
    assert not list((out / "records").glob(".*tmp"))
    for p in (out / "records").glob("game-*.json"):
        read_record(json.loads(p.read_text()))  # every record on disk is whole


def test_tournament_progress_shows_done_total_and_eta_in_a_pty() -> None:
    import pexpect

    env = {**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kerala", "tournament", "--bots", "random,greedy", "--games", "12"],
        env=env,
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=120,
    )
    counts = []
    etas = 0
    while child.expect([r"(\d+)/12\b.{0,40}ETA", pexpect.EOF]) == 0:
        counts.append(int(child.match.group(1)))
        etas += 1
        if counts[-1] == 12:
            break
    rest = child.read()
    child.close()
    assert counts == sorted(counts) and len(set(counts)) >= 3, counts
    assert etas == len(counts)  # every done/total comes with its ETA
    assert "win rate" in rest


def test_box_plot_has_a_legend_for_its_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kerala.bots.tournament as tournament_module

    legends: dict[str, list[str]] = {}
    real_write_png = tournament_module.write_png

    def keep_legend(fig: Any, path: Path) -> None:
        legend = fig.axes[0].get_legend()
        legends[path.name] = [t.get_text() for t in legend.get_texts()] if legend else []
        real_write_png(fig, path)

    monkeypatch.setattr(tournament_module, "write_png", keep_legend)
    run_tournament(["random", "greedy"], players=2, games=2, seed=1, out=tmp_path / "t")
    assert legends["scores.png"][:2] == ["median", "mean"]
    assert any("outliers" in t for t in legends["scores.png"])
    assert (tmp_path / "t" / "scores.png").stat().st_size > 0


def test_plots_without_matplotlib_are_refused_in_one_line_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    # matplotlib as if not installed: a None entry in sys.modules makes its import fail.
    code = (
        "import sys; sys.modules['matplotlib'] = None; from kerala.cli import main; "
        "sys.argv = ['kerala', *sys.argv[1:]]; main()"
    )
    args = ["tournament", "--bots", "random,greedy", "--games", "2", "--out", str(out)]
    p = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 2
    assert p.stderr == (
        "error: --out draws scores.png and ratings.png, which needs matplotlib: "
        "pip install 'kerala[plot]', or leave out --out\n"
    )
    assert not out.exists()
    # Without --out nothing is drawn, and the tournament runs as usual.
    args = ["tournament", "--bots", "random,greedy", "--games", "2", "--json"]
    p = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["games"] == 2


@pytest.mark.parametrize("when", ["after", "during"])
def test_ctrl_c_while_a_record_is_saved_says_exactly_the_games_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], when: str
) -> None:
    """Ctrl-C lands while the third game's record is saved: just after the file took its name
    (the game counts), or before (no file, no count). The count said is the records on disk,
    which a resume keeps."""
    import kerala.bots.tournament
    import kerala.cli

    monkeypatch.setattr(kerala.bots.tournament, "write_atomic", ctrl_c_at_record(3, when))
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as e:
        kerala.cli.main(
            ["tournament", "--bots", "random,greedy", "--games", "6", "--out", str(out)]
        )
    assert e.value.code == 130
    files = sorted((out / "records").glob("game-*.json"))
    assert len(files) == (3 if when == "after" else 2)
    said = " ".join(capsys.readouterr().err.split())
    assert f"interrupted: {len(files)} of 6 games finished, saved in" in said, said
