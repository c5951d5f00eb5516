"""Perft-style fixtures: legal-decision counts along fixed lines of play (tests/data/perft.json,
written by tests/data/make_perft.py).

The replay imposes the recorded removal and draws, so the fixture does not depend on how the
engine uses its RNG; at each decision point the number of legal decisions must match. A sample
of points is checked again by brute force: every candidate decision (far more than the legal
ones) is tried with ``apply`` on a copy, and the accepted ones must be exactly the legal list.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from enginelib import accepted, candidate_decisions
from kerala.actions import decision_from_json
from kerala.game import GameState, Phase, new_game
from kerala.tiles import tile

DATA = Path(__file__).parent / "data"
PERFT = json.loads((DATA / "perft.json").read_text())
GAMES = PERFT["games"]


def replay(game: dict[str, Any]) -> Iterator[tuple[GameState, int, dict[str, Any]]]:
    """Yield (state, expected count, decision JSON) at every decision point, then apply it."""
    s = new_game(game["colors"])
    for name in game["removed"]:
        assert s.phase == Phase.REMOVAL
        s.apply_draw(tile(name))
    assert s.phase == Phase.DRAW
    for r, rd in enumerate(game["rounds"]):
        assert s.round == r
        for name in rd["drawn"]:
            s.apply_draw(tile(name))
        for count, d in rd["points"]:
            yield s, count, d
            s.apply(decision_from_json(d))
    assert s.is_over()
    assert [b.total for b in s.scores()] == game["totals"]


def game_id(game: dict[str, Any]) -> str:
    return f"seed{game['seed']}-{len(game['colors'])}p-{game['policy']}"


def test_perft_fixture_format() -> None:
    assert PERFT["format"] == "kerala-perft" and PERFT["version"] == 1
    assert {len(g["colors"]) for g in GAMES} == {2, 3, 4, 5}


def test_perft_fixture_covers_every_kind_of_decision_point() -> None:
    """The lines pass (G3), place arches (P6) and specials, use and skip SP1 and SP2."""
    kinds: set[str] = set()
    for g in GAMES:
        for rd in g["rounds"]:
            for _, d in rd["points"]:
                if "pass" in d:
                    kinds.add("pass")
                elif "skip" in d:
                    kinds.add("skip")
                elif "move_elephant" in d:
                    kinds.add("SP1")
                elif "move_stack" in d:
                    kinds.add("SP2")
                elif "arch" in d:
                    kinds.add("arch")
                else:
                    kinds.add("place")
    assert kinds == {"pass", "skip", "SP1", "SP2", "arch", "place"}


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_perft_counts(game: dict[str, Any]) -> None:
    """G1–G4, P1–P6, SP1–SP2: the number of legal decisions at every point of the line."""
    points = 0
    for s, count, d in replay(game):
        legal = s.legal_decisions()
        assert len(legal) == count, (s.round, s.turn, d)
        assert decision_from_json(d) in legal
        points += 1
    assert points == sum(len(rd["points"]) for rd in game["rounds"])


def sampled_points(game: dict[str, Any]) -> Iterator[tuple[GameState, int]]:
    follow_ups = 0
    for i, (s, count, _) in enumerate(replay(game)):
        if s.phase == Phase.FOLLOW_UP and follow_ups < 2:
            follow_ups += 1
            yield s, count
        elif i % 40 == 0:
            yield s, count


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_perft_counts_verified_by_brute_force(game: dict[str, Any]) -> None:
    checked = 0
    for s, count in sampled_points(game):
        ok = accepted(s, candidate_decisions(s, seed=checked))
        legal = s.legal_decisions()
        assert ok == set(legal)
        assert len(ok) == count
        checked += 1
    assert checked >= 3


def test_make_perft_generator_output_replays() -> None:
    """The generator's games replay through the same check (here for a fresh seed)."""
    spec = importlib.util.spec_from_file_location("make_perft", DATA / "make_perft.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    game = mod.make_game(99, 3, "random")
    doc = json.loads(mod.render({"format": "kerala-perft", "version": 1, "games": [game]}))
    for s, count, _ in replay(doc["games"][0]):
        assert len(s.legal_decisions()) == count
