"""The tutorial, "Learn to play" (docs/web.md, "Tutorial"): finished in English and in German by
playing every step on the table as a person does, each turn checked by the engine before going
on; a wrong move or answer is told and tried again; nothing is cut at phone and laptop sizes;
it ends in a first game against the easiest bot with hints on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clipping import READ, clipped
from playwright.sync_api import Browser, BrowserContext, Page, Route, ViewportSize
from webplay import MINE
from webserver import Server, shot

I18N = Path(__file__).resolve().parents[2] / "src" / "kerala" / "server" / "static" / "i18n"
SIZES: dict[str, ViewportSize] = {
    "360": {"width": 360, "height": 640},
    "390": {"width": 390, "height": 844},
    "1366": {"width": 1366, "height": 768},
}
LESSON = ", ".join(
    [READ, "#lesson h1", "#lesson button", "#lesson a.button", "#tutorial-step", "#lesson td"]
)


def words(lang: str) -> dict[str, str]:
    found: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return found


def new_page(browser: Browser, size: ViewportSize, lang: str) -> tuple[BrowserContext, Page]:
    touch = size["width"] < 900
    ctx = browser.new_context(
        viewport=size, has_touch=touch, is_mobile=touch, locale="de-DE" if lang == "de" else "en-US"
    )
    ctx.set_default_timeout(20000)
    return ctx, ctx.new_page()


def post(page: Page, url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = page.request.post(f"{url}/api/tutorial/{path}", data=body)
    assert r.ok, r.text()
    out: dict[str, Any] = json.loads(r.text())
    return out


def turn_for(page: Page, url: str, step: str, want: str) -> list[dict[str, Any]]:
    """Decisions of the learner that the server judges ``want`` ("passed" or "failed")."""
    start = post(page, url, f"{step}/play", {"decisions": []})
    for d in start["game"]["legal"]:
        r = post(page, url, f"{step}/play", {"decisions": [d]})
        if r["outcome"] == want:
            return [d]
        if r["outcome"] == "playing":
            for f in r["game"]["legal"]:
                if post(page, url, f"{step}/play", {"decisions": [d, f]})["outcome"] == want:
                    return [d, f]
    raise AssertionError(f"no turn of step {step} is judged {want}")


def click_cell(page: Page, cls: str, c: list[int]) -> None:
    page.locator(f'{MINE} .cell.mark.{cls}[data-x="{c[0]}"][data-y="{c[1]}"]').click()


def decide(page: Page, d: dict[str, Any], lang: str) -> None:
    """Make decision ``d`` by clicking, as a person does, and confirm it."""
    page.wait_for_selector('#game[data-my-turn="1"]', state="attached")
    if "pass" in d:
        page.click("#pass")
    elif "skip" in d:
        page.click("#skip")
    elif "take" in d:
        page.click(f'#display button[data-tile="{d["take"]}"]')
        click_cell(page, "target", d["to"])
        if page.locator("#elephant-choice").count():
            click_cell(page, "source", d["from"])
        if "arch" in d:
            edge = words(lang)[f"edge.{d['arch']}"]
            for _ in range(4):
                if edge in (page.get_attribute("#turn-arch", "aria-label") or ""):
                    break
                page.click("#turn-arch")
            assert edge in (page.get_attribute("#turn-arch", "aria-label") or "")
    else:
        m = d.get("move_elephant") or d["move_stack"]
        click_cell(page, "source", m["from"])
        click_cell(page, "dest", m["to"])
    page.click("#confirm-btn")


def wait_result(page: Page, text: str) -> None:
    page.wait_for_function(
        "t => (document.querySelector('#tutorial-result') || {}).textContent?.includes(t)",
        arg=text,
    )


def wait_step(page: Page, title: str) -> None:
    page.wait_for_function(
        "t => (document.querySelector('#tutorial-title') || {}).textContent === t", arg=title
    )


def no_raw_keys(page: Page) -> None:
    text = page.inner_text("#tutorial")
    assert "tutorial." not in text, text


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_tutorial_is_finished_step_by_step_then_a_first_game_with_hints(
    server: Server, browser: Browser, lang: str
) -> None:
    w = words(lang)
    ctx, page = new_page(browser, SIZES["1366"], lang)
    try:
        page.goto(server.url + "/#/learn")
        page.click("#tutorial-start:not([disabled])")
        steps = json.loads(page.request.get(f"{server.url}/api/tutorial").text())["steps"]
        assert len(steps) >= 9
        for k, s in enumerate(steps):
            sid = s["id"]
            wait_step(page, w[f"tutorial.{sid}.title"])
            assert page.inner_text("#tutorial-step") == w["tutorial.stepOf"].format(
                n=k + 1, of=len(steps)
            )
            no_raw_keys(page)
            if s["kind"] == "play":
                if k == 0:
                    # A turn that does not do what the step asks is told, and tried again.
                    for d in turn_for(page, server.url, sid, "failed"):
                        decide(page, d, lang)
                    wait_result(page, w[f"tutorial.{sid}.retry"])
                    page.click("#tutorial-retry")
                    page.wait_for_selector("#tutorial-result", state="detached")
                for d in turn_for(page, server.url, sid, "passed"):
                    decide(page, d, lang)
                wait_result(page, w[f"tutorial.{sid}.done"])
            else:
                figure = post(page, server.url, f"{sid}/answer", {"answer": s["options"][0]})
                right = figure["score"][s["field"]]
                wrong = next(v for v in s["options"] if v != right)
                page.click(f'.quiz-option[data-answer="{wrong}"]')
                wait_result(page, w["tutorial.wrong"])
                page.click(f'.quiz-option[data-answer="{right}"]')
                wait_result(page, w["tutorial.right"])
            no_raw_keys(page)
            page.click("#tutorial-next")
        page.wait_for_selector("#tutorial-play")
        assert page.inner_text("#lesson h1") == w["tutorial.endTitle"]
        levels = json.loads(page.request.get(f"{server.url}/api/bots").text())["levels"]
        page.click("#tutorial-play")
        page.wait_for_url("**/?game=*")
        page.wait_for_selector('#game[data-my-turn="1"]', state="attached")
        gid = page.url.split("game=")[1].split("&")[0]
        game = json.loads(page.request.get(f"{server.url}/api/games/{gid}").text())
        assert game["hints"] is True
        assert game["players"][1]["kind"] == "bot"
        assert game["players"][1]["bot"] == levels[0]["name"] == "random"
        # The hint button comes once the page knows the server's hint route (a request of
        # its own), which may answer after the turn is shown.
        page.wait_for_selector("#hint", state="visible")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("size", list(SIZES), ids=[f"{s}px" for s in SIZES])
def test_no_control_or_word_of_the_tutorial_is_cut(
    server: Server, browser: Browser, size: str, lang: str
) -> None:
    ctx, page = new_page(browser, SIZES[size], lang)
    width = SIZES[size]["width"]
    try:
        page.goto(server.url + "/#/learn")
        page.wait_for_selector("#tutorial-start:not([disabled])")
        assert clipped(page, LESSON) == [], "the introduction"
        # The arch step's confirm step: Turn, Back and Confirm in the action bar.
        page.goto(server.url + "/#/learn?step=arch")
        page.wait_for_selector('#game[data-my-turn="1"]', state="attached")
        assert clipped(page, LESSON) == [], "a step on the table"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.click("#display button[data-tile*=':arch-']")
        page.locator(f"{MINE} .cell.mark.target").first.click()
        if page.locator("#elephant-choice").count():
            page.locator("#elephant-choice button").first.click()
        page.wait_for_selector("#turn-arch")
        assert clipped(page, LESSON) == [], "the confirm step of the arch"
        shot(page, f"tutorial-arch-{size}-{lang}", full_page=False)
        # A question answered: the choices, the verdict and the score sheet.
        page.goto(server.url + "/#/learn?step=total")
        page.click('.quiz-option[data-answer="5"]')
        page.wait_for_selector("#tutorial-result")
        assert clipped(page, LESSON) == [], "a question answered"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.goto(server.url + "/#/learn?step=end")
        page.wait_for_selector("#tutorial-play")
        assert clipped(page, LESSON) == [], "the end of the tutorial"
    finally:
        ctx.close()


def test_home_and_header_lead_to_the_tutorial(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.click("#learn-link")
    page.wait_for_selector("#tutorial-start")
    page.goto(server.url + "/#/rules")
    page.click('header nav a[data-nav="learn"]')
    page.wait_for_selector("#tutorial-start")
    assert page.get_attribute('header nav a[data-nav="learn"]', "aria-current") == "page"


def test_a_page_still_loading_never_mounts_over_the_page_asked_for_after_it(
    server: Server, page: Page
) -> None:
    # The rules page's module is held back: the tutorial, asked for meanwhile, comes first.
    held: list[Route] = []
    page.route("**/static/js/rulespage.js*", lambda route: held.append(route))
    page.goto(server.url + "/")
    page.wait_for_selector("#learn-link")
    with page.expect_request(lambda r: "rulespage.js" in r.url):
        page.evaluate("location.hash = '#/rules'")
    page.click('header nav a[data-nav="learn"]')
    page.wait_for_selector("#tutorial-start")
    assert len(held) == 1
    held[0].continue_()
    # Once the held module has run, the older route has had its turn: it must not mount.
    page.evaluate("import('/static/js/rulespage.js').then(() => new Promise((r) => setTimeout(r)))")
    assert page.get_attribute('header nav a[data-nav="learn"]', "aria-current") == "page"
    assert page.get_attribute('header nav a[data-nav="rules"]', "aria-current") is None
    assert page.evaluate("document.body.dataset.page") == "learn"
    assert page.locator("#tutorial-start").count() == 1
