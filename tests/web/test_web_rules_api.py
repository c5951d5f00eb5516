"""The routes the browser reads the rules and the live scores from (issue 15 "the browser
restates rules", issue 12 "live score"): ``GET /api/rules`` and ``POST /api/rules/scores``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerala.game import MAX_PASSES, REMOVAL_COUNT, new_game
from kerala.scoring import score_grounds
from kerala.server.app import create_app
from kerala.server.settings import Settings
from kerala.tiles import load_tileset


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = Path(tmp_path_factory.mktemp("rules")) / "r.sqlite3"
    app = create_app(Settings(db=f"sqlite:///{db}", bot_executor="thread", tune_gc=False))
    with TestClient(app) as c:
        yield c


def test_rules_are_the_engines(client: TestClient) -> None:
    """S3 counts, G3 passes, the standard tile set (Components) and the points (SC1-SC5)."""
    r = client.get("/api/rules")
    assert r.status_code == 200
    doc = r.json()
    assert doc["removal_count"] == {str(n): k for n, k in REMOVAL_COUNT.items()}
    assert doc["max_passes"] == MAX_PASSES
    ts = load_tileset("standard")
    assert doc["tileset"]["counts"] == {t.name: n for t, n in ts.counts.items()}
    kinds = {t["name"]: t for t in doc["tile_types"]}
    assert kinds["green:e3"]["symbols"] == 3 and kinds["blue:start"]["symbols"] == 1
    assert kinds["red:arch-blue"]["arch"] == "blue" and kinds["red:move-tile"]["special"]
    assert doc["points"]["arch"] == 5 and doc["points"]["removed_tile"] == -2


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000), decisions=st.integers(0, 80))
def test_live_scores_equal_the_engines(client: TestClient, seed: int, decisions: int) -> None:
    """Any position: each grounds' live score is score_grounds of that grounds (SC1-SC6)."""
    s = new_game(("blue", "red", "green"), seed=seed)
    s.advance_chance()
    for _ in range(decisions):
        if s.is_over():
            break
        legal = s.legal_decisions()
        s.apply(legal[seed % len(legal)])
        s.advance_chance()
    r = client.post("/api/rules/scores", json={"grounds": s.view(None).to_json()["grounds"]})
    assert r.status_code == 200, r.text
    for got, g in zip(r.json()["scores"], s.grounds, strict=True):
        b = score_grounds(g)
        assert {k: v for k, v in got.items() if k != "symbols_by_color"} == b.to_json()
        assert got["symbols_by_color"] == dict(b.symbols_by_color)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"grounds": []}, "grounds"),
        ({"grounds": [{}] * 6}, "grounds"),
        (
            {"grounds": [{"color": "pink", "stacks": [{"at": [0, 0], "tiles": ["blue:start"]}]}]},
            "grounds[0]",
        ),
        (
            {"grounds": [{"color": "blue", "stacks": [{"at": [0, 0], "tiles": ["nope"]}]}]},
            "grounds[0]",
        ),
        ({"nothing": 1}, "grounds"),
    ],
)
def test_bad_grounds_are_refused_in_one_line(client: TestClient, body: Any, says: str) -> None:
    r = client.post("/api/rules/scores", json=body)
    assert r.status_code == 422
    text = r.text
    assert says in text and "Traceback" not in text
