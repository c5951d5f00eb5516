"""The ``greedy`` bot: the best decision by one-step look-ahead with a scoring-aware evaluation.

Each legal decision is applied to a copy of the player's own grounds, rebuilt from the view
(docs/rules.md I1: a bot sees nothing else), and the result is judged by
:func:`kerala.bots.evaluation.evaluate`. A special tile is judged together with its best
follow-up (SP1: every elephant move; SP2: the stack moves that join a stack to its color), so
the bot takes a move-tile when it can rescue a surplus area. Ties are broken by the bot's
seeded RNG.

Spec: ``greedy`` or ``greedy:eval=learned`` (the evaluation learned from self-play,
:func:`kerala.bots.evaluation.load_learned`, instead of the hand-set weights).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> bot = GreedyBot(seed=0)
>>> bot.choose(s.view(0), s.legal_decisions()) in s.legal_decisions()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from kerala.actions import Decision, MoveStack, Place
from kerala.bots import BotSpecError, register_bot
from kerala.bots.evaluation import (
    DEFAULT_WEIGHTS,
    Weights,
    apply_to_grounds,
    evaluate,
    follow_ups,
    game_left,
    useful_move_stacks,
)
from kerala.grounds import Grounds
from kerala.views import PlayerView


def best_follow_up_value(g: Grounds, seat: int, special: str, left: float, w: Weights) -> float:
    """The value of ``g`` after the best follow-up of ``special`` (skipping included)."""
    moves = list(follow_ups(g, seat, special, useful_only=True))
    best = evaluate(g, left, w)
    for m in moves[1:]:
        h = g.copy()
        apply_to_grounds(h, m)
        v = evaluate(h, left, w)
        if v > best:
            best = v
    return best


def score_decisions(
    view: PlayerView,
    legal: Sequence[Decision],
    w: Weights = DEFAULT_WEIGHTS,
    *,
    follow_up: bool = True,
    useful_only: bool = False,
) -> list[float]:
    """One-step value of every decision in ``legal`` for the player to move in ``view``.

    ``follow_up`` judges a special tile's placement with its best follow-up (else as skipped).
    ``useful_only`` judges only the SP2 moves that join a stack to its color and gives the
    others the value of skipping minus 1 (fast when hundreds of moves are legal).
    """
    if not legal:
        return []
    seat = legal[0].seat
    base = view.grounds[seat].to_grounds()
    left = game_left(view)
    out: list[float] = []
    if useful_only and len(legal) > 1 and type(legal[-1]) is MoveStack:
        # SP2: only moves next to a stack of the same color can help; the others are judged
        # as no better than skipping (a stack moved away from its area never gains).
        keep = {id(d) for d in useful_move_stacks(base, legal)}
        skip_value = evaluate(base, left, w)
        for d in legal:
            if id(d) in keep:
                g = base.copy()
                apply_to_grounds(g, d)
                out.append(evaluate(g, left, w))
            else:
                out.append(skip_value - 1.0)
        return out
    for d in legal:
        g = base.copy()
        apply_to_grounds(g, d)
        if follow_up and type(d) is Place and d.take.special is not None:
            out.append(best_follow_up_value(g, seat, d.take.special, left, w))
        else:
            out.append(evaluate(g, left, w))
    return out


class GreedyBot:
    """One-step look-ahead on the player's own grounds (see the module docstring)."""

    def __init__(self, seed: int | None = None, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.name = "greedy"
        self.rng = random.Random(seed)
        self.weights = weights

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        if len(legal) == 1:
            return legal[0]
        values = score_decisions(view, legal, self.weights)
        best = max(values)
        ties = [d for d, v in zip(legal, values, strict=True) if v >= best - 1e-9]
        return ties[int(self.rng.random() * len(ties))]


def weights_option(opts: dict[str, str], bot: str) -> Weights:
    """The evaluation named by option ``eval``: ``hand`` (default) or ``learned``."""
    name = opts.get("eval", "hand")
    if name == "hand":
        return DEFAULT_WEIGHTS
    if name == "learned":
        from kerala.bots.evaluation import load_learned

        return load_learned()
    raise BotSpecError(f"{bot} option eval={name!r} must be 'hand' or 'learned'")


def _factory(opts: dict[str, str], seed: int | None) -> GreedyBot:
    unknown = sorted(set(opts) - {"eval"})
    if unknown:
        raise BotSpecError(f"greedy takes only 'eval', got {', '.join(unknown)}")
    return GreedyBot(seed, weights_option(opts, "greedy"))


register_bot("greedy", _factory)
