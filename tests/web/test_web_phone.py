"""The table at every size, in English and German: on phones (360x640, 390x844, by touch) and on
a laptop (1366x768) no control or name is cut, the enlarged grounds open centred and fit, and
the others' seats stay apart by their initials and color (docs/web.md, "Phones")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from clipping import clipped
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize
from webplay import COLORS, MINE, api_play, create_game, wait_turn_or_end
from webserver import Server, shot

SMALL: ViewportSize = {"width": 360, "height": 640}
PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1366, "height": 768}
SIZES = {"360": SMALL, "390": PHONE, "1366": LAPTOP}
#: Seat names that a cut would make alike ("Player…").
NAMES = ["Player One", "Player Two", "Player Three", "Player Four", "Player Five"]


def five_player_game(page: Page, url: str) -> dict[str, Any]:
    seats = [{"name": NAMES[0], "color": "blue", "kind": "human"}] + [
        {"name": NAMES[i], "color": COLORS[i], "kind": "bot", "level": "random"}
        for i in range(1, 5)
    ]
    r = page.request.post(f"{url}/api/games", data={"seats": seats, "removal": "random"})
    assert r.status == 201, r.text()
    created: dict[str, Any] = json.loads(r.text())
    created["path"] = created["invites"][0]["path"]
    created["token"] = created["path"].split("token=")[1]
    return created


def arch_to_place(g: dict[str, Any]) -> bool:
    """The human's turn with an arch tile to take (its confirm step has Turn, Back, Confirm)."""
    return g["view"]["phase"] == "place" and any(
        ":arch-" in d.get("take", "") for d in g["legal"] or []
    )


@pytest.fixture(scope="module")
def games(server: Server, browser: Browser) -> Iterator[dict[str, dict[str, Any]]]:
    ctx = browser.new_context()
    page = ctx.new_page()
    playing = five_player_game(page, server.url)
    api_play(page, server.url, playing["id"], playing["token"], arch_to_place, timeout=120)
    over = five_player_game(page, server.url)
    g = api_play(page, server.url, over["id"], over["token"], lambda g: False, timeout=240)
    assert g["status"] == "over"
    r = page.request.post(
        f"{server.url}/api/games/{over['id']}/rematch",
        headers={"Authorization": f"Bearer {over['token']}"},
    )
    assert r.ok, r.text()
    yield {"playing": playing, "over": over}
    ctx.close()


def new_page(browser: Browser, size: ViewportSize, lang: str) -> tuple[BrowserContext, Page]:
    touch = size["width"] < 900
    ctx = browser.new_context(
        viewport=size, has_touch=touch, is_mobile=touch, locale="de-DE" if lang == "de" else "en-US"
    )
    ctx.set_default_timeout(20000)
    return ctx, ctx.new_page()


def open_game(page: Page, url: str, path: str) -> None:
    page.goto(url + path)
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.table .live-score')]"
        ".every(e => e.dataset.score !== '')"
    )


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", list(SIZES), ids=[f"{s}px" for s in SIZES])
def test_no_control_or_name_is_cut_on_the_table_and_the_end_screen(
    server: Server, browser: Browser, games: dict[str, dict[str, Any]], size: str, lang: str
) -> None:
    ctx, page = new_page(browser, SIZES[size], lang)
    try:
        open_game(page, server.url, games["playing"]["path"])
        assert not wait_turn_or_end(page)
        assert clipped(page) == [], "the table at the start of the turn"
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
        # The confirm step of an arch (Turn, Back, Confirm) in the action bar.
        arch = page.locator("#display button:not([disabled])[data-tile*=':arch-']").first
        arch.click()
        page.locator(f"{MINE} .cell.mark.target").first.click()
        if page.locator("#elephant-choice").count():
            assert clipped(page) == [], "the elephant question"
            page.locator("#elephant-choice button").first.click()
        page.wait_for_selector("#confirm-btn")
        assert clipped(page) == [], "the confirm step of an arch"
        shot(page, f"confirm-arch-{size}-{lang}", full_page=False)
        # The end screen with the rematch offered: the sheet's totals and ranks can be read.
        open_game(page, server.url, games["over"]["path"])
        page.wait_for_selector("#rematch-offer")
        assert clipped(page) == [], "the end screen"
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
        for row in ("total", "rank"):
            cell = page.locator(f"#end tr.{row} td").last
            cell.scroll_into_view_if_needed()
            assert cell.is_visible()
        shot(page, f"end-{size}-{lang}", full_page=False)
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["360", "390"], ids=["360px", "390px"])
def test_phone_seats_stay_apart_and_open_centred_in_one_tap(
    server: Server, browser: Browser, games: dict[str, dict[str, Any]], size: str
) -> None:
    vp = SIZES[size]
    ctx, page = new_page(browser, vp, "en")
    try:
        open_game(page, server.url, games["playing"]["path"])
        # Each of the others shows initials in their color, all different; the full name is in
        # the badge's title and one tap away.
        badges = page.locator(".others .seat-initials")
        assert badges.count() == 4
        texts = badges.all_inner_texts()
        assert len(set(texts)) == 4, texts
        for i in range(4):
            assert badges.nth(i).get_attribute("title") in NAMES
        for i in range(4):
            board = page.locator(".others .grounds-box").nth(i)
            seat = board.get_attribute("data-seat")
            board.tap()
            dlg = page.locator("dialog#zoom")
            dlg.wait_for()
            box = dlg.bounding_box()
            assert box is not None
            # Centred and within the screen: no sideways scroll, the name and the whole board
            # in view.
            assert box["x"] >= 0 and box["x"] + box["width"] <= vp["width"] + 0.5, box
            assert box["y"] >= 0 and box["y"] + box["height"] <= vp["height"] + 0.5, box
            left, right = box["x"], vp["width"] - box["x"] - box["width"]
            assert abs(left - right) <= 2, (left, right)
            assert dlg.evaluate("d => d.scrollWidth <= d.clientWidth && d.scrollLeft === 0")
            assert page.evaluate("document.documentElement.scrollWidth") <= vp["width"]
            assert NAMES[int(seat or 0)] in dlg.locator(".seat-name").inner_text()
            assert clipped(page, "dialog#zoom button, dialog#zoom .seat-name") == []
            g = dlg.locator(".grounds-box").bounding_box()
            assert g is not None and g["width"] >= vp["width"] * 0.8 and g["height"] >= 250
            page.click("#zoom-close")
            dlg.wait_for(state="detached")
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["360", "1366"], ids=["360px", "1366px"])
def test_a_suggested_move_in_german_fits_the_action_bar(
    server: Server, browser: Browser, size: str
) -> None:
    """The confirm step's longest question ("Vorschlag: …") and its buttons are not cut."""
    ctx, page = new_page(browser, SIZES[size], "de")
    try:
        created = create_game(page, server.url, 2)
        open_game(page, server.url, created["path"])
        assert not wait_turn_or_end(page)
        page.click("#hint")
        page.wait_for_function(
            "() => document.querySelector('#confirm-text')?.textContent.startsWith('Vorschlag')"
        )
        assert clipped(page) == [], "a suggested move's confirm step"
    finally:
        ctx.close()
