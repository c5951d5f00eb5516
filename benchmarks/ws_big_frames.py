"""Big WebSocket frames cost the server nothing (docs/security.md, "Bounded input and memory").

Starts ``kerala serve`` on a fresh SQLite file, creates a game between two people, and opens
``--sockets`` watcher sockets on it. Each sends its ``hello``, reads the game's sync, then sends
one text frame of ``--mib`` MiB, all at once. The server must close each with 1009 (message too
big) from the frame's header, before reading it. Reports the server's resident memory before,
its peak (Linux's high-water mark, ``VmHWM``) and the close codes, and checks that the server
still answers.

    .venv/bin/python benchmarks/ws_big_frames.py --sockets 200 --mib 15

Target (issue 25): 200 sockets each sending a 15 MiB frame leave the server below 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

MIB = 1024 * 1024


def start_server(db: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kerala", "serve", "--port", "0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    assert proc.stdout is not None
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
    if not m:
        raise SystemExit(f"the server did not start (log: {log})")
    url = m.group(1)
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/api/health").status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("the server did not answer")
        time.sleep(0.05)


def memory(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak, in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


async def one_socket(url: str, payload: str, opened: asyncio.Barrier) -> int | None:
    """Open a watcher socket, say hello, then (once every socket is open) send the frame; the
    close code the server gave within 60 s (``None``: left open; 1006: dropped silently)."""
    async with websockets.connect(url, max_size=None, close_timeout=1, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        await ws.recv()  # the sync
        await opened.wait()
        try:
            await ws.send(payload)
            async with asyncio.timeout(60):
                while True:
                    await ws.recv()
        except (websockets.ConnectionClosed, TimeoutError):
            pass
        return ws.close_code


async def flood(url: str, sockets: int, mib: int) -> list[int | None]:
    payload = "x" * (mib * MIB)
    opened = asyncio.Barrier(sockets)
    return await asyncio.gather(*(one_socket(url, payload, opened) for _ in range(sockets)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sockets", type=int, default=200)
    ap.add_argument("--mib", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(f"sqlite:///{tmp}/kerala.sqlite3", Path(tmp) / "server.log")
        try:
            seats = [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}]
            game = httpx.post(url + "/api/games", json={"seats": seats}).json()
            rss_before, _ = memory(proc.pid)
            ws_url = url.replace("http://", "ws://") + f"/api/games/{game['id']}/ws"
            start = time.monotonic()
            codes = asyncio.run(flood(ws_url, args.sockets, args.mib))
            took = time.monotonic() - start
            rss_after, peak = memory(proc.pid)
            healthy = httpx.get(url + "/api/health").status_code == 200
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"{args.sockets} sockets x {args.mib} MiB frames, sent at once, in {took:.1f} s")
    print(f"close codes: {dict(collections.Counter(codes))}")
    print(
        f"server memory: {rss_before / MIB:.0f} MiB before, {rss_after / MIB:.0f} MiB after, "
        f"peak {peak / MIB:.0f} MiB (target: below 400 MB = {400e6 / MIB:.0f} MiB)"
    )
    print(f"server healthy after: {healthy}")
    if peak >= 400e6 or not healthy or set(codes) != {1009}:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
