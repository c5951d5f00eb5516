"""Bots play legal decisions from the player's view only (docs/rules.md I1, I2), reproducibly."""

from __future__ import annotations

import pytest
from botlib import hidden_twin, midgame, play_until

from kerala.actions import MoveStack, Place
from kerala.bots import BotSpecError, bot_names, make_bot
from kerala.bots.match import play_game
from kerala.bots.mcts import MCTSBot
from kerala.game import GameState, Phase, new_game

FAST_SPECS = ["random", "greedy", "soft-greedy", "easy", "medium", "mcts:iterations=8"]


def test_every_bot_is_registered() -> None:
    names = bot_names()
    for name in ("random", "greedy", "mcts", "easy", "medium", "hard"):
        assert name in names


@pytest.mark.parametrize("spec", FAST_SPECS)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_bot_plays_whole_games_legally(spec: str, players: int) -> None:
    """Every decision a bot returns is one of the legal decisions (G2, G3, P1-P6, SP1, SP2)."""
    if spec.startswith("mcts") and players > 2:
        spec = "mcts:iterations=4"
    s = new_game(["blue", "red", "green", "purple", "black"][:players], seed=11)
    bots = [make_bot(spec, seed=i) for i in range(players)]
    decisions = 0
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        d = bots[seat].choose(s.view(seat), legal)
        assert d in legal
        s.apply(d)  # checked: an illegal decision would raise
        decisions += 1
    assert decisions >= 80


def test_greedy_beats_random_on_a_handful_of_deals() -> None:
    # Not the strength benchmark (benchmarks/bots_strength.py): a sanity check that the
    # evaluation points the right way, seats swapped on each deal.
    wins = 0
    for deal in range(3):
        for order in ((0, 1), (1, 0)):
            specs = ["greedy", "random"]
            bots = [make_bot(specs[order[i]], seed=deal * 10 + i) for i in range(2)]
            st = play_game(bots, seed=deal)
            greedy_seat = order.index(0)
            wins += st.ranks()[greedy_seat] == 1
    assert wins == 6


@pytest.mark.parametrize(
    "spec", ["random", "greedy", "soft-greedy", "easy", "mcts:iterations=40", "mcts:iterations=25"]
)
@pytest.mark.parametrize("removal_phase_rounds", [0, 9])
def test_i2_hidden_tiles_do_not_change_a_seeded_bots_choice(
    spec: str, removal_phase_rounds: int
) -> None:
    """I2: two states that differ only in bag order and removed tiles give the same choice."""
    s = midgame(players=2, seed=5, rounds=removal_phase_rounds)
    twin = hidden_twin(s)
    assert twin.bag != s.bag
    assert sorted(t.name for t in twin.removed) != sorted(t.name for t in s.removed)
    seat = s.current_player
    assert s.view(seat).to_json() == twin.view(seat).to_json()
    legal = s.legal_decisions()
    assert twin.legal_decisions() == legal
    a = make_bot(spec, seed=42).choose(s.view(seat), legal)
    b = make_bot(spec, seed=42).choose(twin.view(seat), twin.legal_decisions())
    assert a == b


def test_i2_mcts_search_statistics_are_identical_on_hidden_twins() -> None:
    s = midgame(players=3, seed=8, rounds=6)
    twin = hidden_twin(s, seed=3)
    seat = s.current_player
    ra = MCTSBot(7, iterations=60).search(s.view(seat), s.legal_decisions())
    rb = MCTSBot(7, iterations=60).search(twin.view(seat), twin.legal_decisions())
    assert ra == rb


def test_mcts_with_iterations_is_reproducible_with_a_seed() -> None:
    s = midgame(players=2, seed=3, rounds=15)
    seat = s.current_player
    runs = []
    for _ in range(2):
        bot = MCTSBot(123, iterations=80)
        runs.append((bot.search(s.view(seat), s.legal_decisions()), bot.last_iterations))
    assert runs[0] == runs[1]
    assert runs[0][1] == 80
    # The visits of the root's children add up to the iterations run.
    assert sum(v for _, _, v in runs[0][0]) == 80


def test_mcts_game_is_reproducible_with_iterations_budget() -> None:
    totals = []
    for _ in range(2):
        st = play_game([make_bot("mcts:iterations=6", seed=1), make_bot("greedy", seed=2)], seed=9)
        totals.append([g.total for g in st.scores()])
    assert totals[0] == totals[1]


def _follow_up_position(special: str) -> GameState:
    for seed in range(40):
        s = new_game(["blue", "red"], seed=seed)
        s = play_until(
            s,
            lambda st: st.phase == Phase.FOLLOW_UP and st.pending == special and st.round > 15,
            seed=seed,
        )
        if not s.is_over():
            return s
    raise AssertionError("no follow-up position found")


@pytest.mark.parametrize("special", ["move-tile", "move-elephant"])
def test_bots_choose_legal_special_follow_ups(special: str) -> None:
    """SP1/SP2: large follow-up branching is handled and the choice is legal."""
    s = _follow_up_position(special)
    legal = s.legal_decisions()
    if special == "move-tile":
        assert any(isinstance(d, MoveStack) for d in legal)
    seat = s.current_player
    for spec in ("greedy", "mcts:iterations=30", "random", "easy"):
        d = make_bot(spec, seed=1).choose(s.view(seat), legal)
        assert d in legal


def test_greedy_values_a_special_tile_with_its_best_follow_up() -> None:
    """SP1/SP2: a special placement is worth at least as much as placing it and skipping."""
    from kerala.bots.greedy import score_decisions

    s = new_game(["blue", "red"], seed=2)
    s = play_until(
        s,
        lambda st: (
            st.phase == Phase.PLACE
            and st.round > 8
            and any(t.special is not None for t in st.display)
        ),
    )
    assert not s.is_over()
    view = s.view(s.current_player)
    legal = s.legal_decisions()
    with_fu = score_decisions(view, legal)
    without = score_decisions(view, legal, follow_up=False)
    for d, a, b in zip(legal, with_fu, without, strict=True):
        if isinstance(d, Place) and d.take.special is not None:
            assert a >= b
        else:
            assert a == b


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuch", "unknown bot 'nosuch'"),
        ("mcts:time=abc", "time='abc' is not a number"),
        ("mcts:time=-1", "must be between"),
        ("mcts:iterations=1.5", "not a whole number"),
        ("mcts:speed=3", "unknown mcts option(s) speed"),
        ("greedy:depth=2", "greedy takes only 'eval', got depth"),
        ("hard:time=3", "takes no options"),
        ("mcts:time", "bad option 'time'"),
        ("mcts:clock=gpu", "clock='gpu' must be 'wall' or 'cpu'"),
        ("mcts:opponents=psychic", "opponents='psychic' must be"),
    ],
)
def test_bad_specs_are_refused_with_a_clear_message(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError) as e:
        make_bot(spec)
    assert message in str(e.value)


def test_levels_map_to_bots_and_budgets() -> None:
    from kerala.bots.greedy import GreedyBot
    from kerala.bots.levels import SoftGreedyBot

    easy, medium, hard = (make_bot(n, seed=1) for n in ("easy", "medium", "hard"))
    assert isinstance(easy, SoftGreedyBot)
    assert isinstance(medium, GreedyBot)
    assert isinstance(hard, MCTSBot) and hard.time_budget == 1.0 and hard.iterations is None
    assert make_bot("mcts:time=0.5", seed=1).time_budget == 0.5  # type: ignore[attr-defined]
    assert make_bot("mcts:iterations=500").iterations == 500  # type: ignore[attr-defined]


@pytest.mark.parametrize("clock", ["wall", "cpu"])
def test_mcts_with_time_budget_returns_a_legal_decision(clock: str) -> None:
    s = midgame(players=2, seed=4, rounds=5)
    seat = s.current_player
    bot = make_bot(f"mcts:time=0.05:clock={clock}", seed=1)
    assert bot.choose(s.view(seat), s.legal_decisions()) in s.legal_decisions()
    assert bot.last_iterations >= 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(("players", "modelled"), [(2, False), (4, True)])
def test_mcts_opponent_model_follows_the_player_count(players: int, modelled: bool) -> None:
    s = midgame(players=players, seed=2, rounds=4)
    seat = s.current_player
    bot = MCTSBot(5, iterations=40)
    first = bot.search(s.view(seat), s.legal_decisions())
    assert bot.model_opponents is modelled
    # Reproducible either way, and the explicit option overrides the default.
    assert MCTSBot(5, iterations=40).search(s.view(seat), s.legal_decisions()) == first
    forced = MCTSBot(5, iterations=40, opponents="search" if modelled else "greedy")
    forced.search(s.view(seat), s.legal_decisions())
    assert forced.model_opponents is not modelled
