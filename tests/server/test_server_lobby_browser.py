"""The lobby in the browser: an open game lists its free seats on the lobby page, which the
server updates live over a WebSocket; taking one with a name opens that seat's game page, and
the game starts when every seat is taken. A game with an open seat is made from the setup.
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


def test_take_a_free_seat_from_the_lobby_page(server: Server, page: Page) -> None:
    created = post(
        f"{server.url}/api/games",
        {"seats": [{"name": "Ada", "color": "blue"}, {"color": "green", "kind": "open"}]},
    )
    gid = created["id"]
    page.goto(server.url + "/#/lobby")
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
    # The game is no longer open: the lobby lists it no more.
    page.goto(server.url + "/#/lobby")
    page.wait_for_selector("#lobby[data-loaded='true']", state="attached")
    expect(page.locator(f"#lobby li[data-game='{gid}']")).to_have_count(0)


def test_a_game_made_with_an_open_seat_appears_live_and_is_joined_in_one_click(
    server: Server, page: Page
) -> None:
    """Bo has the lobby open; Ada makes a game with one open seat and a clock from the setup
    screen; it appears on Bo's lobby without a reload, and Bo takes the seat in one click."""
    page.goto(server.url + "/")
    page.evaluate("localStorage.setItem('kerala.name', 'Bo')")
    page.goto(server.url + "/#/lobby")
    page.wait_for_selector("#lobby[data-loaded='true']", state="attached")
    marker = page.evaluate("window.__sameDocument = 1")
    assert marker == 1
    ada = page.context.new_page()
    ada.goto(server.url + "/")
    ada.evaluate("localStorage.setItem('kerala.name', 'Ada')")
    ada.goto(server.url + "/")
    ada.select_option(".seat-row[data-seat='1'] select[data-field='kind']", "open")
    ada.select_option("#clock-preset", "fast")
    ada.click("#create")
    ada.wait_for_selector("#created")
    gid = ada.input_value("#watch-link").split("game=")[1].split("&")[0]
    game = get(f"{server.url}/api/games/{gid}")
    assert game["status"] == "open" and game["clock"]["minutes"] == 3
    entry = page.locator(f"#lobby li[data-game='{gid}']")
    expect(entry).to_contain_text("Ada", timeout=10000)  # pushed: no reload
    expect(entry).to_contain_text("3 min + 5 s")
    assert page.evaluate("window.__sameDocument") == 1
    entry.locator("button.take-seat").click()  # one click: the page knows Bo's name
    page.wait_for_url(f"**/?game={gid}&seat=1")
    game = get(f"{server.url}/api/games/{gid}")
    assert game["status"] == "playing"
    assert [p["name"] for p in game["players"]] == ["Ada", "Bo"]
    # And the lobby takes it off, live, for whoever still looks.
    ada.goto(server.url + "/#/lobby")
    ada.wait_for_selector("#lobby[data-loaded='true']", state="attached")
    expect(ada.locator(f"#lobby li[data-game='{gid}']")).to_have_count(0)
