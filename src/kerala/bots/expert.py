"""The ``expert`` bot: the ``mcts`` search, tuned, with an exact search of the last round.

``expert`` is :class:`~kerala.bots.mcts.MCTSBot` (information-set MCTS from the player's view;
hidden tiles are sampled with :func:`kerala.views.sample_state`, never read: docs/rules.md I2) with
these changes (their measured effect is in ``docs/bots.md``):

- **Exact last round.** Once the last display is drawn (the bag is empty) nothing is hidden
  that can still matter, so the rest of the game is searched exactly: every remaining player of
  the round is assumed to take the option (a tile of the display, or a pass) that gives *their
  own* best final score (docs/rules.md SC1–SC6, computed by :func:`kerala.scoring.score_grounds`,
  with the best follow-up of a special tile), in turn order; this player picks the decision
  with the best final rank, then the best margin over the best other player. A special tile's
  follow-up in the last round is the one with the best exact score. If the exact search runs
  out of time (many players, huge grounds) the MCTS search decides with the time left.
- **Sequential halving with common random numbers** (``method=halving``, the default with
  2 players): the root's best ``candidates`` decisions of the greedy prior are judged on the
  same samples of the hidden tiles, future draws and rollout choices, the better half going on
  each round; the other seats of the round reply with the greedy bot's exact choice, and the
  rollouts go on two rounds past the root's (``rollout=2``; ``mcts`` rolls out one).
- **One round exactly, then the next round** (``method=lookahead``, the default with 3-5
  players): every decision is played to the end of its round against the greedy replies (all
  public: nothing is sampled), and the ``candidates`` best go on through the next round, every
  seat taking its greedy tile, judged on displays sampled from the unseen tiles
  (:meth:`ExpertBot._lookahead`).
  ``method=uct`` is the ``mcts`` tree. ``method=auto`` picks by the player count, as measured
  in ``docs/bots.md``.

Spec: ``expert`` (1 second per decision, wall clock) or ``expert:time=T``; every ``mcts``
option is accepted too (``clock=cpu`` for benchmarks on a busy machine), and ``method``
(``auto``, ``uct``, ``halving``, ``lookahead``) and ``candidates`` (default 16).

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=1); s.advance_chance()
>>> bot = ExpertBot(seed=0, iterations=30)
>>> bot.choose(s.view(0), s.legal_decisions()) in s.legal_decisions()
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from kerala.actions import Decision, Pass, Place
from kerala.bots import BotSpecError, register_bot
from kerala.bots.evaluation import Weights, apply_to_grounds, evaluate, follow_ups, value_after
from kerala.bots.greedy import best_follow_up_value
from kerala.bots.mcts import MCTSBot, mcts_from_options, played_tiles
from kerala.chance import sample
from kerala.game import MAX_PASSES, GameState, Phase, place_decisions
from kerala.grounds import Grounds
from kerala.scoring import score_grounds
from kerala.tiles import TileType
from kerala.views import PlayerView, sample_state

#: The plain ``expert`` spec's budget: seconds per decision (wall clock).
DEFAULT_TIME: Final = 1.0
#: Rounds past the root's that halving's rollouts play with 2 players (``rollout``; ``mcts``
#: plays 1): measured against ``mcts`` in docs/bots.md.
HALVING_ROLLOUT_2P: Final = 2


class _OutOfTime(Exception):
    """The exact search passed its deadline."""


class ExpertBot(MCTSBot):
    """MCTS with tuned settings and an exact last round (see the module docstring)."""

    def __init__(
        self, seed: int | None = None, *, method: str = "auto", candidates: int = 16, **kwargs: Any
    ) -> None:
        super().__init__(seed, **kwargs)
        self.name = "expert"
        if method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
        #: ``uct``: the ``mcts`` tree search; ``halving``: sequential halving over the best
        #: ``candidates`` decisions of the prior, every candidate judged on the same samples;
        #: ``lookahead``: every decision to the end of its round, the best ``candidates`` on
        #: through the next round; ``auto``: halving with 2 players, lookahead with 3-5
        #: (what measured best).
        self.method = method
        self.candidates = candidates
        #: Decisions chosen by the exact last-round search (for tests and benchmarks).
        self.exact_decisions = 0
        #: During a halving search: the rollouts' evaluations, by grounds and decision (the
        #: same grounds come back in sample after sample; see :meth:`_after`).
        self._memo: dict[Any, dict[Decision, float]] | None = None
        #: Only grounds with at least this share of the game left are kept in the memo: those
        #: of the round after the root's (see :meth:`_after`).
        self._memo_floor = 0.0

    def search(
        self,
        view: PlayerView,
        legal: Sequence[Decision],
        focus: Sequence[Decision] = (),
    ) -> list[tuple[Decision, float, int]]:
        method = self.method
        if method == "auto":
            method = "halving" if view.n == 2 else "lookahead"
        if method == "uct":
            return super().search(view, legal, focus)
        if method == "lookahead":
            return self._lookahead(view, legal, focus)
        self._memo = {}
        try:
            return self._halving(view, legal, focus)
        finally:
            self._memo = None

    def _after(self, g: Grounds, left: float) -> Callable[[Decision], float] | None:
        """The rollout policy's judge, its values kept for the search (halving).

        In halving every candidate is played on sample after sample; the grounds a rollout
        judges at the start of the next round are the same in most of them (the candidate's,
        and the other seat's after its greedy reply), so each value is computed once per
        search. The values are the same as without the memo: only faster. Only the next
        round's grounds are kept: with rollouts deeper than that (``rollout=2``), the later
        rounds' grounds differ from sample to sample, and keeping them would only feed Python's
        full garbage collections (long pauses; docs/bots.md).
        """
        memo = self._memo
        if memo is None or left < self._memo_floor:
            return None
        w = self.weights
        # One table per grounds, keyed by the decisions themselves: a value adds no object
        # the garbage collector must visit (a key per value made its full passes, which also
        # visit the engine's caches, long enough to overrun the budget).
        fp = (_fingerprint(g), left)
        table = memo.get(fp)
        if table is None:
            table = memo[fp] = {}

        def value(d: Decision) -> float:
            v = table.get(d)
            if v is None:
                v = table[d] = value_after(g, d, left, w)
            return v

        return value

    # -- one round exactly, then the next round over sampled displays -------------------------

    def _lookahead(
        self, view: PlayerView, legal: Sequence[Decision], focus: Sequence[Decision]
    ) -> list[tuple[Decision, float, int]]:
        """Every decision to the end of its round, the best few through the next round.

        Stage 1: each legal decision is played out to the end of the round, the other seats
        replying with the greedy bot's exact choice (all public, nothing sampled), and judged
        as ``mcts`` judges a leaf. Stage 2: the ``candidates`` best go on through the next
        round: its displays are sampled from the unseen tiles (the same samples for every
        candidate), and every seat in turn takes the tile whose best placement is best for it,
        or passes (the greedy bot's choice). Candidates are ranked by their mean win chance:
        the soft reward of the margin over the best other seat at the end of the next round,
        as ``mcts`` judges a leaf. A decision in ``focus`` (analysis) always goes on to
        stage 2.
        """
        clock = self.clock
        start = clock()
        budget = self.time_budget
        deadline = start + budget - self._margin if budget is not None else math.inf
        n = view.n
        me = legal[0].seat
        rng = self.rng
        w = self.weights
        base, hidden_removal, order = self._start(view, legal)
        order = [d for d in order if d in focus] + [d for d in order if d not in focus]
        total = played_tiles(base)
        # Stage 1: the rest of this round, exactly.
        ends = self._round_ends(base, order, me, start + 0.4 * (deadline - start))
        ranked1 = sorted(ends, key=lambda d: -ends[d][0])
        top = ranked1[: self.candidates]
        top += [d for d in focus if d in ends and d not in top]
        top = [d for d in top if ends[d][1] is not None]
        self.last_iterations = len(ends)
        if len(top) < 2:
            return self._ranked(ranked1, ends, {}, order)
        # Stage 2: the next round, on displays sampled from the unseen tiles. Every seat in
        # turn takes the tile best for it, or passes (the greedy bot's choice; P1-P4, G3).
        states: list[GameState] = []
        for d in top:
            st = ends[d][1]
            assert st is not None
            states.append(st)
        if states[0].bag_size < n:  # no next round: the bag runs out at a round's end (S4)
            return self._ranked(ranked1, ends, {}, order)
        nxt = _NextRound(states, me, (states[0].bag_size - n) / total, w)
        m = len(top)
        wins = [0.0] * m
        zs = [0.0] * m
        temp = self.temperature
        samples = 0
        max_samples = self.iterations if self.iterations is not None else 1 << 60
        # Only the bag is needed: under hidden removal it is redrawn, not the whole state.
        redraw = hidden_removal and base.phase != Phase.REMOVAL
        out_of_time = False
        fixed_bag = base.bag
        while samples < max_samples and not out_of_time:
            bag = base.hidden_redrawn(rng)[1] if redraw else fixed_bag
            shown = sample(rng, bag, n)
            for i in range(m):
                zs[i] = nxt.margin(i, shown) / temp
                if clock() > deadline:
                    out_of_time = True
                    break
            else:  # a sample counts only when every candidate was judged on it
                for i, z in enumerate(zs):
                    wins[i] += 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0
                samples += 1
        if samples == 0:
            self._learn_margin(start)
            return self._ranked(ranked1, ends, {}, order)
        # The mean soft reward: a win chance, on the scale of stage 1's and of the other
        # methods' (post-game analysis compares them).
        value2 = {d: wins[i] / samples for i, d in enumerate(top)}
        self.last_iterations = len(ends) + samples
        self._learn_margin(start)
        return self._ranked(ranked1, ends, value2, order)

    def _round_ends(
        self, base: GameState, order: Sequence[Decision], me: int, until: float
    ) -> dict[Decision, tuple[float, GameState | None]]:
        """Each decision of ``order`` played to the end of its round, the other seats replying
        with the greedy bot's exact choice (all public: nothing is sampled), until the clock
        passes ``until`` (at least one decision is judged). Per decision: its value as
        ``mcts`` judges a leaf (the final result if the game ends) and the state at the end of
        the round (``None`` if the game ended)."""
        clock = self.clock
        w = self.weights
        total = played_tiles(base)
        round_ = base.round
        ends: dict[Decision, tuple[float, GameState | None]] = {}
        for d in order:
            if ends and clock() > until:
                break
            s = base.copy(with_rng=False)
            s.apply_unchecked(d)
            while Phase.PLACE <= s.phase < Phase.OVER and s.round == round_:
                s.apply_unchecked(self._greedy_choice(s))
            if s.phase == Phase.OVER:
                ends[d] = (self._final_reward(s)[me], None)
                continue
            left = s.bag_size / total
            ends[d] = (self._soft_reward([evaluate(g, left, w) for g in s.grounds])[me], s)
        return ends

    @staticmethod
    def _ranked(
        ranked1: list[Decision],
        ends: dict[Decision, tuple[float, GameState | None]],
        value2: dict[Decision, float],
        order: list[Decision],
    ) -> list[tuple[Decision, float, int]]:
        """Stage 2's candidates by their value, then stage 1's by theirs, then the unjudged."""
        out = [(d, value2[d], 2) for d in sorted(value2, key=lambda d: -value2[d])]
        out += [(d, ends[d][0], 1) for d in ranked1 if d not in value2]
        out += [(d, 0.0, 0) for d in order if d not in ends]
        return out

    # -- sequential halving with common random numbers ---------------------------------------

    def _halving(
        self, view: PlayerView, legal: Sequence[Decision], focus: Sequence[Decision]
    ) -> list[tuple[Decision, float, int]]:
        """Sequential halving at the root; every candidate is judged on the same samples.

        Sample ``j`` is one determinization of the hidden tiles and one sequence of future
        draws and rollout choices (two RNGs seeded from ``j``), shared by every candidate, so
        that candidates are compared on the same luck (common random numbers). After the
        candidate, the other seats of the round reply with the greedy bot's exact choice
        (computed once per position), then the cheap rollout policy plays on as in ``mcts``
        (with 2 players two rounds past the root's: ``HALVING_ROLLOUT_2P``).
        Each round of halving gets an equal share of the budget and keeps the better half.
        """
        clock = self.clock
        start = clock()
        budget = self.time_budget
        n = view.n
        self._rounds = (
            self.rollout_rounds
            if self.rollout_rounds is not None
            else (HALVING_ROLLOUT_2P if n == 2 else 0)
        )
        me = legal[0].seat
        rng = self.rng
        base, hidden_removal, ranked_all = self._start(view, legal)
        # The memo keeps the next round's grounds only: the rollouts' later rounds are on
        # grounds that differ from sample to sample (see _after).
        self._memo_floor = (base.bag_size - n - 0.5) / played_tiles(base)
        cands = ranked_all[: self.candidates]
        for d in focus:
            if d not in cands and d in ranked_all:
                cands.append(d)
        stats: dict[Decision, list[float]] = {d: [0.0, 0.0] for d in cands}
        out_order: list[Decision] = []
        alive = list(cands)
        rounds = max(1, math.ceil(math.log2(len(alive)))) if len(alive) > 1 else 1
        total_iters = self.iterations if self.iterations is not None else 1 << 60
        salt = rng.getrandbits(32)
        deadline = start + budget - self._margin if budget is not None else math.inf
        out_of_time = False
        j = 0
        it = 0
        for r in range(rounds):
            if len(alive) <= 1:
                break
            round_end = start + (deadline - start) * (r + 1) / rounds
            iter_cap = it + max(len(alive), (total_iters - it) // (rounds - r))
            first = True
            while first or (clock() < round_end and it < iter_cap):
                first = False
                seed = salt * 1_000_003 + j
                j += 1
                # The clock is read before every sample: one pass over the candidates can be
                # longer than a round's share (deep rollouts), and the budget is kept anyway.
                values: list[float] = []
                for d in alive:
                    if it + len(values) > 0 and clock() >= deadline:
                        out_of_time = True
                        break
                    values.append(self._sample_value(base, d, me, seed, hidden_removal))
                if len(values) < len(alive) and stats[alive[0]][1] > 0:
                    values = []  # an unfinished pass is dropped: the same samples for all
                for d, v in zip(alive, values, strict=False):
                    stats[d][0] += v
                    stats[d][1] += 1
                    it += 1
                if out_of_time:
                    break
            # Judged candidates by their mean; any not judged yet (out of time in the first
            # pass) after them, in the prior's order.
            alive.sort(key=lambda d: (stats[d][1] == 0, -stats[d][0] / max(1.0, stats[d][1])))
            if out_of_time:
                break
            keep = max(1, len(alive) // 2)
            out_order = alive[keep:] + out_order
            alive = alive[:keep]
        self.last_iterations = it
        ranked = [
            (d, stats[d][0] / max(1.0, stats[d][1]), int(stats[d][1])) for d in alive + out_order
        ]
        ranked += [(d, 0.0, 0) for d in ranked_all if d not in stats]
        self._learn_margin(start)
        return ranked

    def _sample_value(
        self, base: GameState, d: Decision, me: int, seed: int, hidden_removal: bool
    ) -> float:
        draw_rng = random.Random(seed)
        policy_rng = random.Random(seed ^ 0x5DEECE66D)
        state = self._determinize(base, draw_rng, hidden_removal)
        state.apply_unchecked(d)
        round_ = state.round
        # The rest of this round: my follow-up and the other seats' replies, greedy and exact.
        while Phase.PLACE <= state.phase < Phase.OVER and state.round == round_:
            state.apply_unchecked(self._greedy_choice(state))
        return self._rollout(state, draw_rng, policy_rng, round_ + 1 + self._rounds)[me]

    def choose(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if not legal:
            raise ValueError("no legal decision to choose from")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        if view.bag_count == 0 and view.phase in ("place", "follow_up"):
            start = self.clock()
            budget = self.time_budget
            deadline = start + 0.8 * budget if budget is not None else math.inf
            try:
                d = self.exact_choice(view, legal, deadline)
            except _OutOfTime:
                pass
            else:
                self.exact_decisions += 1
                self.last_iterations = 0
                return d
            if budget is not None:
                left = max(0.01 * budget, start + budget - self.clock())
                saved = self.time_budget
                self.time_budget = left
                try:
                    return self.search(view, legal)[0][0]
                finally:
                    self.time_budget = saved
        return self.search(view, legal)[0][0]

    # -- the exact last round --------------------------------------------------------------

    def exact_choice(
        self, view: PlayerView, legal: Sequence[Decision], deadline: float = math.inf
    ) -> Decision:
        """The best decision of the last round by exact search (see the module docstring).

        Only for a view whose bag is empty: the display is then the game's last and the
        hidden tiles (the bag order, randomly removed tiles) can no longer change any score.
        """
        if view.bag_count != 0:
            raise ValueError("the exact search needs the last display (an empty bag)")
        state = sample_state(view, self.rng)
        me = legal[0].seat
        clock = self.clock
        memo: dict[tuple[int, tuple[int, ...]], tuple[Decision, Decision | None]] = {}

        def best_of(
            g: Grounds, seat: int, decisions: Sequence[Decision], prune: bool
        ) -> tuple[int, Decision, Decision | None]:
            """The decision of ``decisions`` with the best exact own total (with follow-up)."""
            best_v = -(1 << 30)
            best_d = decisions[0]
            best_f: Decision | None = None
            for d in decisions:
                if clock() > deadline:
                    raise _OutOfTime
                h = g.copy()
                apply_to_grounds(h, d)
                f: Decision | None = None
                if type(d) is Place and d.take.special is not None:
                    v = -(1 << 30)
                    for m in follow_ups(h, seat, d.take.special, useful_only=prune):
                        k = h.copy()
                        apply_to_grounds(k, m)
                        mv = score_grounds(k).total
                        if mv > v:
                            v, f = mv, m
                else:
                    v = score_grounds(h).total
                if v > best_v:
                    best_v, best_d, best_f = v, d, f
            return best_v, best_d, best_f

        def finish(s: GameState) -> list[int]:
            """Final totals when every remaining player takes their own best decision."""
            while s.phase == Phase.PLACE:
                seat = s.current_player
                k = (seat, tuple(sorted(t.index for t in s.display)))
                hit = memo.get(k)
                if hit is None:
                    _, d, f = best_of(s.grounds[seat], seat, s.legal_decisions(), True)
                    hit = memo[k] = (d, f)
                s.apply_unchecked(hit[0])
                if _phase(s) == Phase.FOLLOW_UP:
                    s.apply_unchecked(hit[1] if hit[1] is not None else s.legal_decisions()[0])
            return [score_grounds(g).total for g in s.grounds]

        if state.phase == Phase.FOLLOW_UP:
            # Only this player's own score changes: the best exact score wins.
            return best_of(state.grounds[me], me, legal, False)[1]

        # This player's options (a tile of the display, or a pass): within one option only
        # this player's own score differs, so its best placement is found first.
        by_option: dict[object, list[Decision]] = {}
        for d in legal:
            by_option.setdefault(d.take.index if type(d) is Place else "pass", []).append(d)
        best: tuple[tuple[float, int, int], Decision] | None = None
        g = state.grounds[me]
        for group in by_option.values():
            _, d, f = best_of(g, me, group, True)
            t = state.copy(with_rng=False)
            t.apply_unchecked(d)
            if t.phase == Phase.FOLLOW_UP:
                t.apply_unchecked(f if f is not None else t.legal_decisions()[0])
            totals = finish(t)
            top = max(totals)
            mine = totals[me]
            share = 1.0 / totals.count(top) if mine == top else 0.0
            other = max(x for i, x in enumerate(totals) if i != me)
            res = (share, mine - other, mine)
            if best is None or res > best[0]:
                best = (res, d)
        assert best is not None
        return best[1]


class _NextRound:
    """The next round of ``lookahead``'s stage 2, played greedily on a given display.

    ``states`` are the candidates' states at the end of this round. In turn order from the
    next bag owner (G1-G2), every seat takes the display's tile whose best placement is best
    for it, or passes when a pass is left (G3) and better; a tile taken is gone for the seats
    after it. All seats are judged by the evaluation with ``left`` of the game to go. A tile
    type's best placement value is computed once per distinct (seat, grounds) and kept: most
    seats' grounds are the same after many candidates. A special tile's three best placements
    are judged with their best follow-up (SP1/SP2), as the greedy bot judges it.
    """

    def __init__(self, states: Sequence[GameState], me: int, left: float, w: Weights) -> None:
        n = states[0].n
        owner = states[0].round % n  # the next round's bag owner (G1)
        self.seats = [(owner + j) % n for j in range(n)]
        self.me = me
        self.left = left
        self.w = w
        slot_of: dict[tuple[Any, ...], int] = {}
        #: Per candidate, per seat: the slot of that seat's grounds.
        self.slots: list[list[int]] = []
        #: Per slot: the seat and grounds, the value of standing still (no tile, no pass
        #: left), of passing, and each tile type's best placement value (filled in lazily).
        self.grounds: list[tuple[int, Grounds]] = []
        self.still: list[float] = []
        self.pass_value: list[float] = []
        self.tile_values: list[dict[TileType, float]] = []
        for st in states:
            row = []
            for p, g in enumerate(st.grounds):
                fp = (p, _fingerprint(g))
                idx = slot_of.get(fp)
                if idx is None:
                    idx = slot_of[fp] = len(self.grounds)
                    self.grounds.append((p, g))
                    self.still.append(evaluate(g, left, w))
                    v = -math.inf
                    if g.passes < MAX_PASSES:
                        h = g.copy()
                        apply_to_grounds(h, Pass(p))
                        v = evaluate(h, left, w)
                    self.pass_value.append(v)
                    self.tile_values.append({})
                row.append(idx)
            self.slots.append(row)
        self._vals = [0.0] * n

    def margin(self, i: int, shown: Sequence[TileType]) -> float:
        """Candidate ``i``'s margin over the best other seat after the next round on the
        display ``shown``."""
        vals = self._vals
        row = self.slots[i]
        avail = list(shown)
        for p in self.seats:
            idx = row[p]
            cache = self.tile_values[idx]
            v = -math.inf
            pick = None
            for t in avail:  # the first best tile, as the greedy bot breaks ties
                tv = cache.get(t)
                if tv is None:
                    tv = cache[t] = self._tile_value(idx, t)
                if tv > v:
                    v = tv
                    pick = t
            if self.pass_value[idx] > v:  # a pass only when strictly better
                v = self.pass_value[idx]
            elif pick is not None:
                avail.remove(pick)
            vals[p] = v if v > -math.inf else self.still[idx]
        mine = vals[self.me]
        vals[self.me] = -math.inf
        return mine - max(vals)

    def _tile_value(self, idx: int, t: TileType) -> float:
        """A slot's best value after placing ``t`` (``-inf`` when it cannot be placed)."""
        p, g = self.grounds[idx]
        left, w = self.left, self.w
        best = -math.inf
        placed: list[tuple[float, Grounds]] = []
        for d in place_decisions(g, p, (t,)):
            if type(d) is Place:
                h = g.copy()
                apply_to_grounds(h, d)
                v = evaluate(h, left, w)
                best = max(best, v)
                placed.append((v, h))
        if t.special is not None:
            placed.sort(key=lambda x: -x[0])
            for _, h in placed[:3]:
                best = max(best, best_follow_up_value(h, p, t.special, left, w))
        return best


def _fingerprint(g: Grounds) -> tuple[Any, ...]:
    """What a grounds' evaluation depends on, hashable: two grounds with the same are equal."""
    return (g.color, tuple(g.elephants), g.passes, frozenset(g.stacks.items()))


def _phase(s: GameState) -> Phase:
    return s.phase


_METHODS: Final = ("auto", "uct", "halving", "lookahead")
_TUNED: Final[dict[str, str]] = {}


def expert_from_options(opts: dict[str, str], seed: int | None) -> ExpertBot:
    """Build an :class:`ExpertBot` from spec options (those of ``mcts``, ``method`` and
    ``candidates``)."""
    merged = {**_TUNED, **opts}
    method = merged.pop("method", "auto")
    if method not in _METHODS:
        raise BotSpecError(f"expert option method={method!r} must be one of {', '.join(_METHODS)}")
    raw = merged.pop("candidates", "16")
    try:
        candidates = int(raw)
    except ValueError:
        candidates = 0
    if not 2 <= candidates <= 1000:
        raise BotSpecError(f"expert option candidates={raw!r} must be a whole number 2..1000")
    if "time" not in merged and "iterations" not in merged:
        merged["time"] = str(DEFAULT_TIME)
    try:
        m = mcts_from_options(merged, seed)
    except BotSpecError as e:
        raise BotSpecError(str(e).replace("mcts option", "expert option")) from None
    bot = ExpertBot(
        seed,
        method=method,
        candidates=candidates,
        time_budget=m.time_budget,
        iterations=m.iterations,
        c=m.c,
        widen=m.widen,
        rollout_rounds=m.rollout_rounds,
        rollout_width=m.rollout_width,
        temperature=m.temperature,
        cpu_clock=m.clock is time.process_time,
        opponents=m.opponents,
        weights=m.weights,
    )
    return bot


register_bot("expert", expert_from_options)
