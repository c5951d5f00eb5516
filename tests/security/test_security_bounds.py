"""Bounded input and memory (docs/security.md): what one client sends cannot make the server
hold without bound. Real ``kerala serve`` processes where the protocol layer is the defence."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
import websockets
from fastapi.testclient import TestClient
from serverlib import create, game_socket
from serverproc import Server

MIB = 1024 * 1024


def rss(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


def peak_rss(pid: int) -> int:
    """The most memory the process has held at once (Linux's high-water mark, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


async def _send_big_frame(url: str, size: int, hello: bool) -> int | None:
    """Send one ``size``-byte text message as a watcher, after its ``hello`` or in its place;
    the close code the server gave within 20 s (``None``: it left the socket open; 1006: it
    dropped it without a word)."""
    async with websockets.connect(url, max_size=None, close_timeout=1) as ws:
        if hello:
            await ws.send(json.dumps({"type": "hello"}))
            await ws.recv()  # the sync: the socket is open and read by the server
        try:
            await ws.send("x" * size)
            async with asyncio.timeout(20):
                while True:
                    await ws.recv()
        except (websockets.ConnectionClosed, TimeoutError):
            pass
        return ws.close_code


@pytest.mark.parametrize("hello", [True, False], ids=["after-hello", "as-hello"])
def test_big_websocket_frames_are_refused_before_they_are_read(
    sqlite_url: str, tmp_path: Path, hello: bool
) -> None:
    """20 watchers each send a 15 MiB frame: each socket is closed with 1009 (message too big)
    from the frame's header, and the server's memory never grows by much: its peak stays
    within 60 MiB of where it was (frames read whole before the 64 KiB limit applied took it up
    by hundreds of megabytes)."""
    srv = Server(sqlite_url, tmp_path / "server.log")
    try:
        game = srv.http.post(
            "/api/games",
            json={"seats": [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}]},
        ).json()
        url = f"{srv.ws_url}/api/games/{game['id']}/ws"
        before = rss(srv.proc.pid)

        async def all_of_them() -> list[int | None]:
            return await asyncio.gather(*(_send_big_frame(url, 15 * MIB, hello) for _ in range(20)))

        codes = asyncio.run(all_of_them())
        grown = peak_rss(srv.proc.pid) - before
        assert grown < 60 * MIB, f"the server grew by {grown / MIB:.0f} MiB"
        assert codes == [1009] * 20
        assert srv.http.get("/api/health").status_code == 200
    finally:
        srv.stop()


def _two_humans(client: TestClient) -> str:
    game: dict[str, Any] = create(client)
    return str(game["id"])


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ('{"type": "decision", "decision": ' + "[" * 30_000 + "]" * 30_000 + "}", "too_deep"),
        ('{"type": "decision", "expected": ' + "9" * 60_000 + "}", "malformed_json"),
        ('{"type": "ping", "x": "\\ud800"}', "malformed_json"),
    ],
    ids=["30000-levels-deep", "60000-digit-number", "lone-surrogate"],
)
@pytest.mark.timeout(60)  # a dropped socket would leave the test client waiting
def test_out_of_bounds_websocket_json_gets_an_error_and_the_socket_stays(
    client: TestClient, message: str, code: str
) -> None:
    """A message nested 30,000 levels deep or with a 60,000-digit number dropped the socket
    with no close frame and no log line. Now: an error message in the house format (400),
    and the socket still answers."""
    gid = _two_humans(client)
    with game_socket(client, gid) as ws:
        assert ws.receive_json()["type"] == "sync"
        ws.send_text(message)
        err = ws.receive_json()
        assert err["type"] == "error" and err["status"] == 400 and err["code"] == code, err
        assert err["detail"]
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json() == {"type": "pong"}


@pytest.mark.timeout(60)
def test_websocket_json_refusals_are_logged(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    gid = _two_humans(client)
    with game_socket(client, gid) as ws:
        ws.receive_json()
        ws.send_text("[" * 5000 + "]" * 5000)
        assert ws.receive_json()["code"] == "too_deep"
    assert any("refused a WebSocket message" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("[" * 30_000 + "]" * 30_000, "too_deep"),
        ('{"seats": ' + "[" * 100 + "]" * 100 + "}", "too_deep"),
        ('{"first": ' + "1" * 60_000 + "}", "malformed_json"),
        ('{"seats": [{"name": "\\ud800", "color": "blue"}]}', "malformed_json"),
    ],
    ids=["30000-levels-deep", "100-levels-deep", "60000-digit-number", "lone-surrogate"],
)
def test_out_of_bounds_json_bodies_get_400(client: TestClient, body: str, code: str) -> None:
    before = client.get("/api/games").json()["games"]
    r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.json()["code"] == code and r.json()["detail"]
    assert client.get("/api/games").json()["games"] == before


def test_record_check_with_a_lone_surrogate_name_is_a_clean_400(client: TestClient) -> None:
    """``POST /api/records/check`` with a player named "\\ud800" was a 500 (the reply, which
    echoes the name, could not be written as UTF-8)."""
    record = {
        "format": "kerala-record",
        "version": 1,
        "players": [{"name": "\ud800", "color": "blue"}, {"name": "B", "color": "red"}],
        "removal": "random",
        "rounds": [],
    }
    body = json.dumps(record)  # ASCII, with the surrogate as an escape
    r = client.post(
        "/api/records/check", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "malformed_json"
    assert "surrogate" in r.json()["detail"]


@pytest.mark.parametrize(
    "query",
    [
        {"to": "9999-12-31"},
        {"from": "9999-12-31"},
        {"from": "0001-01-01", "to": "9999-12-31"},
        {"to": "0001-01-01"},
    ],
)
def test_listing_games_at_the_ends_of_the_calendar_is_not_an_error(
    client: TestClient, query: dict[str, str]
) -> None:
    """``GET /api/games?to=9999-12-31`` was a 500 (the day after it overflows)."""
    _two_humans(client)
    r = client.get("/api/games", params=query)
    assert r.status_code == 200, r.text
    everything = "to" in query and query["to"] == "9999-12-31" and "from" not in query
    if everything:
        assert len(r.json()["games"]) == 1


@pytest.mark.parametrize("bad", ["10000-01-01", "9999-13-01", "-0001-01-01", "2024-02-30"])
def test_dates_that_are_no_dates_get_422(client: TestClient, bad: str) -> None:
    for name in ("from", "to"):
        r = client.get("/api/games", params={name: bad})
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "invalid_request"


def test_unknown_game_ids_leave_nothing_behind(client: TestClient) -> None:
    """Asking about ids of no game made a lock for each, kept for ever (100,000 random ids,
    about 20 MB). Now a game's lock exists only while someone uses it."""
    service = client.app.state.service  # type: ignore[attr-defined]
    for _ in range(300):
        gid = secrets.token_urlsafe(12)
        assert client.get(f"/api/games/{gid}").status_code == 404
        assert client.post(f"/api/games/{gid}/seats/1/join", json={"name": "X"}).status_code in (
            404,
            429,
        )
    real = _two_humans(client)
    assert client.get(f"/api/games/{real}").status_code == 200
    assert service.held_locks() == 0
    assert len(service._cache) == 1  # only the game that exists


def _open_slow(url: str, n: int) -> list[socket.socket]:
    """``n`` connections that start a request and never finish its headers."""
    host, port = url.removeprefix("http://").split(":")
    out = []
    for _ in range(n):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        out.append(s)
    return out


def _closed(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_slow_header_connections_are_closed(sqlite_url: str, tmp_path: Path) -> None:
    """200 connections that never finish their headers all stayed open after 20 s. Now each
    is closed once KERALA_HEADER_TIMEOUT has passed, while the server serves others."""
    srv = Server(sqlite_url, tmp_path / "server.log", KERALA_HEADER_TIMEOUT="2")
    slow = _open_slow(srv.url, 200)
    try:
        assert srv.http.get("/api/health").status_code == 200
        deadline = time.monotonic() + 20
        open_ = slow
        while open_ and time.monotonic() < deadline:
            open_ = [s for s in open_ if not _closed(s)]
            time.sleep(0.1)
        assert not open_, f"{len(open_)} of 200 slow connections still open after 20 s"
        assert srv.http.get("/api/health").status_code == 200
    finally:
        for s in slow:
            s.close()
        srv.stop()


def test_huge_headers_get_431(sqlite_url: str, tmp_path: Path) -> None:
    srv = Server(sqlite_url, tmp_path / "server.log", KERALA_MAX_HEADER_BYTES="8192")
    try:
        host, port = srv.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
            sent = 0
            try:
                while sent < 1024 * 1024:
                    s.sendall(b"X-Pad: " + b"a" * 1000 + b"\r\n")
                    sent += 1009
            except OSError:
                pass  # the server closed the connection
            reply = b""
            try:
                while chunk := s.recv(4096):
                    reply += chunk
            except OSError:
                pass
        assert reply.startswith(b"HTTP/1.1 431"), reply[:200]
        assert b'"code":"too_large"' in reply
        assert srv.http.get("/api/health").status_code == 200
    finally:
        srv.stop()


def test_an_idle_servers_sqlite_log_stops_growing(tmp_path: Path) -> None:
    """An idle server grew its write-ahead log by about 4 KB/s for ever (the world's sign of
    life each clock tick; only a decision led to a checkpoint): 162 MB beside a 3.6 MB
    database. Now the log is checkpointed and emptied every KERALA_SQLITE_CHECKPOINT seconds,
    whatever wrote to it. Here the sign of life comes 20 times a second, and the log must
    be emptied again and again."""
    db = tmp_path / "kerala.sqlite3"
    wal = Path(f"{db}-wal")
    srv = Server(
        f"sqlite:///{db}",
        tmp_path / "server.log",
        KERALA_CLOCK_TICK="0.05",
        KERALA_SQLITE_CHECKPOINT="1",
    )
    try:
        emptied = 0
        last = 0
        largest = 0
        deadline = time.monotonic() + 30
        while emptied < 3:
            assert time.monotonic() < deadline, (
                f"the log was emptied {emptied} times in 30 s; it is {last} bytes"
            )
            size = wal.stat().st_size if wal.exists() else 0
            if size < last:
                emptied += 1
            last = size
            largest = max(largest, size)
            time.sleep(0.05)
        # 20 beats a second of one 4 KiB page each, for about a second between checkpoints.
        assert largest < 1024 * 1024, largest
    finally:
        srv.stop()
