"""The game's chat in the browser (docs/web.md, "Chat"): two players and a watcher, the
players' and the watchers' chat apart, text shown as text, a phrase in each reader's language,
mute, and a flood refused with a message. Real ``kerala serve`` and Chromium."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from playwright.sync_api import Browser, Page, expect
from webserver import DESKTOP, Server


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def open_page(browser: Browser, url: str, locale: str = "en-US", chat: bool = True) -> Page:
    ctx = browser.new_context(viewport=DESKTOP, locale=locale)
    ctx.set_default_timeout(15000)
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_selector("#chat-toggle")
    if chat:
        open_chat(page)
    return page


def open_chat(page: Page) -> None:
    page.click("#chat-toggle")
    page.wait_for_selector("#chat-input")


def say(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")


def test_two_players_and_a_watcher_chat_apart_with_mute_and_a_bounded_flood(
    server: Server, browser: Browser
) -> None:
    created = post(
        f"{server.url}/api/games",
        {"seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}]},
    )
    paths = {i["name"]: i["path"] for i in created["invites"]}
    ada = open_page(browser, server.url + paths["Ada"])
    bo = open_page(browser, server.url + paths["Bo"], locale="de-DE", chat=False)
    watcher = open_page(browser, f"{server.url}/?game={created['id']}")
    try:
        assert ada.inner_text("#chat-title") == "Chat with the players"
        assert watcher.inner_text("#chat-title") == "Watchers' chat"
        say(ada, "hi Bo <img src=x onerror=alert(1)>")
        # Bo's chat is closed: the button counts what he has not read; opening it clears it.
        expect(bo.locator("#chat-unread")).to_have_text("1")
        open_chat(bo)
        expect(bo.locator("#chat-unread")).to_have_count(0)
        line = bo.locator("#chat-list li.players").last
        expect(line).to_contain_text("hi Bo <img src=x onerror=alert(1)>")  # text, not markup
        assert bo.locator("#chat-list img").count() == 0
        # A phrase is shown in each reader's language.
        ada.click(".chat-phrases button[data-phrase='gg']")
        expect(bo.locator("#chat-list li").last).to_contain_text("Gutes Spiel!")
        expect(ada.locator("#chat-list li").last).to_contain_text("Good game!")
        # The watchers' chat stays apart during play: neither side reads the other's.
        say(watcher, "who wins?")
        expect(watcher.locator("#chat-list li.watchers")).to_have_count(1)
        expect(watcher.locator("#chat-list li.players")).to_have_count(0)
        assert ada.locator("#chat-list li.watchers").count() == 0
        # Bo mutes Ada: her lines are hidden on his page, and stay so after a reload.
        bo.locator("#chat-list li.players .chat-mute").first.click()
        expect(bo.locator("#chat-list li.players .muted")).to_have_count(2)
        bo.reload()
        bo.wait_for_selector("#chat-toggle")
        open_chat(bo)
        bo.wait_for_selector("#chat-list li")
        expect(bo.locator("#chat-list li.players .muted")).to_have_count(2)
        # A flood is refused (KERALA_RATE_CHAT: 5 in 10 s), and the writer is told.
        for i in range(6):
            say(ada, f"spam {i}")
        expect(ada.locator("#toasts")).to_contain_text("Too many")
        # (The limit is per address: here every browser shares 127.0.0.1 and its count.)
        spam = ada.locator("#chat-list li", has_text="spam")
        expect(spam.last).to_be_visible()
        assert spam.count() < 6
        # The replay shows the chat to the game's players (this tab holds Ada's seat).
        ada.goto(f"{server.url}/#/replay?game={created['id']}")
        expect(ada.locator("#replay-chat")).to_contain_text("hi Bo")
    finally:
        for p in (ada, bo, watcher):
            p.context.close()
