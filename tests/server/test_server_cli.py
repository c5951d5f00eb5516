"""``kerala serve``: its options, and clear refusals of a bad database URL or a busy port.
(The restart tests start it for real.)"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kerala.cli import app

runner = CliRunner()


def test_serve_is_registered_with_its_options() -> None:
    r = runner.invoke(app, ["serve", "--help"])
    assert r.exit_code == 0
    for opt in ("--host", "--port", "--db", "--open"):
        assert opt in r.output


def test_serve_refuses_a_bad_database_url() -> None:
    r = runner.invoke(app, ["serve", "--db", "not a url", "--port", "0"])
    assert r.exit_code == 2
    assert "not a database URL" in r.output


def test_serve_refuses_a_busy_port() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = runner.invoke(app, ["serve", "--port", str(port), "--db", "sqlite:///:memory:"])
    assert r.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in r.output


def test_a_started_server_tunes_the_garbage_collector(tmp_path: Path) -> None:
    """Once started, what startup loaded is frozen out of the collector's full passes."""
    script = f"""
import gc
from fastapi.testclient import TestClient
from kerala.server.app import GC_THRESHOLD0, create_app
from kerala.server.settings import Settings
before = gc.get_freeze_count()
with TestClient(create_app(Settings(db="sqlite:///{tmp_path / "gc.sqlite3"}"))) as c:
    assert c.get("/api/health").json() == {{"ok": True}}
    print(before, gc.get_freeze_count(), gc.get_threshold()[0] == GC_THRESHOLD0)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    before, frozen, threshold = out.stdout.split()
    assert before == "0"
    assert int(frozen) > 10_000  # the modules, classes and functions of the whole server
    assert threshold == "True"
