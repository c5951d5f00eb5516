"""``kerala serve``: its options, and clear refusals of a bad database URL or a busy port.
(The restart tests start it for real.)"""

from __future__ import annotations

import socket

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
