"""Two people play each other through their invite links while a third watches, live."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Page
from webplay import game_attr, play_turn, wait_turn_or_end
from webserver import DESKTOP, PHONE, Server, shot


def test_two_players_through_invite_links_and_a_watcher(
    server: Server, browser: Browser, page: Page
) -> None:
    # The creator sets up a 2-player game of two humans on the home page.
    page.goto(server.url + "/")
    page.wait_for_selector("#setup")
    page.fill("[data-seat='0'] [data-field='name']", "Ada")
    page.fill("[data-seat='1'] [data-field='name']", "Bo")
    page.select_option("[data-seat='1'] [data-field='kind']", "human")
    page.select_option("[data-seat='1'] [data-field='color']", "green")
    page.click("#create")
    page.wait_for_selector("#created")
    ada_url = page.input_value("#invite-0")
    bo_url = page.input_value("#invite-1")
    watch_url = page.input_value("#watch-link")
    assert "token=" in ada_url and "token=" in bo_url and "token=" not in watch_url
    assert ada_url != bo_url
    shot(page, "home-created-desktop")

    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    try:
        ada, bo, watcher = (c.new_page() for c in contexts)
        errors: list[str] = []
        for p in (ada, bo, watcher):
            p.on("pageerror", lambda e: errors.append(str(e)))
        ada.goto(ada_url)
        bo.goto(bo_url)
        watcher.goto(watch_url)
        for p in (ada, bo, watcher):
            p.wait_for_selector("#game[data-decision-number]")
        # Seat 0 holds the bag first (G1): Ada moves, Bo waits, the watcher only watches.
        assert not wait_turn_or_end(ada)
        assert game_attr(bo, "my-turn") == "0"
        assert "Waiting for Ada" in bo.inner_text("#prompt")
        assert "watching" in watcher.inner_text("#prompt").lower()
        assert watcher.locator("#display button:not([disabled])").count() == 0
        assert watcher.locator(".grounds-box.mine").count() == 0

        used: dict[str, set[str]] = {"ada": set(), "bo": set()}
        for _ in range(16):
            # Round r's bag owner is seat r mod 2 (G1): whoever is to move plays.
            me, other, name = (
                (ada, bo, "ada") if game_attr(ada, "my-turn") == "1" else (bo, ada, "bo")
            )
            assert not wait_turn_or_end(me)
            assert game_attr(other, "my-turn") == "0"
            assert other.locator("#display button:not([disabled])").count() == 0
            n_before = game_attr(watcher, "decision-number")
            play_turn(me, used[name], pass_after=10**6)
            n = game_attr(me, "decision-number")
            # Live updates: the watcher and the other player see the move without reloading.
            for p in (watcher, other):
                p.wait_for_function(
                    "n => document.querySelector('#game').dataset.decisionNumber === n",
                    arg=n,
                )
            assert game_attr(watcher, "decision-number") != n_before
        log_w = watcher.inner_text("#log")
        assert "Ada placed" in log_w and "Bo placed" in log_w
        assert watcher.inner_text("#log") == ada.inner_text("#log") == bo.inner_text("#log")
        # Another player's grounds can be enlarged (a dialog), and closed again.
        watcher.locator(".other[data-seat='1'] [data-enlarge='1']").click()
        watcher.wait_for_selector("dialog#zoom .grounds-box[data-seat='1']")
        shot(watcher, "watch-desktop")
        watcher.click("#zoom-close")
        watcher.wait_for_selector("dialog#zoom", state="detached")
        watcher.set_viewport_size(PHONE)
        shot(watcher, "watch-phone")
        assert not errors, errors
    finally:
        for c in contexts:
            c.close()


def test_refusals_are_shown_as_readable_messages(server: Server, page: Page) -> None:
    # An unknown game and a wrong token: the page says what is wrong, in words.
    page.goto(server.url + "/?game=no-such-game")
    page.wait_for_selector("#game-error")
    text = page.inner_text("#game-error")
    assert text.startswith("Not found:"), text
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-level option[value='random']", state="attached")
    page.select_option("#quick-level", "random")
    page.click("#quick-play")
    page.wait_for_selector("#game[data-decision-number]")
    bad = page.url + "&token=not-a-real-token"  # an old-style link, the token in the query
    page.goto(bad)
    page.wait_for_selector("#game-error")
    assert page.inner_text("#game-error").startswith("Not allowed:")
    # A refused game setup (S1: two seats of one color is not offered by the form, but an
    # empty name is): the server's message appears.
    page.goto(server.url + "/")
    page.wait_for_selector("#setup")
    page.fill("[data-seat='0'] [data-field='name']", "")
    page.click("#create")
    page.wait_for_selector(".toast .msg")
    toast = page.locator(".toast .msg").last
    assert toast.inner_text().startswith("Refused:"), toast.inner_text()
    assert "name" in toast.inner_text()


def test_a_silent_seat_is_handed_to_a_bot(server: Server, browser: Browser, page: Page) -> None:
    r = page.request.post(
        f"{server.url}/api/games",
        data={
            "seats": [
                {"name": "Sleepy", "color": "blue", "kind": "human"},
                {"name": "Eager", "color": "red", "kind": "human"},
            ]
        },
    )
    assert r.status == 201, r.text()
    created = json.loads(r.text())
    eager = next(i for i in created["invites"] if i["seat"] == 1)
    page.goto(server.url + eager["path"])
    page.wait_for_selector("#game[data-decision-number]")
    assert "Waiting for Sleepy" in page.inner_text("#prompt")
    # The server's seat timeout is 2 s in these tests: then the button appears.
    page.wait_for_selector("#hand-over", timeout=15000)
    button = page.locator("#hand-over").first
    assert "Sleepy" in button.inner_text()
    button.click()
    page.wait_for_selector(".seat-head[data-seat='0'] >> text=handed to a bot")
    # The bot now plays Sleepy's turn, and it is Eager's turn.
    assert not wait_turn_or_end(page)
    assert int(game_attr(page, "decision-number")) >= 1


def test_setup_with_chosen_removal_and_another_first_player(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#setup")
    page.select_option("#seat-count", "3")
    for i, name in enumerate(["Ada", "Bo", "Cy"]):
        page.fill(f"[data-seat='{i}'] [data-field='name']", name)
    page.select_option("[data-seat='1'] [data-field='kind']", "human")
    page.select_option("#first", "2")  # Cy holds the bag first
    page.select_option("#removal", "chosen")
    page.click("text=Fill in a valid choice")
    removed = page.input_value("#removed").split(", ")
    assert len(removed) == 10  # S3: 3 players take out 10 tiles, none of a played color
    page.click("#create")
    page.wait_for_selector("#created")
    # Seat numbers are final: Cy (first) is seat 0 and the clockwise order is kept (G1).
    assert page.locator("#created .link-label").all_inner_texts() == [
        "Cy (black) — invite",
        "Ada (blue) — invite",
        "Bo (red) — invite",
        "Watch",
    ]
    page.goto(page.input_value("#watch-link"))
    page.wait_for_selector("#game[data-decision-number]")
    # The table shows the seats in order (a watcher's first grounds is seat 0's).
    names = page.locator(".table .seat-panel .seat-name").all_inner_texts()
    assert [n.strip() for n in names] == ["Cy", "Ada", "Bo"]
