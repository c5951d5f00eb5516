"""The game table (issue 12): every grounds on one screen, live scores from the engine, what the
others did, a confirm step for every decision, readable pieces, tooltips, the final screen."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from webplay import MINE, api_game, api_play, create_game, game_attr, wait_turn_or_end
from webserver import PHONE, Server, shot

from kerala.notation import read_grounds
from kerala.scoring import score_grounds

LAPTOP: ViewportSize = {"width": 1366, "height": 768}


def open_game(page: Page, server: Server, created: dict[str, Any]) -> None:
    page.goto(server.url + created["path"])
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    scored(page)


def scored(page: Page) -> None:
    """Wait until every header shows the live score of the grounds on show."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('.table .live-score')]"
        ".every(e => e.dataset.score !== '')"
    )


def placing_from(n: int) -> Any:
    """``api_play``'s stop: the human's placement turn, after at least ``n`` decisions."""
    return lambda g: (
        g["decision_number"] >= n and g["view"]["phase"] == "place" and bool(g["legal"])
    )


def engine_score(grounds: dict[str, Any]) -> Any:
    return score_grounds(read_grounds({"format": "kerala-grounds", "version": 1, **grounds}))


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_every_grounds_is_on_screen_without_scrolling(
    server: Server, browser: Browser, players: int, size: ViewportSize
) -> None:
    """Issue 12 point 1: all grounds visible at 1366x768 and 390x844, yours largest."""
    ctx = browser.new_context(viewport=size, has_touch=size == PHONE)
    try:
        page = ctx.new_page()
        created = create_game(page, server.url, players)
        api_play(
            page, server.url, created["id"], created["token"], lambda g: g["decision_number"] >= 16
        )
        open_game(page, server, created)
        assert page.evaluate("document.documentElement.scrollHeight") <= size["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        boxes = page.locator(".table .grounds-box")
        assert boxes.count() == players
        areas = {}
        for i in range(players):
            b = boxes.nth(i).bounding_box()
            assert b is not None
            assert b["y"] >= 0 and b["y"] + b["height"] <= size["height"] + 0.5, b
            assert b["x"] >= 0 and b["x"] + b["width"] <= size["width"] + 0.5, b
            assert b["height"] >= 60 and b["width"] >= 80, b
            areas[boxes.nth(i).get_attribute("data-seat")] = b["width"] * b["height"]
        assert areas["0"] == max(areas.values())  # yours is the largest
        # Each panel header: name, color, passes left and the live score; the one to move marked.
        # Phones show the others' name and score, the rest one tap away (the enlarged view).
        heads = page.locator(".table .seat-head")
        for i in range(players):
            text = heads.nth(i).inner_text()
            # On a phone the others show initials in their color, the full name in its title.
            title = heads.nth(i).locator(".seat-chip").get_attribute("title") or ""
            assert "pts" in text and re.search("Asha|Ravi|Meera|Dev|Lila", text + title)
            if size == LAPTOP or i == 0:
                assert "passes left" in text, text
        assert page.locator(".table .seat-panel.to-move").count() == 1
        shot(page, f"table-{players}p-{size['width']}", full_page=False)
        # The others are one tap (or click) away: their grounds open large with the full header.
        other = page.locator(".others .grounds-box").first
        if size == PHONE:
            other.tap()
        else:
            other.click()
        dialog = page.locator("dialog#zoom")
        assert dialog.is_visible() and "passes left" in dialog.inner_text()
        b = dialog.locator(".grounds-box").bounding_box()
        assert b is not None and b["width"] * b["height"] > max(areas.values())
    finally:
        ctx.close()


def test_the_confirm_step_never_moves_the_board(server: Server, browser: Browser) -> None:
    """Issue 12 point 1 and 7: on a laptop and a phone the board stays where it is."""
    for size in (LAPTOP, PHONE):
        ctx = browser.new_context(viewport=size)
        try:
            page = ctx.new_page()
            created = create_game(page, server.url)
            api_play(
                page,
                server.url,
                created["id"],
                created["token"],
                placing_from(6),
            )
            open_game(page, server, created)
            assert not wait_turn_or_end(page)
            before = page.locator(MINE).bounding_box()
            page.locator("#display button:not([disabled])").first.click()
            target = page.locator(f"{MINE} .cell.mark.target").first
            target.click()
            if page.locator("#elephant-choice").count():
                page.locator("#elephant-choice button").first.click()
            assert page.locator("#confirm").is_visible()
            assert page.locator(MINE).bounding_box() == before
            # The tile being placed is not covered by the confirm bar.
            ghost = page.locator(f"{MINE} .cell.mark.chosen").first.bounding_box()
            bar = page.locator("#confirm").bounding_box()
            assert ghost is not None and bar is not None
            assert (
                ghost["y"] + ghost["height"] <= bar["y"] or ghost["y"] >= bar["y"] + bar["height"]
            )
        finally:
            ctx.close()


def test_live_score_is_the_engines_score_with_surplus_marked(server: Server, page: Page) -> None:
    """Issue 12 point 2 (RULES SC1-SC6, I1): each header shows the engine's score now."""
    created = create_game(page, server.url, 3)
    api_play(
        page, server.url, created["id"], created["token"], lambda g: g["decision_number"] >= 24
    )
    open_game(page, server, created)
    game = api_game(page, server.url, created["id"], created["token"])
    assert int(game_attr(page, "decision-number")) == game["decision_number"]
    for i, gr in enumerate(game["view"]["grounds"]):
        b = engine_score(gr)
        head = page.locator(f".table .seat-head[data-seat='{i}']")
        assert int(head.locator(".live-score").get_attribute("data-score") or "x") == b.total
        assert head.locator(".live-score").inner_text() == f"{b.total} pts"
        text = head.locator(".breakdown").inner_text()
        assert f"surplus {b.surplus}" in text and f"missing colors {b.missing}" in text
        marked = page.locator(f".grounds-box[data-seat='{i}'] .cell.surplus")
        assert marked.count() == len(b.removed_cells)
        for c in b.removed_cells:
            at = f"[data-x='{c[0]}'][data-y='{c[1]}']"
            assert page.locator(f".grounds-box[data-seat='{i}'] .cell.surplus{at}").count() == 1


def test_opponents_last_move_stays_highlighted_and_display_shows_who_took(
    server: Server, page: Page
) -> None:
    """Issue 12 point 3: after the bot's turn its placement is outlined until its next turn,
    and the display shows which tile it took this round."""
    # The greedy level (medium) takes a tile early in a game rather than pass.
    created = create_game(page, server.url, level="medium")
    open_game(page, server, created)
    assert not wait_turn_or_end(page)
    # Round 0: Asha first. Round 1: the bot holds the bag and moves first.
    # A plain tile if the display has one: a special tile would ask for its follow-up first.
    tiles = page.locator("#display button:not([disabled])")
    names = [tiles.nth(i).get_attribute("data-tile") or "" for i in range(tiles.count())]
    tiles.nth(next((i for i, n in enumerate(names) if ":move-" not in n), 0)).click()
    page.locator(f"{MINE} .cell.mark.target").first.click()
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.click()
    page.click("#confirm-btn")
    page.wait_for_function(
        "() => Number(document.querySelector('#game').dataset.decisionNumber) >= 1"
    )
    if game_attr(page, "phase") == "follow_up" and game_attr(page, "my-turn") == "1":
        page.click("#skip")  # only when every tile on offer was special
        page.click("#confirm-btn")
    assert not wait_turn_or_end(page)
    game = api_game(page, server.url, created["id"], created["token"])
    bot = [d for d in game["view"]["decisions"][-1]["turns"] if d["seat"] == 1]
    assert bot and "take" in bot[0], bot
    to = bot[0]["to"]
    recent = page.locator(
        f".grounds-box[data-seat='1'] rect.recent.placed[data-x='{to[0]}'][data-y='{to[1]}']"
    )
    assert recent.count() == 1
    taken = page.locator(f"#display .tile-taken[data-by='1'][data-tile='{bot[0]['take']}']")
    assert taken.count() == 1 and "Ravi" in taken.inner_text()
    # Hovering the log line of that placement outlines its cell on the bot's grounds, also
    # when an update redraws the page under the still pointer. A special tile's follow-up (or
    # its skip) is a line of its own after the placement's, so the placement's line is the
    # first of the bot's lines this round, not its last.
    lines = page.locator("#log li[data-seat='1']")
    line = lines.nth(lines.count() - len(bot))
    line.hover()
    ring = page.locator(f".grounds-box[data-seat='1'] .hl-ring[data-x='{to[0]}'][data-y='{to[1]}']")
    expect(ring).to_have_count(1)
    # A redraw under the still pointer (the key 1 picks a tile) keeps the outline at once: the
    # browser sends the redrawn line no mouseenter until a later frame, if at all.
    page.evaluate("() => { document.querySelector('#log').dataset.old = '1'; }")
    page.keyboard.press("1")
    assert page.locator("#log[data-old]").count() == 0  # the log was drawn anew
    assert ring.count() == 1
    page.mouse.move(1, 1)
    expect(page.locator(".hl-ring")).to_have_count(0)


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moves_animate_unless_reduced_motion(server: Server, browser: Browser, motion: str) -> None:
    """Issue 12 point 3: new placements animate briefly; prefers-reduced-motion turns it off."""
    ctx = browser.new_context(viewport=LAPTOP, reduced_motion=motion)  # type: ignore[arg-type]
    try:
        page = ctx.new_page()
        created = create_game(page, server.url)
        open_game(page, server, created)
        assert not wait_turn_or_end(page)
        page.evaluate(
            "() => { window.seen = [];"
            " document.addEventListener('animationstart', e => seen.push(e.animationName)); }"
        )
        before = game_attr(page, "decision-number")
        page.locator("#display button:not([disabled])").first.click()
        page.locator(f"{MINE} .cell.mark.target").first.click()
        if page.locator("#elephant-choice").count():
            page.locator("#elephant-choice button").first.click()
        page.click("#confirm-btn")
        # Our placement is drawn (its tile grows into place, or does not).
        page.wait_for_function(
            "n => +document.querySelector('#game').dataset.decisionNumber >= +n + 1", arg=before
        )
        page.wait_for_timeout(500)
        seen = page.evaluate("window.seen")
        if motion == "reduce":
            assert seen == []
        else:
            assert "k-pop" in seen, seen
    finally:
        ctx.close()


def test_skip_needs_a_confirm_and_back_undoes_it(server: Server, page: Page) -> None:
    """Issue 12 point 4: skipping a special tile's move goes through the confirm step."""
    created = create_game(page, server.url)

    def special_offered(g: dict[str, Any]) -> bool:
        return any("take" in d and "move-" in d["take"] for d in g["legal"] or [])

    g = api_play(page, server.url, created["id"], created["token"], special_offered)
    assert g["status"] != "over", "no special tile came"
    open_game(page, server, created)
    assert not wait_turn_or_end(page)
    page.locator("#display button[data-tile*='move-']:not([disabled])").first.click()
    page.locator(f"{MINE} .cell.mark.target").first.click()
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.click()
    page.click("#confirm-btn")
    page.wait_for_selector('#game[data-phase="follow_up"][data-my-turn="1"]', state="attached")
    before = game_attr(page, "decision-number")
    page.click("#skip")
    assert page.locator("#confirm").is_visible()
    assert "Leave out" in page.inner_text("#confirm-text")
    page.wait_for_timeout(300)
    assert game_attr(page, "decision-number") == before  # nothing was sent
    page.click("#back")
    assert page.locator("#confirm").count() == 0 and page.locator("#skip").is_visible()
    page.click("#skip")
    page.click("#confirm-btn")
    page.wait_for_function(
        "n => document.querySelector('#game').dataset.decisionNumber !== n", arg=before
    )


def test_elephants_standing_and_lying_differ_in_shape(server: Server, page: Page) -> None:
    """Issue 12 point 5: a lying elephant's plate is wide, a standing one's tall (G3)."""
    created = create_game(page, server.url)
    gid, token = created["id"], created["token"]
    g = api_play(page, server.url, gid, token, placing_from(4))
    passed = next(d for d in g["legal"] if "pass" in d)
    r = page.request.post(
        f"{server.url}/api/games/{gid}/decisions",
        data={"decision": passed, "expected": g["decision_number"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.ok, r.text()
    open_game(page, server, created)
    lying = page.locator(f"{MINE} .figure.lying")
    standing = page.locator(f"{MINE} .figure.standing")
    assert lying.count() == 1 and standing.count() == 1
    lb = lying.locator("rect").first.bounding_box()
    sb = standing.locator("rect").first.bounding_box()
    assert lb is not None and sb is not None
    assert lb["width"] > 1.4 * lb["height"] and sb["height"] > 1.1 * sb["width"]
    # Both are big enough to see on the laptop board.
    assert sb["height"] >= 20
    # Rings have a dark band under them, so they read on every tile color.
    page.locator("#display button:not([disabled])").first.click()
    assert (
        page.locator(f"{MINE} .ring.target").count()
        == page.locator(f"{MINE} .ring-under.target").count()
        > 0
    )


def test_tooltips_say_what_tiles_are_worth(server: Server, page: Page) -> None:
    """Issue 12 point 6: display tiles and own stacks carry a tooltip in words."""
    created = create_game(page, server.url)
    open_game(page, server, created)
    tip = page.locator("#display button").first.get_attribute("title") or ""
    assert re.search(r"worth \d|lets you move", tip), tip
    stack = page.locator(f"{MINE} .cell.stack title").first.text_content() or ""
    assert "start tile" in stack and "worth 1" in stack, stack


RULE_ID = re.compile(r"\((?:S|SC|SP|G|P|I)\d\)|\b(?:SC|SP)\d\b")


def test_rules_page_and_no_rule_ids_in_the_interface(server: Server, page: Page) -> None:
    """Issue 12 points 6 and 9: a Rules page for players; no rule ids anywhere."""
    page.goto(server.url + "/#/rules")
    page.wait_for_selector("#rules h1")
    text = page.inner_text("#rules")
    assert "Scoring at the end" in text and "20 with two players" in text
    assert not RULE_ID.search(text)
    page.goto(server.url + "/")
    page.wait_for_selector("#setup")
    assert not RULE_ID.search(page.inner_text("body"))
    created = create_game(page, server.url)
    open_game(page, server, created)
    assert not RULE_ID.search(page.inner_text("body"))


def test_sound_cue_can_be_switched_on_and_is_remembered(server: Server, page: Page) -> None:
    """Issue 12 point 3: an optional sound when it becomes your turn (off by default)."""
    created = create_game(page, server.url)
    open_game(page, server, created)
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    page.click("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('kerala.sound')") == "1"


def test_enlarge_any_grounds(server: Server, page: Page) -> None:
    """Issue 12 point 1: any grounds opens large; Escape closes it."""
    created = create_game(page, server.url, 3)
    open_game(page, server, created)
    page.click(".others [data-enlarge='2']")
    dlg = page.locator("dialog#zoom")
    assert dlg.is_visible()
    b = dlg.locator(".grounds-box").bounding_box()
    assert b is not None and b["width"] > 600 and b["height"] > 400
    assert "Meera" in dlg.inner_text()
    page.keyboard.press("Escape")
    assert page.locator("dialog#zoom").count() == 0


def test_final_screen_offers_rematch_and_the_same_settings(server: Server, page: Page) -> None:
    """Issue 12 point 9: "You win!"-free wording, Rematch and New game with the same settings."""
    created = create_game(page, server.url)
    g = api_play(page, server.url, created["id"], created["token"], lambda g: False, timeout=120)
    assert g["status"] == "over"
    open_game(page, server, created)
    page.wait_for_selector("#end table.sheet")
    assert "You wins" not in page.inner_text("#end")
    shot(page, "final-screen", full_page=False)
    page.click("#same-again")
    page.wait_for_url(re.compile(r"\?game=(?!" + created["id"] + r")"))
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    names = page.locator(".table .seat-name").all_inner_texts()
    assert sorted(names) == ["Asha", "Ravi"]
    new = page.url.split("game=")[1].split("&")[0]
    r = json.loads(page.request.get(f"{server.url}/api/games/{new}").text())
    assert [(p["name"], p["color"], p["kind"]) for p in r["players"]] == [
        ("Asha", "blue", "human"),
        ("Ravi", "red", "bot"),
    ]
    # A rematch: the same players, the bag goes to the other player first.
    page.goto(server.url + created["path"])
    page.wait_for_selector("#end")
    page.click("#rematch")
    page.wait_for_url(re.compile(r"\?game=(?!" + created["id"] + r")"))
    new = page.url.split("game=")[1].split("&")[0]
    r = json.loads(page.request.get(f"{server.url}/api/games/{new}").text())
    assert [p["name"] for p in r["players"]] == ["Ravi", "Asha"]


def test_same_settings_keep_the_time_control_and_the_asker_reads_their_own_offer(
    server: Server, page: Page
) -> None:
    """Issue 12 point 9 with a clock: "New game with the same settings" keeps the time control
    (full clocks), and the person who asked for the rematch reads that they did, not their own
    name as if another player had offered it."""
    clock = {"kind": "realtime", "minutes": 30, "increment": 5, "bot": "medium"}
    created = create_game(page, server.url, clock=clock)
    g = api_play(page, server.url, created["id"], created["token"], lambda g: False, timeout=120)
    assert g["status"] == "over"
    open_game(page, server, created)
    page.wait_for_selector("#end")
    page.click("#same-again")
    page.wait_for_url(re.compile(r"\?game=(?!" + created["id"] + r")"))
    new = page.url.split("game=")[1].split("&")[0]
    again = json.loads(page.request.get(f"{server.url}/api/games/{new}").text())
    assert {k: again["clock"][k] for k in clock} == clock
    assert again["clock"]["remaining"] == [1800.0, 1800.0]
    # The rematch, then back to the finished game: the offer names no one else.
    page.goto(server.url + created["path"])
    page.wait_for_selector("#end")
    page.click("#rematch")
    page.wait_for_url(re.compile(r"\?game=(?!" + created["id"] + r")"))
    page.goto(server.url + created["path"])
    offer = page.locator("#rematch-offer")
    expect(offer).to_contain_text("You offered a rematch")
    assert "Asha" not in offer.inner_text()
    assert page.locator("#play-rematch").count() == 1


def wait_at(page: Page, k: int) -> None:
    page.wait_for_function(
        "k => document.querySelector('#replay-at').textContent.startsWith(k + ' ')", arg=k
    )


def test_replay_opens_at_the_start_and_outlines_each_step(server: Server, page: Page) -> None:
    """Issue 12 point 8: start, arrow keys, the step's change outlined, enlarge."""
    created = create_game(page, server.url)
    api_play(page, server.url, created["id"], created["token"], lambda g: g["decision_number"] >= 6)
    page.goto(f"{server.url}/#/replay?game={created['id']}")
    page.wait_for_selector("#replay-at")
    assert page.inner_text("#replay-at").startswith("0 / ")
    assert page.locator(".replay-boards rect.recent").count() == 0
    page.keyboard.press("ArrowRight")
    wait_at(page, 1)
    d = json.loads(page.request.get(f"{server.url}/api/games/{created['id']}/replay?at=1").text())[
        "decision"
    ]
    to = d["to"]
    box = f".replay-boards .grounds-box[data-seat='{d['seat']}']"
    at = f"[data-x='{to[0]}'][data-y='{to[1]}']"
    assert page.locator(f"{box} rect.recent.placed{at}").count() == 1
    page.click(".replay-boards [data-enlarge='1']")
    assert page.locator("dialog#zoom .grounds-box svg").is_visible()
    page.keyboard.press("ArrowRight")  # stepping goes on while enlarged
    wait_at(page, 2)
    assert page.locator("dialog#zoom").is_visible()
