"""A newcomer's path: home page, one click to play against a bot, a whole game by clicking,
the score sheet checked against the engine's score of the downloaded record
(docs/rules.md SC1–SC7)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page
from webplay import game_attr, play_turn, wait_turn_or_end
from webserver import DESKTOP, PHONE, Server, shot

from kerala.notation import read_record


def sheet_row(page: Page, row: str) -> list[str]:
    return page.locator(f"#end table.sheet tr[data-row='{row}'] td").all_inner_texts()


def test_newcomer_plays_a_whole_game_against_a_bot(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-play")
    page.wait_for_selector("#quick-level option[value='random']", state="attached")
    page.select_option("#quick-level", "random")  # the quickest bot; the default is "easy"
    page.click("#quick-play")  # the one click
    page.wait_for_url(re.compile(r"\?game=.+&seat=0$"))
    page.wait_for_selector("#game")

    used: set[str] = set()
    turns = 0
    shots_taken = False
    while not wait_turn_or_end(page):
        play_turn(page, used)
        turns += 1
        if turns == 12 and not shots_taken:
            # The game page mid-game, on a desktop and on a phone (test artifacts).
            shot(page, "game-desktop")
            page.set_viewport_size(PHONE)
            shot(page, "game-phone")
            page.set_viewport_size(DESKTOP)
            shots_taken = True
        assert turns < 200, "the game does not end"
    # G3 pass, an arch turned before placement, an SP1/SP2 follow-up and the choice of which
    # elephant moves (P1: a cell next to both): all exercised by clicking.
    assert {"pass", "arch_turn", "follow_up", "elephant_choice"} <= used, used
    assert turns >= 40  # one decision per round at least (40 rounds with 2 players)

    page.wait_for_selector("#end")
    assert game_attr(page, "status") == "over"
    shot(page, "game-over-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "game-over-phone")
    page.set_viewport_size(DESKTOP)

    # The record, downloaded as a user would, scored by the engine.
    with page.expect_download() as dl:
        page.locator("#end a", has_text="Download the record").click()
    path = dl.value.path()
    assert path is not None
    rec = read_record(json.loads(path.read_text(encoding="utf-8")))
    state = rec.state
    assert state.is_over()
    engine = [b.total for b in state.scores()]
    sheet = [int(t.replace("+", "")) for t in sheet_row(page, "total")]
    assert sheet == engine
    # The sheet's rows add up to the total (SC6) for every player.
    for i, b in enumerate(state.scores()):
        assert int(sheet_row(page, "standing")[i].replace("+", "")) == b.standing
        assert int(sheet_row(page, "arches")[i].replace("+", "")) == b.arches
        assert int(sheet_row(page, "surplus")[i].replace("+", "")) == b.surplus
        assert int(sheet_row(page, "missing")[i].replace("+", "")) == b.missing
        colors = dict(b.symbols_by_color)
        for c, n in colors.items():
            assert int(sheet_row(page, f"symbols-{c}")[i].replace("+", "")) == n
    ranks = sheet_row(page, "rank")
    assert [int(r[0]) for r in ranks] == state.ranks()  # SC7
    # Surplus areas removed in scoring are crossed out on the grounds (SC1).
    removed = sum(len(b.removed_cells) for b in state.scores())
    assert page.locator(".grounds-box .cell.removed").count() == removed
