"""The page survives a reload and a server crash: the game continues where it was."""

from __future__ import annotations

import re

from playwright.sync_api import Page
from webplay import MINE, game_attr, play_turn, wait_decided, wait_turn_or_end
from webserver import Server


def start_bot_game(page: Page, server: Server) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-level option[value='random']", state="attached")
    page.select_option("#quick-level", "random")
    page.click("#quick-play")
    page.wait_for_url(re.compile(r"\?game=.+&seat=\d+$"))
    page.wait_for_selector("#game[data-decision-number]")


def test_reload_mid_game_then_continue(server: Server, page: Page) -> None:
    start_bot_game(page, server)
    used: set[str] = set()
    for _ in range(3):
        assert not wait_turn_or_end(page)
        play_turn(page, used, pass_after=10**6)
    assert not wait_turn_or_end(page)
    n = game_attr(page, "decision-number")
    log = page.inner_text("#log")
    page.reload()
    page.wait_for_selector("#game[data-decision-number]")
    assert game_attr(page, "decision-number") == n
    assert page.inner_text("#log") == log
    assert not wait_turn_or_end(page)
    play_turn(page, used, pass_after=10**6)
    assert int(game_attr(page, "decision-number")) > int(n)


def test_keyboard_only_turn(server: Server, page: Page) -> None:
    start_bot_game(page, server)
    assert not wait_turn_or_end(page)
    before = game_attr(page, "decision-number")
    page.keyboard.press("1")  # the first tile of the display
    page.wait_for_selector("#display button[aria-pressed='true']")
    target = page.locator(f"{MINE} .cell.mark.target").first
    target.focus()
    page.keyboard.press("Enter")
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.focus()
        page.keyboard.press("Enter")
    if page.locator("#turn-arch").count():
        page.keyboard.press("r")
    page.wait_for_selector("#confirm-btn")
    page.locator("#confirm-btn").focus()
    page.keyboard.press("Enter")
    wait_decided(page, before)
    # A special tile's follow-up comes first: skip it (also by keyboard).
    assert not wait_turn_or_end(page)
    while page.locator("#skip").count():
        before = game_attr(page, "decision-number")
        page.locator("#skip").focus()
        page.keyboard.press("Enter")
        # The skip asks for a confirm like every decision (issue 12); focus moves to Confirm.
        page.wait_for_selector("#confirm-btn:focus")
        page.keyboard.press("Enter")
        wait_decided(page, before)
        assert not wait_turn_or_end(page)
    # Escape drops a half-made choice.
    page.keyboard.press("1")
    page.wait_for_selector("#display button[aria-pressed='true']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#display button[aria-pressed='true']", state="detached")


def test_server_restart_mid_game_and_the_page_recovers(own_server: Server, page: Page) -> None:
    start_bot_game(page, own_server)
    used: set[str] = set()
    for _ in range(2):
        assert not wait_turn_or_end(page)
        play_turn(page, used, pass_after=10**6)
    while not wait_turn_or_end(page) and game_attr(page, "phase") != "place":
        play_turn(page, used, pass_after=10**6)  # a follow-up: to a placement turn first
    n = game_attr(page, "decision-number")
    own_server.kill()  # SIGKILL, as a crash
    page.wait_for_selector("#conn:not([hidden])")
    banner = page.locator("#conn:not([hidden])").first
    assert "Connection lost" in banner.inner_text()
    # While the server is down a move cannot go through: the page says so and keeps the turn.
    page.locator("#display button:not([disabled])").first.click()
    page.locator(f"{MINE} .cell.mark.target").first.click()
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.click()
    page.click("#confirm-btn")
    page.wait_for_selector(".toast .msg")
    toast = page.locator(".toast .msg").last
    assert "Cannot reach the server" in toast.inner_text()
    assert game_attr(page, "decision-number") == n

    own_server.start()  # same port, same database
    page.wait_for_function("() => document.querySelector('#conn').textContent.includes('again')")
    assert game_attr(page, "decision-number") == n
    # The move the player had prepared is still there: sending it again now works.
    assert not wait_turn_or_end(page)
    page.click("#confirm-btn")
    wait_decided(page, n)
    assert not wait_turn_or_end(page)
    play_turn(page, used, pass_after=10**6)
