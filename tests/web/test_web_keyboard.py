"""Keyboard play as in a grid widget: the arrow keys move between the cells that can be picked,
Enter picks, Escape goes back, every focused element shows it, and the focus stays where the
player is through every update (docs/web.md, "Keyboard")."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from playwright.sync_api import Page
from webplay import MINE, create_game, game_attr, wait_decided, wait_turn_or_end
from webserver import Server

FOCUS_BLUE = (0x14, 0x63, 0xFF)
ON_BOARD_CELL = "el => el.getAttribute('role') === 'button' && el.dataset.x !== undefined"


def open_my_turn(page: Page, server: Server) -> None:
    created = create_game(page, server.url, 2)
    page.goto(server.url + created["path"])
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    assert not wait_turn_or_end(page)


def focused(page: Page, js: str) -> bool:
    return bool(page.evaluate(f"() => ({js})(document.activeElement)"))


def wait_focus(page: Page, selector: str) -> None:
    page.wait_for_function(
        "s => document.activeElement && document.activeElement.matches(s)", arg=selector
    )


def focused_cell(page: Page) -> tuple[int, int]:
    xy = page.evaluate("() => [document.activeElement.dataset.x, document.activeElement.dataset.y]")
    return int(xy[0]), int(xy[1])


def blue_pixels_around_focus(page: Page) -> int:
    """Pixels of the focus blue in a screenshot of the focused cell and its edge."""
    box = page.evaluate(
        "() => { const r = document.activeElement.getBoundingClientRect();"
        " return {x: r.x - 6, y: r.y - 6, width: r.width + 12, height: r.height + 12}; }"
    )
    img = Image.open(io.BytesIO(page.screenshot(clip=box))).convert("RGB")
    pixels = np.asarray(img, dtype=np.int16)
    near = np.abs(pixels - np.array(FOCUS_BLUE, dtype=np.int16)).max(axis=2) <= 40
    return int(near.sum())


def test_one_turn_by_keyboard_in_six_keys_from_the_display(server: Server, page: Page) -> None:
    open_my_turn(page, server)
    before = game_attr(page, "decision-number")
    page.focus("#display button:not([disabled])")
    keys = 0

    def press(key: str) -> None:
        nonlocal keys
        keys += 1
        page.keyboard.press(key)

    # An ordinary tile: step over the special ones with the arrow key.
    while "move-" in (page.evaluate("document.activeElement.dataset.tile") or ""):
        press("ArrowRight")
    press("Enter")  # pick the tile: the focus goes to the board, on a cell it can go to
    page.wait_for_function(f"() => ({ON_BOARD_CELL})(document.activeElement)")
    assert page.evaluate("document.activeElement.closest('.grounds-box.mine') !== null")
    assert page.evaluate("document.activeElement.classList.contains('target')")
    # Its focus ring is drawn over the yellow target ring, so it shows.
    assert blue_pixels_around_focus(page) > 100
    press("Enter")  # pick the cell
    if page.locator("#elephant-choice").count():
        wait_focus(page, "#elephant-choice button")
        press("Enter")
    wait_focus(page, "#confirm-btn")
    press("Enter")
    wait_decided(page, before)
    assert keys <= 6, f"{keys} keys for one turn"
    # The bot answers; the focus waits in the table and is on the display when the turn is back.
    assert not wait_turn_or_end(page)
    if page.locator("#skip").count():
        return  # a special tile's follow-up comes first: the board has the focus (below)
    wait_focus(page, "#display button:not([disabled])")


def test_arrow_keys_move_between_targets_and_escape_goes_back(server: Server, page: Page) -> None:
    open_my_turn(page, server)
    page.focus("#display button:not([disabled])")
    tile = page.evaluate("document.activeElement.dataset.index")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({ON_BOARD_CELL})(document.activeElement)")
    targets = {
        (int(c.get_attribute("data-x") or 0), int(c.get_attribute("data-y") or 0))
        for c in page.locator(f"{MINE} .cell.mark.target").all()
    }
    assert len(targets) > 1  # the first tile of a game has at least the start tile's 4 sides
    seen = {focused_cell(page)}
    for key in ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"] * 2:
        page.keyboard.press(key)
        assert focused(page, ON_BOARD_CELL)
        seen.add(focused_cell(page))
    assert seen <= targets and len(seen) > 1, (seen, targets)
    # Only one cell of the board is in the Tab order (a roving tab stop).
    assert page.locator(f"{MINE} [role=button][tabindex='0']").count() == 1
    page.keyboard.press("Escape")
    wait_focus(page, f'#display button[data-index="{tile}"]')
    assert page.locator("#display button[aria-pressed='true']").count() == 0


def test_every_focusable_element_shows_its_focus(server: Server, page: Page) -> None:
    open_my_turn(page, server)
    page.keyboard.press("1")  # a tile picked: the board's cells join the Tab order
    page.wait_for_selector(f"{MINE} .cell.mark.target")
    page.focus("#lang")
    seen = 0
    for _ in range(60):
        page.keyboard.press("Tab")
        if focused(page, "el => el === document.body || !el.closest('#game')"):
            continue
        seen += 1
        name = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
        if focused(page, ON_BOARD_CELL):
            ring = page.evaluate(
                "() => { const el = document.activeElement, svg = el.ownerSVGElement;"
                " const r = svg.lastElementChild; return r.classList.contains('focus-ring')"
                " && r.dataset.x === el.dataset.x && r.dataset.y === el.dataset.y; }"
            )
            assert ring, f"no focus ring over {name}"
        else:
            style = page.evaluate(
                "() => { const c = getComputedStyle(document.activeElement);"
                " return [c.outlineStyle, parseFloat(c.outlineWidth)]; }"
            )
            assert style[0] != "none" and style[1] >= 2, f"no focus outline on {name}: {style}"
    assert seen >= 8
