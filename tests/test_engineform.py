"""The engine's two forms: ``KERALA_ENGINE`` is validated, and the pure form is what runs where
no current compiled build lies beside the sources (docs/engine.md, "Two builds")."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kerala import engineform
from kerala.engineform import EngineFormError, choose


def test_pure_is_chosen_when_asked() -> None:
    assert choose({"KERALA_ENGINE": "pure"}) == ("pure", "KERALA_ENGINE=pure")


@pytest.mark.parametrize("value", ["fast", "mypyc", "1"])
def test_an_unknown_form_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(EngineFormError, match=f"KERALA_ENGINE='{value}' is not a form"):
        choose({"KERALA_ENGINE": value})


def test_auto_runs_pure_and_says_why_when_no_current_build_is_there() -> None:
    why = engineform.compiled_status()
    form, reason = choose({})
    if why is None:
        assert (form, reason) == ("compiled", "compiled with mypyc")
    else:
        assert (form, reason) == ("pure", why)


def _import_kerala(value: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KERALA_ENGINE": value}
    return subprocess.run(
        [sys.executable, "-c", "import kerala; print(kerala.engineform.describe())"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_a_bad_value_stops_the_import_with_one_line_and_no_traceback() -> None:
    p = _import_kerala("turbo")
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [
        "kerala: KERALA_ENGINE='turbo' is not a form of the engine: use auto, pure or compiled"
    ]


def test_asking_for_a_compiled_form_that_is_not_current_is_refused_in_one_line() -> None:
    why = engineform.compiled_status()
    p = _import_kerala("compiled")
    if why is None:  # a current build lies beside the sources: it runs
        assert p.returncode == 0 and p.stdout.strip() == "compiled (mypyc)"
    else:
        assert p.returncode == 1 and "Traceback" not in p.stderr
        assert p.stderr.strip() == f"kerala: KERALA_ENGINE=compiled, but {why}: run make compiled"


def test_the_pure_form_loads_the_engine_from_its_sources() -> None:
    p = _import_kerala("pure")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "pure Python (KERALA_ENGINE=pure)"
    files = _module_files("pure")
    assert len(files) == len(engineform.ENGINE_MODULES) + len(engineform.ENV_MODULES)
    assert all(f.endswith(".py") for f in files)


def _module_files(form: str) -> list[str]:
    """Where each module of the engine and of the environments' encoding was loaded from."""
    names = [f"kerala.{m}" for m in (*engineform.ENGINE_MODULES, *engineform.ENV_MODULES)]
    code = f"import importlib; print(*[importlib.import_module(m).__file__ for m in {names!r}])"
    env = {**os.environ, "KERALA_ENGINE": form}
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_a_build_compiles_the_environments_encoding_where_numpy_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert engineform.compiled_modules() == (*engineform.ENGINE_MODULES, *engineform.ENV_MODULES)
    if engineform.compiled_status() is None:  # built: every module runs compiled
        files = _module_files("compiled")
        assert files and not any(f.endswith(".py") for f in files)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "numpy" else real(name)
    )
    assert engineform.compiled_modules() == engineform.ENGINE_MODULES


def _kerala(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kerala", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )


def test_engine_status_names_the_form_and_check_fails_without_a_current_build() -> None:
    why = engineform.compiled_status()
    p = _kerala("engine", "status", "--check", KERALA_ENGINE="pure")
    assert p.stdout.splitlines() == [
        "compiled form: " + ("built and current" if why is None else why),
        "engine: pure Python (KERALA_ENGINE=pure)",
    ]
    assert p.returncode == (0 if why is None else 1)


def test_engine_build_without_a_compiler_says_why_and_leaves_the_build_alone(
    tmp_path: Path,
) -> None:
    before = engineform.compiled_status()
    env = {"PATH": str(tmp_path), "CC": "no-such-cc", "KERALA_ENGINE": "pure"}
    p = _kerala("engine", "build", "--force", **env)
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert "no C compiler (cc or gcc) is installed" in p.stdout
    assert engineform.compiled_status() == before
