"""Write tests/data/perft.json: legal-decision counts along fixed lines of play.

Like chess perft files, the fixture pins the move generator down. For each game (a seed, the
players' colors and a line policy) it stores the randomly removed tiles, every round's drawn
tiles, and at every decision point the number of legal decisions and the decision taken (as
docs/notation.md turn JSON, so a replay does not depend on the order of the legal list).

Line policies: ``first`` always takes the first legal decision; ``random`` picks uniformly with
``random.Random(seed)``.

Run from the repository root after a deliberate rules change, and review the diff:

    .venv/bin/python tests/data/make_perft.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kerala.game import Phase, new_game
from kerala.tiles import COLORS

#: (seed, number of players, line policy)
GAMES: tuple[tuple[int, int, str], ...] = (
    (1, 2, "random"),
    (2, 3, "random"),
    (3, 4, "random"),
    (4, 5, "random"),
    (5, 2, "random"),
    (6, 2, "first"),
    (7, 4, "first"),
)


def make_game(seed: int, n: int, policy: str) -> dict[str, Any]:
    colors = random.Random(f"perft:{seed}").sample(COLORS, n)
    pick = random.Random(seed)
    s = new_game(colors, seed=seed)
    while s.phase == Phase.REMOVAL:
        s.sample_draw(s.rng)  # type: ignore[arg-type]
    rounds: list[dict[str, Any]] = []
    while not s.is_over():
        if s.is_chance():
            s.sample_draw(s.rng)  # type: ignore[arg-type]
            if len(s.display) == 1:
                rounds.append({"drawn": [], "points": []})
            rounds[-1]["drawn"].append(s.display[-1].name)
            continue
        legal = s.legal_decisions()
        d = legal[0] if policy == "first" else legal[pick.randrange(len(legal))]
        rounds[-1]["points"].append([len(legal), d.to_json()])
        s.apply(d)
    return {
        "seed": seed,
        "policy": policy,
        "colors": colors,
        "removed": [t.name for t in s.removed],
        "rounds": rounds,
        "totals": [b.total for b in s.scores()],
    }


def render(doc: dict[str, Any]) -> str:
    """JSON with one round per line, so that a changed count shows as a small diff."""
    head = {k: v for k, v in doc.items() if k != "games"}
    parts = [json.dumps(head)[:-1] + ', "games": [']
    for gi, g in enumerate(doc["games"]):
        meta = {k: v for k, v in g.items() if k != "rounds"}
        parts.append(" " + json.dumps(meta)[:-1] + ', "rounds": [')
        for ri, r in enumerate(g["rounds"]):
            comma = "," if ri < len(g["rounds"]) - 1 else ""
            parts.append("  " + json.dumps(r) + comma)
        parts.append(" ]}" + ("," if gi < len(doc["games"]) - 1 else ""))
    parts.append("]}")
    return "\n".join(parts) + "\n"


def main() -> None:
    doc: dict[str, Any] = {
        "format": "kerala-perft",
        "version": 1,
        "comment": "written by tests/data/make_perft.py; counts verified by tests/test_perft.py",
        "games": [make_game(*g) for g in GAMES],
    }
    out = Path(__file__).with_name("perft.json")
    out.write_text(render(doc))
    points = sum(len(r["points"]) for g in doc["games"] for r in g["rounds"])
    print(f"wrote {out}: {len(GAMES)} games, {points} decision points")


if __name__ == "__main__":
    main()
