"""docs/rules.md I2 on the server: no response, event, error or log line shows the bag order, the
randomly removed tiles or a seed; tokens are stored only hashed."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serverlib import auth, create, game_socket, play_chosen, tokens_of

from kerala.tiles import TILE_TYPES

SECRET_KEYS = {"hidden_removed", "seed", "bag", "rng", "pool", "token_hash"}


def keys(obj: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            out |= keys(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= keys(v)
    return out


def views(obj: Any) -> list[dict[str, Any]]:
    """Every player view inside a response (objects holding 'bag_count')."""
    found: list[dict[str, Any]] = []
    if isinstance(obj, dict):
        if "bag_count" in obj:
            found.append(obj)
        for v in obj.values():
            found += views(v)
    elif isinstance(obj, list):
        for v in obj:
            found += views(v)
    return found


def test_i2_nothing_hidden_reaches_players_watchers_or_logs(
    client: TestClient, sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    g = create(client, hints=True)
    gid, tok = g["id"], tokens_of(g)
    answers: list[Any] = [g]
    with game_socket(client, gid, tok[1]) as ws:
        answers.append(ws.receive_json())
        play_chosen(client, gid, tok, 6)
        answers += [ws.receive_json() for _ in range(6)]
    # The hint ("suggest a move") answers from the seat's view: decisions, values, no more.
    seat = client.get(f"/api/games/{gid}").json()["to_move"]
    hint = client.post(f"/api/games/{gid}/hint", headers=auth(tok[seat]))
    assert hint.status_code == 200, hint.text
    answers.append(hint.json())
    answers.append(client.post(f"/api/games/{gid}/hint", headers=auth(tok[1 - seat])).json())
    for t in (None, tok[0], tok[1]):
        answers.append(client.get(f"/api/games/{gid}", headers=auth(t) if t else {}).json())
    answers.append(client.get(f"/api/games/{gid}/events").json())
    answers.append(client.get(f"/api/games/{gid}/replay", params={"at": 2}).json())
    answers.append(client.get("/api/games").json())
    record = client.get(f"/api/games/{gid}/record").json()
    answers.append(record)
    answers.append(client.post("/api/records/check", json=record).json())
    # Refusals too.
    answers.append(
        client.post(
            f"/api/games/{gid}/decisions",
            json={"decision": {"skip": True}, "expected": 6},
            headers=auth(tok[0]),
        ).json()
    )
    text = json.dumps(answers)
    assert not keys(answers) & SECRET_KEYS
    assert "removed" not in record  # a game in progress under random removal
    all_views = views(answers)
    assert len(all_views) >= 12
    assert all(v["removed"] is None for v in all_views)
    # The removed tiles are stored, but only server-side.
    engine = sa.create_engine(sqlite_url)
    with engine.connect() as c:
        hidden = c.execute(sa.text("select hidden_removed from games")).scalar_one()
        hashes = set(c.execute(sa.text("select token_hash from seats")).scalars())
    engine.dispose()
    assert len(json.loads(hidden) if isinstance(hidden, str) else hidden) == 20
    # Tokens only as hashes.
    assert hashes == {hashlib.sha256(t.encode()).hexdigest() for t in tok.values()}
    assert all(t not in hashes for t in tok.values())
    # Logs name no tile at all, and no token.
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name != "httpx")
    assert not [name for name in TILE_TYPES if name in logged]
    assert not [t for t in tok.values() if t in logged]
    assert "seed" not in text.lower()


def test_i2_removed_tiles_are_shown_once_the_game_is_over(client: TestClient) -> None:
    """docs/notation.md: a finished game's record may carry the removed tiles."""
    g = create(client, [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}])
    gid, tok = g["id"], tokens_of(g)
    game = client.get(f"/api/games/{gid}").json()
    while game["status"] != "over":
        game = play_chosen(client, gid, tok, 1)
    record = client.get(f"/api/games/{gid}/record").json()
    assert len(record["removed"]) == 20
    assert all(TILE_TYPES[n].color not in ("blue", "red") for n in record["removed"])  # S3
