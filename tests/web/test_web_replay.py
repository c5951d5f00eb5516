"""The replay viewer: a finished game of the server, and a record file the user opens."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page
from webserver import PHONE, Server, shot

from kerala.notation import read_record


def wait_at(page: Page, k: int) -> None:
    page.wait_for_function(
        "k => document.querySelector('#replay-at').textContent.startsWith(k + ' ')", arg=k
    )


def finished_bot_game(page: Page, server: Server) -> str:
    """A game of two random bots, created over the API, watched until it ends."""
    r = page.request.post(
        f"{server.url}/api/games",
        data={
            "seats": [
                {"name": "Ann", "color": "purple", "kind": "bot", "level": "random"},
                {"name": "Ben", "color": "black", "kind": "bot", "level": "random"},
            ],
            "removal": "random",
        },
    )
    assert r.status == 201, r.text()
    created = json.loads(r.text())
    assert created["invites"] == []
    page.goto(server.url + created["watch"]["path"])
    page.wait_for_selector('#game[data-status="over"]', state="attached", timeout=120000)
    return str(created["id"])


def test_replay_a_finished_game_step_by_step(server: Server, page: Page, tmp_path: Path) -> None:
    gid = finished_bot_game(page, server)
    page.wait_for_selector("#end")
    total_sheet = page.locator("#end tr[data-row='total'] td").all_inner_texts()
    page.click("#replay-link")
    page.wait_for_selector("#replay-at")
    n = int(page.inner_text("#replay-at").split("/")[1])
    # The replay opens at the start (issue 12); at the end it shows the game page's sheet.
    assert page.inner_text("#replay-at") == f"0 / {n}"
    page.click("#replay-last")
    wait_at(page, n)
    assert page.locator("#replay-result tr[data-row='total'] td").all_inner_texts() == total_sheet
    page.click("#replay-first")
    page.wait_for_function(
        "() => document.querySelector('#replay-at').textContent.startsWith('0 ')"
    )
    assert page.inner_text("#replay-decision") == "Start of the game."
    assert page.locator("#replay-result").count() == 0
    # The running score is shown at every step, not only at the end.
    running = page.inner_text("#replay-running")
    assert running.startswith("Running score: ") and "Ann " in running and "Ben " in running
    # At 1366x768 the boards are in view beside the controls, not below the fold.
    page.set_viewport_size({"width": 1366, "height": 768})
    top = page.evaluate("document.querySelector('.replay-boards').getBoundingClientRect().top")
    assert top < 768 - 300, top
    # Every grounds is just its start tile at the start (S2).
    assert page.locator(".grounds-box .cell.stack").count() == 2
    page.click("#replay-next")
    page.wait_for_function(
        "() => document.querySelector('#replay-at').textContent.startsWith('1 ')"
    )
    assert page.inner_text("#replay-decision").startswith("Ann ")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('#replay-at').textContent.startsWith('2 ')"
    )
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => document.querySelector('#replay-at').textContent.startsWith('1 ')"
    )
    shot(page, "replay-desktop")

    # A record file opened by the user, replayed the same way; a broken one is refused.
    rec = page.request.get(f"{server.url}/api/games/{gid}/record")
    doc = json.loads(rec.text())
    assert read_record(doc).state.is_over()
    good = tmp_path / "game.json"
    good.write_text(json.dumps(doc))
    page.goto(server.url + "/#/replay")
    page.set_input_files("#replay-file", str(good))
    page.wait_for_selector("#replay-at")
    assert page.inner_text("#replay-at") == f"0 / {n}"
    page.keyboard.press("End")
    page.wait_for_selector("#replay-result")
    assert page.inner_text("#replay-at") == f"{n} / {n}"
    assert page.locator("#replay-result tr[data-row='total'] td").all_inner_texts() == total_sheet
    page.set_viewport_size(PHONE)
    shot(page, "replay-phone")

    doc["rounds"][0]["turns"][0]["to"] = [5, 5]  # P1: not next to an elephant
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    page.set_input_files("#replay-file", str(bad))
    page.wait_for_selector("#replay-error")
    err = page.locator("#replay-error").first
    assert "bad.json" in err.inner_text() and "round" in err.inner_text().lower()
