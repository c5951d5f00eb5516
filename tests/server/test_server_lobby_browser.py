"""Issue 11 part 4 in the browser: an open game lists its free seats on the home page; taking
one with a name opens that seat's game page, and the game starts when every seat is taken.
Real ``kerala serve`` and Debian's Chromium (Playwright)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from webserver import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Server

pytestmark = pytest.mark.timeout(180)


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "kerala.sqlite3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport=DESKTOP)
        ctx.set_default_timeout(15000)
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def test_take_a_free_seat_from_the_home_page(server: Server, page: Page) -> None:
    created = post(
        f"{server.url}/api/games",
        {"seats": [{"name": "Ada", "color": "blue"}, {"color": "green", "kind": "open"}]},
    )
    gid = created["id"]
    page.goto(server.url + "/")
    lobby = page.locator(f"#lobby li[data-game='{gid}']")
    expect(lobby).to_contain_text("Ada")
    take = lobby.locator("button.take-seat[data-seat='1']")
    take.click()  # no name yet: asked for one, nothing taken
    expect(page.locator("#lobby-name")).to_be_focused()
    assert get(f"{server.url}/api/games/{gid}")["status"] == "open"
    page.fill("#lobby-name", "Zoe")
    take.click()
    page.wait_for_url(f"**/?game={gid}&seat=1")  # the token is moved out of the address
    game = get(f"{server.url}/api/games/{gid}")
    assert game["status"] == "playing"
    assert [p["name"] for p in game["players"]] == ["Ada", "Zoe"]
    # The game is no longer open: the home page lists it no more.
    page.goto(server.url + "/")
    page.wait_for_selector("#lobby[data-loaded='true']", state="attached")
    expect(page.locator(f"#lobby li[data-game='{gid}']")).to_have_count(0)
