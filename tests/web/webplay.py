"""Helpers that play the game page the way a person does: by clicking tiles and cells.

Every turn also checks that what the page offers is exactly the server's legal list: the
tiles it enables, the cells it highlights (the UI must never offer an illegal decision).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Locator, Page

MINE = ".grounds-box.mine"


def game_attr(page: Page, name: str) -> str:
    value = page.get_attribute("#game", f"data-{name}")
    assert value is not None, f"#game has no data-{name}"
    return value


def wait_turn_or_end(page: Page, timeout: float = 60000) -> bool:
    """Wait until it is this page's turn (False) or the game is over (True)."""
    page.wait_for_selector(
        '#game[data-my-turn="1"], #game[data-status="over"]', state="attached", timeout=timeout
    )
    return game_attr(page, "status") == "over"


def wait_decided(page: Page, before: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        "n => document.querySelector('#game').dataset.decisionNumber !== n",
        arg=before,
        timeout=timeout,
    )


def ids_of(page: Page) -> tuple[str, str | None]:
    """The game of the page and its seat's token: the page keeps the token in the tab's
    sessionStorage, never in the address (docs/security.md)."""
    q = parse_qs(urlparse(page.url).query)
    gid, seat = q["game"][0], q.get("seat", [None])[0]
    if seat is None:
        return gid, None
    token = page.evaluate("k => sessionStorage.getItem(k)", f"kerala.token.{gid}.{seat}")
    return gid, token


def legal(page: Page) -> list[dict[str, Any]]:
    """The legal decisions the server gives this page's seat right now."""
    gid, token = ids_of(page)
    origin = "{0.scheme}://{0.netloc}".format(urlparse(page.url))
    r = page.request.get(
        f"{origin}/api/games/{gid}", headers={"Authorization": f"Bearer {token}"} if token else {}
    )
    assert r.ok, r.text()
    game = json.loads(r.text())
    return list(game["legal"] or [])


def marked(page: Page, cls: str) -> set[tuple[int, int]]:
    cells = page.locator(f"{MINE} .cell.mark.{cls}")
    out = set()
    for i in range(cells.count()):
        el = cells.nth(i)
        out.add((int(el.get_attribute("data-x") or 0), int(el.get_attribute("data-y") or 0)))
    return out


def cell_at(page: Page, cls: str, c: tuple[int, int]) -> Locator:
    return page.locator(f'{MINE} .cell.mark.{cls}[data-x="{c[0]}"][data-y="{c[1]}"]')


def play_turn(page: Page, used: set[str], pass_after: int = 6) -> str:
    """Play one decision by clicking. ``used`` collects what was exercised:
    ``pass``, ``arch_turn``, ``follow_up``, ``elephant_choice``. Returns what was done."""
    before = game_attr(page, "decision-number")
    phase = game_attr(page, "phase")
    offered = legal(page)
    did = ""
    if phase == "follow_up":
        moves: list[dict[str, Any]] = [
            m for d in offered if (m := d.get("move_elephant") or d.get("move_stack"))
        ]
        sources = marked(page, "source")
        assert sources == {tuple(m["from"]) for m in moves}, "sources differ from the legal list"
        assert any("skip" in d for d in offered) and page.locator("#skip").is_visible()
        if "follow_up" not in used and sources:
            src = sorted(sources)[0]
            cell_at(page, "source", src).click()
            dests = marked(page, "dest")
            assert dests == {tuple(m["to"]) for m in moves if tuple(m["from"]) == src}
            page.locator(f"{MINE} .cell.mark.dest").first.click()
            page.click("#confirm-btn")
            used.add("follow_up")
            did = "follow_up"
        else:
            page.click("#skip")  # a skip is confirmed like every other decision (issue 12)
            assert "Leave out" in page.inner_text("#confirm-text")
            page.click("#confirm-btn")
            did = "skip"
    else:
        tiles = page.locator("#display button:not([disabled])")
        names = [tiles.nth(i).get_attribute("data-tile") for i in range(tiles.count())]
        assert set(names) == {d["take"] for d in offered if "take" in d}, "display differs"
        can_pass = any("pass" in d for d in offered)
        assert page.locator("#pass").count() == (1 if can_pass else 0)
        if "pass" not in used and can_pass and int(before) >= pass_after:
            page.click("#pass")
            assert "Pass" in page.inner_text("#confirm-text")
            page.click("#confirm-btn")
            used.add("pass")
            did = "pass"
        else:
            pick = 0
            specials = [i for i, n in enumerate(names) if n and "move-" in n]
            arches = [i for i, n in enumerate(names) if n and ":arch-" in n]
            if "follow_up" not in used and specials:
                pick = specials[0]
            elif "arch_turn" not in used and arches:
                pick = arches[0]
            take = names[pick]
            tiles.nth(pick).click()
            targets = marked(page, "target")
            assert targets == {tuple(d["to"]) for d in offered if d.get("take") == take}
            froms: dict[tuple[int, int], set[tuple[int, int]]] = {}
            for d in offered:
                if d.get("take") == take:
                    froms.setdefault(tuple(d["to"]), set()).add(tuple(d["from"]))
            double = sorted(c for c, f in froms.items() if len(f) > 1)
            if "elephant_choice" not in used and double:
                # Both elephants could move onto this cell: the page asks which one.
                to = double[0]
                page.locator(
                    f'{MINE} .cell.mark.target[data-x="{to[0]}"][data-y="{to[1]}"]'
                ).click()
                assert page.locator("#elephant-choice button").count() == len(froms[to])
                assert page.locator("#confirm").count() == 0  # nothing to confirm yet
                assert marked(page, "source") == froms[to]
                src = sorted(froms[to])[-1]
                page.locator(
                    f'{MINE} .cell.mark.source[data-x="{src[0]}"][data-y="{src[1]}"]'
                ).click()
                assert f"from ({src[0]}, {src[1]})" in page.inner_text("#confirm-text")
                used.add("elephant_choice")
            else:
                page.locator(f"{MINE} .cell.mark.target").first.click()
                if page.locator("#elephant-choice").count():
                    page.locator("#elephant-choice button").first.click()
            if take and ":arch-" in take and page.locator("#turn-arch").count():
                text = page.inner_text("#confirm-text")
                page.click("#turn-arch")
                assert page.inner_text("#confirm-text") != text, "turning the arch changed nothing"
                used.add("arch_turn")
            page.click("#confirm-btn")
            did = "place"
    wait_decided(page, before)
    return did


# ---- games set up over the API (for the tests of what the table shows) ------------------------

COLORS = ["blue", "red", "green", "purple", "black"]


def create_game(
    page: Page,
    url: str,
    players: int = 2,
    level: str = "random",
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A game of one human (seat 0, "Asha") against random bots, created over the API (with
    the time control ``clock`` if given)."""
    names = ["Asha", "Ravi", "Meera", "Dev", "Lila"]
    seats = [{"name": "Asha", "color": "blue", "kind": "human"}] + [
        {"name": names[i], "color": COLORS[i], "kind": "bot", "level": level}
        for i in range(1, players)
    ]
    body: dict[str, Any] = {"seats": seats, "removal": "random"}
    if clock is not None:
        body["clock"] = clock
    r = page.request.post(f"{url}/api/games", data=body)
    assert r.status == 201, r.text()
    created: dict[str, Any] = json.loads(r.text())
    inv = created["invites"][0]
    created["token"] = inv["path"].split("token=")[1]
    created["path"] = inv["path"]
    return created


def api_game(page: Page, url: str, gid: str, token: str | None) -> dict[str, Any]:
    r = page.request.get(
        f"{url}/api/games/{gid}", headers={"Authorization": f"Bearer {token}"} if token else {}
    )
    assert r.ok, r.text()
    game: dict[str, Any] = json.loads(r.text())
    return game


def api_play(
    page: Page,
    url: str,
    gid: str,
    token: str,
    until: Any,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Play the human seat over the API (first placement offered) until ``until(game)``."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        g = api_game(page, url, gid, token)
        if until(g) or g["status"] == "over":
            return g
        assert time.monotonic() < deadline, "the game did not get there in time"
        if not g["legal"]:
            time.sleep(0.05)  # the bot's turn
            continue
        places = [d for d in g["legal"] if "take" in d]
        api_decide(page, url, gid, token, (places or g["legal"])[0], g["decision_number"])


def api_decide(
    page: Page, url: str, gid: str, token: str, decision: dict[str, Any], expected: int
) -> None:
    """Submit ``decision`` for the seat of ``token``, the game at ``expected`` decisions."""
    r = page.request.post(
        f"{url}/api/games/{gid}/decisions",
        data={"decision": decision, "expected": expected},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.ok, r.text()
