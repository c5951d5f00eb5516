"""How the UI looks and is reached: phone and desktop layouts, touch, color-blind mode."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page
from webplay import MINE, game_attr, wait_decided, wait_turn_or_end
from webserver import PHONE, Server, shot


def test_home_page_at_phone_and_desktop_sizes(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-level option[value='random']", state="attached")
    shot(page, "home-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "home-phone")
    # Nothing is wider than the phone's screen (no sideways scrolling).
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#quick-play").bounding_box()
    assert box is not None and box["height"] >= 44  # a finger-sized button


def test_a_turn_by_touch_on_a_phone(server: Server, browser: Browser) -> None:
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    ctx.set_default_timeout(15000)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/")
        page.wait_for_selector("#quick-level option[value='random']", state="attached")
        page.select_option("#quick-level", "random")
        page.tap("#quick-play")
        page.wait_for_url(re.compile(r"\?game=.+&seat=\d+$"))
        assert not wait_turn_or_end(page)
        before = game_attr(page, "decision-number")
        page.locator("#display button:not([disabled])").first.tap()
        page.locator(f"{MINE} .cell.mark.target").first.tap()
        if page.locator("#elephant-choice").count():
            page.locator("#elephant-choice button").first.tap()
        assert page.locator("#confirm").is_visible()
        shot(page, "game-phone-confirm", full_page=False)
        page.tap("#confirm-btn")
        wait_decided(page, before)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert not errors, errors
    finally:
        ctx.close()


def view_box(page: Page) -> list[float]:
    vb = page.get_attribute("#calc-grounds svg", "viewBox")
    assert vb is not None
    return [float(v) for v in vb.split()]


def test_grounds_pan_and_zoom(server: Server, page: Page) -> None:
    page.goto(server.url + "/#/calc")
    page.wait_for_selector("#calc-score table.sheet")  # scored: no more redrawing
    base = view_box(page)
    page.click("#calc-grounds .zoombar button[aria-label='zoom in']")
    zoomed = view_box(page)
    assert zoomed[2] < base[2] and zoomed[3] < base[3]
    # Dragging pans and places nothing (a drag is not a click on a cell).
    doc = page.input_value("#calc-doc")
    box = page.locator("#calc-grounds svg").bounding_box()
    assert box is not None
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 60, cy + 30, steps=5)
    page.mouse.up()
    panned = view_box(page)
    assert panned[0] < zoomed[0] and panned[2] == zoomed[2]
    assert page.input_value("#calc-doc") == doc
    # The wheel zooms out; "fit" shows the whole grounds again.
    page.mouse.wheel(0, 200)
    page.wait_for_function(
        "w => +document.querySelector('#calc-grounds svg').getAttribute('viewBox')"
        ".split(' ')[2] > w",
        arg=panned[2],
    )
    page.click("#calc-grounds .zoombar button[aria-label='fit']")
    assert view_box(page) == base
