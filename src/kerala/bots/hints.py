"""Hints: the best few decisions for a player's view.

:func:`suggest` backs the "suggest a move" button: it runs the ``mcts`` bot's search from the
player's view (docs/rules.md I1; nothing hidden is used, I2) for ``budget`` seconds and returns the
best ``k`` decisions with their estimated value, best first. The value is the search's
estimated *win chance* (0–1; a shared first place counts 1/k). With ``budget=0`` it answers at
once from the ``greedy`` evaluation instead, and the value is then in evaluation *points*
(see :mod:`kerala.bots.evaluation`).

Post-game analysis of a record is :mod:`kerala.bots.analysis` (``kerala analyse``).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> tips = suggest(s.view(0), s.legal_decisions(), k=2, budget=0)
>>> len(tips), tips[0][1] >= tips[1][1]
(2, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from kerala.actions import Decision
from kerala.bots.greedy import score_decisions
from kerala.bots.mcts import MCTSBot
from kerala.views import PlayerView

#: Below this share of the most visited decision's visits a search value is too noisy to rank.
_MIN_SHARE = 0.1


def suggest(
    view: PlayerView,
    legal: Sequence[Decision],
    k: int = 3,
    *,
    seed: int | None = None,
    budget: float = 0.5,
) -> list[tuple[Decision, float]]:
    """The best ``k`` decisions of ``legal`` with their estimated value, best first.

    Values never increase down the list. ``budget`` is the search time in seconds (0: the
    instant greedy evaluation, values in points; >0: MCTS, values are win chances 0–1).
    """
    if not legal:
        raise ValueError("no legal decision to suggest from")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    if not budget >= 0:
        raise ValueError(f"budget must be a number of seconds >= 0, got {budget!r}")
    if budget == 0:
        values = score_decisions(view, legal)
        order = sorted(range(len(legal)), key=lambda i: -values[i])
        return [(legal[i], values[i]) for i in order[:k]]
    bot = MCTSBot(seed, time_budget=budget)
    ranked = bot.search(view, legal)
    return _monotone(ranked)[:k]


def _monotone(ranked: list[tuple[Decision, float, int]]) -> list[tuple[Decision, float]]:
    """Rank well-searched decisions by value, then the rest, never letting a value rise."""
    top_visits = max((v for _, _, v in ranked), default=0)
    floor = max(1, int(top_visits * _MIN_SHARE))
    sure = sorted((r for r in ranked if r[2] >= floor), key=lambda r: -r[1])
    rest = [r for r in ranked if r[2] < floor]
    out: list[tuple[Decision, float]] = [(d, v) for d, v, _ in sure]
    cap = out[-1][1] if out else 1.0
    for d, v, _ in rest:
        cap = min(cap, v)
        out.append((d, cap))
    return out


__all__ = ["suggest"]
