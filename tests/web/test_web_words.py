"""The words of the interface: no rule ids or file names, the server's refusals in the page's
language (each refusal code has catalogue words), German that means what it says, and cells
named the same way on the board (coordinates on demand) and in the log (docs/web.md)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, Page
from webplay import api_decide, api_game, wait_turn_or_end
from webserver import DESKTOP, ROOT, Server

STATIC = ROOT / "src" / "kerala" / "server" / "static"
SERVER = ROOT / "src" / "kerala" / "server"
#: A rule id of docs/rules.md (SC1, I2, G3, …) or a file of the project.
RULE_ID = re.compile(r"\b(?:SC|SP|S|G|P|I|R)\d+\b")
#: The calculator's text-grid help shows the notation itself ("G2" is two green elephants).
NOTATION = ("calc.grid",)
FILE_NAME = re.compile(r"\bdocs/|\b[\w-]+\.(?:md|py|js|toml)\b")


def catalogue(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return words


def refusal_codes() -> set[str]:
    """Every refusal code the server can send (docs/api.md): its domain errors' codes, the
    codes of its ``ApiError``s and JSON refusals, and those of plain HTTP statuses."""
    codes: set[str] = set()
    for path in SERVER.rglob("*.py"):
        text = path.read_text("utf-8")
        codes |= set(re.findall(r'\bcode = "([a-z_]+)"', text))
        codes |= set(re.findall(r'ApiError\(\s*\d+,\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'"code": "([a-z_]+)"', text))
        block = re.search(r"_HTTP_CODES = \{(.*?)\}", text, re.S)
        if block:
            codes |= set(re.findall(r'"([a-z_]+)"', block.group(1)))
    return codes


def test_no_rule_ids_or_file_names_in_the_interface() -> None:
    html = (STATIC / "index.html").read_text("utf-8")
    for lang in ("en", "de"):
        for key, text in catalogue(lang).items():
            if not key.startswith(NOTATION):
                assert not RULE_ID.search(text), f"{lang} {key}: {text}"
            assert not FILE_NAME.search(text), f"{lang} {key}: {text}"
    assert not RULE_ID.search(re.sub(r"<[^>]+>", "", html))


def test_every_refusal_code_has_words_in_both_languages() -> None:
    codes = refusal_codes()
    assert {"stale", "illegal", "not_your_turn", "bad_token", "not_found"} <= codes
    for lang in ("en", "de"):
        words = catalogue(lang)
        missing = sorted(c for c in codes if f"refusal.{c}" not in words)
        assert missing == [], f"{lang}: no words for {missing}"


def test_refusals_are_shown_in_the_pages_language(server: Server, browser: Browser) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="de-DE")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/?game=no-such-game")
        page.wait_for_selector("#game-error")
        text = page.inner_text("#game-error")
        assert text.startswith("Nicht gefunden: dieses Spiel gibt es nicht"), text
        # A refused setup (an empty name): German words, no English message of the server.
        page.goto(server.url + "/")
        page.wait_for_selector("#setup")
        page.fill("[data-seat='0'] [data-field='name']", "")
        page.click("#create")
        page.wait_for_selector(".toast .msg")
        toast = page.locator(".toast .msg").last.inner_text()
        assert toast == "Abgelehnt: ein Teil der Eingaben ist ungültig", toast
    finally:
        ctx.close()


def test_german_words_mean_what_they_say() -> None:
    de = catalogue("de")
    # "Wiederholung" reads as "play again": replaying a game is "nachspielen".
    assert not [k for k, v in de.items() if "iederhol" in v]
    assert de["nav.replay"] == "Nachspielen"
    # The bot's name is not followed by "(Bot)": a bot called "Bot" read "Bot (Bot) überlegt…".
    for lang in ("en", "de"):
        assert "bot" not in catalogue(lang)["prompt.botThinking"].lower()
    # The strongest level is the expert; no level listed after it is called strong.
    assert "stärkste" in de["level.expert.tip"]
    assert "stark" not in de["level.mcts"] and "strong" not in catalogue("en")["level.mcts"]
    # Who starts, not the bag's jargon.
    assert catalogue("en")["home.first"] == "Who starts" and de["home.first"] == "Wer beginnt"


def test_the_level_list_names_no_level_stronger_than_the_strongest(
    server: Server, page: Page
) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-level option[value='expert']", state="attached")
    names = page.locator("#quick-level option").all_inner_texts()
    after = names[names.index("expert") + 1 :]
    assert not [n for n in after if "strong" in n], names


def play_until_a_stack_moved(page: Page, url: str) -> str:
    """A game of two people, both played here over the API, until a stack (SP2) has moved off
    a cell that a placement filled and that cell is still empty, at least eight decisions in.
    Each seat takes a "move a stack" tile and moves a placed stack whenever it can. Returns
    the first seat's path, on its turn."""
    seats = [
        {"name": name, "color": color, "kind": "human"}
        for name, color in (("Asha", "blue"), ("Ravi", "red"))
    ]
    # The 20 tiles taken out (S3) are plain ones, so all five "move a stack" tiles are in play.
    removed = ["green:e1"] * 6 + ["green:e2"] * 5 + ["green:e3"] * 3 + ["purple:e1"] * 6
    body = {"seats": seats, "removal": "chosen", "removed": removed}
    r = page.request.post(f"{url}/api/games", data=body)
    assert r.status == 201, r.text()
    created = json.loads(r.text())
    gid = created["id"]
    tokens = [inv["path"].split("token=")[1] for inv in created["invites"]]
    # Grounds that grow compact, a new cell at a time, soon hold a stack that can move; the
    # cells moved off are not filled again.
    cells: list[set[tuple[int, int]]] = [{(0, 0)}, {(0, 0)}]
    vacated: list[set[tuple[int, int]]] = [set(), set()]

    def neighbours(seat: int, at: tuple[int, int]) -> int:
        x, y = at
        return sum((x + dx, y + dy) in cells[seat] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    while True:
        games = [api_game(page, url, gid, tok) for tok in tokens]
        game = games[0]
        assert game["status"] == "playing", "the game ended before a placed stack could move"
        if any(vacated) and game["decision_number"] >= 8 and game["legal"]:
            return str(created["invites"][0]["path"])
        seat = 0 if game["legal"] else 1
        legal = games[seat]["legal"]
        stack_moves = [
            d for d in legal if "move_stack" in d and tuple(d["move_stack"]["from"]) != (0, 0)
        ]
        places = sorted(
            (d for d in legal if "take" in d),
            key=lambda d: (
                tuple(d["to"]) in vacated[seat],
                not str(d["take"]).endswith(":move-tile"),
                tuple(d["to"]) in cells[seat],
                -neighbours(seat, tuple(d["to"])),
                abs(d["to"][0]) + abs(d["to"][1]),
            ),
        )
        d = (stack_moves or places or legal)[0]
        if "take" in d:
            cells[seat].add(tuple(d["to"]))
            vacated[seat].discard(tuple(d["to"]))
        if "move_stack" in d:
            source, target = tuple(d["move_stack"]["from"]), tuple(d["move_stack"]["to"])
            cells[seat].discard(source)
            vacated[seat].add(source)
            cells[seat].add(target)
            vacated[seat].discard(target)
        api_decide(page, url, gid, tokens[seat], d, game["decision_number"])


def test_coordinates_label_every_cell_as_the_log_names_them(server: Server, page: Page) -> None:
    page.goto(server.url + play_until_a_stack_moved(page, server.url))
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    assert not wait_turn_or_end(page)
    assert page.locator(".table .coord-tag").count() == 0  # off by default
    page.click("#coords")
    page.wait_for_selector("#coords[aria-pressed='true']")
    stacks = page.locator(".table .cell.stack")
    assert stacks.count() > 4
    labels: dict[str, set[str]] = {}
    for i in range(stacks.count()):
        cell = stacks.nth(i)
        x, y = cell.get_attribute("data-x"), cell.get_attribute("data-y")
        text = cell.locator(".coord-tag text").text_content()
        assert text == f"({x}, {y})", text
        seat = cell.evaluate("e => e.closest('.grounds-box').dataset.seat")
        labels.setdefault(seat, set()).add(text)
    # Every cell the log names as holding a stack is labelled so on that player's board. The
    # log is read in order: a placement fills its cell, and a later SP2 move carries the stack
    # away, so the cell it names then is the one the stack went to.
    lines = page.locator("#log li[data-seat]")
    held: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    moves = 0
    at = r"(\(-?\d+, -?\d+\))"
    for i in range(lines.count()):
        li = lines.nth(i)
        seat = li.get_attribute("data-seat") or ""
        text = li.inner_text()
        if m := re.search(rf"moved the stack at {at} to {at}", text):
            # The start tile's stack may move too: it has no placement line.
            held.setdefault(seat, set()).discard(m.group(1))
            held[seat].add(m.group(2))
            moves += 1
        elif m := re.search(rf"placed the .*? at {at}", text):
            held.setdefault(seat, set()).add(m.group(1))
            named.setdefault(seat, set()).add(m.group(1))
    assert sum(map(len, named.values())) >= 4 and moves >= 1
    for seat, cells in held.items():
        assert cells <= labels[seat], (seat, cells, labels[seat])
    # A cell a placement named that a stack has left since is no stack on the board.
    left = [(seat, c) for seat, cells in named.items() for c in cells - held[seat]]
    assert left and not [c for seat, c in left if c in labels[seat]], (left, labels)
    page.reload()
    page.wait_for_selector(".table .coord-tag")  # remembered
