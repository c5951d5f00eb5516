"""Hints: the best few decisions for a player's view, and post-game analysis of a record.

:func:`suggest` backs the "suggest a move" button: it runs the ``mcts`` bot's search from the
player's view (docs/rules.md I1; nothing hidden is used, I2) for ``budget`` seconds and returns the
best ``k`` decisions with their estimated value, best first. The value is the search's
estimated *win chance* (0–1; a shared first place counts 1/k). With ``budget=0`` it answers at
once from the ``greedy`` evaluation instead, and the value is then in evaluation *points*
(see :mod:`kerala.bots.evaluation`).

:func:`analyze` reviews a finished (or unfinished) game record decision by decision: for each
decision that had a choice it gives the bot's preferred decision and how much the decision
played cost against it (in points with ``method="greedy"``, in win chance with ``"mcts"``).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> tips = suggest(s.view(0), s.legal_decisions(), k=2, budget=0)
>>> len(tips), tips[0][1] >= tips[1][1]
(2, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kerala.actions import Decision
from kerala.bots.greedy import score_decisions
from kerala.bots.mcts import MCTSBot
from kerala.notation import Record, read_record
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


@dataclass(frozen=True)
class DecisionReview:
    """One decision of a record, judged against the bot's choice."""

    round: int
    seat: int
    played: Decision
    best: Decision
    played_value: float
    best_value: float
    #: ``best_value - played_value``, never below 0 (0 when the bot agrees).
    cost: float

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "seat": self.seat,
            "played": self.played.to_json(),
            "best": self.best.to_json(),
            "played_value": self.played_value,
            "best_value": self.best_value,
            "cost": self.cost,
        }


def _values(
    view: PlayerView,
    legal: Sequence[Decision],
    played: Decision,
    method: str,
    budget: float,
    seed: int | None,
) -> tuple[Decision, float, float]:
    if method == "greedy":
        values = score_decisions(view, legal)
        i = max(range(len(legal)), key=lambda j: values[j])
        return legal[i], values[i], values[legal.index(played)]
    ranked = MCTSBot(seed, time_budget=budget).search(view, legal)
    best, best_value, _ = ranked[0]
    mine = next((v for d, v, n in ranked if d == played and n > 0), None)
    if mine is None:
        # The search never tried the decision played: value it on its own.
        mine = MCTSBot(seed, time_budget=budget / 2).search(view, [played])[0][1]
    return best, best_value, mine


def analyze(
    record: Record | Mapping[str, Any] | str,
    *,
    method: str = "greedy",
    budget: float = 0.2,
    seed: int | None = None,
    seats: Sequence[int] | None = None,
) -> list[DecisionReview]:
    """Review every decision of ``record`` that had more than one choice.

    ``record`` is a :class:`~kerala.notation.Record` or a record document (validated).
    ``method`` is ``"greedy"`` (instant, costs in evaluation points) or ``"mcts"``
    (``budget`` seconds per decision, costs in win chance). ``seats`` limits the review.
    Each decision is judged from its player's view at the time: what the player knew.
    """
    if method not in ("greedy", "mcts"):
        raise ValueError(f"method must be 'greedy' or 'mcts', got {method!r}")
    rec = record if isinstance(record, Record) else read_record(record)
    final = rec.state
    n = final.n
    if seats is not None:
        for s in seats:
            if not 0 <= s < n:
                raise ValueError(f"seat {s} is not in this {n}-player game")
    out: list[DecisionReview] = []
    for state, ev in final.replay_steps():
        legal = state.legal_decisions()
        seat = ev.seat
        if len(legal) > 1 and (seats is None or seat in seats):
            view = state.view(seat)
            best, best_value, mine = _values(view, legal, ev, method, budget, seed)
            if best == ev:
                mine = best_value
            out.append(
                DecisionReview(
                    round=state.round,
                    seat=seat,
                    played=ev,
                    best=best,
                    played_value=mine,
                    best_value=best_value,
                    cost=max(0.0, best_value - mine),
                )
            )
    return out


__all__ = ["DecisionReview", "analyze", "suggest"]
