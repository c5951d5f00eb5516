"""Bots first under an analysis flood, and a clean stop (docs/security.md, "Fair compute").

Starts ``kerala serve`` as deployed (bots and advice in worker processes, the default settings)
on a fresh SQLite file, and plays a game against the random bot over HTTP: after each of the
person's decisions it measures how long the bot's reply takes to show (from the response to the
person's decision until the game reads the bot's decision; the server's ``bot_delay`` of 0.3 s
is part of it, on purpose). Meanwhile ``--requests`` analysis requests (``time=2``, a finished
87-odd-decision record) arrive from ``--clients`` client addresses over ``--seconds`` seconds:
each client binds its own loopback source address (127.0.0.2, 127.0.0.3, …: the whole
127.0.0.0/8 is the local machine on Linux), so the server sees distinct clients as it would on
the internet, with no proxy header. Each client polls its admitted analyses every second, as
the browser does, so that they are not dropped as abandoned.

Then it sends SIGTERM and measures the time until the process has exited, and checks that every
decision the client saw accepted (its own, and the bot's it read) is in the database.

    .venv/bin/python benchmarks/analysis_flood.py --requests 100 --clients 10 --seconds 10

Targets (issue 25): bot reply p99 < 1 s; exit < 5 s after SIGTERM; no accepted decision lost.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from kerala.game import new_game
from kerala.notation import write_record

COLORS = ("blue", "red")


def finished_record(seed: int) -> dict[str, Any]:
    """The record of a whole 2-player game of random decisions (made here, not on the server)."""
    rng = random.Random(seed)
    state = new_game(list(COLORS), seed=seed)
    while not state.is_over():
        if state.is_chance():
            state.sample_draw(rng)
        else:
            state.apply(rng.choice(state.legal_decisions()))
    return write_record(state, [{"name": "A"}, {"name": "B"}])


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


class Flood(threading.Thread):
    """``requests`` analysis requests from ``clients`` addresses, evenly over ``seconds``."""

    def __init__(
        self, url: str, record: dict[str, Any], requests: int, clients: int, seconds: float
    ):
        super().__init__(daemon=True)
        self.url, self.record = url, record
        self.requests, self.clients, self.seconds = requests, clients, seconds
        self.statuses: dict[int, int] = {}
        self.jobs: list[tuple[httpx.Client, str]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        http = [
            httpx.Client(
                base_url=self.url,
                transport=httpx.HTTPTransport(local_address=f"127.0.0.{2 + i}"),
                timeout=30,
            )
            for i in range(self.clients)
        ]
        start = time.monotonic()
        last_poll = start
        for n in range(self.requests):
            due = start + n * self.seconds / self.requests
            time.sleep(max(0.0, due - time.monotonic()))
            c = http[n % self.clients]
            try:
                r = c.post("/api/records/analysis?time=2", json=self.record)
                self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
                if r.status_code == 202:
                    self.jobs.append((c, r.json()["id"]))
            except httpx.HTTPError as e:
                key = -1
                self.statuses[key] = self.statuses.get(key, 0) + 1
                print("flood request failed:", type(e).__name__, file=sys.stderr)
            if time.monotonic() - last_poll >= 1:
                self.poll()
                last_poll = time.monotonic()
        while not self.stop.wait(1.0):
            self.poll()

    def poll(self) -> None:
        for c, job in self.jobs:
            with contextlib.suppress(httpx.HTTPError):
                c.get(f"/api/analysis/{job}")


def play(url: str, until: float) -> tuple[list[float], dict[str, int]]:
    """Play games against the random bot until ``until``: the bot's reply times and, per game,
    the decisions seen accepted."""
    http = httpx.Client(base_url=url, timeout=30)
    seats = [
        {"name": "P", "color": "blue"},
        {"name": "R", "color": "red", "kind": "bot", "level": "random"},
    ]
    waits: list[float] = []
    seen: dict[str, int] = {}
    rng = random.Random(1)
    while time.monotonic() < until:
        g = http.post("/api/games", json={"seats": seats, "first": 0}).json()
        gid, token = g["id"], g["invites"][0]["token"]
        headers = {"Authorization": f"Bearer {token}"}
        seen[gid] = 0
        while time.monotonic() < until:
            me = http.get(f"/api/games/{gid}", headers=headers).json()
            if me["status"] == "over":
                break
            if me["legal"] is None:  # the bot's follow-up (SP1, SP2): its turn goes on
                time.sleep(0.01)
                continue
            r = http.post(
                f"/api/games/{gid}/decisions",
                json={"decision": rng.choice(me["legal"]), "expected": me["decision_number"]},
                headers=headers,
            )
            r.raise_for_status()
            after = r.json()
            seen[gid] = after["decision_number"]
            if after["status"] == "over" or after["to_move"] == 0:
                continue  # a follow-up of the person's own, or the end
            sent = time.monotonic()
            while True:
                game = http.get(f"/api/games/{gid}").json()
                if game["decision_number"] > after["decision_number"]:
                    waits.append(time.monotonic() - sent)
                    seen[gid] = game["decision_number"]
                    break
                if time.monotonic() - sent > 60:
                    raise SystemExit("the bot did not reply within 60 s")
                time.sleep(0.01)
    http.close()
    return waits, seen


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--after", type=float, default=10.0, help="play on this long after the flood")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'flood.sqlite3'}"
        proc, url = start_server(db, Path(tmp) / "server.log")
        try:
            record = finished_record(25)
            print(f"server {url}; record of {sum(len(r['turns']) for r in record['rounds'])} turns")
            # Before the flood (the first reply waits for the workers to start: left out).
            quiet = play(url, time.monotonic() + 10)[0][1:]
            flood = Flood(url, record, args.requests, args.clients, args.seconds)
            flood.start()
            waits, seen = play(url, time.monotonic() + args.seconds + args.after)
            flood.stop.set()
            flood.join(10)
            print(
                f"before the flood: {len(quiet)} bot replies, p50 {statistics.median(quiet):.3f} s,"
                f" p99 {pct(quiet, 0.99):.3f} s"
            )
            p50 = statistics.median(waits)
            print(
                f"during and after it: {len(waits)} bot replies, p50 {p50:.3f} s, "
                f"p99 {pct(waits, 0.99):.3f} s, max {max(waits):.3f} s"
            )
            print(f"analysis requests by status: {dict(sorted(flood.statuses.items()))}")
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                print("still running 120 s after SIGTERM: killed")
                proc.kill()
            print(
                f"exit after SIGTERM: {time.monotonic() - started:.2f} s (code {proc.returncode})"
            )
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        engine = sa.create_engine(db)
        lost = 0
        with engine.connect() as conn:
            for gid, n in seen.items():
                stored = conn.execute(
                    sa.text("SELECT decision_count FROM games WHERE id = :g"), {"g": gid}
                ).scalar()
                if stored is None or stored < n:
                    lost += 1
        engine.dispose()
        accepted = sum(seen.values())
        print(f"games {len(seen)}; decisions seen accepted {accepted}; games missing any: {lost}")


if __name__ == "__main__":
    main()
