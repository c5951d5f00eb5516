"""Invite links and seat tokens: a forged Host header never reaches a link, a link carries its
token only in the fragment, and the game's WebSocket refuses a token in its URL
(docs/security.md, "Seat tokens stay out of URLs")."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, auth, create, game_socket, play_to_end, tokens_of
from starlette.websockets import WebSocketDisconnect

FORGED = {"Host": "attacker.example"}
OPEN_SEATS = [{"name": "Ada", "color": "blue"}, {"color": "red", "kind": "open"}]


def links_of(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    """Every link the server hands out: a new game's invites and watch link, a joined seat's,
    a rematch's."""
    created = client.post("/api/games", json={"seats": OPEN_SEATS}, headers=headers).json()
    gid = created["id"]
    joined = client.post(
        f"/api/games/{gid}/seats/1/join", json={"name": "Bo"}, headers=headers
    ).json()
    tokens = {0: created["invites"][0]["token"], 1: joined["token"]}
    play_to_end(client, gid, tokens)
    rematch = client.post(f"/api/games/{gid}/rematch", headers={**headers, **auth(tokens[0])})
    assert rematch.status_code == 200, rematch.text
    return [*created["invites"], created["watch"], joined, rematch.json()]


def test_a_forged_host_header_never_reaches_an_invite_link(client: TestClient) -> None:
    links = links_of(client, FORGED)
    assert "attacker.example" not in json.dumps(links)
    for link in links:
        assert link["url"] is None and link["path"].startswith("/?"), link


def test_links_use_the_configured_public_url_only(make_client: AppFactory) -> None:
    client = make_client(public_url="https://kerala.example/")
    for link in links_of(client, FORGED):
        assert link["url"] == "https://kerala.example" + link["path"], link


def test_an_invite_link_carries_its_token_only_in_the_fragment(client: TestClient) -> None:
    for link in links_of(client, {}):
        if "token" not in link:
            continue  # the watch link
        parts = urlsplit(link["path"])
        assert "token" not in parse_qs(parts.query), link
        assert parse_qs(parts.fragment) == {"token": [link["token"]]}, link


def test_the_socket_refuses_a_token_in_its_url(client: TestClient) -> None:
    g = create(client)
    gid, tok = g["id"], tokens_of(g)
    with client.websocket_connect(f"/api/games/{gid}/ws?token={tok[0]}") as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and (err["status"], err["code"]) == (400, "token_in_url")
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4400
    with game_socket(client, gid, tok[0]) as ws:  # the token in the first message: seated
        sync = ws.receive_json()
        assert sync["type"] == "sync" and sync["game"]["seat"] == 0 and sync["game"]["legal"]
