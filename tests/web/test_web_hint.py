""" "Suggest a move": the page asks the server's hint route and preselects a legal decision."""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

from playwright.sync_api import Page, expect
from webplay import game_attr, ids_of, legal, wait_decided, wait_turn_or_end
from webserver import Server


def test_suggest_a_move_preselects_a_legal_decision(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-level option[value='random']", state="attached")
    page.select_option("#quick-level", "random")
    page.click("#quick-play")
    page.wait_for_url(re.compile(r"\?game=.+&seat=\d+$"))
    page.wait_for_selector("#game[data-decision-number]")
    gid, _ = ids_of(page)
    origin = "{0.scheme}://{0.netloc}".format(urlparse(page.url))
    for _ in range(2):
        assert not wait_turn_or_end(page)
        before = game_attr(page, "decision-number")
        offered = legal(page)
        # The button is there because /openapi.json lists the hint route.
        with page.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}/hint")) as resp:
            page.click("#hint")
        assert resp.value.status == 200, resp.value.text()
        suggestions = json.loads(resp.value.text())["suggestions"]
        assert suggestions and all(s["decision"] in offered for s in suggestions)
        best = suggestions[0]["decision"]
        # The best suggestion is preselected and shown in the confirm step, in words.
        page.wait_for_selector("#confirm-text")
        text = page.inner_text("#confirm-text")
        assert text.startswith("Suggested:"), text
        page.click("#confirm-btn")
        wait_decided(page, before)
        r = page.request.get(f"{origin}/api/games/{gid}/events", params={"since": 0})
        assert r.ok, r.text()
        events = json.loads(r.text())["events"]
        sent = next(e for e in events if e.get("decision_number") == int(before) + 1)
        assert sent["bot"] is False
        assert sent["decision"] == best  # what was sent is the suggestion, a legal decision
        # The hint is public: the event before it, and a line of everyone's log.
        asked = [e for e in events if e["kind"] == "hint" and e["at"] == int(before)]
        assert asked and asked[0]["number"] < sent["number"], events
        page.wait_for_selector("#log li:has-text('asked for a hint')")


def test_setup_hints_checkbox_follows_the_default_and_is_sent(server: Server, page: Page) -> None:
    """The setup screen's "Hints allowed": on against a bot, off between people, as chosen."""
    page.goto(server.url + "/")
    box = page.locator("#hints-allowed")
    expect(box).to_be_checked()  # the default setup: you and a bot
    page.locator(".seat-row[data-seat='1'] select[data-field='kind']").select_option("human")
    expect(box).not_to_be_checked()  # two people
    with page.expect_response(lambda r: r.url.endswith("/api/games")) as resp:
        page.click("#create")
    assert resp.value.status == 201, resp.value.text()
    assert json.loads(resp.value.text())["game"]["hints"] is False
    box.check()
    with page.expect_response(lambda r: r.url.endswith("/api/games")) as resp:
        page.click("#create")
    assert json.loads(resp.value.text())["game"]["hints"] is True
