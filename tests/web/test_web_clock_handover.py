"""Issue 11.3, "Clocks and absent players", in the browser: a seat handed to a bot is marked in
the game log like a timeout, so that "Ada took the seat back" follows a line saying how the bot
got her seat.

A real ``kerala serve`` (a silent seat may be handed over after 2 s, tests/web/webserver.py)
and Debian's Chromium. Bo hands silent Ada's seat to a bot with the page's hand-over button;
Ada takes it back with her clock's button. Each clock event's line stands after ``at``
decisions (docs/notation.md, "Clock fields"), in the log and in the replay.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect
from test_web_clock_log import get, log_lines, timed_game
from webserver import DESKTOP, Server

pytestmark = pytest.mark.timeout(240)


def test_handover_then_take_back_both_in_the_log(
    server: Server, browser: Browser, page: Page
) -> None:
    """Bo's page hands Ada's silent seat to the server's default bot (easy); the bot decides
    for Ada; Ada's page takes the seat back. Both pages' logs say "Bo handed Ada's seat to the
    easy bot" before the bot's decision for Ada, and "Ada took the seat back" after it; so does
    the replay."""
    created = timed_game(server, 5, "random")
    gid = created["id"]
    assert created["game"]["to_move"] == 0  # Ada's turn: she stays silent
    ada_ctx = browser.new_context(viewport=DESKTOP)
    try:
        ada = ada_ctx.new_page()
        ada_errors: list[str] = []
        ada.on("pageerror", lambda e: ada_errors.append(str(e)))
        ada.goto(server.url + created["invites"][0]["path"])
        page.goto(server.url + created["invites"][1]["path"])  # Bo's page
        page.locator("#hand-over").click(timeout=30000)  # shown once Ada was silent for 2 s
        handed = "Bo handed Ada's seat to the easy bot"
        for p in (page, ada):
            expect(p.locator("#log li.clock-event")).to_have_text([handed], timeout=30000)
        # The bot decides for Ada (its line follows the hand-over's); then Bo is to move.
        expect(ada.locator("#log li:not(.round):not(.clock-event)")).not_to_have_count(0)
        # Ada's page says plainly who plays her seat now and that she can take it back.
        expect(ada.locator("#prompt")).to_have_text(
            "The easy bot plays your seat now, until you take it back: press “Take my seat "
            "back” whenever you want to play again."
        )
        ada.locator("#take-back").click()
        for p in (page, ada):
            expect(p.locator("#log li.clock-event")).to_have_text(
                [handed, "Ada took the seat back"]
            )
        events = get(f"{server.url}/api/games/{gid}")["clock"]["events"]
        assert [(e["kind"], e["seat"], e.get("by")) for e in events] == [
            ("handover", 0, 1),
            ("back", 0, None),
        ]
        assert events[0]["at"] == 0 and events[1]["at"] >= 1
        page.reload()  # the lines come from the game's state, not only from live events
        expect(page.locator("#log li.clock-event")).to_have_count(2)
        lines = log_lines(page)
        clock = [i for i, line in enumerate(lines) if line["kind"] == "clock"]
        for i, e in zip(clock, events, strict=True):
            assert sum(1 for x in lines[:i] if x["kind"] == "decision") == e["at"], (lines, e)
        assert lines[clock[0] + 1]["text"].startswith("Ada "), "the bot's decision for Ada"

        # The replay of the game tells both at their steps.
        page.goto(f"{server.url}/#/replay?game={gid}")
        page.wait_for_selector("#replay-at")
        for e, text in zip(events, [handed, "Ada took the seat back"], strict=True):
            page.locator("#replay-slider").fill(str(e["at"]))
            page.wait_for_function(
                "k => document.querySelector('#replay-at').textContent.startsWith(k + ' ')",
                arg=e["at"],
            )
            expect(page.locator("#replay-clock")).to_have_text(text)
        assert not ada_errors, ada_errors
    finally:
        ada_ctx.close()


def test_handover_words_in_both_languages(server: Server, page: Page) -> None:
    """words.js's logLines and clockWords, called in the page: a hand-over by another seat, an
    own seat handed over, in English and German; a level without words keeps its name."""
    page.goto(server.url + "/")
    page.wait_for_selector("#main *")
    got = page.evaluate(
        """async () => {
        const w = await import('/static/js/words.js');
        const i18n = await import('/static/js/i18n.js');
        const rounds = [
          {drawn: ['blue:e1', 'red:e1'], turns: [{seat: 0, pass: true}, {seat: 1, pass: true}]},
        ];
        const events = [
          {at: 0, seat: 0, kind: 'handover', bot: 'medium', by: 1},
          {at: 1, seat: 0, kind: 'back'},
          {at: 2, seat: 1, kind: 'handover', bot: 'expert-x', by: 1},
        ];
        const show = (ls) => ls.map((l) => (l.round ? 'R' : l.clock ? 'C:' + l.text : 'D'));
        const one = (e) => w.clockWords(e, 'Ada', 'Bo');
        const en = [show(w.logLines(rounds, ['Ada', 'Bo'], events)), one(events[0])];
        await i18n.loadLang('de');
        const de = [show(w.logLines(rounds, ['Ada', 'Bo'], events)), one(events[0])];
        await i18n.loadLang('en');
        return {en, de};
    }"""
    )
    assert got["en"][0] == [
        "R",
        "C:Bo handed Ada's seat to the medium bot",
        "D",
        "C:Ada took the seat back",
        "D",
        "C:Bo handed their own seat to the expert-x bot",
    ]
    assert got["en"][1] == "Bo handed Ada's seat to the medium bot"
    assert got["de"][0][1] == "C:Bo hat den Platz von Ada dem Bot „mittel“ übergeben"
    assert got["de"][0][5] == "C:Bo hat den eigenen Platz dem Bot „expert-x“ übergeben"
    assert got["de"][1] == "Bo hat den Platz von Ada dem Bot „mittel“ übergeben"
