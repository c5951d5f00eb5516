"""The ``mcts`` bot: information-set Monte Carlo tree search from a player's view.

Hidden information (docs/rules.md I2) is never looked at: each iteration works on a
*determinization*, a full game state drawn at random consistently with the view
(:func:`kerala.views.sample_state`; under random removal the removed tiles are redrawn from the
unseen tiles of unplayed colors every iteration). The same tree is shared by all
determinizations (single-observer ISMCTS): within a round every fact is public, so a decision
node's legal decisions follow from its path; the draws that open a round are *chance nodes*
whose children are keyed by the display drawn.

Large branching (up to ~65 placements, hundreds of SP1/SP2 follow-ups) is handled by
*progressive widening*: a node's decisions are ordered by the greedy evaluation
(:mod:`kerala.bots.evaluation`) and only the best ``ceil(widen * visits ** 0.5)`` are open to
selection (UCT). SP2 follow-ups are first cut to the moves that join a stack to its color.

A leaf is judged by a short rollout with a cheap greedy policy (each decision picks the best of
a few sampled candidates) to the end of the round (3-5 players) or of the next round (2
players), then every grounds is evaluated; the reward of seat *i* is
``sigmoid((v_i - best other v) / temperature)``, or the exact win share at the end of the game
(SC7). Each seat maximizes its own reward (max^n); with three or more players the other seats
are modelled as the greedy bot instead (option ``opponents``): their replies are played out in
the tree at once, so every leaf is this player's turn or the end of a round, and the values of
their placements in the root's round are computed once per search.

Budget: ``mcts:time=0.25`` (seconds per decision, wall clock) or ``mcts:iterations=500``
(reproducible: the same seed and view give the same decision). Other options: ``c`` (UCT
exploration, default 0.35), ``widen`` (default 2 with 2 players, 1 with 3-5), ``rollout``
(rounds rolled out past the current one, default 1 with 2 players, 0 with 3-5), ``width``
(rollout candidates per decision, default 8), ``clock`` (``wall``, the default, or ``cpu``:
``time`` counts this process's CPU seconds, for fair benchmarks on a busy machine),
``opponents`` (``auto``, ``search`` or ``greedy``), ``eval`` (``hand``, the default, or
``learned``: the evaluation learned from self-play).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> bot = MCTSBot(seed=0, iterations=30)
>>> bot.choose(s.view(0), s.legal_decisions()) in s.legal_decisions()
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from kerala.actions import Decision, MoveStack, Place
from kerala.bots import BotSpecError, register_bot
from kerala.bots.evaluation import (
    DEFAULT_WEIGHTS,
    Weights,
    apply_to_grounds,
    best_after,
    evaluate,
    useful_move_stacks,
)
from kerala.bots.greedy import best_follow_up_value, score_decisions, weights_option
from kerala.chance import sample
from kerala.game import GameState, Phase
from kerala.grounds import Grounds
from kerala.scoring import score_grounds
from kerala.views import PlayerView, sample_state

#: A placed special tile's prior bonus: its follow-up is searched below it in the tree.
_SPECIAL_BONUS = 1.0


class _Node:
    __slots__ = ("cands", "children", "total", "visits")

    def __init__(self, n: int) -> None:
        self.visits = 0
        self.total = [0.0] * n
        self.children: dict[object, _Node] = {}
        #: Decisions ordered best prior first; ``None`` until the node is first expanded.
        self.cands: list[Decision] | None = None


class MCTSBot:
    """Information-set MCTS (see the module docstring)."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_budget: float | None = None,
        iterations: int | None = None,
        c: float = 0.35,
        widen: float | None = None,
        rollout_rounds: int | None = None,
        rollout_width: int = 8,
        temperature: float = 6.0,
        weights: Weights = DEFAULT_WEIGHTS,
        cpu_clock: bool = False,
        opponents: str = "auto",
    ) -> None:
        if time_budget is None and iterations is None:
            time_budget = 0.25
        self.name = "mcts"
        self.rng = random.Random(seed)
        self.time_budget = time_budget
        self.iterations = iterations
        self.c = c
        #: Progressive widening factor; ``None``: 2 with 2 players, 1 with 3-5.
        self.widen = widen
        self._widen = 2.0
        #: Rounds rolled out past the current one; ``None``: 1 with 2 players, 0 with 3-5.
        self.rollout_rounds = rollout_rounds
        self._rounds = 1
        self.rollout_width = rollout_width
        self.temperature = temperature
        self.weights = weights
        #: Budget ``time`` in CPU seconds of this process instead of wall-clock seconds.
        self.clock = time.process_time if cpu_clock else time.perf_counter
        self._margin = 0.01 * time_budget if time_budget is not None else 0.0
        if opponents not in ("auto", "search", "greedy"):
            raise ValueError(f"opponents must be 'auto', 'search' or 'greedy', got {opponents!r}")
        #: How the other seats' decisions are chosen in the tree: searched (UCT, each seat
        #: maximizing its own reward) or modelled as greedy; ``auto``: search with 2 players,
        #: greedy with more (three searched opponents make the tree too wide to pay off).
        self.opponents = opponents
        self.model_opponents = False
        #: Iterations run by the last :meth:`choose` (for benchmarks).
        self.last_iterations = 0
        self._cache_round = -1
        self._place_values: dict[Decision, float] = {}

    # -- the search ----------------------------------------------------------------------

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        stats = self.search(view, legal)
        return stats[0][0]

    def search(
        self,
        view: PlayerView,
        legal: Sequence[Decision],
        focus: Sequence[Decision] = (),
    ) -> list[tuple[Decision, float, int]]:
        """Run the search; every root decision with its mean reward and visits, best first.

        Decisions never opened by progressive widening are listed last with their prior rank.
        The decisions in ``focus`` (e.g. the one a player chose, for post-game analysis) are
        opened first, so that the search always gives them a value.
        """
        clock = self.clock
        start = clock()
        budget = self.time_budget
        self.model_opponents = self.opponents == "greedy" or (
            self.opponents == "auto" and view.n > 2
        )
        # With 3-5 players only this player's decisions are searched, against the modelled
        # replies: a leaf is judged at the end of its round (rolling a whole round more out
        # with the cheap policy only added noise and halved the iterations), and a narrow
        # widening (choosing among the first few decisions of the greedy order) won more
        # games than a wide one (benchmarks in docs/bots.md).
        self._widen = self.widen if self.widen is not None else (2.0 if view.n == 2 else 1.0)
        self._rounds = (
            self.rollout_rounds if self.rollout_rounds is not None else (1 if view.n == 2 else 0)
        )
        # The loop stops a little early: ``_margin`` learns how far past its last iteration a
        # search runs (the last iteration, a GC pass, a busy machine) to keep the budget.
        deadline = start + budget - self._margin if budget is not None else math.inf
        max_iter = self.iterations if self.iterations is not None else 1 << 60
        rng = self.rng
        n = view.n
        me = legal[0].seat
        base, hidden_removal, order = self._start(view, legal)
        root = _Node(n)
        root.cands = order
        if focus:
            first = [d for d in root.cands if d in focus]
            root.cands = first + [d for d in root.cands if d not in focus]
        cands = root.cands
        it = 0
        while it < max_iter:
            if it and clock() >= deadline:
                break
            state = self._determinize(base, rng, hidden_removal)
            self._iterate(root, state, rng, me)
            it += 1
        out: list[tuple[Decision, float, int]] = []
        for d in cands:
            child = root.children.get(d)
            if child is not None and child.visits:
                out.append((d, child.total[me] / child.visits, child.visits))
        self.last_iterations = it
        seen = {id(d) for d, _, _ in out}
        ranked = sorted(out, key=lambda x: (-x[2], -x[1]))
        for d in cands:
            if id(d) not in seen:
                ranked.append((d, 0.0, 0))
        self._learn_margin(start)
        return ranked

    def _start(
        self, view: PlayerView, legal: Sequence[Decision]
    ) -> tuple[GameState, bool, list[Decision]]:
        """A search's start: a state drawn from the view (its hidden tiles sampled), whether
        the removed tiles are hidden (then redrawn for every sample), and the root's decisions,
        best prior first."""
        base = sample_state(view, self.rng)
        # In the root's round a seat's grounds do not change before its placement, so the
        # opponent model's values of the placements are shared by every path of the search.
        self._cache_round = base.round
        self._place_values = {}
        return base, view.removed is None and base.to_remove > 0, self._root_order(view, legal)

    def _root_order(self, view: PlayerView, legal: Sequence[Decision]) -> list[Decision]:
        """The root's decisions, best prior first.

        Cheap priors (a special tile's follow-ups are searched below it, so it gets a bonus
        instead), so that setting up the root never eats the time budget.
        """
        priors = score_decisions(view, legal, self.weights, follow_up=False, useful_only=True)
        order = sorted(
            range(len(legal)),
            key=lambda i: -priors[i] - (_SPECIAL_BONUS if _is_special(legal[i]) else 0.0),
        )
        return [legal[i] for i in order]

    def _learn_margin(self, start: float) -> None:
        """After a search begun at ``start``: learn how far past the budget searches run."""
        budget = self.time_budget
        if budget is None:
            return
        over = self.clock() - (start + budget)
        if over > 0:
            self._margin = min(0.25 * budget, self._margin + over)
        else:
            self._margin *= 0.97

    @staticmethod
    def _determinize(base: GameState, rng: random.Random, hidden_removal: bool) -> GameState:
        if hidden_removal and base.phase != Phase.REMOVAL:
            return base.redrawn(rng)
        return base.copy(with_rng=False)

    def _iterate(self, root: _Node, state: GameState, rng: random.Random, me: int) -> None:
        path = [root]
        node = root
        c = self.c
        while True:
            phase = state.phase
            if phase == Phase.OVER:
                break
            if phase < Phase.PLACE:
                while state.phase < Phase.PLACE:
                    state.sample_draw(rng)
                chance_key = tuple(sorted(t.index for t in state.display))
                child = node.children.get(chance_key)
                if child is None:
                    child = node.children[chance_key] = _Node(state.n)
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            p = state.current_player
            modelled = p != me and self.model_opponents
            if node.cands is None:
                if modelled:
                    # The opponent model's choice is public (it depends on the public grounds
                    # only), so it is computed once and shared by every determinization.
                    node.cands = [self._greedy_choice(state)]
                else:
                    if node.visits == 0 and node is not root:
                        break  # a fresh leaf: roll out first, expand on a later visit
                    node.cands = self._candidates(state)
            cands = node.cands
            children = node.children
            best: Decision | None = None
            if modelled:
                # Opponent model: the other seats play their best one-step decision.
                best = cands[0]
            else:
                allowed = min(
                    len(cands), max(1, math.ceil(self._widen * math.sqrt(node.visits + 1)))
                )
                best_val = -math.inf
                log_n = math.log(node.visits + 1)
                for d in cands[:allowed]:
                    ch = children.get(d)
                    if ch is None or ch.visits == 0:
                        best = d
                        break
                    v = ch.total[p] / ch.visits + c * math.sqrt(log_n / ch.visits)
                    if v > best_val:
                        best_val = v
                        best = d
            assert best is not None
            state.apply_unchecked(best)
            child = children.get(best)
            if child is None:
                child = children[best] = _Node(state.n)
                path.append(child)
                if not (
                    self.model_opponents
                    and Phase.PLACE <= state.phase < Phase.OVER
                    and state.current_player != me
                ):
                    break
                # The modelled opponents' replies are played out in the tree at once: the
                # leaf's rollout starts when it is this player's turn again (or a new round).
                node = child
                continue
            node = child
            path.append(node)
        reward = self._rollout(state, rng)
        for nd in path:
            nd.visits += 1
            tot = nd.total
            for i, r in enumerate(reward):
                tot[i] += r

    # -- helpers -------------------------------------------------------------------------

    def _candidates(self, state: GameState) -> list[Decision]:
        legal = state.legal_decisions()
        seat = state.current_player
        g = state.grounds[seat]
        if state.phase == Phase.FOLLOW_UP and len(legal) > 1 and type(legal[-1]) is MoveStack:
            legal = useful_move_stacks(g, legal)
        if len(legal) == 1:
            return legal
        left = state.bag_size / played_tiles(state)
        w = self.weights
        vals = []
        for d in legal:
            h = g.copy()
            apply_to_grounds(h, d)
            v = evaluate(h, left, w)
            if type(d) is Place and d.take.special is not None:
                v += _SPECIAL_BONUS
            vals.append(v)
        order = sorted(range(len(legal)), key=lambda i: -vals[i])
        return [legal[i] for i in order]

    def _greedy_choice(self, state: GameState) -> Decision:
        """The greedy bot's decision (:mod:`kerala.bots.greedy`), ties to the first."""
        legal = state.legal_decisions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        g = state.grounds[seat]
        if state.phase == Phase.FOLLOW_UP and type(legal[-1]) is MoveStack:
            legal = useful_move_stacks(g, legal)
        left = state.bag_size / played_tiles(state)
        w = self.weights
        best = legal[0]
        best_val = -math.inf
        cache = (
            self._place_values
            if state.round == self._cache_round and state.phase == Phase.PLACE
            else None
        )
        for d in legal:
            if cache is not None:
                v = cache.get(d, math.nan)
                if v == v:  # cached (not NaN)
                    if v > best_val:
                        best_val = v
                        best = d
                    continue
            h = g.copy()
            apply_to_grounds(h, d)
            if type(d) is Place and d.take.special is not None:
                v = best_follow_up_value(h, seat, d.take.special, left, w)
            else:
                v = evaluate(h, left, w)
            if cache is not None:
                cache[d] = v
            if v > best_val:
                best_val = v
                best = d
        return best

    def _policy(self, state: GameState, rng: random.Random, left: float) -> Decision:
        legal = state.legal_decisions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        g = state.grounds[seat]
        if state.phase == Phase.FOLLOW_UP and type(legal[-1]) is MoveStack:
            legal = useful_move_stacks(g, legal)
        width = self.rollout_width
        if len(legal) > width:
            picks = sample(rng, legal, width)
            if state.phase == Phase.FOLLOW_UP:
                picks.append(legal[0])  # skipping is always worth a look
            legal = picks
        value = self._after(g, left)
        if value is None:
            return best_after(g, legal, left, self.weights)
        best = legal[0]
        best_val = -math.inf
        for d in legal:
            v = value(d)
            if v > best_val:
                best_val = v
                best = d
        return best

    def _after(self, g: Grounds, left: float) -> Callable[[Decision], float] | None:
        """The rollout policy's judge of grounds ``g`` after a decision, with ``left`` of the
        game to go: ``None`` for the plain evaluation (:func:`value_after`, which the policy
        runs in one loop, :func:`best_after`); ``expert`` keeps the values for a search."""
        return None

    def _rollout(
        self,
        state: GameState,
        rng: random.Random,
        policy_rng: random.Random | None = None,
        stop_round: int | None = None,
    ) -> list[float]:
        """Play on with the cheap policy and judge every seat (see the module docstring).

        By default to the end of the current round and ``rollout_rounds`` more; draws use
        ``rng``, the policy ``policy_rng`` (default: ``rng`` too).
        """
        if stop_round is None:
            stop_round = state.round + 1 + self._rounds
        prng = rng if policy_rng is None else policy_rng
        total = played_tiles(state)
        while True:
            phase = state.phase
            if phase == Phase.OVER:
                return self._final_reward(state)
            if phase < Phase.PLACE:
                if state.round >= stop_round:
                    break
                while state.phase < Phase.PLACE:
                    state.sample_draw(rng)
                continue
            state.apply_unchecked(self._policy(state, prng, state.bag_size / total))
        left = state.bag_size / total
        vals = [evaluate(g, left, self.weights) for g in state.grounds]
        return self._soft_reward(vals)

    def _soft_reward(self, vals: list[float]) -> list[float]:
        out = []
        temp = self.temperature
        for i, v in enumerate(vals):
            other = max(x for j, x in enumerate(vals) if j != i)
            z = (v - other) / temp
            out.append(1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0)
        return out

    @staticmethod
    def _final_reward(state: GameState) -> list[float]:
        totals = [score_grounds(g).total for g in state.grounds]
        best = max(totals)
        k = totals.count(best)
        return [1.0 / k if t == best else 0.0 for t in totals]


def played_tiles(state: GameState) -> int:
    """The tiles the game plays (the set less the removed ones): a search's share of the game
    left is ``len(bag) / played_tiles(state)`` (the evaluation's ``left``)."""
    return max(1, state.tileset.total() - state.to_remove)


def _is_special(d: Decision) -> bool:
    return type(d) is Place and d.take.special is not None


def _float_opt(opts: dict[str, str], name: str, default: float, lo: float, hi: float) -> float:
    raw = opts.get(name)
    if raw is None:
        return default
    try:
        v = float(raw)
    except ValueError:
        raise BotSpecError(f"mcts option {name}={raw!r} is not a number") from None
    if not lo <= v <= hi or math.isnan(v):
        raise BotSpecError(f"mcts option {name}={raw!r} must be between {lo:g} and {hi:g}")
    return v


def _int_opt(opts: dict[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = opts.get(name)
    if raw is None:
        return default
    try:
        v = int(raw)
    except ValueError:
        raise BotSpecError(f"mcts option {name}={raw!r} is not a whole number") from None
    if not lo <= v <= hi:
        raise BotSpecError(f"mcts option {name}={raw!r} must be between {lo} and {hi}")
    return v


_OPTIONS = {
    "time",
    "iterations",
    "c",
    "widen",
    "rollout",
    "width",
    "temperature",
    "clock",
    "opponents",
    "eval",
}


def mcts_from_options(opts: dict[str, str], seed: int | None) -> MCTSBot:
    """Build an :class:`MCTSBot` from spec options, validating each one."""
    unknown = sorted(set(opts) - _OPTIONS)
    if unknown:
        raise BotSpecError(
            f"unknown mcts option(s) {', '.join(unknown)}; known: {', '.join(sorted(_OPTIONS))}"
        )
    time_budget: float | None = None
    iterations: int | None = None
    if "time" in opts:
        time_budget = _float_opt(opts, "time", 0.25, 0.001, 3600.0)
    if "iterations" in opts:
        iterations = _int_opt(opts, "iterations", 500, 1, 10_000_000)
    if time_budget is None and iterations is None:
        time_budget = 0.25
    clock = opts.get("clock", "wall")
    if clock not in ("wall", "cpu"):
        raise BotSpecError(f"mcts option clock={clock!r} must be 'wall' or 'cpu'")
    opponents = opts.get("opponents", "auto")
    if opponents not in ("auto", "search", "greedy"):
        raise BotSpecError(
            f"mcts option opponents={opponents!r} must be 'auto', 'search' or 'greedy'"
        )
    return MCTSBot(
        seed,
        time_budget=time_budget,
        iterations=iterations,
        c=_float_opt(opts, "c", 0.35, 0.0, 100.0),
        widen=_float_opt(opts, "widen", 2.0, 0.1, 1000.0) if "widen" in opts else None,
        rollout_rounds=_int_opt(opts, "rollout", -1, 0, 100) if "rollout" in opts else None,
        rollout_width=_int_opt(opts, "width", 8, 1, 10_000),
        temperature=_float_opt(opts, "temperature", 6.0, 0.01, 1000.0),
        cpu_clock=clock == "cpu",
        opponents=opponents,
        weights=weights_option(opts, "mcts"),
    )


register_bot("mcts", mcts_from_options)
