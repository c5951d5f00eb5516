"""Property tests (hypothesis) over seeded random games.

Each example plays one random game of 2 to 5 players and checks a property at every decision
point: the grounds stay connected (P1, SP2), one elephant per cell (P4), tiles are conserved
(S3, S4, G3), every legal decision round-trips through JSON and applies, an illegal decision is
refused with the state unchanged, a written record replays to the same scores, and no view
leaks hidden information (I2). Example counts are small so the module stays fast.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from enginelib import connected, rule_text_decisions, snapshot, with_hidden
from kerala.actions import (
    Decision,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    decision_from_json,
)
from kerala.errors import IllegalDecisionError
from kerala.game import GameState, Phase, new_game
from kerala.notation import read_record, write_record
from kerala.tiles import COLORS, EDGES, GAME_TILE_TYPES, START_TILES, load_tileset

SEEDS = st.integers(0, 2**31 - 1)
PLAYERS = st.integers(2, 5)
FEW = settings(max_examples=12, deadline=None)
TS = load_tileset("standard")


def colors_for(seed: int, n: int) -> list[str]:
    return random.Random(seed).sample(COLORS, n)


def walk(seed: int, n: int) -> Any:
    """Yield (state, rng) at every decision point of a seeded random game; the caller may
    inspect the state; the walk then applies a random legal decision."""
    rng = random.Random(seed)
    s = new_game(colors_for(seed, n), seed=seed)
    while not s.is_over():
        if s.is_chance():
            s.advance_chance()
            continue
        yield s, rng
        legal = s.legal_decisions()
        s.apply(legal[rng.randrange(len(legal))])
    yield s, rng


@FEW
@given(SEEDS, PLAYERS)
def test_p1_sp2_grounds_stay_connected(seed: int, n: int) -> None:
    for s, _ in walk(seed, n):
        for g in s.grounds:
            assert connected(g.cells())
            starts = [t for st_ in g.stacks.values() for t, _ in st_ if t.kind == "start"]
            assert starts == [START_TILES[g.color]]


@FEW
@given(SEEDS, PLAYERS)
def test_p4_at_most_one_elephant_per_cell_after_first_placement(seed: int, n: int) -> None:
    for s, _ in walk(seed, n):
        for g in s.grounds:
            a, b = g.elephant_cells()
            assert g.stack(a) and g.stack(b), "elephants stand on tiles"
            if len(g.cells()) > 1:
                assert a != b
            else:
                assert a == b == (0, 0)


@FEW
@given(SEEDS, PLAYERS)
def test_s3_s4_g3_tiles_are_conserved(seed: int, n: int) -> None:
    """bag + display + grounds + removed + discarded (+ removal pool) = the tile set."""
    rng = random.Random(seed)
    colors = colors_for(seed, n)
    s = new_game(colors, seed=seed)
    whole = Counter(TS.tiles()) + Counter(START_TILES[c] for c in colors)
    discarded: Counter[Any] = Counter()

    def check() -> None:
        on_grounds = Counter(t for g in s.grounds for st_ in g.stacks.values() for t, _ in st_)
        parts = Counter(s.bag) + Counter(s.display) + Counter(s.removed) + Counter(s.pool)
        assert parts + on_grounds + discarded == whole

    while not s.is_over():
        check()
        if s.is_chance():
            s.sample_draw(s.rng)  # type: ignore[arg-type]
            continue
        legal = s.legal_decisions()
        d = legal[rng.randrange(len(legal))]
        left = Counter(s.display) - Counter([d.take] if isinstance(d, Place) else [])
        s.apply(d)
        if s.phase in (Phase.DRAW, Phase.OVER):
            discarded += left
    check()
    assert not s.bag and not s.display and not s.pool


@FEW
@given(SEEDS, PLAYERS)
def test_every_legal_decision_round_trips_and_applies(seed: int, n: int) -> None:
    for s, _ in walk(seed, n):
        legal = s.legal_decisions()
        if s.is_over():
            assert legal == []
            break
        assert len(set(legal)) == len(legal), "no duplicate decisions"
        for d in legal:
            back = decision_from_json(json.loads(json.dumps(d.to_json())))
            assert back == d
            c = s.copy(with_rng=False)
            c.apply(back)


@FEW
@given(SEEDS, PLAYERS)
def test_g2_g3_p1_p6_sp1_sp2_legal_decisions_match_the_rule_text(seed: int, n: int) -> None:
    """At every point the engine's legal list is exactly the rule text's, without duplicates."""
    for s, _ in walk(seed, n):
        legal = s.legal_decisions()
        assert len(set(legal)) == len(legal)
        assert set(legal) == rule_text_decisions(s), (s.round, s.turn, s.phase)


def mutations(d: Decision, s: GameState, rng: random.Random) -> list[Decision]:
    """Decisions near ``d``: one field changed."""
    other_seat = (d.seat + 1 + rng.randrange(s.n - 1)) % s.n
    out: list[Decision] = [Pass(other_seat), FollowUpSkip(d.seat), Pass(d.seat)]
    dx, dy = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (2, 0)))
    t = rng.choice(GAME_TILE_TYPES)
    if isinstance(d, Place):
        out += [
            Place(seat=other_seat, take=d.take, to=d.to, from_=d.from_, arch=d.arch),
            Place(
                seat=d.seat,
                take=d.take,
                to=(d.to[0] + dx, d.to[1] + dy),
                from_=d.from_,
                arch=d.arch,
            ),
            Place(
                seat=d.seat,
                take=d.take,
                to=d.to,
                from_=(d.from_[0] + dx, d.from_[1] + dy),
                arch=d.arch,
            ),
            Place(
                seat=d.seat,
                take=t,
                to=d.to,
                from_=d.from_,
                arch=rng.choice(EDGES) if t.is_arch else None,
            ),
            Place(seat=d.seat, take=d.take, to=d.to, from_=d.from_, arch=None if d.arch else "N"),
            MoveElephant(seat=d.seat, from_=d.from_, to=d.to),
            MoveStack(seat=d.seat, from_=d.from_, to=d.to),
        ]
    elif isinstance(d, MoveElephant | MoveStack):
        kind = type(d)
        other_kind = MoveStack if kind is MoveElephant else MoveElephant
        out += [
            kind(seat=other_seat, from_=d.from_, to=d.to),
            kind(seat=d.seat, from_=(d.from_[0] + dx, d.from_[1] + dy), to=d.to),
            kind(seat=d.seat, from_=d.from_, to=(d.to[0] + dx, d.to[1] + dy)),
            kind(seat=d.seat, from_=d.to, to=d.from_),
            other_kind(seat=d.seat, from_=d.from_, to=d.to),
        ]
    return out


@FEW
@given(SEEDS, PLAYERS)
def test_illegal_decision_is_refused_with_state_unchanged(seed: int, n: int) -> None:
    refused = 0
    for s, rng in walk(seed, n):
        if s.is_over():
            break
        legal = set(s.legal_decisions())
        d = rng.choice(sorted(legal, key=repr))
        for m in mutations(d, s, rng):
            if m in legal:
                continue
            before = snapshot(s)
            try:
                s.apply(m)
            except IllegalDecisionError as e:
                assert e.rule, f"{m!r} refused without naming a rule: {e}"
                refused += 1
            else:
                raise AssertionError(f"illegal {m!r} was applied")
            assert snapshot(s) == before
    assert refused > 100


@FEW
@given(SEEDS, PLAYERS, st.integers(0, 300))
def test_written_record_reads_back_and_replays(seed: int, n: int, stop: int) -> None:
    """At a random point and at the end: write, read back, same state and same scores."""
    last: GameState | None = None
    for i, (s, _) in enumerate(walk(seed, n)):
        last = s
        if i == stop and not s.is_over():
            rec = read_record(json.dumps(write_record(s)))
            assert rec.state.round == s.round and rec.state.turn == s.turn
            assert rec.state.phase == s.phase
            assert set(rec.state.legal_decisions()) == set(s.legal_decisions())
            assert [g.stacks for g in rec.state.grounds] == [g.stacks for g in s.grounds]
            assert rec.state.scores() == s.scores()
    assert last is not None and last.is_over()
    doc = write_record(last, [{"name": f"bot {i}", "bot": "random"} for i in range(n)])
    rec = read_record(json.dumps(doc))
    assert rec.state.is_over()
    assert rec.state.scores() == last.scores()
    assert rec.state.ranks() == last.ranks() == doc["result"]["ranks"]


@FEW
@given(SEEDS, PLAYERS)
def test_i2_views_never_contain_hidden_information(seed: int, n: int) -> None:
    for s, rng in walk(seed, n):
        if rng.random() > 0.2 and not s.is_over():
            continue
        # Another state, same public facts, other hidden facts: its views must be equal.
        removed, bag = list(s.removed), list(s.bag)
        random.Random(seed).shuffle(bag)
        players = set(s.colors)
        for i in range(len(removed)):
            j = next((j for j, b in enumerate(bag) if b.color not in players), None)
            if j is None:
                break
            removed[i], bag[j] = bag[j], removed[i]
            break
        t = with_hidden(s, removed=removed, bag=bag, rng=random.Random(seed + 1))
        for seat in (*range(s.n), None):
            v = s.view(seat)
            assert v == t.view(seat)
            doc = v.to_json()
            assert doc["removed"] is None and doc["bag_count"] == len(s.bag)
            text = json.dumps(doc)
            assert str(seed) not in text or len(str(seed)) < 4
            assert '"bag"' not in text and "seed" not in text and "rng" not in text
