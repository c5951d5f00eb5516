"""Test tiers (CONTRIBUTING.md): each test is marked by what it needs, from where it lives.

- ``browser``: drives Chromium through Playwright (``tests/web``, ``*_web.py``,
  ``*_browser.py``);
- ``server``: runs the web app against PostgreSQL or SQLite and Redis (``tests/server``,
  ``tests/bots/*_http.py``, the server's doctests);
- ``envs``: the research environments of the ``rl`` extra (``tests/envs``, their doctests);
- ``slow``: end to end through subprocesses and terminals, or long property runs; a test can
  also say so itself with ``@pytest.mark.slow``.

``make test-fast`` leaves out all four (engine, notation, bots and CLI in under a minute);
``make test`` runs every test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The suite plays whole games at machine speed (hundreds of decisions a second) from one
#: address, which the default decision rate, made for people (docs/security.md, "Rate limits"),
#: refuses. Every server the tests start, in this process or as a subprocess, reads this from
#: the environment; the tests of the limit itself set theirs explicitly. Hints and analyses
#: are asked for faster than a person would too, and one browser session makes games and takes
#: seats faster than a person would (the web tests share one server for a whole module).
os.environ.setdefault("KERALA_RATE_CREATE", "1000/second")
os.environ.setdefault("KERALA_RATE_SEAT", "1000/second")
os.environ.setdefault("KERALA_RATE_DECIDE", "1000/second")
os.environ.setdefault("KERALA_RATE_HINT", "1000/second")
os.environ.setdefault("KERALA_RATE_ANALYSIS", "1000/second")

#: Whole modules that play through real terminals or kill and resume subprocesses.
SLOW_MODULES = frozenset({"tests/tui/test_tui_terminal.py", "tests/bots/test_bots_tournament.py"})
#: Single tests that run long (waiting on progress output, or many random grounds) or assert
#: a time (the fast tier runs on every core, where a deadline is not a fair test).
SLOW_TESTS = frozenset(
    {
        "tests/test_cli.py::test_simulate_ctrl_c_stops_within_2_s_and_keeps_whole_records",
        "tests/test_cli.py::test_simulate_progress_moves_every_second_with_eta",
        "tests/test_cli.py::test_simulate_progress_moves_per_finished_game",
        "tests/test_cli.py::test_bad_arguments_give_a_clear_error",
        "tests/test_grounds.py::test_sp2_plan_matches_the_rule_text_on_random_grounds",
    }
)


def tiers_of(rel: str, name: str) -> list[str]:
    """The tier markers of the test ``name`` in the file ``rel`` (relative to the repository)."""
    out = []
    if rel.startswith("tests/web/") or rel.endswith(("_web.py", "_browser.py")):
        out.append("browser")
    if rel.startswith(("tests/server/", "tests/security/", "src/kerala/server/")) or rel.endswith(
        "_http.py"
    ):
        out.append("server")
    if rel.startswith(("tests/envs/", "src/kerala/envs/")):
        out.append("envs")
    if rel in SLOW_MODULES or f"{rel}::{name.partition('[')[0]}" in SLOW_TESTS:
        out.append("slow")
    return out


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            rel = Path(item.path).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            continue
        for tier in tiers_of(rel, item.name):
            item.add_marker(tier)


def pytest_report_header(config: pytest.Config) -> str:
    """Which build of the engine the suite runs (docs/engine.md, "Two builds")."""
    from kerala import engineform

    return f"kerala engine: {engineform.describe()}"
