"""A move's round trip as the player sees it: click Confirm until the board shows the new tile.

    .venv/bin/python benchmarks/web_roundtrip.py [--moves 30] [--src DIR] [--json]

Starts ``kerala serve`` (SQLite, the random bot answering at once) and Debian's Chromium, plays
the human seat by clicking (a tile, a target, the elephant if asked; ``--think`` seconds after the
turn starts), and times in the page, from
the Confirm click to the first animation frame in which the target cell of the player's grounds
holds the new tile. ``--src`` serves another checkout's ``src`` (e.g. the previous commit, from
``git archive HEAD~1 src | tar -x -C /tmp/old``) to compare builds on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

MINE = ".grounds-box.mine"

TIMED_CONFIRM = """async ([x, y, h]) => {
  const done = () => {
    const el = [...document.querySelectorAll(".grounds-box.mine .cell.stack")].find(
      (e) => e.getAttribute("transform") === `translate(${x * 100} ${y * 100})`);
    return el && Number(el.dataset.height) > h;
  };
  const t0 = performance.now();
  document.querySelector("#confirm-btn").click();
  await new Promise((res) => { const f = () => (done() ? res() : requestAnimationFrame(f)); f(); });
  return performance.now() - t0;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(workdir: Path, src: Path | None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "KERALA_BOT_DELAY": "0", "KERALA_BOT_WORKERS": "1"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kerala",
            "serve",
            "--port",
            str(port),
            "--db",
            f"sqlite:///{workdir / 'b.sqlite3'}",
        ],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/api/health", timeout=1).close()
            return proc, url
        except OSError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGTERM)
    raise RuntimeError("the server did not start")


def new_game(page: Page, url: str) -> str:
    r = page.request.post(
        f"{url}/api/games",
        data={
            "seats": [
                {"name": "Asha", "color": "blue", "kind": "human"},
                {"name": "Ravi", "color": "red", "kind": "bot", "level": "random"},
            ]
        },
    )
    path: str = json.loads(r.text())["invites"][0]["path"]
    return path


def one_move(page: Page, think: float = 0.0) -> float | None:
    """Pick and time one placement after ``think`` seconds; None when the game is over."""
    page.wait_for_selector(
        '#game[data-my-turn="1"], #game[data-status="over"]', state="attached", timeout=60000
    )
    if page.get_attribute("#game", "data-status") == "over":
        return None
    if page.get_attribute("#game", "data-phase") == "follow_up":
        before = page.get_attribute("#game", "data-decision-number")
        page.click("#skip")
        # This build confirms a skip; an older one sent it at once.
        page.wait_for_function(
            "n => document.querySelector('#confirm-btn')"
            " || document.querySelector('#game').dataset.decisionNumber !== n",
            arg=before,
        )
        if page.locator("#confirm-btn").count():
            page.click("#confirm-btn")
        page.wait_for_function(
            "n => document.querySelector('#game').dataset.decisionNumber !== n", arg=before
        )
        return one_move(page, think)
    page.wait_for_timeout(think * 1000)
    page.locator("#display button:not([disabled])").first.click()
    target = page.locator(f"{MINE} .cell.mark.target").first
    x, y = int(target.get_attribute("data-x") or 0), int(target.get_attribute("data-y") or 0)
    target.click()
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.click()
    h = page.evaluate(
        """([x, y]) => { const el = [...document.querySelectorAll('.grounds-box.mine .cell.stack')]
             .find((e) => e.getAttribute('transform') === `translate(${x * 100} ${y * 100})`);
             return el ? Number(el.dataset.height) : 0; }""",
        [x, y],
    )
    return float(page.evaluate(TIMED_CONFIRM, [x, y, h]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=30)
    ap.add_argument("--src", type=Path, default=None, help="serve this src directory instead")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds between the turn's start and the first click (0: a script's pace)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start(Path(tmp), args.src)
        try:
            with sync_playwright() as p:
                b = p.chromium.launch(
                    executable_path=args.chromium, args=["--headless", "--no-sandbox"]
                )
                page = b.new_page(viewport={"width": 1366, "height": 768})
                while len(times) < args.moves:
                    page.goto(url + new_game(page, url))
                    while len(times) < args.moves:
                        ms = one_move(page, args.think)
                        if ms is None:
                            break
                        times.append(ms)
                b.close()
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
    times.sort()
    out = {
        "moves": len(times),
        "think_s": args.think,
        "median_ms": round(statistics.median(times), 1),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))], 1),
        "max_ms": round(times[-1], 1),
    }
    print(json.dumps(out) if args.json else " ".join(f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
