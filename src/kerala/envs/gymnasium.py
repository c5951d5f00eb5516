"""Kerala as a single-agent Gymnasium environment: one learner against built-in bots.

Importing this module registers ``kerala/Kerala-v0``:

>>> import gymnasium
>>> env = gymnasium.make("kerala/Kerala-v0", num_players=3, opponents="random")
>>> obs, info = env.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].dtype, int(obs["action_mask"].sum()) > 0
((22643,), dtype('int8'), True)
>>> action = int(np.flatnonzero(obs["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> terminated, truncated, reward
(False, False, 0.0)

- **Parameters** ``num_players`` (2–5), ``opponents``: one opponent for every other seat or
  a list with one per other seat in seat order; an opponent is a bot spec (``"greedy"``,
  ``"random"``, ``"mcts:iterations=200"``, a level …, see :func:`kerala.bots.make_bot`), a bot
  object (:class:`kerala.bots.Bot`: ``name`` and ``choose(view, legal)``) or a :data:`Policy`
  (``policy(observation, action_mask) -> action id``, seeing its own seat's observation);
  :meth:`KeralaEnv.set_opponents` changes them from the next reset on.
  ``seat``: the learner's seat (default 0) or ``"random"`` (drawn at each reset);
  ``illegal_action``: ``"raise"`` (default) or ``"terminate"``; ``observation``: the layout
  (``"compact"`` default, ``"flat"``, ``"graph"``, ``"full"``, see
  :mod:`kerala.envs.observations`); ``reward``: ``"rank"`` (default) or ``"margin"``;
  ``render_mode``: ``"ansi"``, ``"human"`` (text) or ``"rgb_array"`` (:mod:`kerala.envs.render`).
- **Spaces** ``Discrete(4368)`` actions, the encoding of :mod:`kerala.envs.encoding`;
  observations ``{"observation": float32 (size,), "action_mask": int8 (4368,)}`` from the
  learner's point of view (docs/rules.md I1, never hidden information, I2).
  ``env.unwrapped.action_masks()`` gives the mask too (sb3-contrib's convention) and
  ``env.unwrapped.layout.views(obs["observation"])`` the named pieces.
- **No empty mask** The observation that ends an episode (``terminated``) has the mask
  :data:`END_MASK`: only :data:`NOOP_ACTION` (0) set. Nothing is legal then (stepping a finished
  env raises), but a policy can still pick an action from it: a vector env in Gymnasium's
  default ``NEXT_STEP`` autoreset mode asks for one and ignores it (it resets that env).
- **Reproducible opponents** Bag draws (and the random removal, S3) come from the env's
  ``np_random``; the bots built from specs are seeded from it at each reset. Opponents search
  with *iteration* budgets: the level ``hard`` (``mcts:time=1`` elsewhere) becomes ``mcts`` with
  :data:`HARD_ITERATIONS` iterations, and a bare ``mcts`` or ``expert`` gets the iterations of
  :data:`SEARCH_ITERATIONS`. So
  ``reset(seed=s)`` replays the same episode for the same actions, at every level. An explicit
  time budget (``mcts:time=0.5``) is still accepted, but such a search depends on the machine's
  speed and load: its episodes are **not** reproducible (``env.unwrapped.reproducible`` is
  then ``False``). Bot objects and policies are used as given: they replay if they are
  deterministic or seeded by their owner.
- **Rewards** 0 until the end, then with ``reward="rank"`` (opponents with a lower total −
  opponents with a higher total) / (n − 1), in ``[-1, 1]`` (SC7); with ``reward="margin"``
  the learner's total minus the mean total of the opponents, in points. ``info`` then holds
  ``"score"`` (SC1–SC6 JSON), ``"rank"`` and ``"totals"``.
- **Illegal actions** With ``"raise"`` (default) an illegal id raises
  :class:`~kerala.envs.encoding.IllegalActionError` (a ``ValueError``) and changes nothing.
  With ``"terminate"`` it ends the episode with the worst reward of the reward option,
  ``-reward_bound(reward)`` (−1 for ``rank``, −320 for ``margin``, below any final margin) and
  ``info["illegal_action"]`` set; the game itself is left as it was. Gymnasium's
  ``check_env`` steps unmasked random ids: give it ``illegal_action="terminate"``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import gymnasium
import numpy as np
import numpy.typing as npt

from kerala.actions import Decision
from kerala.bots import Bot, make_bot, parse_spec
from kerala.envs.encoding import (
    ACTIONS,
    PASS_ACTION,
    IllegalActionError,
    check_reward,
    final_returns,
    reward_bound,
)
from kerala.envs.observations import ObservationLayout, observation_layout
from kerala.envs.render import check_render_mode, render_in_mode
from kerala.game import GameState, new_game
from kerala.tiles import COLORS

ENV_ID = "kerala/Kerala-v0"
#: Iterations per decision of the level ``hard`` in the envs (about 1 s of search, as the
#: level's ``mcts:time=1`` elsewhere, on an idle 2-core machine).
HARD_ITERATIONS = 600
#: Iterations per decision of a bare ``mcts`` opponent (about its default 0.25 s).
MCTS_ITERATIONS = 150
#: Iterations per decision of the searching bots when their spec names no budget.
SEARCH_ITERATIONS: dict[str, int] = {"mcts": MCTS_ITERATIONS, "expert": HARD_ITERATIONS}


def reproducible_spec(spec: str) -> tuple[str, bool]:
    """The bot spec an env opponent uses for ``spec``, and whether it is reproducible.

    ``hard`` becomes ``mcts:iterations=600``; ``mcts`` without a budget gets
    ``iterations=150``, ``expert`` ``iterations=600`` (:data:`SEARCH_ITERATIONS`); a spec with
    a ``time`` option stays as it is and is not reproducible.

    >>> reproducible_spec("hard"), reproducible_spec("mcts:c=0.5")
    (('mcts:iterations=600', True), ('mcts:c=0.5:iterations=150', True))
    >>> reproducible_spec("mcts:time=0.5")
    ('mcts:time=0.5', False)
    """
    name, opts = parse_spec(spec)
    if name == "hard" and not opts:
        return f"mcts:iterations={HARD_ITERATIONS}", True
    if "time" in opts:
        return spec, False
    if name in SEARCH_ITERATIONS and "iterations" not in opts:
        return f"{spec.strip()}:iterations={SEARCH_ITERATIONS[name]}", True
    return spec, True


#: ``{"observation": float32 array, "action_mask": int8 array}``.
ObsDict = dict[str, Any]
#: A policy seated as an opponent: ``policy(observation, action_mask) -> action id``, with the
#: observation vector (the env's layout) and the ``int8`` mask of its own seat, as the learner
#: gets them; it returns a legal id (a Python or NumPy integer).
Policy: TypeAlias = Callable[
    [npt.NDArray[np.float32], npt.NDArray[np.int8]], "int | np.integer[Any]"
]
#: What fills another seat: a bot spec, a bot object or a policy.
Opponent: TypeAlias = "str | Bot | Policy"
#: The action id of the terminal observation's mask (the pass id: no action is legal then).
NOOP_ACTION: Final = PASS_ACTION
#: The mask of an observation that ends an episode: only :data:`NOOP_ACTION` set.
END_MASK: Final[npt.NDArray[np.int8]] = np.zeros(ACTIONS.num_actions, dtype=np.int8)
END_MASK[NOOP_ACTION] = 1
END_MASK.flags.writeable = False


class PolicyOpponent:
    """A :data:`Policy` in a seat: it sees its seat's observation and mask, its id is decoded."""

    def __init__(self, policy: Policy, layout: ObservationLayout, name: str = "policy") -> None:
        self.policy = policy
        self.layout = layout
        self.name = name

    def decide(self, state: GameState, seat: int) -> Decision:
        legal = ACTIONS.legal_actions(state)
        a = self.policy(self.layout.observation(state, seat), ACTIONS.action_mask(legal))
        d = legal.get(int(a))
        if d is None:
            raise IllegalActionError(
                f"the opponent policy {self.name!r} in seat {seat} chose action {int(a)}, "
                f"which is not legal; {len(legal)} actions are (its action_mask)"
            )
        return d


def _opponent_list(opponents: object, others: int) -> list[Opponent]:
    """One opponent per other seat, each checked (a spec must name a bot)."""
    if isinstance(opponents, str | Bot) or callable(opponents):
        items: list[object] = [opponents] * others
    elif isinstance(opponents, Sequence):
        items = list(opponents)
        if len(items) != others:
            raise ValueError(f"opponents: {len(items)} specs for {others} other seats")
    else:
        raise TypeError(
            "opponents: expected a bot spec, a bot (kerala.bots.Bot), a policy "
            f"(observation, action_mask) -> action, or a list of them; got {opponents!r}"
        )
    out: list[Opponent] = []
    for item in items:
        if isinstance(item, str):
            make_bot(item, seed=0)  # refuses an unknown spec now, with the registry's message
        elif not (isinstance(item, Bot) or callable(item)):
            raise TypeError(
                "opponents: each must be a bot spec, a bot (kerala.bots.Bot) or a policy "
                f"(observation, action_mask) -> action; got {item!r}"
            )
        out.append(item)
    return out


class _GeneratorRandom(random.Random):
    """A :class:`random.Random` whose ``random()`` reads the env's ``np_random`` (the engine
    draws a tile as ``bag[int(rng.random() * len(bag))]``)."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        self._env = env
        super().__init__(0)

    def random(self) -> float:
        return float(self._env.np_random.random())


class KeralaEnv(gymnasium.Env[ObsDict, np.int64]):
    """See the module docstring."""

    # Gymnasium declares ``metadata`` an instance attribute; the class-level dict is its idiom.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 2,
        opponents: Opponent | Sequence[Opponent] = "greedy",
        seat: int | str = 0,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        observation: str = "compact",
        reward: str = "rank",
    ) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
            raise ValueError(f"num_players must be an integer 2..5, got {num_players!r}")
        if not 2 <= num_players <= 5:
            raise ValueError(f"num_players must be 2..5 (docs/rules.md S1), got {num_players}")
        self.num_players = int(num_players)
        self.layout = observation_layout(observation, self.num_players)
        self.set_opponents(opponents)
        self.reward = check_reward(reward)
        if seat != "random" and (
            isinstance(seat, bool)
            or not isinstance(seat, int | np.integer)
            or not 0 <= int(seat) < self.num_players
        ):
            raise ValueError(f"seat must be 0..{self.num_players - 1} or 'random', got {seat!r}")
        self._seat_option = seat
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(
                f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        #: The reward of an illegal action with ``illegal_action="terminate"``: the worst
        #: final reward of the reward option (−1 for ``rank``, −320 for ``margin``).
        self.illegal_penalty = -reward_bound(self.reward)
        self.render_mode = check_render_mode(render_mode)
        self.colors = list(COLORS[: self.num_players])
        self.action_space = gymnasium.spaces.Discrete(ACTIONS.num_actions)
        self.observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 1.0, self.layout.shape, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (ACTIONS.num_actions,), dtype=np.int8),
            }
        )
        self.seat = 0
        self._state: GameState | None = None
        self._bots: dict[int, Bot | PolicyOpponent] = {}
        self._legal: dict[int, Decision] = {}
        self._draws: random.Random | None = None
        self._done = True

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Seat ``opponents`` (as the constructor's argument) from the next :meth:`reset` on."""
        specs = _opponent_list(opponents, self.num_players - 1)
        self.opponent_specs = specs
        resolved = [reproducible_spec(o) if isinstance(o, str) else (o, True) for o in specs]
        #: What the opponents are built from: specs with iteration budgets (see the module
        #: docstring), bot objects and policies as given.
        self.opponent_bot_specs: list[Opponent] = [r[0] for r in resolved]
        #: Whether ``reset(seed=s)`` replays the same episode (no time-budgeted opponent).
        self.reproducible = all(r[1] for r in resolved)

    @property
    def state_now(self) -> GameState:
        """The engine state (hidden information included: for tests and tools, not agents)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        if self._seat_option == "random":
            self.seat = int(rng.integers(self.num_players))
        else:
            self.seat = int(self._seat_option)
        others = [s for s in range(self.num_players) if s != self.seat]
        self._bots = {}
        for s, spec, bot_spec in zip(
            others, self.opponent_specs, self.opponent_bot_specs, strict=True
        ):
            if isinstance(bot_spec, str):
                bot = make_bot(bot_spec, seed=int(rng.integers(2**62)))
                bot.name = parse_spec(str(spec))[0]
                self._bots[s] = bot
            elif isinstance(bot_spec, Bot):
                self._bots[s] = bot_spec
            else:
                name = getattr(bot_spec, "__name__", type(bot_spec).__name__)
                self._bots[s] = PolicyOpponent(bot_spec, self.layout, name)
        self._draws = _GeneratorRandom(self)
        self._state = new_game(self.colors)
        self._done = False
        self._advance()
        return self._observation(), self._info()

    def _advance(self) -> None:
        """Resolve draws and opponents' decisions until the learner decides or the game ends."""
        s = self.state_now
        assert self._draws is not None
        while not s.is_over():
            if s.is_chance():
                s.advance_chance(self._draws)
                continue
            p = s.current_player
            if p == self.seat:
                break
            bot = self._bots[p]
            if isinstance(bot, PolicyOpponent):
                s.apply_unchecked(bot.decide(s, p))
            else:
                s.apply(bot.choose(s.view(p), s.legal_decisions()))
        self._legal = ACTIONS.legal_actions(s) if not s.is_over() else {}

    def bot_action(self, bot: Bot) -> int:
        """The action a project bot (:mod:`kerala.bots`) takes in the learner's seat now, from
        that seat's own view and legal decisions only (docs/rules.md I1, I2): any bot can play
        the learner's side, as a baseline or as the policy being trained
        (``benchmarks/train_learned.py``)."""
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        s = self.state_now
        return ACTIONS.encode(s, bot.choose(s.view(self.seat), s.legal_decisions()))

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The learner's legal actions as an ``int8`` mask; :data:`END_MASK` (a copy) once the
        episode is over."""
        if self._done:
            return END_MASK.copy()
        return ACTIONS.action_mask(self._legal)

    def _observation(self) -> ObsDict:
        return {
            "observation": self.layout.observation(self.state_now, self.seat),
            "action_mask": self.action_masks(),
        }

    def _info(self) -> dict[str, Any]:
        s = self.state_now
        info: dict[str, Any] = {"seat": self.seat}
        if s.is_over():
            scores = s.scores()
            info["score"] = scores[self.seat].to_json()
            info["rank"] = s.ranks()[self.seat]
            info["totals"] = [b.total for b in scores]
        return info

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        s = self.state_now
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        d = self._legal.get(a)
        if d is None:
            message = (
                f"action {a} is not legal now ({len(self._legal)} legal actions: see "
                "observation['action_mask']); illegal_action='terminate' ends the episode "
                "with a penalty instead"
            )
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            info = self._info()
            info["illegal_action"] = message
            self._legal = {}
            self._done = True
            return self._observation(), self.illegal_penalty, True, False, info
        s.apply_unchecked(d)
        self._advance()
        reward = 0.0
        if s.is_over():
            self._done = True
            reward = final_returns(self.reward, [b.total for b in s.scores()])[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, s.is_over(), False, self._info()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """``ansi``: the text picture; ``human``: printed; ``rgb_array``: an ``(H, W, 3)``
        ``uint8`` picture of the boards (:func:`kerala.envs.render.render_rgb`)."""
        return render_in_mode(self.render_mode, self.state_now)

    def close(self) -> None:
        pass


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="kerala.envs.gymnasium:KeralaEnv")

__all__ = [
    "END_MASK",
    "ENV_ID",
    "HARD_ITERATIONS",
    "MCTS_ITERATIONS",
    "NOOP_ACTION",
    "SEARCH_ITERATIONS",
    "KeralaEnv",
    "Opponent",
    "Policy",
    "PolicyOpponent",
    "reproducible_spec",
]
