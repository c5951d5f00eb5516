"""The ``learned`` bot: a one-step look-ahead with weights learned from self-play.

Like ``greedy`` (:mod:`kerala.bots.greedy`) it applies every legal decision to a copy of its
own grounds, rebuilt from the view (docs/rules.md I1: a bot sees nothing else), and judges the
result with the linear form of :func:`kerala.bots.evaluation.evaluate`: the rules' score now
plus ``left * (a + b * left)`` times each feature of :data:`~kerala.bots.evaluation.FEATURES`.
Two things differ:

- the coefficients ``a`` and ``b`` were learned by self-play
  (``benchmarks/train_learned.py``) instead of set by hand;
- **the reply.** A tile taken is a tile the next player cannot take (G2). When a seat still
  has to move in this round, each decision is also judged by what it leaves that seat: the
  best value that seat can reach from the tiles still in the display (every placement of each
  tile, a special tile with its best follow-up, or a pass), on its own grounds, under the same
  evaluation. The bot maximizes its own value minus ``(c + d * left)`` times that reply value
  (``c``, ``d`` learned too). With 2 players this is exact: the second player of a round picks
  from what the first one left. With 3-5 players only the next seat is considered.

The weights ship as NumPy arrays in ``kerala/bots/data/learned.npz`` and are read with NumPy
(``numpy.load``, no pickles); playing needs no training framework. NumPy is imported only when
the bot is made, so the other bots work without it.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> bot = LearnedBot(load_params(), seed=0)
>>> bot.choose(s.view(0), s.legal_decisions()) in s.legal_decisions()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from kerala.actions import Decision, Pass, Place
from kerala.bots import BotSpecError, register_bot
from kerala.bots.evaluation import FEATURES, Weights, evaluate, game_left
from kerala.bots.greedy import best_follow_up_value
from kerala.game import apply_to_grounds, place_decisions
from kerala.grounds import Grounds
from kerala.tiles import TileType
from kerala.views import PlayerView

#: The weights file shipped in ``kerala/bots/data``.
WEIGHTS_FILE: Final = "learned.npz"
#: What the file's ``format`` entry says (a file of another kind is refused).
FORMAT: Final = "kerala-learned-v1"


@dataclass(frozen=True)
class LearnedParams:
    """The learned bot's weights.

    ``linear``: the evaluation's ``Weights.linear`` (per feature ``a``, then per feature ``b``);
    ``reply``: ``(c, d)``, the weight ``c + d * left`` of the next seat's best reply value.
    """

    linear: tuple[float, ...]
    reply: tuple[float, float]

    def __post_init__(self) -> None:
        if len(self.linear) != 2 * len(FEATURES):
            raise ValueError(f"linear has {len(self.linear)} weights, want {2 * len(FEATURES)}")

    @property
    def weights(self) -> Weights:
        return Weights(linear=self.linear)

    def as_vector(self) -> list[float]:
        """All weights in one list (the training's search space)."""
        return [*self.linear, *self.reply]

    @classmethod
    def from_vector(cls, v: Sequence[float]) -> LearnedParams:
        m = 2 * len(FEATURES)
        if len(v) != m + 2:
            raise ValueError(f"a weight vector has {m + 2} entries, got {len(v)}")
        return cls(tuple(float(x) for x in v[:m]), (float(v[m]), float(v[m + 1])))


def hand_params() -> LearnedParams:
    """The hand-set evaluation of ``greedy`` in the linear form, and no reply term.

    With these weights the bot values every decision exactly as ``greedy`` does (the training's
    starting point): 1.5 more per standing elephant, 45% of the surplus and 50% of the
    missing-color penalty given back, 2 per open arch, 1 per coverable one, 0.6 per reachable
    color and 0.15 per empty cell next to an elephant, all times ``left``.
    """
    hand = Weights()
    a = dict.fromkeys(FEATURES, 0.0)
    a["standing"] = hand.pass_option
    a["surplus_tiles"] = 2 * (1 - hand.surplus_early)
    a["missing"] = 5 * (1 - hand.missing_early)
    a["arch_open"] = hand.arch_open
    a["arch_cover"] = hand.arch_cover
    a["reach"] = hand.mobility
    a["room"] = hand.room
    return LearnedParams((*(a[f] for f in FEATURES), *([0.0] * len(FEATURES))), (0.0, 0.0))


def save_params(path: Path, params: LearnedParams, **meta: str) -> None:
    """Write ``params`` as a ``.npz`` file (plain arrays; ``meta`` as string entries)."""
    import numpy as np

    m = len(FEATURES)
    lin = np.asarray(params.linear, dtype=np.float64).reshape(2, m)
    arrays: dict[str, Any] = {k: np.asarray(v) for k, v in meta.items()}
    arrays |= {
        "format": np.asarray(FORMAT),
        "features": np.asarray(FEATURES),
        "coef": lin,
        "reply": np.asarray(params.reply, dtype=np.float64),
    }
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_params(path: Path | None = None) -> LearnedParams:
    """The weights in ``path``, by default the ones shipped with the package."""
    try:
        import numpy as np
    except ModuleNotFoundError as e:
        raise BotSpecError(
            "the learned bot reads its weights with NumPy: install it (pip install numpy)"
        ) from e

    if path is None:
        src = resources.files("kerala.bots").joinpath("data", WEIGHTS_FILE)
        with src.open("rb") as f:
            return _params_of(np.load(f, allow_pickle=False))
    with open(path, "rb") as f:
        return _params_of(np.load(f, allow_pickle=False))


def _params_of(doc: object) -> LearnedParams:
    # ``doc`` is a NumPy NpzFile; read every array before the file closes.
    import numpy as np

    assert isinstance(doc, np.lib.npyio.NpzFile)
    if str(doc["format"]) != FORMAT:
        raise ValueError(f"not a learned-bot weights file (format {doc['format']!s})")
    feats = [str(x) for x in doc["features"]]
    if feats != list(FEATURES):
        raise ValueError(f"weights for features {feats}, the evaluation has {list(FEATURES)}")
    coef = doc["coef"]
    reply = doc["reply"]
    if coef.shape != (2, len(FEATURES)) or reply.shape != (2,):
        raise ValueError(f"weights of shape {coef.shape} and {reply.shape}")
    return LearnedParams(
        tuple(float(x) for x in coef.reshape(-1)), (float(reply[0]), float(reply[1]))
    )


def _value_after(g: Grounds, d: Decision, left: float, w: Weights) -> float:
    """The value of grounds ``g`` after decision ``d`` (a special tile with its best follow-up)."""
    h = g.copy()
    apply_to_grounds(h, d)
    if type(d) is Place and d.take.special is not None:
        return best_follow_up_value(h, d.seat, d.take.special, left, w)
    return evaluate(h, left, w)


def reply_values(
    g: Grounds, seat: int, tiles: Sequence[TileType], left: float, w: Weights
) -> tuple[dict[TileType, float], float | None]:
    """Per tile type of ``tiles``, the best value seat ``seat`` reaches by placing it on ``g``;
    and its value after a pass (``None`` when it has no pass left)."""
    best: dict[TileType, float] = {}
    pass_value: float | None = None
    for d in place_decisions(g, seat, dict.fromkeys(tiles)):
        v = _value_after(g, d, left, w)
        if type(d) is Pass:
            pass_value = v
        else:
            t = d.take  # type: ignore[union-attr]
            if v > best.get(t, -1e18):
                best[t] = v
    return best, pass_value


class LearnedBot:
    """Own value after the decision minus the weighted best reply of the next seat."""

    def __init__(self, params: LearnedParams, seed: int | None = None) -> None:
        self.name = "learned"
        self.params = params
        self.weights = params.weights
        self.rng = random.Random(seed)

    def scores(self, view: PlayerView, legal: Sequence[Decision]) -> list[float]:
        """The value of every decision in ``legal`` (higher is better)."""
        seat = legal[0].seat
        w = self.weights
        left = game_left(view)
        g = view.grounds[seat].to_grounds()
        own = [_value_after(g, d, left, w) for d in legal]
        c, d_ = self.params.reply
        lam = c + d_ * left
        nxt = self._next_seat(view, seat)
        if lam == 0.0 or nxt is None or view.phase != "place":
            return own
        og = view.grounds[nxt].to_grounds()
        best, pass_value = reply_values(og, nxt, view.display, left, w)
        out = []
        for d, v in zip(legal, own, strict=True):
            rest = list(view.display)
            if type(d) is Place:
                rest.remove(d.take)
            options = [best[t] for t in rest]
            if pass_value is not None:
                options.append(pass_value)
            reply = max(options) if options else evaluate(og, left, w)
            out.append(v - lam * reply)
        return out

    @staticmethod
    def _next_seat(view: PlayerView, seat: int) -> int | None:
        """The seat that moves after ``seat`` in this round (G2), if any."""
        n = view.n
        owner = view.round % n
        if (seat - owner) % n == n - 1:
            return None
        return (seat + 1) % n

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        if len(legal) == 1:
            return legal[0]
        values = self.scores(view, legal)
        top = max(values)
        ties = [d for d, v in zip(legal, values, strict=True) if v >= top - 1e-9]
        return ties[int(self.rng.random() * len(ties))]


_SHIPPED: list[LearnedParams] = []


def _factory(opts: dict[str, str], seed: int | None) -> LearnedBot:
    if opts:
        raise BotSpecError(f"learned takes no options, got {', '.join(sorted(opts))}")
    if not _SHIPPED:
        _SHIPPED.append(load_params())
    return LearnedBot(_SHIPPED[0], seed)


register_bot("learned", _factory)
