"""The browser UI under its Content-Security-Policy, and seat tokens that stay out of every
address: a real ``kerala serve`` and Debian's Chromium (docs/security.md, "HTTP hardening" and
"Seat tokens stay out of URLs")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, sync_playwright
from webplay import api_game, create_game, game_attr, play_turn, wait_turn_or_end
from webserver import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Server

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("security") / "kerala.sqlite3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Watched:
    """Everything a page did that matters here: its requests (with the headers sent), its
    WebSockets, CSP violations reported on its console, and JavaScript errors."""

    def __init__(self, page: Page) -> None:
        self.requests: list[Request] = []
        self.sockets: list[str] = []
        self.violations: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda r: self.requests.append(r))
        page.on("websocket", lambda ws: self.sockets.append(ws.url))
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _console(self, msg: ConsoleMessage) -> None:
        if "Content Security Policy" in msg.text:
            self.violations.append(msg.text)


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    ctx = browser.new_context(viewport=DESKTOP)
    ctx.set_default_timeout(20000)
    yield ctx.new_page()
    ctx.close()


def finished_game(page: Page, url: str) -> str:
    """A game of two random bots, played to its end by the server."""
    seats = [
        {"name": "Ravi", "color": "red", "kind": "bot", "level": "random"},
        {"name": "Meera", "color": "green", "kind": "bot", "level": "random"},
    ]
    r = page.request.post(f"{url}/api/games", data={"seats": seats, "removal": "random"})
    assert r.status == 201, r.text()
    gid: str = json.loads(r.text())["id"]
    deadline = time.monotonic() + 60
    while api_game(page, url, gid, None)["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.1)
    return gid


def test_main_pages_report_no_csp_violation(server: Server, page: Page) -> None:
    """Home, the game table (a seat with a clock, then the watcher's view), the replay of a
    finished game with its analysis, the rules and the score calculator: each page is sent
    under the strict policy and reports no violation while it draws and is used."""
    seen = Watched(page)
    over = finished_game(page, server.url)
    created = create_game(page, server.url, clock={"kind": "realtime", "minutes": 5})
    pages = [
        ("/", "#quick-play"),
        (created["path"], "#game[data-my-turn='1']"),
        (f"/?game={created['id']}", "#game[data-decision-number]"),
        (f"/#/replay?game={over}", "#main svg"),
        ("/#/rules", "#main h1, #main h2"),
        ("/#/calc", "#main svg"),
    ]
    for path, ready in pages:
        page.goto("about:blank")  # a full load each time, not a change of the fragment
        response = page.goto(server.url + path)
        assert response is not None
        csp = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp, f"{path}: {csp!r}"
        page.wait_for_selector(ready, state="attached")
        if path == created["path"]:
            play_turn(page, set())  # swatches, marks, the clock: all drawn under the policy
        page.wait_for_load_state("networkidle")
    assert not seen.errors, seen.errors
    assert not seen.violations, "\n".join(seen.violations)


def test_an_invite_token_never_reaches_an_address_or_a_referer(server: Server, page: Page) -> None:
    """Open an invite link, play, reload: the token leaves the address bar at once, no request
    or WebSocket carries it in its URL or a Referer, and the reload keeps the seat."""
    seen = Watched(page)
    created = create_game(page, server.url)
    token, gid = created["token"], created["id"]
    page.goto(server.url + created["path"])
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    assert token not in page.url and "token" not in page.url, page.url
    assert page.evaluate("location.href") == f"{server.url}/?game={gid}&seat=0"
    used: set[str] = set()
    for _ in range(2):
        assert not wait_turn_or_end(page)
        play_turn(page, used)
    page.reload()
    page.wait_for_selector("#game[data-my-turn='1']", state="attached")
    assert game_attr(page, "status") == "playing"
    play_turn(page, used)  # still seated: the page plays seat 0 after the reload
    assert token not in page.url
    page.wait_for_load_state("networkidle")

    assert len(seen.requests) > 10 and seen.sockets, (len(seen.requests), seen.sockets)
    for r in seen.requests:
        headers: dict[str, Any] = r.all_headers()
        if r.is_navigation_request() and urlsplit(r.url).fragment:
            continue  # the invite link itself: its token is in the fragment, never sent
        assert token not in r.url, f"the token in an address: {r.url}"
        assert not headers.get("referer"), f"{r.url} sent Referer {headers['referer']!r}"
    for url in seen.sockets:
        assert token not in url and "token" not in url, url
    assert not seen.errors, seen.errors


def test_an_old_invite_link_with_the_token_in_its_query_still_seats(
    server: Server, page: Page
) -> None:
    created = create_game(page, server.url)
    gid = created["id"]
    page.goto(f"{server.url}/?game={gid}&seat=0&token={created['token']}")
    page.wait_for_selector("#game[data-my-turn='1']", state="attached")
    assert page.url == f"{server.url}/?game={gid}&seat=0"


def test_another_tab_without_the_link_is_not_seated(server: Server, page: Page) -> None:
    """The token is kept by the tab that opened the link only (sessionStorage)."""
    created = create_game(page, server.url)
    gid = created["id"]
    page.goto(server.url + created["path"])
    page.wait_for_selector("#game[data-my-turn='1']", state="attached")
    other = page.context.new_page()
    other.goto(f"{server.url}/?game={gid}&seat=0")
    other.wait_for_selector("#game[data-decision-number]", state="attached")
    assert other.locator("#game[data-my-turn='1']").count() == 0
    other.close()


def test_the_api_docs_when_on_draw_from_this_origin_only(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ready = "/docs", ".swagger-ui .title"
    monkeypatch.setenv("KERALA_DOCS", "true")
    srv = Server(tmp_path / "kerala.sqlite3")
    srv.start()
    ctx = browser.new_context(viewport=DESKTOP)
    try:
        page = ctx.new_page()
        seen = Watched(page)
        page.goto(srv.url + path)
        page.wait_for_selector(ready, timeout=30000)
        assert "Kerala game server" in page.inner_text(ready)
        page.wait_for_load_state("networkidle")
        origin = urlsplit(srv.url).netloc
        fetched = [urlsplit(r.url) for r in seen.requests]
        elsewhere = [u.geturl() for u in fetched if u.scheme in ("http", "https")]
        assert all(urlsplit(u).netloc == origin for u in elsewhere), elsewhere
        assert not seen.errors, seen.errors
        assert not seen.violations, "\n".join(seen.violations)
    finally:
        ctx.close()
        srv.stop()
