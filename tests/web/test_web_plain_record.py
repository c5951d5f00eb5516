"""Issue 11.3: the record "with an optional per-turn time that does not break older readers".

A timed game's record has the clock fields, which readers from before them refuse (docs/
notation.md, "The plain form"). The server hands out the full record by default and the plain
form on request (``GET /api/games/{id}/record?extensions=none``), and the game page offers both
downloads. A real ``kerala serve`` and Debian's Chromium (Playwright).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from webserver import Server

from kerala.notation import plain_record, read_record
from test_notation_plain import v1_errors

pytestmark = pytest.mark.timeout(180)


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.fixture(scope="module")
def timed_game(server: Server) -> str:
    """A finished timed game: both people's 3 s run out and random bots finish it."""
    gid: str = post(
        f"{server.url}/api/games",
        {
            "seats": [{"name": "Ada", "color": "blue"}, {"name": "Bo", "color": "red"}],
            "clock": {"kind": "realtime", "minutes": 0.05, "increment": 1, "bot": "random"},
        },
    )["id"]
    end = time.monotonic() + 90
    while time.monotonic() < end:
        status, _, body = fetch(f"{server.url}/api/games/{gid}")
        if status == 200 and json.loads(body)["status"] == "over":
            return gid
        time.sleep(0.5)
    raise AssertionError("the timed game did not end")


def test_record_full_by_default_plain_on_request(server: Server, timed_game: str) -> None:
    base = f"{server.url}/api/games/{timed_game}/record"
    status, headers, body = fetch(base)
    assert status == 200
    full = json.loads(body)
    assert full["clock"]["events"] and any("time" in t for r in full["rounds"] for t in r["turns"])
    assert headers["content-disposition"] == f'attachment; filename="kerala-{timed_game}.json"'
    assert json.loads(fetch(base + "?extensions=all")[2]) == full

    status, headers, body = fetch(base + "?extensions=none")
    assert status == 200
    plain = json.loads(body)
    assert headers["content-disposition"] == (
        f'attachment; filename="kerala-{timed_game}-plain.json"'
    )
    assert v1_errors(plain) == [], "only the fields of format version 1"
    assert plain == plain_record(full)
    a, b = read_record(full), read_record(plain)
    assert a.state == b.state and a.state.is_over()
    assert a.result == b.result == full["result"] == plain["result"]


@pytest.mark.parametrize("value", ["some", "", "NONE", "none,all"])
def test_bad_extensions_value_is_a_one_line_refusal(
    server: Server, timed_game: str, value: str
) -> None:
    status, _, body = fetch(f"{server.url}/api/games/{timed_game}/record?extensions={value}")
    assert status == 422
    err = json.loads(body)
    assert err["code"] == "invalid_request"
    assert "extensions" in err["detail"] and "\n" not in err["detail"]
    assert "'all'" in err["detail"] and "'none'" in err["detail"]


def test_game_page_offers_both_downloads(
    server: Server, page: Page, timed_game: str, tmp_path: Path
) -> None:
    page.goto(f"{server.url}/?game={timed_game}")
    for where in ("#log-panel", ".end-panel"):
        box = page.locator(where)
        full_link = box.get_by_role("link", name="Download the record", exact=True)
        plain_link = box.get_by_role("link", name="Record for older programs", exact=True)
        with page.expect_download() as d:
            full_link.click()
        full = json.loads(Path(d.value.path()).read_text())
        assert d.value.suggested_filename == f"kerala-{timed_game}.json"
        with page.expect_download() as d:
            plain_link.click()
        plain = json.loads(Path(d.value.path()).read_text())
        assert d.value.suggested_filename == f"kerala-{timed_game}-plain.json"
        assert "clock" in full and v1_errors(plain) == [] and plain == plain_record(full)
        assert plain_link.get_attribute("title")  # says what the plain form is for
