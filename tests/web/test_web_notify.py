"""In-tab notifications (docs/web.md): a player who turned them on is told, while the tab is
in the background, when it becomes their turn; never while they look at the page.

The page's Notification is replaced by a recorder (headless Chromium shows no notifications)
and the tab's visibility is set by the test: what is checked is when the page notifies."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from playwright.sync_api import Browser, Page
from webserver import DESKTOP, Server

RECORDER = """
window.__notes = [];
window.__hidden = false;
class Recorder {
  constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
}
window.Notification = Recorder;
Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
"""


def call(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data, headers, method=method)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def ada_with_notifications(browser: Browser, server: Server, created: Any) -> Page:
    """Ada's seat page, its notifications recorded and turned on with the bell."""
    ctx = browser.new_context(viewport=DESKTOP)
    ctx.add_init_script(RECORDER)
    ada = ctx.new_page()
    ada.goto(server.url + next(i["path"] for i in created["invites"] if i["name"] == "Ada"))
    ada.wait_for_selector("#notify")
    ada.click("#notify")
    ada.wait_for_selector("#notify[aria-pressed='true']")
    return ada


def move(server: Server, gid: str, token: str) -> None:
    me = call("GET", f"{server.url}/api/games/{gid}", token=token)
    legal = [d for d in me["legal"] if "take" in d and ":move-" not in d["take"]] or me["legal"]
    call(
        "POST",
        f"{server.url}/api/games/{gid}/decisions",
        {"decision": legal[0], "expected": me["decision_number"]},
        token,
    )


def test_your_turn_is_notified_only_while_the_tab_is_hidden(
    server: Server, browser: Browser
) -> None:
    created = call(
        "POST",
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "first": 1,  # Bo holds the bag first: Ada waits
            "clock": {"kind": "correspondence", "hours": 24},
        },
    )
    gid = created["id"]
    tokens = {i["seat"]: i["token"] for i in created["invites"]}
    seat_of = {i["name"]: i["seat"] for i in created["invites"]}
    ada = ada_with_notifications(browser, server, created)
    try:
        # Bo moves while Ada looks at the page: no notification.
        ada.evaluate("window.__hidden = false")
        bo, ada_seat = tokens[seat_of["Bo"]], seat_of["Ada"]
        game = call("GET", f"{server.url}/api/games/{gid}")
        while game["to_move"] != ada_seat:
            move(server, gid, bo)
            game = call("GET", f"{server.url}/api/games/{gid}")
        ada.wait_for_function(
            "() => document.querySelector('#prompt').textContent.startsWith('Your turn')"
        )
        assert ada.evaluate("window.__notes") == []
        # Ada moves, then looks away; when Bo has moved, she is told.
        ada_token = tokens[ada_seat]
        while call("GET", f"{server.url}/api/games/{gid}")["to_move"] == ada_seat:
            move(server, gid, ada_token)
        ada.evaluate("window.__hidden = true")
        while call("GET", f"{server.url}/api/games/{gid}")["to_move"] != ada_seat:
            move(server, gid, bo)
        ada.wait_for_function("() => window.__notes.length > 0")
        notes = ada.evaluate("window.__notes")
        assert notes[0] == {"title": "Kerala", "body": "It is your turn."}
    finally:
        ada.context.close()


def test_time_running_low_is_notified_once(server: Server, browser: Browser) -> None:
    created = call(
        "POST",
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "clock": {"kind": "realtime", "minutes": 0.45, "increment": 0},
        },
    )
    ada = ada_with_notifications(browser, server, created)
    try:
        ada.evaluate("window.__hidden = true")
        # 27 s on Ada's clock: under 30 s at once, told at the next tick, and only once.
        ada.wait_for_function("() => window.__notes.length > 0", timeout=10000)
        # Three more seconds on Ada's clock (past the page's next checks): still one.
        seat = created["game"]["to_move"]
        clock = f"#clock .clock-seat[data-seat='{seat}'] .clock-time"
        for _ in range(3):
            before = ada.inner_text(clock)
            ada.wait_for_function(
                "([sel, t]) => document.querySelector(sel).textContent !== t", arg=[clock, before]
            )
        notes = ada.evaluate("window.__notes")
        assert notes == [{"title": "Kerala", "body": "Your time to move runs low."}]
    finally:
        ada.context.close()
