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


_UNTRACKED = """
import gc
from kerala.game import new_game
from kerala.scoring import color_areas
s = new_game(["blue", "red"], seed=3)
while s.is_chance():
    s.advance_chance()
values = [*s.legal_decisions(), s.display[0], s.grounds[0], s, *color_areas(s.grounds[0])[0]]
print(sorted({type(v).__name__ for v in values if gc.is_tracked(v)}))
"""


def test_the_compiled_engine_keeps_its_values_out_of_the_cyclic_gc() -> None:
    # Decisions, tiles, grounds, states and areas cannot be part of a reference cycle, so the
    # compiled build leaves them untracked (mypyc's acyclic classes): the GC then never walks
    # the engine's caches of decisions (docs/engine.md, "Two builds"). The pure build's slotted
    # instances are always tracked.
    why = engineform.compiled_status()
    assert engineform.unavailable() is not None or why is None, f"{why}: run make compiled"
    for form, tracked in (
        ("pure", "['Area', 'GameState', 'Grounds', 'Pass', 'Place', 'TileType']"),
        ("compiled", "[]"),
    ):
        if form == "compiled" and why is not None:
            continue
        p = subprocess.run(
            [sys.executable, "-c", _UNTRACKED],
            capture_output=True,
            text=True,
            env={**os.environ, "KERALA_ENGINE": form},
            timeout=60,
        )
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == tracked, form
