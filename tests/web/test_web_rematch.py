"""Issue 11 part 4, "Lobby and rematch": after the end, "Rematch" offers everyone a new game with
the same players and settings, the seat order rotated so that the bag passes on.

The end screen's Rematch asks the server (``POST /api/games/{id}/rematch``) with the page's own
token: the first ask makes the one rematch, and every person's token holds their seat in it. The
other players' pages are offered it ("Play the rematch", with their own token), live through the
old game's ``rematch`` event or when they open the finished game later; a watcher gets a link to
watch it (docs/web.md, "The end").
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Browser, Page
from webplay import api_game, game_attr, ids_of, play_turn, wait_turn_or_end
from webserver import DESKTOP, Server, shot


def finished_game(page: Page, url: str) -> tuple[str, dict[int, str], dict[int, str]]:
    """A game of two people, Asha (seat 0) and Bo (seat 1), played to the end over the API:
    its id, each seat's token and each seat's invite path."""
    r = page.request.post(
        f"{url}/api/games",
        data={
            "seats": [
                {"name": "Asha", "color": "blue", "kind": "human"},
                {"name": "Bo", "color": "green", "kind": "human"},
            ]
        },
    )
    assert r.status == 201, r.text()
    created = json.loads(r.text())
    gid: str = created["id"]
    paths = {i["seat"]: i["path"] for i in created["invites"]}
    tokens = {s: parse_qs(urlparse(p).fragment)["token"][0] for s, p in paths.items()}
    while True:  # both people play their first placement offered
        g = api_game(page, url, gid, None)
        if g["status"] == "over":
            return gid, tokens, paths
        seat = g["to_move"]
        mine = api_game(page, url, gid, tokens[seat])
        d = next((x for x in mine["legal"] if "take" in x), mine["legal"][0])
        r = page.request.post(
            f"{url}/api/games/{gid}/decisions",
            data={"decision": d, "expected": mine["decision_number"]},
            headers={"Authorization": f"Bearer {tokens[seat]}"},
        )
        assert r.ok, r.text()


def query(page: Page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def seated_in(page: Page, server: Server, gid: str) -> dict[str, Any]:
    """Wait until the page shows game ``gid`` with a token, and answer that token's Game."""
    page.wait_for_url(re.compile(r"[?&]game=" + re.escape(gid) + r"(&|$)"))
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    _, token = ids_of(page)
    assert token, f"the page opened the rematch without a seat: {page.url}"
    return api_game(page, server.url, gid, token)


def test_rematch_offered_to_every_player_with_their_own_token(
    server: Server, browser: Browser, page: Page
) -> None:
    gid, tokens, paths = finished_game(page, server.url)
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    errors: list[str] = []
    try:
        asha, bo, watcher = (c.new_page() for c in contexts)
        for p in (asha, bo, watcher):
            p.set_default_timeout(15000)
            p.on("pageerror", lambda e: errors.append(str(e)))
        asha.goto(server.url + paths[0])
        bo.goto(server.url + paths[1])
        for p in (asha, bo):
            p.wait_for_selector("#end table.sheet")
        assert bo.locator("#rematch-offer").count() == 0  # nothing is offered before the ask

        # Asha asks: the server makes the rematch and her page opens it with her own token.
        asha.click("#rematch")
        asha.wait_for_url(re.compile(r"[?&]game=(?!" + re.escape(gid) + r"(&|$))"))
        new = query(asha)["game"]
        a = seated_in(asha, server, new)
        assert ids_of(asha)[1] == tokens[0], "Asha's token holds her seat in the rematch"
        # The same players, rotated by one: Bo holds the bag first this time (G1).
        assert [p["name"] for p in a["players"]] == ["Bo", "Asha"]
        assert a["seat"] == 1 and a["status"] == "playing" and a["to_move"] == 0

        # Bo's page, open on the old game, hears of it live (the old game's rematch event) and
        # offers it; playing it opens the rematch with Bo's own token.
        bo.wait_for_selector("#rematch-offer")
        assert "Rematch offered by Asha" in bo.inner_text("#rematch-offer")
        shot(bo, "rematch-offered", full_page=False)
        bo.click("#play-rematch")
        b = seated_in(bo, server, new)
        assert ids_of(bo)[1] == tokens[1], "Bo's token holds his seat in the rematch"
        assert b["seat"] == 0

        # A watcher opening the finished game later is shown a link to watch the rematch.
        watcher.goto(f"{server.url}/?game={gid}")
        watcher.wait_for_selector("#end table.sheet")
        link = watcher.locator("#watch-rematch")
        link.wait_for()
        assert watcher.locator("#play-rematch").count() == 0
        assert watcher.locator("#rematch").count() == 0
        href = link.get_attribute("href") or ""
        assert "token" not in href and parse_qs(urlparse(href).query)["game"] == [new]
        link.click()
        watcher.wait_for_url(re.compile(r"[?&]game=" + re.escape(new)))
        watcher.wait_for_selector("#game[data-decision-number]", state="attached")
        assert "watching" in watcher.inner_text("#prompt").lower()

        # Each page plays its own seat of the rematch: Bo first, then Asha.
        played = {"asha": 0, "bo": 0}
        used: dict[str, set[str]] = {"asha": set(), "bo": set()}
        for _ in range(12):
            if min(played.values()) >= 1:
                break
            pages = {"asha": asha, "bo": bo}
            name = next((n for n, p in pages.items() if game_attr(p, "my-turn") == "1"), None)
            if name is None:
                assert not wait_turn_or_end(asha if played["bo"] else bo)
                continue
            assert game_attr(pages["bo" if name == "asha" else "asha"], "my-turn") == "0"
            play_turn(pages[name], used[name], pass_after=10**6)
            played[name] += 1
        assert played["bo"] >= 1 and played["asha"] >= 1, played
        g = api_game(page, server.url, new, None)
        seats = {d["seat"] for r in g["view"]["decisions"] for d in r["turns"]}
        assert seats == {0, 1}
        # Asking again (here with Bo's token) answers the same rematch, never a second one.
        r = page.request.post(
            f"{server.url}/api/games/{gid}/rematch",
            headers={"Authorization": f"Bearer {tokens[1]}"},
        )
        assert r.ok and json.loads(r.text())["id"] == new
    finally:
        for c in contexts:
            c.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


def test_a_player_opening_the_finished_game_later_is_offered_the_rematch(
    server: Server, page: Page
) -> None:
    """The offer needs no live socket: a page that opens the finished game after the rematch
    was made (its own link, its own token) shows it too, and plays it with its own token."""
    gid, tokens, paths = finished_game(page, server.url)
    r = page.request.post(
        f"{server.url}/api/games/{gid}/rematch", headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert r.ok, r.text()
    new = json.loads(r.text())["id"]
    page.goto(server.url + paths[1])
    page.wait_for_selector("#end table.sheet")
    page.wait_for_selector("#rematch-offer")
    assert page.locator("#rematch").count() == 0  # the one rematch is offered, not a second ask
    page.click("#play-rematch")
    b = seated_in(page, server, new)
    assert ids_of(page)[1] == tokens[1]
    assert b["seat"] == 0 and [p["name"] for p in b["players"]] == ["Bo", "Asha"]
    assert not wait_turn_or_end(page)  # Bo holds the bag first and can play
