"""Kerala as an OpenSpiel Python game, registered as ``python_kerala`` on import.

>>> import pyspiel
>>> game = pyspiel.load_game("python_kerala", {"players": 3})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 4368, 45)
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True

- **Parameters** ``players`` (2–5, default 2); ``observation``, the tensor layout
  (``"compact"`` default, as in the other envs, ``"flat"``, ``"graph"``, ``"full"``:
  :mod:`kerala.envs.observations`; or ``"planes"``: the ``compact`` values as one
  ``[C, 16, 16]`` tensor, :class:`~kerala.envs.observations.PlanesLayout`);
  ``reward``, ``"rank"`` (default) or ``"margin"``. Seats play ``blue, black, green, red,
  purple`` in that order, removal is random (RULES.md S3).
- **Chance** Every tile leaving the bag is a chance node: first the tiles removed at random
  (S3: 20/10/4/0 of them, in secret), then each round's display, one tile per node (G1).
  A chance outcome is the tile type's position in :data:`kerala.tiles.GAME_TILE_TYPES`
  (``0..44``), with probability proportional to how many such tiles remain.
- **Actions** the encoding of :mod:`kerala.envs.encoding` (4368 ids, any player count).
- **Returns** terminal only, zero-sum. ``rank``: in ``[-1, 1]``, (opponents with a lower total −
  opponents with a higher total) / (players − 1) (SC7). ``margin``: the player's total minus the
  mean total of the others, in points (bounds ``±MARGIN_BOUND``).
- **Observation tensor** the game's layout from the player's point of view, written in place
  into the observer's NumPy buffer (``make_observation(game).tensor``; ``.dict`` holds each
  piece with its true dimensions). ``compact`` (and ``flat``, ``graph``, ``full``) has
  several pieces, so ``game.observation_tensor_shape()`` is ``[size]`` (``[15127]`` for 2
  players); ``planes`` is a single piece and reports the true ``[C, 16, 16]``.
  **Information state tensor**: the same vector.
  Kerala has no private information, and the current public state (grounds, display, unseen tile
  counts, passes, phase) is a sufficient statistic of the public history, but the tensor does
  not tell apart histories that lead to the same state; use the string for that.
- **Observation string** the player's view (``kerala.views.PlayerView`` JSON without the
  history). **Information state string** the player's seat plus the whole public history:
  every tile drawn for a display and every decision, never a randomly removed tile (I2).
- **Resampling** :func:`resample` (also ``State.resample_from_infostate``) builds a state
  consistent with a player's information: :func:`kerala.views.sample_state` draws the secret
  removals anew, and the new state replays them and then the public history, so its
  ``history()`` is a valid history of the game. Give it to ``ISMCTSBot.set_resampler``.
- **Playing bots** :func:`evaluate_bots` plays OpenSpiel bots against each other as
  OpenSpiel's own ``evaluate_bots`` does, but starts a game with ``bot.restart()`` where
  OpenSpiel's calls ``bot.restart_at(state)``, which ``ISMCTSBot`` as shipped does not
  implement (``pyspiel.Bot``'s default raises "RestartAt(state) not implemented").
- **Hidden information and MCTSBot** ``chance_outcomes()`` of a state are the true draw
  probabilities, which depend on the secretly removed tiles; OpenSpiel's ``MCTSBot`` searches
  the true state, so it plays with information no player has. ``ISMCTSBot`` with
  :func:`resample` searches information sets instead (docs/envs.md).
- States pickle, clone and (de)serialize through their action history.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyspiel

from kerala.actions import Decision, FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.envs.encoding import (
    ACTIONS,
    MARGIN_BOUND,
    TILE_POSITION,
    IllegalActionError,
    check_reward,
    final_returns,
)
from kerala.envs.observations import (
    LAYOUTS,
    ObservationLayout,
    PlanesLayout,
    observation_layout,
    planes_layout,
)
from kerala.game import REMOVAL_COUNT, GameState, Phase, new_game
from kerala.tiles import COLORS, GAME_TILE_TYPES, TileType, load_tileset
from kerala.views import sample_state

SHORT_NAME: Final = "python_kerala"
#: The layouts ``python_kerala`` offers: ``planes`` (OpenSpiel only) and every env layout.
OPENSPIEL_LAYOUTS: Final = ("planes", *LAYOUTS)
Layout = ObservationLayout | PlanesLayout


def _layout(name: str, num_players: int) -> Layout:
    if name == "planes":
        return planes_layout(num_players)
    return observation_layout(name, num_players)


_DEFAULT_PARAMS: Final[dict[str, int | str]] = {
    "players": 2,
    "observation": "compact",
    "reward": "rank",
}
_TILESET = load_tileset("standard")
_SPECIALS: Final = sum(n for t, n in _TILESET.counts.items() if t.special is not None)

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Kerala: The Way of the Elephant",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_DEFAULT_PARAMS,
)


class KeralaGame(pyspiel.Game):  # type: ignore[misc]
    """The game: parameters and a factory of states and observers."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = dict(_DEFAULT_PARAMS)
        p.update(params or {})
        n = p["players"]
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 5:
            raise ValueError(f"python_kerala: parameter 'players' must be 2..5, got {n!r}")
        if p["observation"] not in OPENSPIEL_LAYOUTS:
            raise ValueError(
                "python_kerala: parameter 'observation' must be one of "
                f"{', '.join(OPENSPIEL_LAYOUTS)}, "
                f"got {p['observation']!r}"
            )
        try:
            self.reward = check_reward(p["reward"])
        except ValueError as e:
            raise ValueError(f"python_kerala: parameter {e}") from None
        bound = 1.0 if self.reward == "rank" else MARGIN_BOUND
        bag = _TILESET.total() - REMOVAL_COUNT[n]
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTIONS.num_actions,
            max_chance_outcomes=len(GAME_TILE_TYPES),
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            # One turn per tile in the bag (G2), plus a follow-up per special tile.
            max_game_length=bag + _SPECIALS,
        )
        super().__init__(_GAME_TYPE, info, p)
        self.colors: tuple[str, ...] = COLORS[:n]
        self.layout: Layout = _layout(str(p["observation"]), n)

    def new_initial_state(self) -> KeralaState:
        return KeralaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> KeralaObserver:
        layout = self.layout
        if params:
            unknown = sorted(set(params) - {"observation"})
            if unknown or params.get("observation") not in OPENSPIEL_LAYOUTS:
                raise ValueError(
                    "python_kerala observers take only 'observation' "
                    f"({', '.join(OPENSPIEL_LAYOUTS)}), got {params}"
                )
            layout = _layout(params["observation"], self.num_players())
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return KeralaObserver(perfect_recall=recall, layout=layout)


def _token(ev: TileType | Decision) -> str:
    """A short public text for one log event (a display draw or a decision)."""
    if isinstance(ev, TileType):
        return f"d{ev.index}"
    if type(ev) is Pass:
        return "p"
    if type(ev) is FollowUpSkip:
        return "s"
    if type(ev) is Place:
        return f"t{ev.take.index}@{ev.to[0]},{ev.to[1]}<{ev.from_[0]},{ev.from_[1]}{ev.arch or ''}"
    if type(ev) is MoveElephant:
        return f"e{ev.from_[0]},{ev.from_[1]}>{ev.to[0]},{ev.to[1]}"
    assert type(ev) is MoveStack
    return f"m{ev.from_[0]},{ev.from_[1]}>{ev.to[0]},{ev.to[1]}"


class _Position:
    """The Python-side data of a state, with a fast ``deepcopy`` (OpenSpiel's ``clone``
    deep-copies each attribute of a Python state)."""

    __slots__ = ("legal", "state", "tokens")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.legal: dict[int, Decision] | None = None
        self.tokens: list[str] = [_token(ev) for ev in state.log]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        c = _Position.__new__(_Position)
        c.state = self.state.copy(with_rng=False)
        c.legal = self.legal  # decisions are frozen values; the dict is never mutated
        c.tokens = list(self.tokens)
        return c

    def __getstate__(self) -> tuple[GameState, list[str]]:
        return (self.state, self.tokens)

    def __setstate__(self, data: tuple[GameState, list[str]]) -> None:
        self.state, self.tokens = data
        self.legal = None


class KeralaState(pyspiel.State):  # type: ignore[misc]
    """One position; wraps a :class:`kerala.game.GameState`."""

    def __init__(self, game: KeralaGame, engine: GameState | None = None) -> None:
        super().__init__(game)
        self._p = _Position(engine if engine is not None else new_game(game.colors))

    @property
    def engine(self) -> GameState:
        """The wrapped engine state (hidden information included)."""
        return self._p.state

    def current_player(self) -> int:
        p = self._p.state.current_player
        if p >= 0:
            return p
        if self._p.state.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE)

    def _legal_map(self) -> dict[int, Decision]:
        p = self._p
        if p.legal is None:
            p.legal = ACTIONS.legal_actions(p.state)
        return p.legal

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._p.state.current_player:
            return []
        return list(self._legal_map())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(TILE_POSITION[t], p) for t, p in self._p.state.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        s = self._p.state
        if s.is_chance():
            t = GAME_TILE_TYPES[action]
            s.apply_draw(t)
        elif self._p.legal is not None:
            d = self._p.legal.get(action)
            if d is None:
                raise IllegalActionError(
                    f"action {action} is not legal for seat {s.current_player}"
                )
            s.apply_unchecked(d)
        else:
            # No legal list computed (a replay, or a caller that knows its action): decode the
            # id and let the engine check it, cheaper than listing every legal decision.
            s.apply(ACTIONS.decode(s, action))
        self._p.legal = None
        log = s.log
        tokens = self._p.tokens
        while len(tokens) < len(log):
            tokens.append(_token(log[len(tokens)]))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            verb = "remove" if self._p.state.phase == Phase.REMOVAL else "draw"
            return f"{verb} {GAME_TILE_TYPES[action].name}"
        try:
            return ACTIONS.action_to_string(self._p.state, action)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._p.state.is_over()

    def returns(self) -> list[float]:
        if not self._p.state.is_over():
            return [0.0] * self._p.state.n
        reward: str = self.get_game().reward
        return final_returns(reward, [b.total for b in self._p.state.scores()])

    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """The observation tensor of ``player`` (default: the player to move) as a new
        float32 NumPy vector in the game's layout, filled in place.

        OpenSpiel's own method returns a Python list, one float object per value, and sizes it
        by building a fresh initial state at every call: that cost more than the whole step of
        ``rl_environment``. A NumPy vector works wherever a list of floats is read
        (``np.reshape``, ``torch.as_tensor``, indexing); ``list(...)`` turns it into a list.
        """
        return self._tensor(player)

    def information_state_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """The information state tensor: the same vector as :meth:`observation_tensor`."""
        return self._tensor(player)

    def _tensor(self, player: int | None) -> npt.NDArray[np.float32]:
        s = self._p.state
        p = self.current_player() if player is None else int(player)
        if not 0 <= p < s.n:
            raise ValueError(f"python_kerala: no tensor for player {player!r} ({s.n} players)")
        layout: Layout = self.get_game().layout
        return layout.observation(s, p)

    def information_state_key(self, player: int) -> str:
        return f"seat {player}|" + " ".join(self._p.tokens)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> KeralaState:
        """OpenSpiel's resampling entry point: :func:`resample`, seeded from the sampler."""
        seed = int(probability_sampler() * 2**52) if callable(probability_sampler) else None
        return resample(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        return str(self._p.state)


def resample(state: KeralaState, player: int, rng: random.Random | None = None) -> KeralaState:
    """A state ``player`` cannot tell from ``state``: the secret removals drawn anew (I2).

    :func:`kerala.views.sample_state` draws the removed tiles consistently with the player's
    view; the new state replays them as chance outcomes, then the public history (display
    draws and decisions), so its ``history()`` is a full, valid OpenSpiel history.
    """
    r = rng if rng is not None else random.Random()
    old = state.engine
    new: KeralaState = state.get_game().new_initial_state()
    sampled = sample_state(old.view(player), r).removed
    done = len(old.removed)
    for i in range(done):
        if len(sampled) == done:
            new.apply_action(TILE_POSITION[sampled[i]])
        else:  # mid-removal: the view does not even fix how the finished part was drawn
            outcomes = new.chance_outcomes()
            ids = [a for a, _ in outcomes]
            new.apply_action(r.choices(ids, weights=[p for _, p in outcomes])[0])
    for ev in old.log:
        if isinstance(ev, TileType):
            new.apply_action(TILE_POSITION[ev])
        else:
            new.apply_action(ACTIONS.encode(new.engine, ev))
    return new


def evaluate_bots(
    state: pyspiel.State, bots: list[pyspiel.Bot], rng: np.random.RandomState
) -> list[float]:
    """Play ``bots`` (one per seat) from ``state`` to the end; the returns.

    The loop of OpenSpiel's ``open_spiel.python.algorithms.evaluate_bots.evaluate_bots``
    (chance sampled from ``chance_outcomes()`` with ``rng``, ``inform_action`` to the other
    bots), except how bots start: OpenSpiel's calls ``bot.restart_at(state)``, which
    ``ISMCTSBot`` does not implement (``pyspiel.Bot``'s default raises "RestartAt(state) not
    implemented"). This loop calls ``bot.restart()`` (every bot has it; OpenSpiel's own bots
    keep nothing between games that it would not reset) when ``state`` is a new game, and
    ``restart_at`` only for a game already under way. ``state`` is played on in place.
    """
    fresh = not state.history()
    for bot in bots:
        if fresh:
            bot.restart()
        else:
            bot.restart_at(state)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probs))
            for bot in bots:
                bot.inform_action(state, pyspiel.PlayerId.CHANCE, action)
            state.apply_action(action)
            continue
        player = state.current_player()
        action = bots[player].step(state)
        for i, bot in enumerate(bots):
            if i != player:
                bot.inform_action(state, player, action)
        state.apply_action(action)
    returns: list[float] = list(state.returns())
    return returns


class KeralaObserver:
    """Fills one player's observation, in place, into :attr:`tensor` (one NumPy buffer;
    :attr:`dict` holds its pieces as views with their true shapes)."""

    def __init__(self, perfect_recall: bool, layout: Layout | None = None) -> None:
        self.perfect_recall = perfect_recall
        self.layout: Layout = layout if layout is not None else observation_layout("compact", 2)
        self.tensor: npt.NDArray[np.float32] = np.zeros(self.layout.size, np.float32)
        self.dict = self.layout.views(self.tensor)

    def set_from(self, state: KeralaState, player: int) -> None:
        self.layout.fill(state.engine, player, self.tensor)

    def string_from(self, state: KeralaState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_key(player)
        doc = state.engine.view(player).to_json()
        del doc["decisions"]
        return json.dumps(doc, separators=(",", ":"))


pyspiel.register_game(_GAME_TYPE, KeralaGame)

__all__ = [
    "MARGIN_BOUND",
    "OPENSPIEL_LAYOUTS",
    "SHORT_NAME",
    "KeralaGame",
    "KeralaObserver",
    "KeralaState",
    "evaluate_bots",
    "resample",
]
