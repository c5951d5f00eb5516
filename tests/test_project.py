"""Tests of the project's own habits (issue 15): license, changelog, contributing guide,
pre-commit hooks, the version, and the test tiers that ``make test-fast`` relies on."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import kerala

ROOT = Path(__file__).resolve().parents[1]


def _tiers() -> Any:
    """``tests/conftest.py`` by its path (other folders have a ``conftest`` module too)."""
    spec = importlib.util.spec_from_file_location("kerala_tests_tiers", ROOT / "tests/conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tiers_of


tiers_of = _tiers()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_license_is_the_mit_license_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted" in text


def test_changelog_keeps_a_changelog_from_the_packaged_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.M)
    assert headings[0] == "Unreleased"
    version = PYPROJECT["project"]["version"]
    assert version == "0.2.0"
    # The packaged version is the newest release in the changelog, with its date.
    assert headings[1] == version
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.M)
    # Written for users: the rule fix that changes legal moves comes first.
    first = text.split(f"## [{version}]", 1)[1].split("\n- ", 1)[1]
    assert first.startswith("**Rules:")
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        kinds = re.findall(r"^### (\w+)", section, re.M)
        assert set(kinds) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_contributing_covers_setup_tiers_style_and_rule_tests() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    for heading in ("## Setup", "## Test tiers", "## Style", "## Adding a rule test"):
        assert heading in text
    assert "make test-fast" in text and "refuse(" in text


def test_pre_commit_runs_ruff_and_mypy() -> None:
    text = (ROOT / ".pre-commit-config.yaml").read_text()
    ids = re.findall(r"^\s*- id: (\S+)", text, re.M)
    assert {"ruff-check", "ruff-format", "mypy"} <= set(ids)


def test_version_comes_from_package_metadata() -> None:
    assert kerala.__version__ == importlib.metadata.version("kerala")
    assert kerala.__version__ == PYPROJECT["project"]["version"]


@pytest.mark.parametrize(
    ("path", "name", "tiers"),
    [
        ("tests/test_game.py", "test_p4_target_with_other_elephant_is_illegal", []),
        ("tests/web/test_web_look.py", "test_anything", ["browser"]),
        ("tests/bots/test_bots_analysis_web.py", "test_anything", ["browser"]),
        ("tests/server/test_server_api.py", "test_anything", ["server"]),
        ("tests/server/test_server_lobby_browser.py", "test_anything", ["browser", "server"]),
        ("tests/bots/test_bots_analysis_http.py", "test_anything", ["server"]),
        ("src/kerala/server/wire.py", "wire", ["server"]),
        ("tests/envs/test_envs_gymnasium.py", "test_anything", ["envs"]),
        ("tests/tui/test_tui_terminal.py", "test_anything", ["slow"]),
        (
            "tests/test_cli.py",
            "test_simulate_progress_moves_every_second_with_eta[2]",
            ["slow"],
        ),
        ("tests/test_cli.py", "test_score_worked_example", []),
    ],
)
def test_test_tiers_follow_where_a_test_lives(path: str, name: str, tiers: list[str]) -> None:
    assert tiers_of(path, name) == tiers


def test_make_test_fast_leaves_out_browser_database_and_slow_tests() -> None:
    out = subprocess.run(
        ["make", "-n", "test-fast"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if "pytest" in x)
    assert '-m "not slow and not browser and not server and not envs"' in line
    assert "-n auto" in line


def test_make_test_provides_its_browser_or_says_what_to_install() -> None:
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: .*\bbrowser\b", text, re.M)
    recipe = text[text.index("\nbrowser:") :]
    assert "apt-get install -y -qq chromium" in recipe
    assert "python -m playwright install chromium" in recipe
    assert "exit 1" in recipe  # never skip: stop and say what to install


def test_test_names_say_what_they_check_not_which_issue_asked() -> None:
    """A test is named after the behaviour or the rule it checks (CONTRIBUTING.md)."""
    named = [
        f"{p.relative_to(ROOT)}::{m[1]}"
        for p in sorted((ROOT / "tests").rglob("test_*.py"))
        for m in re.finditer(r"def (test_issue\d\w*)", p.read_text())
    ]
    assert named == []


def _installed_extras(names: list[str]) -> set[str]:
    """The distributions that ``.[names]`` asks for (extras of ``kerala`` itself expanded)."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    out: set[str] = set()
    for name in names:
        for req in extras[name]:
            m = re.match(r"kerala\[([\w,]+)\]", req)
            if m:
                out |= _installed_extras(m.group(1).split(","))
            else:
                out.add(_requirement_name(req))
    return out


def _requirement_name(req: str) -> str:
    """The distribution a requirement names (``"uvicorn[standard]>=0.35"``: ``uvicorn``)."""
    return re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0]


def _base_dependencies() -> set[str]:
    return {_canonical(_requirement_name(r)) for r in PYPROJECT["project"].get("dependencies", [])}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_lock_file_pins_every_dependency_that_make_installs() -> None:
    """``make`` installs ``.[all,dev]`` under requirements.lock (``make lock`` writes it)."""
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {
        _canonical(m.group(1)): m.group(2)
        for m in re.finditer(r"^([A-Za-z0-9._-]+)==(\S+)", lock, re.M)
    }
    wanted = {_canonical(n) for n in _installed_extras(["all", "dev"])} | _base_dependencies()
    assert sorted(wanted - pinned.keys()) == []
    assert "-c requirements.lock" in (ROOT / "Makefile").read_text()


#: Each default bot level plays one decision; the distributions of what that imported are listed.
_LEVEL_IMPORTS = """
import importlib.metadata, json, sys
from kerala.bots import make_bot
from kerala.game import new_game
from kerala.server.settings import DEFAULT_BOT_LEVELS

before = set(sys.modules)
for spec in DEFAULT_BOT_LEVELS.values():
    state = new_game(["blue", "red"], seed=1)
    while state.is_chance():
        state.advance_chance()
    seat = state.current_player
    make_bot(spec.split(":")[0], seed=1).choose(state.view(seat), state.legal_decisions())
dists = importlib.metadata.packages_distributions()
roots = {m.split(".")[0] for m in set(sys.modules) - before}
print(json.dumps(sorted({d for r in roots for d in dists.get(r, [])})))
"""


def test_the_web_extra_brings_what_every_default_bot_level_needs() -> None:
    """A server installed with ``pip install 'kerala[web]'`` offers every level of its default
    ``KERALA_BOT_LEVELS`` (a level whose bot cannot be built is left out): what each level's bot
    imports to play a decision comes from the base dependencies or the ``web`` extra."""
    out = subprocess.run(
        [sys.executable, "-c", _LEVEL_IMPORTS], capture_output=True, text=True, check=True
    ).stdout
    needed = {_canonical(d) for d in json.loads(out)} - {"kerala"}
    brought = {_canonical(n) for n in _installed_extras(["web"])} | _base_dependencies()
    assert sorted(needed - brought) == []
