"""Take the screenshots of docs/web.md from a real server and Chromium, so that they stay current.

    .venv/bin/python scripts/screenshots.py [--out docs/img] [--chromium /usr/bin/chromium]

It starts ``kerala serve`` on a free port with a throw-away SQLite file, creates a game against
the random bot, plays the human seat over the API (legal decisions only) to mid-game and to the
end, and photographs: the desktop table, a turn by keyboard (the focus ring on the board), the
coordinates on every cell, the phone table, a five-player game on a 360 px phone in German
(the others' initials, an enlarged board, the end screen with a rematch offer), the German
page, the contrast switch and the final score sheet.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, ViewportSize, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
DESKTOP: ViewportSize = {"width": 1366, "height": 768}
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL: ViewportSize = {"width": 360, "height": 640}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(url: str, method: str = "GET", body: Any = None, token: str | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class Served:
    """``kerala serve`` in a subprocess on a free port (its own process group)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "KERALA_BOT_DELAY": "0", "KERALA_BOT_WORKERS": "1"}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kerala",
                "serve",
                "--port",
                str(self.port),
                "--db",
                f"sqlite:///{workdir / 'k.sqlite3'}",
            ],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                call(f"{self.url}/api/health")
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=10)


def new_game(url: str, players: int = 2) -> tuple[str, str, str]:
    """A game of one human (seat 0) against random bots: (id, token, page path)."""
    colors = ["blue", "red", "green", "purple", "black"]
    seats = [{"name": "Asha", "color": "blue", "kind": "human"}] + [
        {"name": n, "color": colors[i + 1], "kind": "bot", "level": "random"}
        for i, n in enumerate(["Ravi", "Meera", "Dev", "Lila"][: players - 1])
    ]
    r = call(f"{url}/api/games", "POST", {"seats": seats, "removal": "random"})
    inv = r["invites"][0]
    return r["id"], inv["path"].split("token=")[1], inv["path"]


def play(url: str, gid: str, token: str, decisions: int, rng: random.Random) -> dict[str, Any]:
    """Play the human seat over the API until ``decisions`` are made in all (or the end)."""
    while True:
        g = call(f"{url}/api/games/{gid}", token=token)
        if g["status"] == "over" or g["decision_number"] >= decisions:
            game: dict[str, Any] = g
            return game
        if not g["legal"]:
            time.sleep(0.05)  # the bot's turn
            continue
        places = [d for d in g["legal"] if "take" in d]
        d = rng.choice(places or g["legal"])
        call(
            f"{url}/api/games/{gid}/decisions",
            "POST",
            {"decision": d, "expected": g["decision_number"]},
            token,
        )


def my_turn(page: Page) -> None:
    page.wait_for_selector('#game[data-my-turn="1"]', state="attached")


def settle(page: Page) -> None:
    page.wait_for_selector(
        "#game[data-decision-number] .live-score[data-score]:not([data-score=''])"
    )
    page.wait_for_timeout(600)  # animations end


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        srv = Served(Path(tmp))
        try:
            gid, token, path = new_game(srv.url)
            play(srv.url, gid, token, 30, rng)
            four, token4, path4 = new_game(srv.url, 4)
            play(srv.url, four, token4, 40, rng)
            five, token5, path5 = new_game(srv.url, 5)
            play(srv.url, five, token5, 30, rng)
            done, token_done, path_done = new_game(srv.url, 5)
            play(srv.url, done, token_done, 10_000, rng)
            call(f"{srv.url}/api/games/{done}/rematch", "POST", {}, token_done)
            with sync_playwright() as p:
                b = p.chromium.launch(
                    executable_path=args.chromium, args=["--headless", "--no-sandbox"]
                )
                ctx = b.new_context(viewport=DESKTOP, locale="en-GB")
                page = ctx.new_page()
                page.goto(srv.url + path)
                settle(page)
                page.locator("#display button:not([disabled])").first.click()
                page.locator(".grounds-box.mine .cell.mark.target").first.click()
                if page.locator("#elephant-choice").count():
                    page.locator("#elephant-choice button").first.click()
                page.wait_for_timeout(300)
                page.screenshot(path=str(args.out / "web-desktop.png"))
                # A turn by keyboard: the display's tile picked with Enter puts the focus (its
                # blue ring) on the board.
                page.goto(srv.url + path)
                settle(page)
                my_turn(page)
                page.focus("#display button:not([disabled])")
                page.keyboard.press("Enter")
                page.wait_for_selector(".grounds-box.mine .focus-ring")
                page.screenshot(path=str(args.out / "web-keyboard.png"))
                page.keyboard.press("Escape")
                page.click("#coords")
                page.wait_for_selector(".coord-tag")
                page.screenshot(path=str(args.out / "web-coordinates.png"))
                page.click("#coords")
                page.goto(srv.url + path4)
                settle(page)
                page.screenshot(path=str(args.out / "web-desktop-4p.png"))
                page.check("#cb-mode")
                page.goto(srv.url + path)
                settle(page)
                page.screenshot(path=str(args.out / "web-colorblind.png"))
                page.uncheck("#cb-mode")
                ctx.close()

                phone = b.new_context(
                    viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True
                )
                page = phone.new_page()
                page.goto(srv.url + path)
                settle(page)
                page.screenshot(path=str(args.out / "web-phone.png"))
                phone.close()

                small = b.new_context(
                    viewport=SMALL, locale="de-DE", has_touch=True, is_mobile=True
                )
                page = small.new_page()
                page.goto(srv.url + path5)
                settle(page)
                page.screenshot(path=str(args.out / "web-phone-360-de.png"))
                page.locator(".others .grounds-box").first.tap()
                page.wait_for_selector("dialog#zoom")
                page.wait_for_timeout(300)
                page.screenshot(path=str(args.out / "web-phone-zoom.png"))
                page.goto(srv.url + path_done)
                page.wait_for_selector("#rematch-offer")
                page.screenshot(path=str(args.out / "web-phone-end-de.png"), full_page=True)
                small.close()

                de = b.new_context(viewport=DESKTOP, locale="de-DE")
                page = de.new_page()
                page.goto(srv.url + path)
                settle(page)
                page.screenshot(path=str(args.out / "web-german.png"))
                de.close()

                play(srv.url, gid, token, 10_000, rng)
                ctx = b.new_context(viewport=DESKTOP, locale="en-GB")
                page = ctx.new_page()
                page.goto(srv.url + path)
                page.wait_for_selector("#end table.sheet")
                page.wait_for_timeout(600)
                page.screenshot(path=str(args.out / "web-score-sheet.png"))
                # The tutorial: the arch step at its confirm step, and a question answered on
                # a German phone.
                page.goto(srv.url + "/#/learn?step=arch")
                page.wait_for_selector('#game[data-my-turn="1"]', state="attached")
                page.click("#display button[data-tile*=':arch-']")
                page.locator(".grounds-box.mine .cell.mark.target").first.click()
                if page.locator("#elephant-choice").count():
                    page.locator("#elephant-choice button").first.click()
                page.wait_for_selector("#turn-arch")
                page.wait_for_timeout(300)
                page.screenshot(path=str(args.out / "web-tutorial.png"))
                ctx.close()
                phone = b.new_context(
                    viewport=PHONE, locale="de-DE", has_touch=True, is_mobile=True
                )
                page = phone.new_page()
                page.goto(srv.url + "/#/learn?step=surplus")
                page.click('.quiz-option[data-answer="-4"]')
                page.wait_for_selector("#tutorial-result")
                page.screenshot(path=str(args.out / "web-tutorial-phone-de.png"), full_page=True)
                phone.close()
                b.close()
        finally:
            srv.stop()
    print(f"screenshots written to {args.out}")


if __name__ == "__main__":
    main()
