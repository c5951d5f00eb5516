"""Chat per game over the game's WebSocket (docs/server.md, "Chat"): the players' chat and the
watchers' apart during play, text checked and bounded, a flood refused, messages kept with the
game and sent to a socket that connects, across the processes of one world."""

from __future__ import annotations

import secrets
from typing import Any

from serverlib import AppFactory, auth, create, game_socket, tokens_of

from kerala.server.chat import readable

REDIS = "redis://127.0.0.1:6379/0"


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (events and syncs in between are skipped)."""
    for _ in range(50):
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


def nothing_but_pong(ws: Any) -> None:
    """Nothing was queued for this socket before a pong: the socket got no chat."""
    ws.send_json({"type": "ping"})
    while True:
        msg = ws.receive_json()
        assert msg["type"] != "chat", msg
        if msg["type"] == "pong":
            return


def test_players_and_watchers_chat_apart_during_play(make_client: AppFactory) -> None:
    client = make_client()
    created = create(client)
    gid, tokens = created["id"], tokens_of(created)
    with (
        game_socket(client, gid, tokens[0]) as ada,
        game_socket(client, gid, tokens[1]) as bo,
        game_socket(client, gid) as watcher,
    ):
        for ws in (ada, bo, watcher):
            next_of(ws, "sync")
        ada.send_json({"type": "chat", "text": "  hello Bo <b>!</b> "})
        for ws in (ada, bo):
            m = next_of(ws, "chat")
            assert (m["channel"], m["seat"], m["name"]) == ("players", 0, "Ada")
            assert m["text"] == "hello Bo <b>!</b>" and m["phrase"] is None  # text, as typed
        nothing_but_pong(watcher)
        watcher.send_json({"type": "chat", "phrase": "gg"})
        m = next_of(watcher, "chat")
        assert m["channel"] == "watchers" and m["seat"] is None and m["phrase"] == "gg"
        assert m["name"].startswith("watcher ")
        nothing_but_pong(ada)
        nothing_but_pong(bo)
    # Kept with the game: a socket that connects gets what it may read.
    with game_socket(client, gid, tokens[1]) as bo:
        next_of(bo, "sync")
        history = next_of(bo, "chat_history")["messages"]
        assert [m["text"] for m in history] == ["hello Bo <b>!</b>"]
    with game_socket(client, gid) as watcher:
        next_of(watcher, "sync")
        history = next_of(watcher, "chat_history")["messages"]
        assert [m["phrase"] for m in history] == ["gg"]


def test_bad_chat_is_refused_in_one_line_and_nothing_is_sent(make_client: AppFactory) -> None:
    client = make_client(chat_max_length=20, rate_chat="100/minute")
    created = create(client)
    gid, tokens = created["id"], tokens_of(created)
    with game_socket(client, gid, tokens[0]) as ada, game_socket(client, gid, tokens[1]) as bo:
        next_of(ada, "sync")
        next_of(bo, "sync")
        for bad, words in (
            ({"type": "chat", "text": "x" * 21}, "at most 20 characters"),
            ({"type": "chat", "text": "evil\u202etxt"}, "U+202E"),
            ({"type": "chat", "text": "   "}, "only blanks"),
            ({"type": "chat", "text": 5}, "'text' must be a string"),
            ({"type": "chat", "phrase": "insult"}, "'phrase' is one of"),
            ({"type": "chat", "text": "a", "phrase": "gg"}, "either 'text' or 'phrase'"),
            ({"type": "chat", "text": "a", "to": 1}, "unexpected field"),
        ):
            ada.send_json(bad)
            err = next_of(ada, "error")
            assert err["status"] == 400 and words in err["detail"], (bad, err)
            assert "\n" not in err["detail"]
        nothing_but_pong(bo)


def test_a_chat_flood_is_refused(make_client: AppFactory) -> None:
    client = make_client(rate_chat="3/hour")
    created = create(client)
    gid, tokens = created["id"], tokens_of(created)
    with game_socket(client, gid, tokens[0]) as ada:
        next_of(ada, "sync")
        for i in range(3):
            ada.send_json({"type": "chat", "text": f"m{i}"})
            assert next_of(ada, "chat")["text"] == f"m{i}"
        ada.send_json({"type": "chat", "text": "one too many"})
        err = next_of(ada, "error")
        assert err["status"] == 429 and err["code"] == "rate_limited"


def test_chat_crosses_the_processes_of_one_world(make_client: AppFactory) -> None:
    opts = {"redis": REDIS, "redis_prefix": f"kerala-test-{secrets.token_hex(4)}"}
    one, two = make_client(**opts), make_client(**opts)
    created = create(one)
    gid, tokens = created["id"], tokens_of(created)
    with game_socket(one, gid, tokens[0]) as ada, game_socket(two, gid, tokens[1]) as bo:
        next_of(ada, "sync")
        next_of(bo, "sync")
        ada.send_json({"type": "chat", "phrase": "hello"})
        assert next_of(bo, "chat")["phrase"] == "hello"


def test_players_read_the_watchers_chat_once_the_game_is_over() -> None:
    assert readable(0, over=False) == ["players"]
    assert readable(0, over=True) == ["players", "watchers"]
    assert readable(None, over=False) == readable(None, over=True) == ["watchers"]


def test_the_replay_reads_the_chat_with_a_seats_token(make_client: AppFactory) -> None:
    client = make_client()
    created = create(client)
    gid, tokens = created["id"], tokens_of(created)
    with game_socket(client, gid, tokens[0]) as ada, game_socket(client, gid) as watcher:
        next_of(ada, "sync")
        next_of(watcher, "sync")
        ada.send_json({"type": "chat", "phrase": "hello"})
        next_of(ada, "chat")
        watcher.send_json({"type": "chat", "text": "go Bo"})
        next_of(watcher, "chat")
    assert client.get(f"/api/games/{gid}/chat").status_code == 401
    r = client.get(f"/api/games/{gid}/chat", headers=auth(tokens[1]))
    assert r.status_code == 200
    # During play a seat reads the players' chat only.
    assert [(m["channel"], m["phrase"] or m["text"]) for m in r.json()["messages"]] == [
        ("players", "hello")
    ]
