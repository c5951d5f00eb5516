"""Post-game analysis (issue 16): `kerala analyse` and kerala.bots.analysis.

A record with a planted blunder (a pass that throws away ~10 evaluation points) is flagged;
each decision is judged from its seat's view at the time (docs/rules.md I1, I2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import kerala.bots.analysis as analysis_module
from kerala.actions import Pass, decision_from_json
from kerala.bots import make_bot
from kerala.bots.analysis import (
    AnalysisError,
    DecisionPoint,
    Search,
    analyse,
    confirmed_cost,
    decision_points,
    extend_record,
    review_point,
    verdict,
)
from kerala.bots.greedy import score_decisions
from kerala.bots.match import play_game
from kerala.cli import app
from kerala.game import Phase, new_game
from kerala.notation import read_record, write_record
from kerala.tiles import TileType

#: A record with a planted pass, the decision number of that pass and its cost in points.
Blunder = tuple[dict[str, Any], int, float]


#: Deals whose planted pass is unmistakable. With two players, deal 53's pass loses about half
#: a win chance (0.31 at least over 120 searches of 0.02 s, seeds 0-59, in both builds), twice
#: the blunder threshold, so that even the shortest search flags it as a blunder every time; in
#: many deals a 10-point pass early on loses only 0.25 to 0.35, where the verdict turns on the
#: search's samples. Four players keep deal 11 (judged with half a second of search).
BLUNDER_DEALS: Final[dict[int, int]] = {2: 53, 4: 11}


def blunder_record(players: int = 2) -> Blunder:
    """A game of greedy bots in which seat 0 once passes where a tile was worth ~10 points.

    Returns the record, the decision number of the planted pass and its cost in points.
    """
    s = new_game(["blue", "red", "green", "black"][:players], seed=BLUNDER_DEALS[players])
    bots = [make_bot("greedy", seed=k + 1) for k in range(players)]
    planted: tuple[int, float] | None = None
    decisions = 0
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        seat = s.current_player
        legal = s.legal_decisions()
        view = s.view(seat)
        d = bots[seat].choose(view, legal)
        if planted is None and seat == 0 and s.phase == Phase.PLACE and s.round >= 3:
            passes = [x for x in legal if type(x) is Pass]
            if passes:
                vals = score_decisions(view, legal)
                cost = max(vals) - vals[legal.index(passes[0])]
                if cost >= 9:
                    d = passes[0]
                    planted = (decisions, cost)
        s.apply(d)
        decisions += 1
    assert planted is not None, "the deal has no pass worth planting"
    names = [{"name": name} for name in ("Ann", "Bob", "Cy", "Di")[:players]]
    return write_record(s, names), planted[0], planted[1]


@pytest.fixture(scope="module")
def blunder() -> Blunder:
    return blunder_record()


def test_planted_pass_is_flagged_as_a_blunder(blunder: Blunder) -> None:
    doc, at, cost = blunder
    assert cost >= 9
    analysis = analyse(doc, seats=[0], budget=0.05, seed=1)
    by_at = {d["at"]: d for d in analysis["decisions"]}
    entry = by_at[at]
    assert decision_from_json(entry["played"]) == Pass(0)
    assert entry["flag"] == "blunder"
    # Costs are against the search's choice (not the greedy one the pass was planted against).
    assert entry["cost"]["points"] >= 4
    assert decision_from_json(entry["best"]) != Pass(0)
    # The planted pass is the costliest decision of the game in points.
    assert max(d["cost"]["points"] for d in analysis["decisions"]) == entry["cost"]["points"]
    # Only seat 0 was reviewed, every decision with a choice, in record order.
    assert {d["seat"] for d in analysis["decisions"]} == {0}
    ats = [d["at"] for d in analysis["decisions"]]
    assert ats == sorted(ats) and len(ats) == len(decision_points(doc, [0]))
    assert analysis["summary"]["0"]["blunders"] >= 1


def test_planted_pass_is_flagged_with_four_players() -> None:
    """With 3-5 players the expert's default search (``method=lookahead``) judges the played
    decision on the same samples as its own choice, in win chance: the pass is a blunder."""
    doc, at, cost = blunder_record(players=4)
    assert cost >= 9
    point = next(p for p in decision_points(doc, [0]) if p.at == at)
    assert point.played == Pass(0)
    # Early in the game the next round's tile values fill in slowly (every tile type can
    # show up); half a second of CPU settles the estimate (about 0.29 of a win chance).
    review = review_point(point, 0.5, seed=1)
    assert review["flag"] == "blunder"
    assert decision_from_json(review["best"]) != Pass(0)
    assert review["cost"]["win"] >= 0.2 and review["cost"]["points"] >= 4
    assert all(0.0 <= t["win"] <= 1.0 for t in review["top"])


def test_decision_the_bot_agrees_with_costs_nothing(blunder: Blunder) -> None:
    doc, _, _ = blunder
    points = decision_points(doc, [1])
    forced_best = next(p for p in points if p.round == 0)
    review = review_point(forced_best, 0.05, seed=3)
    best = decision_from_json(review["best"])
    # Review the bot's own choice as if it had been played: no cost, no flag.
    same = type(forced_best)(
        forced_best.at, forced_best.round, forced_best.seat, forced_best.view,
        forced_best.legal, best,
    )  # fmt: skip
    again = review_point(same, 0.05, seed=3)
    if decision_from_json(again["best"]) == best:
        assert again["cost"] == {"win": 0.0, "points": 0.0}
        assert again["flag"] is None


def test_i2_analysis_uses_each_seats_view_only(blunder: Blunder) -> None:
    """A record with its randomly removed tiles and one without give the same views (I2)."""
    doc, _, _ = blunder
    assert "removed" in doc  # a finished game's record names them
    secret = {k: v for k, v in doc.items() if k != "removed"}
    a = decision_points(doc)
    b = decision_points(secret)
    assert len(a) == len(b) > 0
    for p, q in zip(a, b, strict=True):
        assert p.view.removed is None  # random removal: never shown to a seat
        assert p.view.to_json() == q.view.to_json()
        assert p.legal == q.legal and p.played == q.played


def test_a_flagged_decision_is_better_by_the_figures_shown(blunder: Blunder) -> None:
    """A flag rests on one figure, and that figure, rounded as the page shows it, differs."""
    doc, _, _ = blunder
    analysis = analyse(doc, budget=0.05, seed=2)
    flagged = [d for d in analysis["decisions"] if d["flag"]]
    assert flagged
    for d in flagged:
        assert d["by"] in ("win", "points")
        if d["by"] == "win":
            assert round(100 * d["win"]["best"]) > round(100 * d["win"]["played"]), d
        else:
            assert round(d["points"]["best"], 1) > round(d["points"]["played"], 1), d
    assert all(d["by"] is None for d in analysis["decisions"] if not d["flag"])


def test_a_flag_must_survive_a_second_search(
    blunder: Blunder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision the first search would flag is searched again with another seed; the flag is
    judged on the mean of the two costs, never above the first."""
    doc, at, _ = blunder
    point = next(p for p in decision_points(doc, [0]) if p.at == at)
    other = next(d for d in point.legal if d != point.played)
    calls: list[int | None] = []

    def fake(p: DecisionPoint, budget: float, seed: int | None = None) -> Search:
        calls.append(seed)
        cost = 0.5 if len(calls) == 1 else 0.0
        return Search(((other, 0.5, 10), (p.played, 0.5 - cost, 10)), other, 0.5, 0.5 - cost)

    monkeypatch.setattr(analysis_module, "search_point", fake)
    review = review_point(point, 0.05, seed=4)
    assert len(calls) == 2 and calls[0] != calls[1]
    assert review["cost"]["win"] == 0.5  # the figures shown are the first search's
    assert review["flag"] == verdict(confirmed_cost(0.5, 0.0), review["cost"]["points"], 0.5)
    # A first search that finds too little for a flag is not repeated.
    calls.clear()

    def close(p: DecisionPoint, budget: float, seed: int | None = None) -> Search:
        calls.append(seed)
        return Search(((other, 0.5, 10), (p.played, 0.49, 10)), other, 0.5, 0.49)

    monkeypatch.setattr(analysis_module, "search_point", close)
    assert review_point(point, 0.05, seed=4)["flag"] is None and len(calls) == 1


@given(st.floats(0, 1), st.floats(0, 1))
def test_the_confirmed_cost_never_exceeds_the_first_search(first: float, second: float) -> None:
    c = confirmed_cost(first, second)
    assert c <= first
    assert c >= min(first, second)


def test_verdict_thresholds() -> None:
    assert verdict(0.0, 0.0) is None
    assert verdict(0.11, 0.0) is None  # within the search's noise (docs/bots.md)
    assert verdict(0.12, 0.0) == "inaccuracy"
    assert verdict(0.18, 0.0) == "mistake"
    assert verdict(0.25, 0.0) == "blunder"
    # Points judge only a decided position (the win chance cannot tell there).
    assert verdict(0.0, 10.0, best_win=0.5) is None
    assert verdict(0.0, 4.0, best_win=0.97) == "mistake"
    assert verdict(0.0, 10.0, best_win=0.02) == "blunder"


def test_analysed_record_is_still_a_record(blunder: Blunder) -> None:
    """The `analysis` field is optional: the record reader ignores it (docs/notation.md)."""
    doc, _, _ = blunder
    ext = extend_record(doc, {"version": 1, "decisions": []})
    assert read_record(ext).state.scores() == read_record(doc).state.scores()


def test_bad_seat_is_refused(blunder: Blunder) -> None:
    doc, _, _ = blunder
    with pytest.raises(AnalysisError, match="seat 5 is not in this 2-player game"):
        decision_points(doc, [5])
    with pytest.raises(AnalysisError, match="time per decision"):
        analyse(doc, budget=0)


runner = CliRunner()


def test_cli_analyse_json_flags_the_planted_pass(blunder: Blunder, tmp_path: Path) -> None:
    doc, at, _ = blunder
    f = tmp_path / "game.json"
    f.write_text(json.dumps(doc))
    out = tmp_path / "analysed.json"
    r = runner.invoke(
        app, ["analyse", str(f), "--seat", "0", "--time", "0.02", "--json", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    ext = json.loads(r.stdout.strip().splitlines()[-1])
    assert ext["rounds"] == doc["rounds"]
    flagged = {d["at"]: d["flag"] for d in ext["analysis"]["decisions"]}
    assert flagged[at] == "blunder"
    assert json.loads(out.read_text())["analysis"]["seats"] == [0]
    # The extended record reads back as a record.
    read_record(json.loads(out.read_text()))


def test_cli_analyse_table(blunder: Blunder, tmp_path: Path) -> None:
    doc, _, _ = blunder
    f = tmp_path / "game.json"
    f.write_text(json.dumps(doc))
    r = runner.invoke(app, ["analyse", str(f), "--seat", "0", "--time", "0.01"])
    assert r.exit_code == 0, r.output
    assert "blunder" in r.stdout
    assert "Ann:" in r.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json"], "cannot read"),
        (["{bad}", "--time", "0"], "time per decision"),
        (["{bad}", "--seat", "7"], "seat 7 is not in this 2-player game"),
        (["{notjson}"], "malformed JSON"),
    ],
)
def test_cli_analyse_bad_input_is_one_line(
    blunder: Blunder, tmp_path: Path, args: list[str], message: str
) -> None:
    doc, _, _ = blunder
    good = tmp_path / "game.json"
    good.write_text(json.dumps(doc))
    nj = tmp_path / "notjson.json"
    nj.write_text("{nope")
    args = [
        a.replace("{bad}", str(good))
        .replace("{notjson}", str(nj))
        .replace("missing.json", str(tmp_path / "missing.json"))
        for a in args
    ]
    r = runner.invoke(app, ["analyse", *args])
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_decision_points_are_every_choice_of_the_seat_in_order() -> None:
    """Each decision of the seat that had a choice (more than one legal decision) is reviewed
    once, in play order, with the round it was taken in; replayed by hand through the rules."""
    st = play_game([make_bot("random", seed=3), make_bot("random", seed=4)], seed=2)
    doc = write_record(st)
    points = decision_points(doc, seats=[1])
    rec = read_record(doc)
    replay = new_game(list(rec.state.colors), removal="chosen", removed=rec.state.removed)
    expected = []
    at = 0
    for ev in rec.state.log:
        if isinstance(ev, TileType):
            replay.apply_draw(ev)
            continue
        if ev.seat == 1 and len(replay.legal_decisions()) > 1:
            expected.append((at, replay.round, ev))
        replay.apply(ev)
        at += 1
    assert [(p.at, p.round, p.played) for p in points] == expected
    assert all(p.seat == 1 for p in points)
