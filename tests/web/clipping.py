"""What a person cannot read: controls and names cut by their own box, by a box around them that
clips, or by the screen's sides (docs/web.md, "Phones")."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

#: Every control and every name or figure a player reads on the table and the end screen.
READ = ", ".join(
    [
        "header.top label",
        "header.top select",
        "header.top nav a",
        "#game button",
        "#game a.button",
        "#game .seat-name",
        "#game .seat-initials",
        "#game .live-score",
        "#game .breakdown",
        "#game .status-line > span",
        "#game .prompt",
        "#game #confirm-text",
        "#game .taker",
        "#game table.sheet th",
        "#game table.sheet td",
        "#game .winner",
        "#game .rematch-offer > span",
    ]
)

CLIPPED = (Path(__file__).with_name("clipping.js")).read_text(encoding="utf-8")


def clipped(page: Page, selector: str = READ) -> list[str]:
    """Each element of ``selector`` that is not wholly readable, with why."""
    found: list[str] = page.evaluate(CLIPPED, selector)
    return found
