"""Kerala as a PettingZoo AEC environment for 2–5 players (``kerala_v0``).

>>> e = env(num_players=3)
>>> e.reset(seed=42)
>>> e.agent_selection
'player_0'
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].dtype, int(obs["action_mask"].sum()) > 0
((22643,), dtype('int8'), True)
>>> e.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))
>>> e.agent_selection
'player_1'

Agents are ``player_0 … player_{n-1}`` in seat order (seat 0 holds the bag first, docs/rules.md S1)
with colors ``blue, black, green, red, purple`` by default.

- **Action space** ``Discrete(4368)``: the encoding of :mod:`kerala.envs.encoding`, the same
  for every player count. ``step`` accepts Python or NumPy integers; an id that is not legal now
  raises :class:`IllegalActionError` (a ``ValueError``) and changes nothing.
- **Observation** ``observe(agent)`` → ``{"observation": float32 (size,), "action_mask":
  int8 (4368,)}``: a fresh vector in the layout ``observation=`` names (``"compact"`` by
  default, ``"flat"``, ``"graph"``, ``"full"``: :mod:`kerala.envs.observations`), from
  ``agent``'s point of view (docs/rules.md I1), without hidden information (I2);
  ``env.unwrapped.layout.views(vector)`` gives its named pieces. The mask is all zeros for an
  agent not on turn and once the game is over.
- **Chance** Tile draws (random removal, S3, and each round's display, G1) happen inside the env
  from its own RNG, seeded by ``reset(seed=...)``; ``reset()`` without a seed continues that
  stream.
- **Rewards** 0 until the end; then, with ``reward="rank"`` (default), each agent gets
  (opponents with a lower total − opponents with a higher total) / (n − 1), in ``[-1, 1]``,
  zero-sum (SC7 ranks, ties equal); with ``reward="margin"``, its total minus the mean total of
  the others, in points (zero-sum too).
  ``infos[agent]`` then holds ``"score"`` (SC1–SC6 breakdown as JSON) and ``"rank"``.
- **Rendering** ``render_mode="ansi"`` (text), ``"human"`` (printed) or ``"rgb_array"`` (an
  ``(H, W, 3)`` ``uint8`` picture, :mod:`kerala.envs.render`).
- **Parallel API** :func:`parallel_env` (:class:`KeralaParallelEnv`): every live agent is asked
  for an action at every step, only the one on turn acts (see its docstring).
- A follow-up decision (SP1, SP2) is a step of the same agent.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from kerala.actions import Decision
from kerala.envs.encoding import ACTIONS, IllegalActionError, check_reward, final_returns
from kerala.envs.observations import observation_layout
from kerala.envs.render import check_render_mode, render_in_mode
from kerala.game import GameState, new_game
from kerala.tiles import COLORS

ObsDict = dict[str, npt.NDArray[Any]]


def _colors(num_players: int, colors: list[str] | None) -> list[str]:
    if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
        raise ValueError(f"num_players must be an integer 2..5, got {num_players!r}")
    if not 2 <= num_players <= 5:
        raise ValueError(f"num_players must be 2..5 (docs/rules.md S1), got {num_players}")
    if colors is None:
        return list(COLORS[: int(num_players)])
    if len(colors) != num_players:
        raise ValueError(f"colors: {len(colors)} given for {num_players} players")
    return list(colors)


class raw_env(AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # PettingZoo's naming
    """The unwrapped environment; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "kerala_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 2,
        colors: list[str] | None = None,
        render_mode: str | None = None,
        observation: str = "compact",
        reward: str = "rank",
    ) -> None:
        super().__init__()
        self._colors = _colors(num_players, colors)
        self.layout = observation_layout(observation, len(self._colors))
        self.reward = check_reward(reward)
        new_game(self._colors)  # validates the colors (S1) before anything else happens
        self.render_mode = check_render_mode(render_mode)
        n = len(self._colors)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(ACTIONS.num_actions) for a in self.possible_agents
        }
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(
                        0.0, 1.0, self.layout.shape, dtype=np.float32
                    ),
                    "action_mask": gymnasium.spaces.Box(
                        0, 1, (ACTIONS.num_actions,), dtype=np.int8
                    ),
                }
            )
            for a in self.possible_agents
        }
        self._rng: random.Random | None = None
        self._state: GameState | None = None
        self._legal: dict[int, Decision] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def state_now(self) -> GameState:
        """The engine state (hidden information included: for tests and tools, not agents)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        elif self._rng is None:
            self._rng = random.Random()
        self._state = new_game(self._colors)
        self._state.advance_chance(self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._refresh()

    def _refresh(self) -> None:
        s = self.state_now
        seat = s.current_player
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
            self._legal = ACTIONS.legal_actions(s)
        else:
            self._legal = {}

    def observe(self, agent: str) -> ObsDict:
        s = self.state_now
        seat = self.possible_agents.index(agent)
        mask = (
            ACTIONS.action_mask(self._legal)
            if agent == self.agent_selection and not s.is_over()
            else np.zeros(ACTIONS.num_actions, dtype=np.int8)
        )
        return {"observation": self.layout.observation(s, seat), "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent on turn, ascending."""
        return list(self._legal)

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} is on turn: None is only for finished agents")
        a = int(action)
        d = self._legal.get(a)
        if d is None:
            raise IllegalActionError(
                f"action {a} is not legal for {agent} now; "
                f"{len(self._legal)} actions are (observe(agent)['action_mask'])"
            )
        s = self.state_now
        self._cumulative_rewards[agent] = 0.0
        s.apply_unchecked(d)
        if s.is_chance():
            assert self._rng is not None
            s.advance_chance(self._rng)
        if s.is_over():
            scores = s.scores()
            returns = final_returns(self.reward, [b.total for b in scores])
            ranks = s.ranks()
            for i, ag in enumerate(self.possible_agents):
                self.rewards[ag] = returns[i]
                self.terminations[ag] = True
                self.infos[ag] = {"score": scores[i].to_json(), "rank": ranks[i]}
        else:
            for ag in self.agents:
                self.rewards[ag] = 0.0
        self._refresh()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The public state: ``ansi`` returns the text, ``human`` prints it, ``rgb_array``
        returns an ``(H, W, 3)`` ``uint8`` picture (:func:`kerala.envs.render.render_rgb`)."""
        return render_in_mode(self.render_mode, self.state_now)

    def close(self) -> None:
        pass


class KeralaParallelEnv(ParallelEnv[str, ObsDict, int]):  # type: ignore[misc]
    """Kerala through PettingZoo's parallel API: the same game as :class:`raw_env`.

    Kerala is turn-based, so a parallel step asks every live agent for an action and applies
    only the action of the agent on turn (``infos[agent]["to_move"]``, also feature 8 of slot
    0 of the ``players`` piece). The agents not on turn get the mask of one id,
    ``NOOP_ACTION`` (0), so that a masked policy can answer for every agent; their actions are
    read from nobody and may be anything. A missing action of the agent on turn, or an illegal
    one, raises :class:`IllegalActionError` and changes nothing. Every agent gets its reward at
    every step (0 until the end), and all of them terminate together when the game ends; the
    observations that end the game carry the no-op mask too. Follow-ups (SP1, SP2) are further
    steps of the same agent.
    """

    metadata: ClassVar[dict[str, Any]] = {**raw_env.metadata, "is_parallelizable": True}

    def __init__(
        self,
        num_players: int = 2,
        colors: list[str] | None = None,
        render_mode: str | None = None,
        observation: str = "compact",
        reward: str = "rank",
    ) -> None:
        self.aec = raw_env(num_players, colors, None, observation, reward)
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.layout = self.aec.layout
        self._noop = np.zeros(ACTIONS.num_actions, dtype=np.int8)
        self._noop[0] = 1

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.aec.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.aec.action_spaces[agent]

    @property
    def state_now(self) -> GameState:
        """The engine state (hidden information included: for tests and tools, not agents)."""
        return self.aec.state_now

    def _observations(self, agents: list[str]) -> dict[str, ObsDict]:
        over = self.aec.state_now.is_over()
        out = {}
        for agent in agents:
            obs = self.aec.observe(agent)
            if over or agent != self.aec.agent_selection:
                obs["action_mask"] = self._noop.copy()
            out[agent] = obs
        return out

    def _infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        over = self.aec.state_now.is_over()
        return {
            a: {**self.aec.infos[a], "to_move": not over and a == self.aec.agent_selection}
            for a in agents
        }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observations(self.agents), self._infos(self.agents)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, ObsDict],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        agent = self.aec.agent_selection
        if agent not in actions or actions[agent] is None:
            raise IllegalActionError(f"{agent} is on turn: give it an action")
        self.aec.step(actions[agent])
        live = list(self.agents)
        over = self.aec.state_now.is_over()
        rewards = {a: float(self.aec.rewards[a]) for a in live}
        terminations = dict.fromkeys(live, over)
        truncations = dict.fromkeys(live, False)
        out = (self._observations(live), rewards, terminations, truncations, self._infos(live))
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return out

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """As :meth:`raw_env.render`."""
        return render_in_mode(self.render_mode, self.aec.state_now)

    def state(self) -> npt.NDArray[np.float32]:
        """The observation of seat 0 (public facts only: the game has no global hidden-free
        state richer than what every player sees)."""
        return self.aec.layout.observation(self.aec.state_now, 0)

    def close(self) -> None:
        pass


def parallel_env(
    num_players: int = 2,
    colors: list[str] | None = None,
    render_mode: str | None = None,
    observation: str = "compact",
    reward: str = "rank",
) -> KeralaParallelEnv:
    """The parallel-API environment (:class:`KeralaParallelEnv`)."""
    return KeralaParallelEnv(num_players, colors, render_mode, observation, reward)


def render_text(state: GameState) -> str:
    """Public facts only (I1): the engine's drawing of the game, ``str(state)``."""
    return str(state)


def env(
    num_players: int = 2,
    colors: list[str] | None = None,
    render_mode: str | None = None,
    observation: str = "compact",
    reward: str = "rank",
) -> AECEnv[str, ObsDict, int]:
    """The wrapped environment (out-of-bounds assertions and call-order checks)."""
    e: AECEnv[str, ObsDict, int] = raw_env(num_players, colors, render_mode, observation, reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = [
    "IllegalActionError",
    "KeralaParallelEnv",
    "env",
    "parallel_env",
    "raw_env",
    "render_in_mode",
    "render_text",
]
