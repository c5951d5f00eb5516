"""Issue 11.3 in the browser: every seat's clock shows on the game page and the running one
counts down between server updates. Real ``kerala serve`` and Debian's Chromium (Playwright)."""

from __future__ import annotations

import json
import re
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


def seconds(text: str) -> int:
    m = re.fullmatch(r"(\d+):(\d\d)", text.strip())
    assert m, text
    return int(m.group(1)) * 60 + int(m.group(2))


def test_clock_shows_and_counts_down(server: Server, page: Page) -> None:
    created = post(
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "clock": {"kind": "realtime", "minutes": 3, "increment": 2},
        },
    )
    page.goto(server.url + created["invites"][0]["path"])
    clock = page.locator("#clock")
    expect(clock).to_be_visible()
    seats = clock.locator(".clock-seat")
    expect(seats).to_have_count(2)
    expect(seats.nth(0)).to_contain_text("Ada")
    expect(seats.nth(0)).to_have_class(re.compile(r"\brunning\b"))  # seat 0 to move
    expect(seats.nth(1)).to_contain_text("3:00")  # the waiting seat's clock stands
    first = seconds(seats.nth(0).locator(".clock-time").inner_text())
    assert 170 <= first <= 180
    page.wait_for_timeout(2500)  # no server update meanwhile: the page counts down itself
    later = seconds(seats.nth(0).locator(".clock-time").inner_text())
    assert 1 <= first - later <= 4, (first, later)
    expect(seats.nth(1)).to_contain_text("3:00")


def test_no_clock_without_a_time_control(server: Server, page: Page) -> None:
    created = post(
        f"{server.url}/api/games",
        {"seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]},
    )
    page.goto(server.url + created["invites"][0]["path"])
    expect(page.locator("#game")).to_be_visible()
    expect(page.locator("#clock")).to_be_hidden()


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_take_the_seat_back_from_the_page(server: Server, page: Page) -> None:
    """A seat played by a bot (here handed over by its player; a timeout does the same) shows
    its player a button that takes it back with the page's token."""
    created = post(
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "clock": {"kind": "realtime", "minutes": 3, "bot": "random"},
        },
    )
    gid, invite = created["id"], created["invites"][0]
    req = urllib.request.Request(
        f"{server.url}/api/games/{gid}/seats/0/bot",
        b"{}",
        {"Content-Type": "application/json", "Authorization": f"Bearer {invite['token']}"},
        method="POST",
    )
    urllib.request.urlopen(req, timeout=10).close()
    page.goto(server.url + invite["path"])
    back = page.locator("#clock .clock-seat[data-seat='0'] button.clock-back")
    expect(back).to_be_visible()
    expect(page.locator("#clock .clock-seat[data-seat='0']")).to_contain_text("(bot)")
    back.click()
    expect(back).to_have_count(0, timeout=20000)  # a loaded machine: the take-back round trip
    expect(page.locator("#clock .clock-seat[data-seat='0']")).not_to_contain_text("(bot)")
    game = get(f"{server.url}/api/games/{gid}")
    assert game["players"][0]["kind"] == "human" and not game["players"][0]["handed_to_bot"]
    events = get(f"{server.url}/api/games/{gid}/events?since=0")["events"]
    assert events[-1]["kind"] == "seat" and events[-1]["back"] is True
