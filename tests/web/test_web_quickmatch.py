"""Play now: four people in four browsers press "Play now" for a 4-player game without a clock
and land in the same game, each as their own seat; two server processes share the queue
through Redis and one PostgreSQL database (docs/server.md, "Quick match")."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from serverfixtures import pg_url  # noqa: F401  (the fixture)
from webserver import DESKTOP, Server

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture()
def two_servers(tmp_path: Path, pg_url: str) -> Iterator[tuple[Server, Server]]:  # noqa: F811
    env = {"KERALA_REDIS": REDIS, "KERALA_REDIS_PREFIX": f"kerala-test-{secrets.token_hex(4)}"}
    servers = (
        Server(tmp_path / "one.sqlite3", db_url=pg_url, env=env),
        Server(tmp_path / "two.sqlite3", db_url=pg_url, env=env),
    )
    for s in servers:
        s.start()
    yield servers
    for s in servers:
        s.stop()


def press_play_now(page: Page, url: str, name: str) -> None:
    page.goto(url + "/")
    page.evaluate("n => localStorage.setItem('kerala.name', n)", name)
    page.goto(url + "/")
    page.click("#play-now-link")
    page.check("#qm-players input[value='4']")
    page.check("#qm-control input[value='none']")
    page.check("#qm-bots input[value='null']")
    page.click("#qm-join")
    page.wait_for_selector("#qm-status")


def test_four_people_press_play_now_and_land_in_one_game(
    browser: Browser, two_servers: tuple[Server, Server]
) -> None:
    pages = []
    for i in range(4):
        ctx = browser.new_context(viewport=DESKTOP)
        ctx.set_default_timeout(30000)
        page = ctx.new_page()
        press_play_now(page, two_servers[i % 2].url, f"Player {i + 1}")
        pages.append(page)
    games = set()
    seats = set()
    for page in pages:
        page.wait_for_url(re.compile(r"/\?game=[A-Za-z0-9_-]+&seat=\d"))
        m = re.search(r"game=([A-Za-z0-9_-]+)&seat=(\d)", page.url)
        assert m is not None
        games.add(m.group(1))
        seats.add(int(m.group(2)))
        # The page opens as that seat (not watching): the seat's name is in the header.
        page.wait_for_selector("#status")
    assert len(games) == 1 and seats == {0, 1, 2, 3}
    for page in pages:
        page.context.close()


def test_leaving_the_play_now_page_leaves_the_queue(browser: Browser, server: Server) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    press_play_now(page, server.url, "Ada")
    assert "1" in page.inner_text("#qm-status")
    page.click("#qm-leave")
    page.wait_for_selector("#qm-join")
    ctx.close()
