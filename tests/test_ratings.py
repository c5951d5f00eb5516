"""Ratings (kerala.ratings): the same numbers as openskill's Plackett-Luce, and its invariants."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from kerala.ratings import (
    GROUPS,
    MU,
    PROVISIONAL_SIGMA,
    SIGMA,
    Rating,
    RatingError,
    bot_rating,
    bot_ratings,
    check_ranks,
    group_for,
    rate,
    strict_orders,
)
from kerala.scoring import rank


def openskill_direct(
    before: list[tuple[float, float]], ranks: list[int]
) -> list[tuple[float, float]]:
    """The update as openskill computes it, configured as docs/ratings.md says."""
    model = PlackettLuce(limit_sigma=True)  # its defaults: mu 25, sigma 25/3, beta 25/6, tau 1/12
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    return [(t[0].mu, t[0].sigma) for t in model.rate(teams, ranks=[float(r) for r in ranks])]


def flat(pairs: Iterable[tuple[float, float]]) -> list[float]:
    return [x for pair in pairs for x in pair]


def test_a_four_player_game_rates_as_openskill_plackett_luce() -> None:
    before = [(31.2, 3.1), (25.0, 25 / 3), (19.4, 4.7), (27.9, 2.2)]
    ranks = [3, 1, 4, 2]
    after = rate([Rating(mu=m, sigma=s) for m, s in before], ranks)
    expected = openskill_direct(before, ranks)
    assert flat((r.mu, r.sigma) for r in after) == pytest.approx(flat(expected), rel=1e-12)
    # The newcomer who won moved most; the settled favourite who came third lost mu.
    moves = [abs(a.mu - b[0]) for a, b in zip(after, before, strict=True)]
    assert moves.index(max(moves)) == 1 and after[1].mu > 25
    assert after[0].mu < 31.2


def test_a_two_player_draw_rates_as_openskill_with_tied_ranks() -> None:
    """SC7: a shared place; with two players it is openskill's own tie update."""
    for before in ([(30.0, 3.0), (20.0, 3.0)], [(25.0, 25 / 3), (25.0, 25 / 3)]):
        after = rate([Rating(mu=m, sigma=s) for m, s in before], [1, 1])
        expected = openskill_direct(before, [1, 1])
        assert flat((r.mu, r.sigma) for r in after) == pytest.approx(flat(expected), rel=1e-12)
    a, b = rate([Rating(mu=30.0, sigma=3.0), Rating(mu=20.0, sigma=3.0)], [1, 1])
    assert a.mu < 30 and b.mu > 20  # a draw costs the favourite and pays the outsider


def test_a_shared_place_is_the_mean_over_the_orders_it_stands_for() -> None:
    """[1, 1, 3, 4]: the mean of openskill's updates for (1, 2, 3, 4) and (2, 1, 3, 4)."""
    before = [(27.0, 4.0), (22.5, 6.0), (25.0, 25 / 3), (30.1, 2.5)]
    after = rate([Rating(mu=m, sigma=s) for m, s in before], [1, 1, 3, 4])
    one = openskill_direct(before, [1, 2, 3, 4])
    two = openskill_direct(before, [2, 1, 3, 4])
    mean = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in zip(one, two, strict=True)]
    assert flat((r.mu, r.sigma) for r in after) == pytest.approx(flat(mean), rel=1e-12)
    assert strict_orders([2, 2, 1]) is not None
    assert sorted(strict_orders([3, 1, 1, 3])) == [
        (3, 1, 2, 4),
        (3, 2, 1, 4),
        (4, 1, 2, 3),
        (4, 2, 1, 3),
    ]


def test_a_player_below_a_shared_first_place_never_passes_the_tied_winners() -> None:
    """openskill's own tie handling lifts the third of [1, 1, 3, 4, 4] above both winners."""
    equal = [(MU, SIGMA)] * 5
    ranks = [1, 1, 3, 4, 4]
    theirs = openskill_direct(equal, ranks)
    assert theirs[2][0] > theirs[0][0]  # the quirk this module avoids (docs/ratings.md)
    ours = rate([Rating()] * 5, ranks)
    assert ours[0] == ours[1] and ours[0].mu > ours[2].mu > MU > ours[3].mu == ours[4].mu


def test_rating_json_round_trip() -> None:
    r = Rating(mu=28.125, sigma=3.5)
    assert Rating.from_json(json.loads(json.dumps(r.to_json()))) == r
    assert Rating.from_json({"mu": 25, "sigma": 8}) == Rating(mu=25.0, sigma=8.0)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"mu": 25}, "a rating is"),
        ({"mu": 25, "sigma": 8, "extra": 1}, "a rating is"),
        ([25, 8], "a rating is"),
        ({"mu": "25", "sigma": 8}, "mu must be a finite number"),
        ({"mu": True, "sigma": 8}, "mu must be a finite number"),
        ({"mu": 25, "sigma": float("nan")}, "sigma must be a finite number"),
        ({"mu": float("inf"), "sigma": 1}, "mu must be a finite number"),
        ({"mu": 25, "sigma": 0}, "sigma must be above 0"),
        ({"mu": 25, "sigma": -1.5}, "sigma must be above 0"),
    ],
)
def test_a_bad_rating_document_is_refused_in_one_line(doc: Any, message: str) -> None:
    with pytest.raises(RatingError) as e:
        Rating.from_json(doc)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ([1], "2 to 5 players, not 1"),
        ([1, 2, 3, 4, 5, 6], "2 to 5 players, not 6"),
        ([1, 1, 2], "not SC7's"),
        ([0, 1], "not SC7's"),
        ([2, 2], "not SC7's"),
        ([1, 3], "not SC7's"),
        ([1.0, 2.0], "whole numbers"),
        ([True, 2], "whole numbers"),
    ],
)
def test_placings_that_are_not_sc7s_are_refused(ranks: list[Any], message: str) -> None:
    with pytest.raises(RatingError, match=message):
        rate([Rating()] * len(ranks), ranks)


def test_ratings_and_placings_must_match_in_number() -> None:
    with pytest.raises(RatingError, match="3 ratings for 2 placings"):
        rate([Rating()] * 3, [1, 2])


def test_groups_are_two_players_and_three_to_five() -> None:
    assert GROUPS == ("2p", "3-5p")
    assert [group_for(n) for n in range(2, 6)] == ["2p", "3-5p", "3-5p", "3-5p"]
    for n in (0, 1, 6):
        with pytest.raises(RatingError, match=f"not {n}"):
            group_for(n)


def test_display_is_1500_centred_and_30_points_per_unit_of_mu() -> None:
    assert Rating().display == 1500
    assert Rating(mu=26.0, sigma=1.0).display == 1530
    assert Rating(mu=15.0, sigma=1.0).display == 1200
    assert Rating(mu=31.0, sigma=2.0).conservative == 25.0


def test_a_newcomer_stops_being_provisional_after_eleven_games_against_a_settled_player() -> None:
    me, other = Rating(), Rating(mu=MU, sigma=2.0)
    flags = []
    for game in range(12):
        me = rate([me, other], [1, 2] if game % 2 else [2, 1])[0]
        flags.append(me.provisional)
    assert flags == [True] * 10 + [False] * 2
    assert Rating(mu=MU, sigma=PROVISIONAL_SIGMA).provisional is False
    assert Rating(mu=MU, sigma=math.nextafter(PROVISIONAL_SIGMA, 10)).provisional is True


# -- invariants of Plackett-Luce as configured here --------------------------------------------

ratings_st = st.builds(
    Rating,
    mu=st.floats(min_value=0.0, max_value=50.0),
    sigma=st.floats(min_value=0.5, max_value=SIGMA),
)


@st.composite
def games(draw: st.DrawFn) -> tuple[list[Rating], list[int]]:
    n = draw(st.integers(min_value=2, max_value=5))
    before = draw(st.lists(ratings_st, min_size=n, max_size=n))
    totals = draw(st.lists(st.integers(min_value=-20, max_value=6), min_size=n, max_size=n))
    return before, rank(totals)


@settings(max_examples=300, deadline=None)
@given(games())
def test_a_rated_game_never_makes_anyone_less_certain(game: tuple[list[Rating], list[int]]) -> None:
    before, ranks = game
    after = rate(before, ranks)
    assert all(a.sigma <= b.sigma for a, b in zip(after, before, strict=True))


@settings(max_examples=300, deadline=None)
@given(games())
def test_a_sole_winner_never_drops_and_a_sole_last_never_rises(
    game: tuple[list[Rating], list[int]],
) -> None:
    before, ranks = game
    after = rate(before, ranks)
    for i, r in enumerate(ranks):
        if ranks.count(r) > 1:
            continue
        if r == 1:
            assert after[i].mu > before[i].mu
            assert after[i].display >= before[i].display
            assert after[i].conservative > before[i].conservative
        if r == max(ranks):
            assert after[i].mu < before[i].mu
            assert after[i].display <= before[i].display


@settings(max_examples=200, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_the_order_of_the_seats_changes_nothing(
    game: tuple[list[Rating], list[int]], rnd: Any
) -> None:
    before, ranks = game
    order = list(range(len(before)))
    rnd.shuffle(order)
    after = rate(before, ranks)
    shuffled = rate([before[i] for i in order], [ranks[i] for i in order])
    for k, i in enumerate(order):
        assert shuffled[k].mu == pytest.approx(after[i].mu, rel=1e-9, abs=1e-9)
        assert shuffled[k].sigma == pytest.approx(after[i].sigma, rel=1e-9, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=2, max_value=5), ratings_st, st.data())
def test_among_equals_a_better_placing_ends_higher(n: int, prior: Rating, data: Any) -> None:
    totals = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    ranks = rank(totals)
    after = rate([prior] * n, ranks)
    for i in range(n):
        for j in range(n):
            if ranks[i] < ranks[j]:
                assert after[i].mu > after[j].mu
                assert after[i].display >= after[j].display
            elif ranks[i] == ranks[j]:
                assert after[i] == after[j]


# -- the bots' published ratings ---------------------------------------------------------------


def test_every_bot_level_has_a_measured_rating_in_both_groups() -> None:
    table = bot_ratings()
    assert set(table) == set(GROUPS)
    for group in GROUPS:
        levels = table[group]
        assert set(levels) == {"random", "easy", "medium", "hard", "expert"}
        for b in levels.values():
            assert b.group == group and b.games > 0 and b.measured_as
            assert b.rating.sigma < SIGMA  # games moved it from a new player's prior
        # Anchored on a new player's prior (docs/ratings.md), in the order of their results.
        assert sum(b.rating.mu for b in levels.values()) / 5 == pytest.approx(MU, abs=1e-3)
        assert levels["random"].rating.mu < levels["easy"].rating.mu < levels["medium"].rating.mu
    assert table["2p"]["medium"].rating.mu < table["2p"]["hard"].rating.mu
    assert table["2p"]["hard"].rating.mu < table["2p"]["expert"].rating.mu
    assert bot_rating("medium", 4) == table["3-5p"]["medium"].rating
    assert bot_rating("medium", 2) == table["2p"]["medium"].rating


def test_an_unknown_bot_level_is_named_with_the_rated_ones() -> None:
    with pytest.raises(RatingError, match=r"bot level 'nosuch' has no published rating; rated"):
        bot_rating("nosuch", 2)


def test_check_ranks_accepts_every_sc7_placing_of_scores() -> None:
    for totals in ([3, 3], [1, 2, 3, 4, 5], [7, 7, 7, 7, 7], [5, 9, 5, 1]):
        check_ranks(rank(totals))


def test_the_engine_never_imports_the_ratings_and_the_ratings_no_bots_or_server() -> None:
    code = (
        "import sys\n"
        "import kerala.actions, kerala.game, kerala.grounds, kerala.notation, kerala.playerview\n"
        "import kerala.scoring, kerala.tiles, kerala.views\n"
        "assert 'kerala.ratings' not in sys.modules and 'openskill' not in sys.modules\n"
        "import kerala.ratings\n"
        "bad = [m for m in sys.modules if m.startswith(('kerala.bots', 'kerala.server'))]\n"
        "assert not bad, bad\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
