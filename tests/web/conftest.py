"""Fixtures for the browser tests: the real game server in a subprocess and Debian's Chromium.

The server is started as users start it (``python -m kerala serve --port P --db sqlite:///F``)
on a free port with its own SQLite file; the browser is Chromium driven by Playwright.
Screenshots go to ``artifacts/screenshots/`` (gitignored), kept as test artifacts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from webserver import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web") / "kerala.sqlite3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture()
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of the test's own, for tests that kill it."""
    srv = Server(tmp_path / "kerala.sqlite3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Per module, not per session: Playwright's sync API allows one instance at a time in a
    # thread, and browser tests elsewhere (tests/bots, tests/server) start their own.
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageErrors(list[str]):
    """JavaScript errors seen on a page; a test fails if any appear."""


@pytest.fixture()
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    ctx.set_default_timeout(15000)
    yield ctx
    ctx.close()


def watch_errors(page: Page) -> PageErrors:
    errors = PageErrors()
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


@pytest.fixture()
def page(context: BrowserContext) -> Iterator[Page]:
    p = context.new_page()
    errors = watch_errors(p)
    yield p
    assert not errors, f"JavaScript errors on the page: {errors}"
