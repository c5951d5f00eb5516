"""Post-game analysis in the browser (issue 16): the replay page's "Analyse" button, progress,
mistakes marked on the timeline, and the better decision shown at each marked step.

Real `kerala serve` in a subprocess and Debian's Chromium through Playwright.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from test_bots_analysis import blunder_record
from webserver import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("analysis") / "kerala.sqlite3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    ctx = browser.new_context(viewport=DESKTOP)
    pg = ctx.new_page()
    pg.set_default_timeout(60000)
    # A short search per decision keeps the test quick (the server's default is 0.2 s).
    pg.add_init_script("localStorage.setItem('kerala.analysisTime', '0.02')")
    yield pg
    ctx.close()


def wait_at(page: Page, k: int) -> None:
    page.wait_for_function(
        "k => document.querySelector('#replay-at').textContent.startsWith(k + ' ')", arg=k
    )


def test_analyse_button_marks_the_planted_blunder(
    page: Page, server: Server, tmp_path: Path
) -> None:
    doc, at, _ = blunder_record()
    f = tmp_path / "blunder.json"
    f.write_text(json.dumps(doc))
    page.goto(server.url + "/#/replay")
    page.set_input_files("#replay-file", str(f))
    page.wait_for_selector("#replay-at")
    page.click("#analyse-button")
    # Progress is shown while the bot workers review the decisions.
    page.wait_for_selector('#analysis[data-status="running"]', state="attached")
    page.wait_for_selector('#analysis[data-status="done"]', timeout=180000)
    # The judge is named in player words, not by its spec.
    status = page.inner_text("#analysis-status")
    assert "expert" in status and "clock=" not in status and "time=" not in status
    # The costliest decisions come first, under the player's summary line: the planted pass
    # among them, and a click goes to its step.
    worst = page.locator('#analysis-summary li[data-seat="0"] .analysis-worst button')
    assert 1 <= worst.count() <= 3
    assert worst.first.get_attribute("data-flag") == "blunder"
    page.locator(f'.analysis-worst button[data-at="{at + 1}"]').click()
    wait_at(page, at + 1)
    page.click("#replay-prev")
    wait_at(page, at)
    # The planted pass is marked on the timeline as a blunder; clicking it goes to that step.
    mark = page.locator(f'#analysis-timeline .analysis-mark[data-at="{at + 1}"]')
    assert mark.get_attribute("data-flag") == "blunder"
    mark.click()
    wait_at(page, at + 1)
    note = page.locator("#analysis-step")
    assert note.get_attribute("data-flag") == "blunder"
    assert "Better" in note.inner_text()
    # The figures shown are the ones the flag rests on, and they differ.
    assert note.get_attribute("data-by") in ("win", "points")
    better = page.inner_text("#analysis-better")
    assert "pass" not in better.lower()
    # ...and the better decision's cell is outlined on the player's board.
    assert page.locator("svg rect.analysis-better").count() >= 1
    # Stepping on keeps the analysis (the timeline survives the replay's redraws).
    page.click("#replay-next")
    wait_at(page, at + 2)
    assert page.locator("#analysis-timeline .analysis-mark").count() >= 1


def test_analyse_a_finished_game_of_the_server(page: Page, server: Server) -> None:
    r = page.request.post(
        f"{server.url}/api/games",
        data={
            "seats": [
                {"name": "Ann", "color": "purple", "kind": "bot", "level": "medium"},
                {"name": "Ben", "color": "black", "kind": "bot", "level": "random"},
            ]
        },
    )
    assert r.status == 201, r.text()
    gid = json.loads(r.text())["id"]
    page.goto(f"{server.url}/#/replay?game={gid}")
    # Wait for the game to end (bots play at once), then open its replay.
    for _ in range(600):
        g = json.loads(page.request.get(f"{server.url}/api/games/{gid}").text())
        if g["status"] == "finished" or g.get("result"):
            break
        page.wait_for_timeout(200)
    page.goto(f"{server.url}/#/replay?game={gid}")
    page.reload()
    page.wait_for_selector("#replay-at")
    page.click("#analyse-button")
    page.wait_for_selector('#analysis[data-status="done"]', timeout=180000)
    # The random bot's game is full of costly decisions: the timeline marks some.
    assert page.locator("#analysis-timeline .analysis-mark").count() >= 1
    summary = page.inner_text("#analysis-summary")
    assert "Ann:" in summary and "Ben:" in summary
