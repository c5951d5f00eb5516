"""Issue 11.3, "Clocks and absent players", in the browser's game log: "When a player's time runs
out, a bot takes the seat ..., and it is marked as such in the log and the record. The player
can take the seat back with their token."

A real ``kerala serve`` and Debian's Chromium (Playwright). The log line of each clock event
stands where the record's ``clock.events`` put it: after ``at`` decisions (docs/notation.md,
"Clock fields"). Games use a realtime control of a few seconds, so that the server's own clock
keeper times the seats out.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from webserver import Server

pytestmark = pytest.mark.timeout(240)


def post(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def timed_game(server: Server, minutes: float, bot: str) -> dict[str, Any]:
    """A game of two people (Ada blue, Bo red) with a realtime control of ``minutes``."""
    created: dict[str, Any] = post(
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "clock": {"kind": "realtime", "minutes": minutes, "bot": bot},
        },
    )
    return created


def log_lines(page: Page) -> list[dict[str, str]]:
    """The log as the page shows it: each line's text and what kind of line it is."""
    lines: list[dict[str, str]] = page.eval_on_selector_all(
        "#log li",
        """els => els.map(e => ({text: e.innerText,
            kind: e.classList.contains('round') ? 'round'
                : e.classList.contains('clock-event') ? 'clock' : 'decision'}))""",
    )
    return lines


def decisions_before(lines: list[dict[str, str]], i: int) -> int:
    return sum(1 for line in lines[:i] if line["kind"] == "decision")


def check_clock_lines(lines: list[dict[str, str]], events: list[dict[str, Any]]) -> None:
    """Each clock event has its line, in order, after exactly ``at`` decision lines."""
    clock = [(i, line) for i, line in enumerate(lines) if line["kind"] == "clock"]
    assert len(clock) == len(events), (clock, events)
    names = ["Ada", "Bo"]
    for (i, line), e in zip(clock, events, strict=True):
        assert decisions_before(lines, i) == e["at"], (line, e)
        name = names[e["seat"]]
        if e["kind"] == "timeout":
            want = f"Time ran out for {name}: the {e['bot']} bot plays for {name}"
        else:
            want = f"{name} took the seat back"
        assert line["text"] == want, (line, e)


def test_timeout_and_take_back_appear_in_the_log(server: Server, page: Page) -> None:
    """Ada's 9 s run out: a line says so (before the bot's decisions for her); she takes the
    seat back from her page: a second line says so, after the bot's decisions."""
    created = timed_game(server, 0.15, "medium")  # Bo's 9 s leave time for the take-back
    gid, invite = created["id"], created["invites"][0]
    page.goto(server.url + invite["path"])
    out = page.locator("#log li.clock-event", has_text="Time ran out for Ada")
    expect(out).to_have_count(1, timeout=30000)
    expect(out).to_have_text("Time ran out for Ada: the medium bot plays for Ada")
    back = page.locator("#clock .clock-seat[data-seat='0'] button.clock-back")
    back.click()
    expect(page.locator("#log li.clock-event", has_text="Ada took the seat back")).to_have_count(1)
    events = get(f"{server.url}/api/games/{gid}")["clock"]["events"]
    kinds = [(e["seat"], e["kind"]) for e in events]
    assert kinds[:2] == [(0, "timeout"), (0, "back")], events
    page.reload()  # the lines come from the game's state, not only from live events
    expect(page.locator("#log li.clock-event")).to_have_count(len(events))
    lines = log_lines(page)
    check_clock_lines(lines, events)
    first = next(i for i, line in enumerate(lines) if line["kind"] == "clock")
    assert lines[first + 1]["text"].startswith("Ada "), "the bot's decision for Ada follows"
    # The record lists the same events (the log and the record agree).
    record = get(f"{server.url}/api/games/{gid}/record")
    assert record["clock"]["events"][: len(events)] == events


def wait_over(server: Server, gid: str, seconds: float = 90) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        game: dict[str, Any] = get(f"{server.url}/api/games/{gid}")
        if game["status"] == "over":
            return game
        time.sleep(0.5)
    raise AssertionError(f"game {gid} did not end")


def test_finished_timed_game_log_and_replays(server: Server, page: Page, tmp_path: Path) -> None:
    """Both seats time out and bots finish the game. The finished game's log, its replay on
    the server and the replay of its downloaded record all say when each seat's time ran out."""
    created = timed_game(server, 0.05, "random")
    gid = created["id"]
    game = wait_over(server, gid)
    events = game["clock"]["events"]
    assert [(e["seat"], e["kind"]) for e in events] == [(0, "timeout"), (1, "timeout")]

    page.goto(f"{server.url}/?game={gid}")  # the watch link of the finished game
    expect(page.locator("#log li.clock-event")).to_have_count(2)
    check_clock_lines(log_lines(page), events)

    def replay_at(k: int) -> None:
        page.locator("#replay-slider").fill(str(k))
        page.wait_for_function(
            "k => document.querySelector('#replay-at').textContent.startsWith(k + ' ')", arg=k
        )

    def check_replay() -> None:
        for e in events:
            name = ["Ada", "Bo"][e["seat"]]
            replay_at(e["at"])
            expect(page.locator("#replay-clock")).to_have_text(
                f"Time ran out for {name}: the random bot plays for {name}"
            )
        quiet = next(k for k in range(1, 20) if k not in {e["at"] for e in events})
        replay_at(quiet)
        expect(page.locator("#replay-clock")).to_have_count(0)

    page.goto(f"{server.url}/#/replay?game={gid}")
    page.wait_for_selector("#replay-at")
    check_replay()

    doc = get(f"{server.url}/api/games/{gid}/record")
    assert doc["clock"]["events"] == events
    f = tmp_path / "timed.json"
    f.write_text(json.dumps(doc))
    page.goto(server.url + "/#/replay")
    page.set_input_files("#replay-file", str(f))
    page.wait_for_selector("#replay-at")
    check_replay()


def test_log_lines_place_clock_events(server: Server, page: Page) -> None:
    """words.js's logLines, called in the page: a clock event's line comes after ``at``
    decisions (after the round's line when a round starts there, at the end when ``at`` is the
    number of decisions), in the page's language; a level without words keeps its name."""
    page.goto(server.url + "/")
    page.wait_for_selector("#main *")
    got = page.evaluate(
        """async () => {
        const w = await import('/static/js/words.js');
        const i18n = await import('/static/js/i18n.js');
        const rounds = [
          {drawn: ['blue:e1', 'red:e1'], turns: [{seat: 0, pass: true}, {seat: 1, pass: true}]},
          {drawn: ['red:e1', 'blue:e1'], turns: [{seat: 1, pass: true}]},
        ];
        const events = [
          {at: 0, seat: 0, kind: 'timeout', bot: 'medium'},
          {at: 2, seat: 0, kind: 'back'},
          {at: 3, seat: 0, kind: 'timeout', bot: 'expert-x'},
        ];
        const show = (ls) => ls.map((l) => (l.round ? 'R' : l.clock ? 'C:' + l.text : 'D'));
        const en = show(w.logLines(rounds, ['Ada', 'Bo'], events));
        const plain = show(w.logLines(rounds, ['Ada', 'Bo']));
        await i18n.loadLang('de');
        const de = show(w.logLines(rounds, ['Ada', 'Bo'], events));
        await i18n.loadLang('en');
        return {en, plain, de};
    }"""
    )
    assert got["plain"] == ["R", "D", "D", "R", "D"]
    assert got["en"] == [
        "R",
        "C:Time ran out for Ada: the medium bot plays for Ada",
        "D",
        "D",
        "R",
        "C:Ada took the seat back",
        "D",
        "C:Time ran out for Ada: the expert-x bot plays for Ada",
    ]
    assert got["de"][1] == "C:Zeit abgelaufen für Ada: der Bot „mittel“ spielt für Ada"
    assert got["de"][5] == "C:Ada hat den Platz zurückgenommen"
