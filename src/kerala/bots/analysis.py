"""Post-game analysis: every decision of a seat judged by the strongest bot, from its view.

For each decision of the chosen seat(s) that had a choice, :func:`analyse` runs the ``expert``
search (:mod:`kerala.bots.expert`) from **that seat's view at the time** (docs/rules.md I1; the bag
order and randomly removed tiles are never used, I2, even when the finished record knows them)
and reports:

- the bot's choice and its top alternatives, with the search's *win chance* (0–1, a shared
  first place counts 1/k) for each;
- the cost of the decision played: the win chance lost against the bot's choice, and the
  *points* lost by the one-step evaluation (:func:`kerala.bots.greedy.score_decisions`: the
  score the rules would give, plus the evaluation's guesses about the rounds to come), which is
  clearer than a win chance when a game is already decided;
- a flag when the cost is large: ``inaccuracy``, ``mistake`` or ``blunder`` (thresholds in
  :data:`THRESHOLDS`; points count only once the game is decided, see :func:`verdict`).

The result extends the record as an optional ``analysis`` field (documented in
``docs/notation.md``); readers that do not know it ignore it.

The work is split into :func:`decision_points` (a quick replay that collects, per decision,
the view and the legal list: nothing hidden) and :func:`review_point` (one search, picklable
arguments), so that a server can run the points in its bot workers and report progress.

>>> from kerala.bots.analysis import THRESHOLDS
>>> THRESHOLDS["blunder"]
(0.25, 8.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kerala.actions import Decision
from kerala.bots import make_bot
from kerala.bots.expert import ExpertBot
from kerala.bots.greedy import score_decisions
from kerala.notation import Record, read_record
from kerala.views import PlayerView

#: Verdict -> (win chance lost, points lost); a decision gets the worst verdict whose win-chance
#: *or* points threshold its cost reaches. The win-chance thresholds lie above the search's noise
#: (two searches of the same decision, benchmarks/analysis_noise.py and docs/bots.md), so that a
#: flag never rests on chance alone.
THRESHOLDS: Final[dict[str, tuple[float, float]]] = {
    "blunder": (0.25, 8.0),
    "mistake": (0.18, 4.0),
    "inaccuracy": (0.12, 2.0),
}
#: A position whose best win chance is this close to 0 or 1 is decided: points judge there.
DECIDED: Final = 0.1
#: Format tag of the ``analysis`` field.
ANALYSIS_VERSION: Final = 1
#: Default search time per decision, in seconds.
DEFAULT_TIME: Final = 0.25


class AnalysisError(ValueError):
    """Bad arguments for an analysis (a seat not in the game, a bad time budget)."""


@dataclass(frozen=True)
class DecisionPoint:
    """One decision to review: what the seat saw, what it could do, what it did."""

    #: Decisions before this one in the record (the replay position it was taken at).
    at: int
    round: int
    seat: int
    view: PlayerView
    legal: tuple[Decision, ...]
    played: Decision


def read(record: Record | Mapping[str, Any] | str | bytes) -> Record:
    """A record document (or text) read and replayed through the rules."""
    if isinstance(record, Record):
        return record
    if isinstance(record, Mapping):
        record = {k: v for k, v in record.items() if k != "analysis"}
    return read_record(record)


def decision_points(
    record: Record | Mapping[str, Any] | str | bytes, seats: Sequence[int] | None = None
) -> list[DecisionPoint]:
    """Every decision of ``seats`` (default: all) that had more than one legal choice."""
    rec = read(record)
    final = rec.state
    n = final.n
    if seats is not None:
        for s in seats:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < n:
                raise AnalysisError(f"seat {s!r} is not in this {n}-player game (0..{n - 1})")
    out: list[DecisionPoint] = []
    for at, (state, ev) in enumerate(final.replay_steps()):
        seat = ev.seat
        if seats is None or seat in seats:
            legal = state.legal_decisions()
            if len(legal) > 1:
                out.append(DecisionPoint(at, state.round, seat, state.view(seat), tuple(legal), ev))
    return out


def verdict(
    win_cost: float,
    points_cost: float,
    best_win: float = 0.5,
    thresholds: Mapping[str, tuple[float, float]] = THRESHOLDS,
) -> str | None:
    """The flag for a decision's costs (see :data:`THRESHOLDS`), or ``None``.

    Points count only in a decided position (the bot's choice wins with a chance of at most
    :data:`DECIDED` or at least ``1 - DECIDED``), where every decision's win chance is about
    the same and the points are the clearer measure; elsewhere the win chance decides, so
    that a decision the search likes as well as its own choice is not flagged for points.
    """
    decided = best_win <= DECIDED or best_win >= 1 - DECIDED
    for name, (w, p) in thresholds.items():
        if win_cost >= w or (decided and points_cost >= p):
            return name
    return None


@dataclass(frozen=True)
class Search:
    """One search's judgement of a decision: the bot's choice and the two win chances."""

    ranked: tuple[tuple[Decision, float, int], ...]
    best: Decision
    best_win: float
    played_win: float

    @property
    def cost(self) -> float:
        """The win chance the decision played lost against the bot's choice (>= 0)."""
        return max(0.0, self.best_win - self.played_win)


def search_point(point: DecisionPoint, budget: float, seed: int | None = None) -> Search:
    """The ``expert`` search on one decision (``budget`` CPU seconds), the played one in focus."""
    played = point.played
    bot = make_bot(f"expert:time={budget}:clock=cpu", seed=seed)
    assert isinstance(bot, ExpertBot)
    ranked = tuple(bot.search(point.view, list(point.legal), focus=[played]))
    best, best_win, _ = ranked[0]
    played_win = next((v for d, v, n in ranked if d == played and n > 0), None)
    if played_win is None:  # only when the search ran no iteration at all
        played_win = best_win if best == played else 0.0
    if best == played:
        played_win = best_win
    return Search(ranked, best, best_win, played_win)


def confirmed_cost(first: float, second: float) -> float:
    """The win-chance cost a flag is judged on, from two independent searches.

    The mean of the two when the second finds less (it halves the variance of the search's
    noise, docs/bots.md), never more than the first: the figures shown are the first search's,
    and a flag must never claim more than they show.
    """
    return min(first, (first + second) / 2)


def review_point(point: DecisionPoint, budget: float, seed: int | None = None) -> dict[str, Any]:
    """Judge one decision (runs the search for ``budget`` CPU seconds); a JSON object.

    A decision that the first search would flag is searched once more with another seed, and
    flagged on :func:`confirmed_cost`: a flag then has to survive two independent searches.
    """
    legal, played = list(point.legal), point.played
    first = search_point(point, budget, seed)
    best, best_win, played_win = first.best, first.best_win, first.played_win
    points = score_decisions(point.view, legal)
    best_pts = points[legal.index(best)]
    played_pts = points[legal.index(played)]
    win_cost = first.cost
    pts_cost = max(0.0, best_pts - played_pts)
    flag = verdict(win_cost, pts_cost, best_win) if best != played else None
    judged = win_cost
    if flag is not None and win_cost >= THRESHOLDS["inaccuracy"][0]:
        again = search_point(point, budget, None if seed is None else seed + 7919)
        judged = confirmed_cost(win_cost, again.cost)
        flag = verdict(judged, pts_cost, best_win)
    top = [
        {"decision": d.to_json(), "win": round(v, 4), "visits": n}
        for d, v, n in first.ranked[:3]
        if n > 0
    ]
    return {
        "at": point.at,
        "round": point.round,
        "seat": point.seat,
        "played": played.to_json(),
        "best": best.to_json(),
        "win": {"played": round(played_win, 4), "best": round(best_win, 4)},
        "points": {"played": round(played_pts, 2), "best": round(best_pts, 2)},
        "cost": {"win": round(win_cost, 4), "points": round(pts_cost, 2)},
        "flag": flag,
        "by": None if flag is None else flagged_by(judged, pts_cost, best_win),
        "top": top,
    }


def flagged_by(win_cost: float, points_cost: float, best_win: float) -> str:
    """Which figure a flag rests on: ``"win"`` (the win chance) or ``"points"``."""
    name = verdict(win_cost, 0.0, best_win)
    if name is not None and name == verdict(win_cost, points_cost, best_win):
        return "win"
    return "points"


def summarize(decisions: Sequence[Mapping[str, Any]], seats: Sequence[int]) -> dict[str, Any]:
    """Per seat: decisions reviewed, flags counted, win chance and points lost in all."""
    out: dict[str, Any] = {}
    for s in seats:
        mine = [d for d in decisions if d["seat"] == s]
        row: dict[str, Any] = {"decisions": len(mine)}
        for name in THRESHOLDS:
            row[name + "s"] = sum(1 for d in mine if d["flag"] == name)
        row["agreed"] = sum(1 for d in mine if d["played"] == d["best"])
        row["win_lost"] = round(sum(d["cost"]["win"] for d in mine), 4)
        row["points_lost"] = round(sum(d["cost"]["points"] for d in mine), 2)
        out[str(s)] = row
    return out


def check_budget(budget: float) -> float:
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0.01 <= budget <= 60:
        raise AnalysisError(f"time per decision must be 0.01..60 seconds, got {budget!r}")
    return float(budget)


def analyse(
    record: Record | Mapping[str, Any] | str | bytes,
    *,
    seats: Sequence[int] | None = None,
    budget: float = DEFAULT_TIME,
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The ``analysis`` object of a record: every decision of ``seats`` reviewed.

    ``budget`` is the search time per decision in CPU seconds; ``progress(done, total)`` is
    called after each decision.
    """
    budget = check_budget(budget)
    rec = read(record)
    points = decision_points(rec, seats)
    chosen = sorted(set(seats)) if seats is not None else list(range(rec.state.n))
    reviews: list[dict[str, Any]] = []
    for i, p in enumerate(points):
        reviews.append(review_point(p, budget, seed))
        if progress is not None:
            progress(i + 1, len(points))
    return make_analysis(reviews, chosen, budget)


def make_analysis(
    reviews: Sequence[Mapping[str, Any]], seats: Sequence[int], budget: float
) -> dict[str, Any]:
    """Assemble the ``analysis`` field from reviewed decisions (in record order)."""
    decisions = sorted(reviews, key=lambda r: int(r["at"]))
    return {
        "version": ANALYSIS_VERSION,
        "bot": f"expert:time={budget:g}:clock=cpu",
        "seats": list(seats),
        "thresholds": {k: {"win": w, "points": p} for k, (w, p) in THRESHOLDS.items()},
        "decided": DECIDED,
        "decisions": list(decisions),
        "summary": summarize(decisions, seats),
    }


def extend_record(doc: Mapping[str, Any], analysis: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the record document with the ``analysis`` field set."""
    out = dict(doc)
    out["analysis"] = dict(analysis)
    return out


__all__ = [
    "THRESHOLDS",
    "AnalysisError",
    "DecisionPoint",
    "Search",
    "analyse",
    "confirmed_cost",
    "decision_points",
    "extend_record",
    "flagged_by",
    "make_analysis",
    "review_point",
    "search_point",
    "verdict",
]
