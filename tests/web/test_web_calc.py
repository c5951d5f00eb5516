"""The score calculator reproduces docs/rules.md's worked example (000's 37 points) when the
grounds are built by clicking, and imports, exports and refuses documents with messages."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from webserver import PHONE, Server, shot

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "worked_example_37.json"
# docs/rules.md "Worked example from 000": surplus −6, no missing color, 1 standing elephant,
# 2 arches +10, symbols blue 6, purple 11, black 3, green 8, red 4: total 37.
EXPECTED = {
    "total": "+37",
    "surplus": "-6",
    "missing": "0",
    "standing": "+1",
    "arches": "+10",
    "symbols-blue": "+6",
    "symbols-purple": "+11",
    "symbols-black": "+3",
    "symbols-green": "+8",
    "symbols-red": "+4",
}


def row(page: Page, name: str) -> str:
    return page.inner_text(f"#calc-score tr[data-row='{name}'] td")


def wait_row(page: Page, name: str, value: str) -> None:
    page.wait_for_function(
        "([n, v]) => document.querySelector(`#calc-score tr[data-row='${n}'] td`)"
        "?.textContent === v",
        arg=[name, value],
    )


def build_order(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Stacks in an order where each is next to one already built (from the start tile)."""
    by_cell = {tuple(s["at"]): s for s in doc["stacks"]}
    start = next(c for c, s in by_cell.items() if s["tiles"][0].endswith(":start"))
    order, seen, todo = [], {start}, deque([start])
    while todo:
        c = todo.popleft()
        order.append(by_cell[c])
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            n = (c[0] + dx, c[1] + dy)
            if n in by_cell and n not in seen:
                seen.add(n)
                todo.append(n)
    return order


def test_calculator_reproduces_the_37_point_example_by_clicking(server: Server, page: Page) -> None:
    doc = json.loads(EXAMPLE.read_text())
    page.goto(server.url + "/#/calc")
    page.wait_for_selector("#calc-score table.sheet")
    page.select_option("#calc-color", doc["color"])
    page.select_option("#calc-passes", str(doc["passes"]))
    for st in build_order(doc):
        x, y = st["at"]
        for name in st["tiles"]:
            if name.endswith(":start"):
                continue
            base, _, edge = name.partition("@")
            page.click(f".palette [data-tile='{base}']")
            if edge:
                page.click(f".edge[data-edge='{edge}']")
            page.click(f"#calc-grounds .cell[data-x='{x}'][data-y='{y}']")
    wait_row(page, "total", "+37")
    for name, value in EXPECTED.items():
        assert row(page, name) == value, name
    # The surplus cells the engine removed (SC1) are crossed out: 2 cells, -2 per tile, 3 tiles.
    assert page.locator("#calc-grounds .cell.removed").count() == 2
    # The exported document is the example (same stacks, passes and color).
    exported = json.loads(page.input_value("#calc-doc"))
    assert exported["color"] == doc["color"] and exported["passes"] == doc["passes"]
    assert sorted(map(json.dumps, exported["stacks"])) == sorted(map(json.dumps, doc["stacks"]))
    shot(page, "calc-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "calc-phone")


def test_calculator_imports_and_refuses_documents(server: Server, page: Page) -> None:
    page.goto(server.url + "/#/calc")
    page.wait_for_selector("#calc-score table.sheet")
    page.set_input_files("#calc-file", str(EXAMPLE))
    wait_row(page, "total", "+37")
    # Removing a tile updates the pad live: the black 1 at (5, 2) was surplus (-2), now gone.
    page.click("#tool-remove")
    page.click("#calc-grounds .cell[data-x='5'][data-y='2']")
    wait_row(page, "surplus", "-4")
    # A document the rules refuse (more e3 tiles of one color than the set has) is refused
    # by the server with its reason, shown in place of the pad.
    bad = json.loads(EXAMPLE.read_text())
    bad["stacks"].append({"at": [0, 3], "tiles": ["green:e3", "green:e3", "green:e3"]})
    page.fill("#calc-doc", json.dumps(bad))
    page.click("#calc-import")
    page.wait_for_selector("#calc-error")
    err = page.locator("#calc-error").first
    assert "green:e3" in err.inner_text()
    # Not JSON at all: a readable message, nothing changes.
    page.fill("#calc-doc", "{not json")
    page.click("#calc-import")
    page.wait_for_selector(".toast .msg >> text=Not JSON")
    toast = page.locator(".toast .msg >> text=Not JSON").first
    assert toast.is_visible()


# -- issue 14: the text grid, pasted into the calculator ------------------------------------

WORKED_EXAMPLE_GRID = """\
Bs  B3 B2 K3  .     .
P^b P3 P3 P3  P2    .
G3z G3 G2 R2  R^p   K1
.   .  .  R2@ B1/G1 .
"""


def test_text_grid_pasted_scores_37(server: Server, page: Page) -> None:
    page.goto(server.url + "/#/calc")
    page.wait_for_selector("#calc-score table.sheet")
    page.fill("#calc-grid", WORKED_EXAMPLE_GRID)
    page.click("#calc-grid-read")
    wait_row(page, "total", "+37")
    for name, value in EXPECTED.items():
        assert row(page, name) == value, name
    assert page.locator("#calc-grounds .cell.removed").count() == 2
    # The grounds document now holds the same grounds as the rulebook's file.
    doc = json.loads(EXAMPLE.read_text())
    exported = json.loads(page.input_value("#calc-doc"))
    assert exported["color"] == "blue" and exported["passes"] == 1
    assert sorted(map(json.dumps, exported["stacks"])) == sorted(map(json.dumps, doc["stacks"]))
    # A grid with a mistake: the server's message with line and column, nothing changes.
    page.fill("#calc-grid", "Bs  B3\nG2\n")
    page.click("#calc-grid-read")
    page.wait_for_selector("#calc-grid-error:not([hidden])")
    message = page.inner_text("#calc-grid-error")
    assert "line 2, column 3: this row has 1 cells, the first row 2" in message
    assert row(page, "total") == "+37"
    # Pasted into the document box, a text grid is read the same way.
    page.fill("#calc-doc", "Bs@ G2z\n")
    page.click("#calc-import")
    wait_row(page, "total", "-11")
