"""Strength levels for players: ``easy``, ``medium`` and ``hard`` as bot names.

===========  ================================================  ====================
level        bot                                               time per decision
===========  ================================================  ====================
``easy``     ``greedy`` that often slips: it picks a decision   instant
             at random, weighted by ``exp(value / 4)`` (a
             decision 4 points worse is e≈2.7 times less likely)
``medium``   ``greedy``: the best one-step decision            instant
``hard``     ``mcts:time=1``: information-set MCTS              about 1 s
``expert``   ``expert``: a sharper search (common random        about 1 s
             numbers with 2 players, a next-round look-ahead
             with 3-5) and an exact last round
             (:mod:`kerala.bots.expert`, registered there)
``learned``  ``greedy``'s look-ahead that also weighs what a    a few ms
             decision leaves the next player, with weights
             learned by self-play (:mod:`kerala.bots.learned`,
             registered there)
===========  ================================================  ====================

A level takes no options (use the bot names for fine control), except ``expert``, which is
also a bot name (``learned`` is one too, and takes none). See ``docs/bots.md`` (and its
rating table of the levels).

>>> from kerala.bots import make_bot
>>> [make_bot(level, seed=1).name for level in ("easy", "medium", "hard")]
['easy', 'medium', 'hard']
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from kerala.actions import Decision
from kerala.bots import Bot, BotFactory, BotSpecError, register_bot
from kerala.bots.greedy import GreedyBot, score_decisions
from kerala.bots.mcts import MCTSBot
from kerala.views import PlayerView

#: What each level is made of (the docs' table); ``easy`` is the softmax greedy below.
LEVELS: Final[dict[str, str]] = {
    "easy": "greedy with softmax slips (temperature 4 points)",
    "medium": "greedy",
    "hard": "mcts:time=1",
    "expert": "expert (time=1: a sharper search than mcts, an exact last round)",
    "learned": "learned (greedy's look-ahead plus the reply it leaves, weights from self-play)",
}


class SoftGreedyBot:
    """Picks decisions at random, weighted by ``exp(value / temperature)`` of the greedy value."""

    def __init__(self, seed: int | None = None, temperature: float = 4.0) -> None:
        self.name = "soft-greedy"
        self.rng = random.Random(seed)
        self.temperature = temperature

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        if len(legal) == 1:
            return legal[0]
        values = score_decisions(view, legal)
        top = max(values)
        weights = [math.exp((v - top) / self.temperature) for v in values]
        x = self.rng.random() * sum(weights)
        for d, wt in zip(legal, weights, strict=True):
            x -= wt
            if x < 0:
                return d
        return legal[-1]


def _named(bot: Bot, name: str) -> Bot:
    bot.name = name
    return bot


def _level(name: str) -> BotFactory:
    def factory(opts: dict[str, str], seed: int | None) -> Bot:
        if opts:
            raise BotSpecError(
                f"level {name!r} takes no options; use the bot names (greedy, mcts:time=…)"
            )
        if name == "easy":
            return _named(SoftGreedyBot(seed, temperature=4.0), name)
        if name == "medium":
            return _named(GreedyBot(seed), name)
        return _named(MCTSBot(seed, time_budget=1.0), name)

    return factory


def _soft_greedy(opts: dict[str, str], seed: int | None) -> Bot:
    unknown = sorted(set(opts) - {"temperature"})
    if unknown:
        raise BotSpecError(f"soft-greedy takes only 'temperature', got {', '.join(unknown)}")
    raw = opts.get("temperature", "4")
    try:
        temperature = float(raw)
    except ValueError:
        raise BotSpecError(f"soft-greedy option temperature={raw!r} is not a number") from None
    if not 0.01 <= temperature <= 1000:
        raise BotSpecError(f"soft-greedy option temperature={raw!r} must be in 0.01..1000")
    return SoftGreedyBot(seed, temperature)


for _name in ("easy", "medium", "hard"):
    register_bot(_name, _level(_name))
register_bot("soft-greedy", _soft_greedy)
