"""Both builds compute the same, bit for bit: perft lines, seeded games (records, scores,
ranks) and the bots' seeded decisions (tests/fingerprint.py; docs/engine.md, "Two builds")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kerala import engineform

FINGERPRINT = Path(__file__).resolve().parent / "fingerprint.py"


def fingerprint_in(form: str) -> str:
    p = subprocess.run(
        [sys.executable, str(FINGERPRINT)],
        capture_output=True,
        text=True,
        env={**os.environ, "KERALA_ENGINE": form},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith(f"engine: {form}"), p.stderr
    return p.stdout


def test_the_compiled_and_the_pure_engine_compute_the_same() -> None:
    # Where this machine can compile the engine, `make compiled` must have: the comparison is
    # the point of this test, so a missing build fails it rather than passing alone.
    cannot = engineform.unavailable()
    why = engineform.compiled_status()
    assert cannot is not None or why is None, f"{why}: run make compiled"
    pure = fingerprint_in("pure")
    assert '"perft"' in pure and '"bots"' in pure
    if why is None:
        assert fingerprint_in("compiled") == pure
