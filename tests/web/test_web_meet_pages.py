"""The pages for meeting people fit every screen in English and German: the lobby, Play now,
a profile, the leaderboard and the game's chat at 360x640, 390x844 and 1366x768, with no
control or name cut (tests/web/clipping.py) and nothing wider than the screen."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from clipping import clipped
from playwright.sync_api import Browser
from test_web_phone import SIZES, new_page
from webserver import Server

PAGE = ", ".join(
    ["main button", "main a", "main select", "main label", "main h1", "main h2", "main li"]
)


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", list(SIZES), ids=[f"{s}px" for s in SIZES])
def test_the_meeting_pages_fit_the_screen(
    server: Server, browser: Browser, size: str, lang: str
) -> None:
    post(
        f"{server.url}/api/games",
        {
            "seats": [
                {"name": "Annemarie-Louise", "color": "blue"},
                {"color": "red", "kind": "open"},
            ],
            "clock": {"kind": "correspondence", "hours": 72},
        },
    )
    created = post(
        f"{server.url}/api/games",
        {"seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]},
    )
    ctx, page = new_page(browser, SIZES[size], lang)
    width = SIZES[size]["width"]
    try:
        for path, ready in (
            ("/#/lobby", "#lobby[data-loaded='true'] li.lobby-game"),
            ("/#/play", "#qm-join"),
            ("/#/leaderboard", "#leaderboard-empty, #leaderboard"),
        ):
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            assert clipped(page, PAGE) == [], path
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        page.goto(server.url + created["invites"][0]["path"])
        page.click("#chat-toggle")
        page.wait_for_selector("#chat-input")
        chat = "dialog#chat button, dialog#chat h2, dialog#chat input"
        assert clipped(page, chat) == [], "the chat"
    finally:
        ctx.close()
