"""A moved elephant walks from its old cell to its new one, once: it is never drawn anywhere
else, and redraws during the walk (the answer to the move, the bot's reply, new scores) carry
it on instead of starting it again (docs/web.md, "Animations")."""

from __future__ import annotations

import itertools
import math
from typing import Any

from playwright.sync_api import Page
from webplay import MINE, api_game, create_game, game_attr, ids_of, wait_turn_or_end
from webserver import Server

SAMPLE = """() => {
  window.walk = [];
  window.walking = true;
  const loop = () => {
    const el = document.querySelector(
      '.grounds-box.mine .figure.fresh, .grounds-box.mine .figure .motion.fresh');
    if (el && el.getAnimations().length) {
      const r = el.getBoundingClientRect();
      const inv = el.ownerSVGElement.getScreenCTM().inverse();
      const p = new DOMPoint(r.x + r.width / 2, r.y + r.height / 2).matrixTransform(inv);
      window.walk.push({ x: p.x, y: p.y, t: performance.now() });
    }
    if (window.walking) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}"""

#: Where each of the player's figures is drawn, in board units (a cell is 100): the board's
#: view changes when the grounds grow, so screen pixels do not compare across a move.
CENTRES = """() => [...document.querySelectorAll('.grounds-box.mine .figure')].map(f => {
  const r = (f.querySelector('.motion') || f).getBoundingClientRect();
  const inv = f.ownerSVGElement.getScreenCTM().inverse();
  const p = new DOMPoint(r.x + r.width / 2, r.y + r.height / 2).matrixTransform(inv);
  return { x: +f.dataset.x, y: +f.dataset.y, cx: p.x, cy: p.y };
})"""
CELL = 100.0


def off_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """How far ``p`` is from the segment ``a``–``b``."""
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    k = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy or 1.0)))
    return math.dist(p, (ax + k * dx, ay + k * dy))


def test_a_moved_elephant_walks_from_its_old_cell_to_its_new_one_once(
    server: Server, page: Page
) -> None:
    created = create_game(page, server.url)
    page.goto(server.url + created["path"])
    page.wait_for_selector("#game[data-decision-number]", state="attached")
    assert not wait_turn_or_end(page)
    plain = page.locator("#display button:not([disabled]):not([data-tile*='move-'])")
    (plain if plain.count() else page.locator("#display button:not([disabled])")).first.click()
    page.locator(f"{MINE} .cell.mark.target").first.click()
    if page.locator("#elephant-choice").count():
        page.locator("#elephant-choice button").first.click()
    page.wait_for_selector("#confirm-btn")
    before: list[dict[str, Any]] = page.evaluate(CENTRES)
    size = CELL
    n = game_attr(page, "decision-number")
    page.evaluate(SAMPLE)
    page.click("#confirm-btn")
    # Sample until the walk has been over for a while (redraws keep coming meanwhile).
    page.wait_for_function(
        "() => window.walk.length > 0 && performance.now() - window.walk[0].t > 900"
    )
    walk: list[dict[str, float]] = page.evaluate("() => { window.walking = false; return walk; }")
    gid, token = ids_of(page)
    mine = [
        d
        for r in api_game(page, server.url, gid, token)["view"]["decisions"]
        for d in r["turns"]
        if d["seat"] == 0
    ]
    d = mine[int(n) if int(n) < len(mine) else -1]
    assert d.get("take") and d["from"] != d["to"], d
    after: list[dict[str, Any]] = page.evaluate(CENTRES)
    new = next((f["cx"], f["cy"]) for f in after if [f["x"], f["y"]] == d["to"])
    olds = [(f["cx"], f["cy"]) for f in before if [f["x"], f["y"]] == d["from"]]
    assert olds and len(walk) >= 5, (olds, walk)
    first = (walk[0]["x"], walk[0]["y"])
    old = min(olds, key=lambda o: math.dist(o, first))
    assert math.dist(first, old) < 0.3 * size, "the walk does not start on the old cell"
    for p in walk:
        at = (p["x"], p["y"])
        assert off_segment(at, old, new) < 0.3 * size, f"drawn off the way at {at}"
    # Once: the distance still to go never grows (a restart would jump back).
    left = [math.dist((p["x"], p["y"]), new) for p in walk]
    assert all(b <= a + 1.0 for a, b in itertools.pairwise(left)), left
    assert left[-1] < 0.1 * size or len(walk) >= 5
