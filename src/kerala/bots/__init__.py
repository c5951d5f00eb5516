"""Bots: one :class:`Bot` protocol, a registry of bot specs, and the built-in bots.

A bot sees only what a human player sees (docs/rules.md I1): a :class:`~kerala.views.PlayerView`
and the list of legal decisions. It never receives the game state, so it cannot read the bag
order or the randomly removed tiles (I2).

Bots are named by a *spec* string: ``"random"``, ``"greedy"``, ``"mcts:time=0.5"``,
``"mcts:iterations=2000"`` or a strength level (``"easy"``, ``"medium"``, ``"hard"``).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> bot = make_bot("random", seed=5)
>>> bot.choose(s.view(0), s.legal_decisions()) in s.legal_decisions()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from kerala.actions import Decision
from kerala.errors import KeralaError
from kerala.views import PlayerView


class BotSpecError(KeralaError):
    """A bot spec string names no bot or has bad options."""


@runtime_checkable
class Bot(Protocol):
    """Chooses a decision from a player's view and the legal decisions."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision: ...


class RandomBot:
    """Uniform over all legal decisions (pass and every special follow-up included)."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        return legal[int(self.rng.random() * len(legal))]


BotFactory = Callable[[dict[str, str], int | None], Bot]
_REGISTRY: dict[str, BotFactory] = {
    "random": lambda opts, seed: RandomBot(seed),
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Make ``name`` usable in bot specs."""
    _REGISTRY[name] = factory


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"mcts:time=0.5:iterations=100"`` into a name and options.

    Options follow the name, each ``key=value`` after a colon (commas separate bots in lists).

    >>> parse_spec("mcts:time=0.5:iterations=100")
    ('mcts', {'time': '0.5', 'iterations': '100'})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError("a bot spec must be a non-empty string")
    name, _, rest = spec.strip().partition(":")
    opts: dict[str, str] = {}
    if rest:
        for part in rest.split(":"):
            if not part:
                continue
            k, eq, v = part.partition("=")
            if not eq or not k:
                raise BotSpecError(f"bad option {part!r} in bot spec {spec!r} (want key=value)")
            opts[k.strip()] = v.strip()
    return name, opts


def _load_builtin() -> None:
    # The other built-in bots live in their own modules; importing them registers them.
    import importlib

    for mod in (
        "kerala.bots.greedy",
        "kerala.bots.mcts",
        "kerala.bots.levels",
        "kerala.bots.expert",
        "kerala.bots.learned",
    ):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """Build the bot a spec names; raises :class:`BotSpecError` for an unknown one."""
    _load_builtin()
    name, opts = parse_spec(spec)
    factory = _REGISTRY.get(name)
    if factory is None:
        raise BotSpecError(f"unknown bot {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return factory(opts, seed)


def bot_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)
