"""The bot ratings' script (benchmarks/bot_ratings.py): what it writes is what kerala.ratings
reads, each group is anchored on a new player's prior, and a second run only rates."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path
from types import ModuleType

import pytest

from kerala.ratings import GROUPS, MU, read_bot_ratings

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bot_ratings.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bot_ratings_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_writes_a_document_kerala_ratings_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script()
    # Two tournaments a group, rated one after the other, with quick bots and a few games:
    # hard and expert stand in as greedy and soft-greedy, so that the test costs seconds.
    cheap = {**script.LEVEL_SPECS, "hard": "greedy", "expert": "soft-greedy"}
    monkeypatch.setattr(script, "LEVEL_SPECS", cheap)
    everyone = list(cheap)
    quick = ["random", "easy", "medium"]
    monkeypatch.setattr(
        script,
        "TOURNAMENTS",
        {
            "2p": [("2p-quick", quick, 2, 6), ("2p-all", everyone, 2, 10)],
            "3-5p": [("3p-quick", quick, 3, 3), ("4p-all", everyone, 4, 8)],
        },
    )
    doc = script.measure(tmp_path, jobs=1)
    table = read_bot_ratings(doc)
    assert set(table) == set(GROUPS)
    for group in GROUPS:
        assert set(table[group]) == set(cheap)
        assert statistics.fmean(b.rating.mu for b in table[group].values()) == pytest.approx(MU)
        assert table[group]["hard"].measured_as == "greedy"
    assert table["2p"]["random"].games == 6 * 2 // 3 + 8  # 4 of the 6 quick games, 8 of the 10
    assert table["3-5p"]["medium"].games == 3 + 8  # every game: two line-ups of four
    assert table["2p"]["medium"].rating.mu > table["2p"]["random"].rating.mu
    # A second run finds every game on disk: it plays nothing and rates the same.
    again = script.measure(tmp_path, jobs=1)
    assert again["groups"] == doc["groups"]
    assert len(list((tmp_path / "2p-all" / "records").glob("game-*.json"))) == 10


def test_a_document_of_another_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="not a kerala-bot-ratings document"):
        read_bot_ratings({"format": "kerala-tournament-report"})
    with pytest.raises(ValueError, match="2p random"):
        read_bot_ratings(
            {
                "format": "kerala-bot-ratings",
                "groups": {"2p": {"random": {"mu": 25}}, "3-5p": {}},
            }
        )
