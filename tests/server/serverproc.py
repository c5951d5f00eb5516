"""``kerala serve`` as a real subprocess on a free port, and a WebSocket player for it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets


class Server:
    """``kerala serve --port 0 --db URL [args]`` as a subprocess, up and answering."""

    def __init__(self, db_url: str, log: Path, *args: str, **env: str) -> None:
        full_env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "KERALA_BOT_EXECUTOR": "thread",
            "KERALA_BOT_DELAY": "0",
            **env,
        }
        self.log_path = log
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kerala", "serve", "--port", "0", "--db", db_url, *args],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=full_env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        if m is None:
            self.proc.wait(10)
            tail = log.read_text()[-3000:]
            raise AssertionError(
                f"the server did not print its address: {line!r}; its log:\n{tail}"
            )
        self.url = m.group(1)
        self.ws_url = "ws" + self.url[len("http") :]
        self.http = httpx.Client(base_url=self.url, timeout=10)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.http.get("/api/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            assert self.proc.poll() is None, "the server exited"
            time.sleep(0.05)

    def log_text(self) -> str:
        """What the server wrote to its log so far."""
        return self.log_path.read_text(errors="replace")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.http.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.http.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()


class Stalled(AssertionError):
    pass


async def play_over_socket(
    ws_url: str,
    game_id: str,
    token: str,
    *,
    stall: float,
    rng: random.Random,
    events: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Play one seat over the game's WebSocket until the game is over; no HTTP reads.

    The decision is sent as soon as the seat is to move (from the message that says so).
    :class:`Stalled` if no message comes for ``stall`` seconds while the game is not over.
    Returns the last game seen."""
    async with websockets.connect(f"{ws_url}/api/games/{game_id}/ws") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_for = -1
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), stall)
            except TimeoutError:
                raise Stalled(f"game {game_id}: no event for {stall} s") from None
            msg = json.loads(raw)
            if msg["type"] == "error":
                if msg["code"] == "stale":
                    continue
                raise AssertionError(f"refused: {msg}")
            if msg["type"] not in ("sync", "event"):
                continue
            if events is not None and msg["type"] == "event":
                events.append(msg["event"])
            game = msg["game"]
            if game["status"] == "over":
                return dict(game)
            if game["legal"] and game["decision_number"] != sent_for:
                sent_for = game["decision_number"]
                decision = rng.choice(game["legal"])
                await ws.send(
                    json.dumps({"type": "decision", "decision": decision, "expected": sent_for})
                )
