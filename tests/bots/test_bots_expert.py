"""The `expert` bot (issue 16): spec, budget, hidden information (docs/rules.md I2), exact
last round."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from botlib import hidden_twin, midgame, play_until

from kerala.actions import Decision, Place
from kerala.bots import BotSpecError, make_bot
from kerala.bots.evaluation import (
    DEFAULT_WEIGHTS,
    Weights,
    apply_to_grounds,
    best_after,
    evaluate,
    follow_ups,
    value_after,
)
from kerala.bots.expert import DEFAULT_TIME, ExpertBot, _NextRound
from kerala.game import GameState, Phase, new_game
from kerala.grounds import Grounds
from kerala.scoring import score_grounds


def last_round(players: int, seed: int) -> GameState:
    s = new_game(["blue", "red", "green", "purple", "black"][:players], seed=seed)
    return play_until(s, lambda st: st.phase == Phase.PLACE and not st.bag, seed=seed)


def test_expert_spec_and_default_budget() -> None:
    bot = make_bot("expert", seed=1)
    assert isinstance(bot, ExpertBot) and bot.name == "expert"
    assert bot.time_budget == DEFAULT_TIME == 1.0 and bot.iterations is None
    timed = make_bot("expert:time=0.25:clock=cpu", seed=1)
    assert isinstance(timed, ExpertBot) and timed.time_budget == 0.25
    counted = make_bot("expert:iterations=50")
    assert isinstance(counted, ExpertBot) and counted.iterations == 50
    assert bot.method == "auto"
    halving = make_bot("expert:method=halving:candidates=8", seed=1)
    assert isinstance(halving, ExpertBot) and halving.method == "halving"
    assert halving.candidates == 8


@pytest.mark.parametrize(("players", "rollout", "rounds"), [(2, None, 2), (2, 1, 1), (4, None, 0)])
def test_halving_rolls_out_two_rounds_past_the_root_with_2_players(
    players: int, rollout: int | None, rounds: int
) -> None:
    """Halving's rollouts go two rounds past the root's with 2 players (what won 284.5 of
    400 games against mcts, docs/bots.md), to the end of the root's round with 3-5, and
    ``rollout`` overrides either."""
    s = midgame(players=players, seed=6, rounds=4)
    seat = s.current_player
    bot = ExpertBot(3, iterations=20, method="halving", rollout_rounds=rollout)
    bot.search(s.view(seat), s.legal_decisions())
    assert bot._rounds == rounds


def test_halving_judges_the_focus_and_counts_its_samples() -> None:
    """Sequential halving keeps the best half each round; every candidate of a round is
    judged on the same samples, and a decision in focus (analysis) is always judged."""
    s = midgame(players=2, seed=6, rounds=8)
    seat = s.current_player
    legal = s.legal_decisions()
    bot = ExpertBot(3, iterations=160, method="halving", candidates=8)
    worst = legal[-1]
    ranked = bot.search(s.view(seat), legal, focus=[worst])
    assert sorted(map(str, (d for d, _, _ in ranked))) == sorted(map(str, legal))
    judged = [(d, n) for d, _, n in ranked if n > 0]
    assert worst in [d for d, _ in judged]
    counts = [n for _, n in judged]
    assert counts == sorted(counts, reverse=True)  # survivors were judged on more samples
    assert sum(counts) == bot.last_iterations


@pytest.mark.parametrize("cost", [0.004, 0.012, 0.03])
def test_halving_keeps_its_budget_when_samples_are_long(
    cost: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget is kept however long one sample is (rollouts several rounds deep): halving
    checks the clock before every sample, not only between passes over the candidates. A
    fake clock charges ``cost`` seconds per sample, so nothing here is timed. An unfinished
    pass is dropped, so the candidates still compared were judged on the same samples."""
    s = midgame(players=2, seed=6, rounds=4)
    seat = s.current_player
    legal = s.legal_decisions()
    assert len(legal) >= 16
    now = [0.0]
    bot = ExpertBot(3, time_budget=0.25, method="halving", candidates=16)
    bot.clock = lambda: now[0]
    played = ExpertBot._sample_value

    def charged(self: ExpertBot, *args: object) -> float:
        now[0] += cost
        return played(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ExpertBot, "_sample_value", charged)
    ranked = bot.search(s.view(seat), legal)
    assert now[0] <= 0.25 + cost + 1e-9  # at most one sample past the budget
    judged = [n for _, _, n in ranked if n > 0]
    assert sum(judged) == bot.last_iterations <= round(now[0] / cost)
    assert len(judged) >= 2 and judged[0] == judged[1]  # compared on the same samples
    assert ranked[0][0] in legal


@pytest.mark.parametrize("seed", [6, 7])
def test_halving_memo_changes_no_value_and_saves_evaluations(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Halving keeps the rollouts' evaluations for the search (the same grounds come back in
    sample after sample): with a fixed number of samples it ranks and values exactly as
    without the memo, on fewer evaluations."""
    import kerala.bots.expert as ex
    import kerala.bots.mcts as mc

    # Evaluations are counted where the bots ask for them: the evaluation module's own calls
    # (inside best_after and value_after) are C calls in the compiled build.
    calls = [0]

    def counted(g: Grounds, left: float, w: Weights = DEFAULT_WEIGHTS) -> float:
        calls[0] += 1
        return evaluate(g, left, w)

    def counted_best(
        g: Grounds, decisions: Sequence[Decision], left: float, w: Weights = DEFAULT_WEIGHTS
    ) -> Decision:
        calls[0] += len(decisions)
        return best_after(g, decisions, left, w)

    def counted_after(g: Grounds, d: Decision, left: float, w: Weights = DEFAULT_WEIGHTS) -> float:
        calls[0] += 1
        return value_after(g, d, left, w)

    for mod in (ex, mc):
        monkeypatch.setattr(mod, "evaluate", counted)
    monkeypatch.setattr(mc, "best_after", counted_best)
    monkeypatch.setattr(ex, "value_after", counted_after)
    s = midgame(players=2, seed=seed, rounds=6)
    seat = s.current_player
    legal = s.legal_decisions()
    # Rollouts one round past the root's: all of the rollouts' grounds are the next round's.
    plain = ExpertBot(3, iterations=200, method="halving", rollout_rounds=1)
    without = plain._halving(s.view(seat), legal, ())  # no memo outside search()
    evals_without, calls[0] = calls[0], 0
    memo = ExpertBot(3, iterations=200, method="halving", rollout_rounds=1)
    with_memo = memo.search(s.view(seat), legal)
    assert with_memo == without
    assert memo._memo is None  # kept for one search only
    assert calls[0] < 0.8 * evals_without, (calls[0], evals_without)


def test_halving_memo_keeps_only_the_next_rounds_grounds() -> None:
    """With rollouts two rounds deep, the memo keeps the grounds of the round after the
    root's only (all with the same share of the game left): the later round's grounds differ
    from sample to sample, and keeping them fed the garbage collector's full passes. The
    values are still those without the memo."""
    s = midgame(players=2, seed=6, rounds=4)
    seat = s.current_player
    legal = s.legal_decisions()
    plain = ExpertBot(3, iterations=120, method="halving", rollout_rounds=2)
    without = plain._halving(s.view(seat), legal, ())
    bot = ExpertBot(3, iterations=120, method="halving", rollout_rounds=2)
    bot._memo = {}
    assert bot._halving(s.view(seat), legal, ()) == without
    lefts = {left for _, left in bot._memo}
    total = s.tileset.total() - s.to_remove
    assert lefts == {(len(s.bag) - 2) / total}, (lefts, len(s.bag), total)


def test_lookahead_judges_every_decision_to_the_round_end() -> None:
    """Stage 1 plays every legal decision to the end of its round against the greedy
    replies and judges it as mcts judges a leaf; stage 2 ranks the best few by the next round
    on the same sampled displays, one sample per iteration."""
    s = midgame(players=4, seed=6, rounds=6)
    seat = s.current_player
    legal = s.legal_decisions()
    bot = ExpertBot(3, iterations=50, method="lookahead", candidates=4)
    ranked = bot.search(s.view(seat), legal)
    assert sorted(map(str, (d for d, _, _ in ranked))) == sorted(map(str, legal))
    assert [n for _, _, n in ranked] == [2] * 4 + [1] * (len(legal) - 4)
    assert bot.last_iterations == len(legal) + 50
    stage1 = [v for _, v, n in ranked if n == 1]
    assert stage1 == sorted(stage1, reverse=True)
    # A stage-1 value by hand: the rest of the round with the greedy bot's replies.
    d, v, _ = ranked[-1]
    t = s.copy(with_rng=False)
    t.apply(d)
    greedy = ExpertBot(0, iterations=1)
    greedy._cache_round = -1
    while Phase.PLACE <= t.phase < Phase.OVER and t.round == s.round:
        t.apply(greedy._greedy_choice(t))
    left = len(t.bag) / (t.tileset.total() - t.to_remove)
    vals = [evaluate(g, left) for g in t.grounds]
    assert v == pytest.approx(greedy._soft_reward(vals)[seat])


def test_lookahead_stage2_plays_the_next_round_as_the_greedy_bot() -> None:
    """Stage 2 on a given display (G1-G3): from the next bag owner, every seat takes the
    greedy bot's choice (a tile's best placement, or a pass), a taken tile is gone for the
    seats after it, and the candidate's margin is the evaluation's, over the best other
    seat. Checked against the engine playing that round with the greedy bot."""
    s = midgame(players=4, seed=6, rounds=6)
    me = s.current_player
    bot = ExpertBot(3, iterations=1)
    ends = bot._round_ends(s, s.legal_decisions(), me, math.inf)
    states = [st for _, st in ends.values() if st is not None][:8]
    total = s.tileset.total() - s.to_remove
    left = (len(states[0].bag) - s.n) / total
    nxt = _NextRound(states, me, left, DEFAULT_WEIGHTS)
    rng = random.Random(1)
    for i, st in enumerate(states):
        for _ in range(5):
            # Plain tiles: a special tile's follow-up is judged on its best placements only.
            shown = rng.sample([t for t in st.bag if t.special is None], s.n)
            t = st.copy(with_rng=False)
            for tile in shown:
                t.apply_draw(tile)
            assert t.phase == Phase.PLACE and t.round == st.round
            greedy = ExpertBot(0, iterations=1)
            greedy._cache_round = -1
            while Phase.PLACE <= t.phase < Phase.OVER and t.round == st.round:
                t.apply(greedy._greedy_choice(t))
            vals = [evaluate(g, left) for g in t.grounds]
            want = vals[me] - max(v for p, v in enumerate(vals) if p != me)
            assert nxt.margin(i, shown) == pytest.approx(want)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expert:time=0", "expert option time='0' must be between"),
        ("expert:speed=3", "unknown expert option(s) speed"),
        ("expert:eval=magic", "eval='magic' must be 'hand' or 'learned'"),
        (
            "expert:method=alphabeta",
            "method='alphabeta' must be one of auto, uct, halving, lookahead",
        ),
        ("expert:candidates=1", "candidates='1' must be a whole number 2..1000"),
    ],
)
def test_bad_expert_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError) as e:
        make_bot(spec)
    assert message in str(e.value)


@pytest.mark.parametrize("method", ["uct", "halving", "lookahead"])
@pytest.mark.parametrize("players", [2, 4])
def test_expert_plays_whole_games_legally(players: int, method: str) -> None:
    s = new_game(["blue", "red", "green", "purple", "black"][:players], seed=3)
    its = {"uct": 4, "halving": 8, "lookahead": 20}[method]
    bots = [ExpertBot(i, iterations=its, method=method) for i in range(players)]
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        d = bots[seat].choose(s.view(seat), legal)
        assert d in legal
        s.apply(d)
    # Every bot's last placement came from the exact last-round search.
    assert all(b.exact_decisions >= 1 for b in bots)


@pytest.mark.parametrize("method", ["uct", "halving", "lookahead"])
@pytest.mark.parametrize("rounds", [0, 9])
def test_i2_hidden_tiles_do_not_change_the_experts_choice(rounds: int, method: str) -> None:
    """I2: states differing only in bag order and removed tiles give the same choice."""
    s = midgame(players=2, seed=5, rounds=rounds)
    twin = hidden_twin(s)
    assert twin.bag != s.bag
    seat = s.current_player
    assert s.view(seat).to_json() == twin.view(seat).to_json()
    spec = f"expert:iterations=40:method={method}"
    bot_a, bot_b = make_bot(spec, seed=42), make_bot(spec, seed=42)
    assert isinstance(bot_a, ExpertBot) and isinstance(bot_b, ExpertBot)
    a = bot_a.search(s.view(seat), s.legal_decisions())
    b = bot_b.search(twin.view(seat), twin.legal_decisions())
    assert a == b


@pytest.mark.parametrize("players", [2, 3, 4])
def test_i2_nothing_hidden_matters_in_the_last_round(players: int) -> None:
    """Why the last round may be searched exactly from the view: once the bag is empty, the
    unseen tiles are exactly the removed ones (the view determines them), and they score for
    no one; the exact search gives the same choice on every sample of the hidden state."""
    s = last_round(players, 4)
    seat = s.current_player
    view = s.view(seat)
    assert view.bag_count == 0 and view.removed is None
    assert sorted(view.unseen().elements(), key=str) == sorted(s.removed, key=str)
    legal = s.legal_decisions()
    choices = {ExpertBot(k, iterations=5).exact_choice(view, legal) for k in range(3)}
    assert len(choices) == 1


def _best_total(g: Grounds, seat: int, d: Decision) -> int:
    h = g.copy()
    apply_to_grounds(h, d)
    if type(d) is Place and d.take.special is not None:
        best = -(1 << 30)
        for m in follow_ups(h, seat, d.take.special):
            k = h.copy()
            apply_to_grounds(k, m)
            best = max(best, score_grounds(k).total)
        return best
    return score_grounds(h).total


def test_exact_last_round_matches_brute_force() -> None:
    """2 players, last display: the choice maximizes (win, margin) when the other player
    then takes their own best option (every decision and follow-up enumerated here).

    Deals whose last display holds a move-tile are passed over: the bot prunes SP2 moves
    that cannot help (kerala.bots.evaluation.useful_move_stacks), this test lists them all.
    """
    compared = 0
    for seed in range(1, 12):
        s = last_round(2, seed)
        me = s.current_player
        legal = s.legal_decisions()
        if any(type(d) is Place and d.take.name.endswith("move-tile") for d in legal):
            continue
        other = 1 - me

        def outcome(
            d: Decision, s: GameState = s, me: int = me, other: int = other
        ) -> tuple[float, int]:
            mine = _best_total(s.grounds[me], me, d)
            t = s.copy(with_rng=False)
            t.apply(d)
            if t.phase == Phase.FOLLOW_UP:
                t.apply(t.legal_decisions()[0])
            theirs = max(_best_total(t.grounds[other], other, r) for r in t.legal_decisions())
            win = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            return win, mine - theirs

        best = max(outcome(d) for d in legal)
        chosen = ExpertBot(1, iterations=5).exact_choice(s.view(me), legal)
        assert chosen in legal
        assert outcome(chosen) == best, seed
        compared += 1
        if compared == 4:
            break
    assert compared >= 3
