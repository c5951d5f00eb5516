"""The strength benchmark's script (benchmarks/bots_strength.py, issue 16): a cut-short run's
log is summarized later with ``--from-log``; a log of other bots is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bots_strength.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )


def test_from_log_summarizes_the_games_and_refuses_other_bots(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    played = run("--bots", "greedy,random", "--games", "2", "--log", str(log))
    assert played.returncode == 0, played.stderr
    assert [json.loads(line)["index"] for line in log.read_text().splitlines()] == [0, 1]
    again = run("--bots", "greedy,random", "--from-log", str(log))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1] == played.stdout.splitlines()[1]  # the same win rate
    wrong = run("--bots", "mcts,random", "--from-log", str(log))
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert wrong.stderr.splitlines()[-1].endswith(
        f"--from-log {log}: game 0 was played by greedy,random, not by --bots mcts,random "
        "with --players 2"
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    nothing = run("--bots", "greedy,random", "--from-log", str(empty))
    assert nothing.returncode == 2 and nothing.stderr.splitlines()[-1].endswith("no games in it")
