"""English and German (issue 12, "Languages"): one catalogue per language, complete, chosen from
the browser's language and switchable; the German page shows no English words."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Browser
from webplay import api_play, create_game
from webserver import DESKTOP, Server, shot

STATIC = Path(__file__).resolve().parents[2] / "src" / "kerala" / "server" / "static"
LANGS = ("en", "de")


def catalogue(lang: str) -> dict[str, str]:
    doc = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and all(isinstance(v, str) and v for v in doc.values())
    return doc


def keys_in_code() -> set[str]:
    """Every literal key the code and the markup ask for (t("…"), data-i18n="…")."""
    keys: set[str] = set()
    for f in (STATIC / "js").rglob("*.js"):
        keys |= set(re.findall(r"""\bt\(\s*["']([\w.-]+)["']""", f.read_text(encoding="utf-8")))
        for m in re.findall(r"""\bt\(\s*`([\w.]+)\.\$\{""", f.read_text(encoding="utf-8")):
            keys.add(m + ".")  # a family of keys, e.g. color.${c}: some key must start so
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    keys |= set(re.findall(r'data-i18n(?:-[\w-]+)?="([\w.-]+)"', html))
    return keys


def test_every_key_is_in_both_languages() -> None:
    en, de = catalogue("en"), catalogue("de")
    assert sorted(set(en) - set(de)) == [], "missing in German"
    assert sorted(set(de) - set(en)) == [], "missing in English"
    for k in keys_in_code():
        if k.endswith("."):
            assert any(x.startswith(k) for x in en), f"no key starts with {k!r}"
        else:
            assert k in en, f"the code uses {k!r}, which is in no catalogue"
    # Placeholders agree: a translation may not drop or invent a {name}.
    for k, v in en.items():
        assert set(re.findall(r"\{(\w+)\}", v)) == set(re.findall(r"\{(\w+)\}", de[k])), k


def keys_in(name: str) -> set[str]:
    """The literal keys one module asks for, families (`calc.edgeShort.${e}`) ending in a dot."""
    code = (STATIC / "js" / name).read_text(encoding="utf-8")
    keys = set(re.findall(r"""\bt\(\s*["']([\w.-]+)["']""", code))
    keys |= {m + "." for m in re.findall(r"""\bt\(\s*`([\w.]+)\.\$\{""", code)}
    return keys


def code_only(path: Path) -> str:
    """A module's code without its // comments (which may quote the words they describe)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


def test_calculator_and_clock_words_are_in_both_catalogues() -> None:
    """Issue 12: the score calculator (calc.js) and the game clocks (clock.js) take every word
    from the catalogues (keys calc.* and clock.*), in both languages, and hold no word list of
    their own; every calc.*/clock.* key in the catalogues is used."""
    en, de = catalogue("en"), catalogue("de")
    for module, prefix in (("calc.js", "calc."), ("clock.js", "clock.")):
        used = keys_in(module)
        assert used, f"{module} asks the catalogue for nothing"
        assert all(k.startswith(prefix) or "." in k for k in used)
        for lang, words in (("en", en), ("de", de)):
            for k in used:
                if k.endswith("."):
                    assert any(x.startswith(k) for x in words), f"{lang}: no key starts with {k!r}"
                else:
                    assert k in words, f"{module} uses {k!r}, missing in {lang}"
        exact = {k for k in used if not k.endswith(".")}
        families = [k for k in used if k.endswith(".")]
        unused = [
            k
            for k in en
            if k.startswith(prefix)
            and k not in exact
            and not any(k.startswith(f) for f in families)
        ]
        assert unused == [], f"keys no code uses: {unused}"
    clock, calc = (code_only(STATIC / "js" / m) for m in ("clock.js", "calc.js"))
    assert "LABELS" not in clock and "Take my seat back" not in clock
    for english in ("Score calculator", "Scoring pad", "Start over", "Not JSON", "Cannot import"):
        assert english not in calc, english


def test_the_markup_holds_no_words() -> None:
    """Nothing hard-coded in index.html: every text node is filled from the catalogue."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    body = html.split("<body>")[1]
    texts = [t.strip() for t in re.findall(r">([^<]+)<", body)]
    # The brand name and the languages' own names are the same in every language.
    assert [t for t in texts if t and t not in {"Kerala", "English", "Deutsch"}] == []


def english_fragments() -> set[str]:
    """Pieces of English catalogue text that the German catalogue never uses."""
    en, de = catalogue("en"), catalogue("de")
    german = " ".join(de.values())
    out = set()
    for v in en.values():
        for frag in re.split(r"\{\w+\}", v):
            frag = frag.strip(" .,:;()!?…—-")
            if len(frag) >= 5 and " " in frag and frag not in german:
                out.add(frag)
    return out


#: docs/rules.md's worked example as a text grid (docs/terminal.md): it has surplus cells, so
#: the calculator shows every row of the scoring pad and the crossed-out note.
WORKED_EXAMPLE_GRID = """\
Bs  B3 B2 K3  .     .
P^b P3 P3 P3  P2    .
G3z G3 G2 R2  R^p   K1
.   .  .  R2@ B1/G1 .
"""

#: The page's visible text plus every title and aria-label (the language menu left out).
PAGE_WORDS = (
    "() => { const c = document.body.cloneNode(true);"
    " c.querySelector('#lang').remove(); return c.innerText + ' ' +"
    " [...document.querySelectorAll('[title],[aria-label]')]"
    ".map(e => (e.title || '') + ' ' + (e.getAttribute('aria-label') || ''))"
    ".join(' '); }"
)


def test_german_pages_have_no_english_strings(server: Server, browser: Browser) -> None:
    """The browser says German: home, game table, rules, replay and the score calculator (with
    a scored text grid, so the scoring pad's rows show) are in German only."""
    ctx = browser.new_context(viewport=DESKTOP, locale="de-DE")
    try:
        page = ctx.new_page()
        created = create_game(page, server.url, 3)
        api_play(
            page, server.url, created["id"], created["token"], lambda g: g["decision_number"] >= 9
        )
        english = english_fragments()
        assert len(english) > 100
        visited = [
            ("/", "#setup"),
            (created["path"], ".live-score[data-score]:not([data-score=''])"),
            ("/#/rules", "#rules"),
            (f"/#/replay?game={created['id']}", "#replay-at"),
        ]
        for path, ready in visited:
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            assert page.get_attribute("html", "lang") == "de"
            text = page.evaluate(PAGE_WORDS)
            found = sorted(f for f in english if f in text)
            assert found == [], f"English on {path}: {found}"
        # The score calculator, with the worked example read from a text grid and scored.
        page.goto(server.url + "/#/calc")
        page.wait_for_selector("#calc-score table.sheet")
        assert page.get_attribute("html", "lang") == "de"
        page.fill("#calc-grid", WORKED_EXAMPLE_GRID)
        page.click("#calc-grid-read")
        page.wait_for_function(
            "() => document.querySelector(`#calc-score tr[data-row='total'] td`)"
            "?.textContent === '+37'"
        )
        page.wait_for_selector("#calc-score p.muted")  # the crossed-out note (SC1)
        text = page.evaluate(PAGE_WORDS)
        found = sorted(f for f in english if f in text)
        assert found == [], f"English on the calculator: {found}"
        assert "Punkterechner" in page.inner_text("h1")
        assert "Summe" in page.inner_text("#calc-score")
        assert "Textraster gelesen." in page.inner_text("#toasts")
        assert page.inner_text(".edge[data-edge='E']") == "O"
        page.goto(server.url + created["path"])
        page.wait_for_selector(".live-score[data-score]:not([data-score=''])")
        assert "Du bist dran" in page.inner_text("#turn") or "ist dran" in page.inner_text("#turn")
        assert page.get_attribute("#clock", "aria-label") == "Uhren"  # clock.js's words too
        shot(page, "game-german", full_page=False)
    finally:
        ctx.close()


def test_language_follows_the_browser_and_can_be_switched(server: Server, browser: Browser) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#setup")
        assert page.inner_text("#setup h2") == "Set up a game"
        page.select_option("#lang", "de")
        page.wait_for_function(
            "() => document.querySelector('#setup h2')?.textContent === 'Ein Spiel einrichten'"
        )
        assert page.inner_text("nav").split()[0] == "Spielen"
        page.reload()
        page.wait_for_selector("#setup")
        assert page.inner_text("#setup h2") == "Ein Spiel einrichten"  # remembered
        page.select_option("#lang", "en")
        page.wait_for_function(
            "() => document.querySelector('#setup h2')?.textContent === 'Set up a game'"
        )
    finally:
        ctx.close()
