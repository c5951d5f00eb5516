"""Issue 11 part 5, clean failures: a bad database or Redis ends ``kerala serve`` with one line
and a non-zero status before anything is announced; ``expected`` is a JSON integer; a bad
``since`` on the WebSocket gets a JSON refusal; messages show values as JSON."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from serverlib import auth, create, tokens_of
from starlette.websockets import WebSocketDisconnect

pytestmark = pytest.mark.timeout(120)


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kerala", "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def one_error_line(r: subprocess.CompletedProcess[str], *words: str) -> str:
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""  # never announced
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def test_missing_folder(tmp_path: Path) -> None:
    line = one_error_line(serve("--db", f"sqlite:///{tmp_path / 'no' / 'k.sqlite3'}"))
    assert "does not exist" in line
    assert not (tmp_path / "no").exists()  # and nothing was made


def test_file_that_is_not_a_database(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("these are not the tables you are looking for\n" * 100)
    one_error_line(serve("--db", f"sqlite:///{f}"), "not a database")


def test_refused_postgresql(closed_port: int) -> None:
    one_error_line(serve("--db", f"postgresql://postgres@127.0.0.1:{closed_port}/test"), "refused")


def test_silent_postgresql_is_not_announced(silent_port: int) -> None:
    line = one_error_line(serve("--db", f"postgresql://postgres@127.0.0.1:{silent_port}/test"))
    assert "database" in line


@pytest.mark.parametrize("url", ["mysql://u@h/db", "not a url"])
def test_unsupported_scheme(url: str) -> None:
    one_error_line(serve("--db", url), "--db")


def test_unsupported_scheme_from_the_environment() -> None:
    one_error_line(serve(env={"KERALA_DB": "mysql://u@h/db"}), "KERALA_DB", "mysql")


def test_redis_that_refuses(tmp_path: Path, closed_port: int) -> None:
    one_error_line(
        serve(
            "--db",
            f"sqlite:///{tmp_path / 'k.sqlite3'}",
            "--redis",
            f"redis://:secret@127.0.0.1:{closed_port}/0",
        ),
        "Redis",
        "***",
    )


def test_several_workers_need_redis(tmp_path: Path) -> None:
    one_error_line(serve("--db", f"sqlite:///{tmp_path / 'k.sqlite3'}", "--workers", "2"), "redis")


@pytest.mark.parametrize("expected", ["0", True, 0.0, None])
def test_rest_expected_is_a_json_integer(client: TestClient, expected: object) -> None:
    g = create(client)
    r = client.post(
        f"/api/games/{g['id']}/decisions",
        json={"decision": {"pass": True}, "expected": expected},
        headers=auth(tokens_of(g)[0]),
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_request" and "expected" in r.json()["detail"]
    assert client.get(f"/api/games/{g['id']}").json()["decision_number"] == 0


@pytest.mark.parametrize("since", ["-5", "abc", "1.5", "", "١"])
def test_websocket_since_refused_as_json(client: TestClient, since: str) -> None:
    g = create(client)
    with client.websocket_connect(f"/api/games/{g['id']}/ws?since={since}") as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and err["status"] == 400 and err["code"] == "bad_request"
        assert "'since'" in err["detail"] and f'"{since}"' in err["detail"]
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4400


def test_messages_show_values_as_json(client: TestClient) -> None:
    r = client.get("/api/games/no_such")
    assert r.status_code == 404 and r.json()["detail"] == 'no game with id "no_such"'
    r = client.post(
        "/api/games",
        json={
            "seats": [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}],
            "removal": "chosen",
            "removed": ["blue:e1", "what:ever"],
        },
    )
    assert r.status_code == 422 and 'unknown tile "what:ever"' in r.json()["detail"]
