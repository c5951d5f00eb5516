"""The real game server in a subprocess, browser settings and screenshots for the web tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, ViewportSize

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
#: Debian's chromium when installed (``make test`` provides it as root); else ``None``, which
#: makes Playwright launch its own build (``python -m playwright install chromium``).
CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1366, "height": 900}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """The real ``kerala serve`` process; can be killed and started again on the same DB."""

    def __init__(
        self, db: Path, *, db_url: str | None = None, env: dict[str, str] | None = None
    ) -> None:
        """A server on the SQLite file ``db`` (its log beside it), or on ``db_url`` (say a
        PostgreSQL database shared with other servers), with ``env`` added to its settings."""
        self.db = db
        self.db_url = db_url if db_url is not None else f"sqlite:///{db}"
        self.extra_env = dict(env or {})
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".log")

    def start(self) -> None:
        env = dict(os.environ)
        # Bots answer at once and a silent seat may be handed to a bot after 2 s (tests only).
        env.update(
            {
                "KERALA_BOT_DELAY": "0",
                "KERALA_BOT_WORKERS": "1",
                "KERALA_SEAT_TIMEOUT": "2",
                "KERALA_HINT_BUDGET": "0.3",  # "Suggest a move" searches briefly
                # Every browser test signs up from 127.0.0.1: the per-address account limits
                # are tested over the API (tests/server/test_server_accounts.py).
                "KERALA_RATE_SIGNUP": "100/minute",
                "KERALA_RATE_SIGNIN": "100/minute",
                **self.extra_env,
            }
        )
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "kerala",
                    "serve",
                    "--port",
                    str(self.port),
                    "--db",
                    self.db_url,
                ],
                cwd=self.db.parent,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"server did not answer: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL the server and its workers (its own process group), as a crash would."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            self.kill()
        self.proc = None


def shot(page: Page, name: str, full_page: bool = True) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
