"""The tutorial ("Learn to play", docs/web.md): scripted positions, each step checked by the engine.

One short game between the learner (blue, seat 0) and a teacher (red, seat 1) is written out
below as :data:`SCRIPT`. Each playing step starts at a point of that script where the learner
is to move and asks for one kind of turn (take a tile with symbols, build over a stack, join an
area, face an arch, pass, use each special tile). The page sends the learner's decisions of the
step; they are replayed here through the engine, which refuses an illegal one as it would in a
game, and the step's goal says whether the turn taught what it should. Two questions about the
end scoring follow, answered from a few choices and checked against :func:`score_grounds`.

The server keeps nothing: every request carries the step's decisions (at most a placement and
its follow-up), so a step costs one replay of a few rounds. The removed tiles (S3) are fixed
stand-ins taken from the tiles the script never draws, and the view hides them as in any game.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kerala.actions import (
    Decision,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    parse_decision,
)
from kerala.errors import IllegalDecisionError
from kerala.game import GameState, new_game
from kerala.notation import read_grounds
from kerala.scoring import ScoreBreakdown, color_areas, score_grounds
from kerala.server.domain import (
    IllegalDecision,
    InvalidRequest,
    Live,
    Seat,
    SeatKind,
    StepNotFound,
)
from kerala.server.service import check_decision_json
from kerala.server.wire import Snapshot
from kerala.tiles import tile_from_code

COLORS = ("blue", "red")
LEARNER = 0
#: The most decisions one step takes: a placement and its follow-up.
MAX_DECISIONS = 2

#: The scripted game, round by round: the tiles drawn, then the turns in play order (G1, G2).
#: Round r is opened by seat r mod 2, so the learner moves first in even rounds.
SCRIPT: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("B2", "R1"), ("B2 0,0>1,0", "R1 0,0>0,1")),
    (("G1", "K1"), ("G1 0,0>-1,0", "K1 0,0>0,1")),
    (("B1", "R2"), ("B1 0,1>1,1", "R2 0,1>0,2")),
    (("G3", "R3"), ("R3 0,2>0,3", "G3 1,1>0,1")),
    (("G2", "R1"), ("G2 0,1>0,2", "R1 0,3>1,3")),
    (("Bag", "R2"), ("R2 1,3>2,3", "Bag 0,2>1,2 W")),
    (("K1", "R1"), ("pass", "R1 2,3>3,3")),
    (("BE", "R1"), ("R1 3,3>4,3", "BE 1,2>2,2", "elephant 2,2>0,0")),
    (("BT", "R2"), ("BT 0,0>-1,0", "stack 1,1>-1,1", "R2 4,3>5,3")),
)


#: A goal: the learner's grounds before the turn, the position after it and the turn's
#: decisions; true when the turn does what the step teaches.
Goal = Callable[[GameState, GameState, Sequence[Decision]], bool]


def _takes(code: str) -> Goal:
    want = tile_from_code(code)
    return lambda before, after, ds: isinstance(ds[0], Place) and ds[0].take == want


def _covers(before: GameState, after: GameState, ds: Sequence[Decision]) -> bool:
    d = ds[0]
    return isinstance(d, Place) and before.grounds[LEARNER].top(d.to) is not None


def _joins_green(before: GameState, after: GameState, ds: Sequence[Decision]) -> bool:
    areas, _, _ = color_areas(after.grounds[LEARNER])
    d = ds[0]
    return (
        isinstance(d, Place)
        and d.take.color == "green"
        and sum(a.color == "green" for a in areas) == 1
    )


def _scores_arch(before: GameState, after: GameState, ds: Sequence[Decision]) -> bool:
    d = ds[0]
    return (
        isinstance(d, Place)
        and d.arch is not None
        and score_grounds(after.grounds[LEARNER]).arches
        > score_grounds(before.grounds[LEARNER]).arches
    )


def _passes(before: GameState, after: GameState, ds: Sequence[Decision]) -> bool:
    return isinstance(ds[0], Pass)


def _follows_with(kind: type[MoveElephant] | type[MoveStack]) -> Goal:
    return lambda before, after, ds: len(ds) == 2 and isinstance(ds[1], kind)


@dataclass(frozen=True, slots=True)
class PlayStep:
    """A step played on the board: the script's position before turn ``turn`` of round
    ``round`` (0-based), the learner to move, and the goal of the learner's turn."""

    id: str
    round: int
    turn: int
    goal: Goal


@dataclass(frozen=True, slots=True)
class QuizStep:
    """A question about the end scoring of one grounds: which of ``options`` is ``field``."""

    id: str
    grounds: dict[str, Any]
    field: str
    options: tuple[int, ...]


def _stack(x: int, y: int, *tiles: str) -> dict[str, Any]:
    return {"at": [x, y], "tiles": list(tiles)}


def _grounds(
    passes: int, elephants: list[list[int]], stacks: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "format": "kerala-grounds",
        "version": 1,
        "color": "blue",
        "passes": passes,
        "elephants": elephants,
        "stacks": stacks,
    }


STEPS: tuple[PlayStep | QuizStep, ...] = (
    PlayStep("take", 0, 0, _takes("B2")),
    PlayStep("cover", 3, 1, _covers),
    PlayStep("area", 4, 0, _joins_green),
    PlayStep("arch", 5, 1, _scores_arch),
    PlayStep("pass", 6, 0, _passes),
    PlayStep("elephant", 7, 1, _follows_with(MoveElephant)),
    PlayStep("stack", 8, 0, _follows_with(MoveStack)),
    # Two green areas: the stack of two at (2, 0) goes (SC1, 2 tiles at -2), not the richer
    # pair at (0, 1)-(0, 2); blue, the player's own color, may keep its two areas.
    QuizStep(
        "surplus",
        _grounds(
            0,
            [[1, 0], [0, 2]],
            [
                _stack(0, 0, "blue:start"),
                _stack(1, 0, "blue:e2"),
                _stack(2, 0, "blue:e1", "green:e1"),
                _stack(0, 1, "green:e3"),
                _stack(1, 1, "black:e1"),
                _stack(2, 1, "blue:e1"),
                _stack(0, 2, "green:e2"),
                _stack(1, 2, "red:e1"),
                _stack(2, 2, "purple:e1"),
            ],
        ),
        "surplus",
        (-2, -4, -9),
    ),
    # Every step at once: symbols 9, an arch facing its color +5, purple missing -5, one
    # elephant standing +1.
    QuizStep(
        "total",
        _grounds(
            1,
            [[1, 0], [1, 1]],
            [
                _stack(0, 0, "blue:start"),
                _stack(1, 0, "blue:e3"),
                _stack(2, 0, "green:arch-black@E"),
                _stack(3, 0, "black:e2"),
                _stack(0, 1, "red:e2"),
                _stack(1, 1, "red:e1"),
            ],
        ),
        "total",
        (5, 10, 15),
    ),
)

BY_ID: dict[str, PlayStep | QuizStep] = {s.id: s for s in STEPS}


def _script_draws() -> Counter[Any]:
    return Counter(tile_from_code(c) for drawn, _ in SCRIPT for c in drawn)


def _start() -> GameState:
    """The scripted game set up, its random removal (S3) done with stand-ins it never draws."""
    s = new_game(COLORS, removal="random")
    spare = Counter(s.pool) - _script_draws()
    for t in list(spare.elements())[-s.to_remove :]:
        s.apply_draw(t)
    return s


def position(step: PlayStep) -> GameState:
    """The scripted game up to ``step``: the learner to move."""
    s = _start()
    for r, (drawn, turns) in enumerate(SCRIPT):
        for code in drawn:
            s.apply_draw(tile_from_code(code))
        for k, text in enumerate(turns):
            if r == step.round and k == step.turn:
                return s
            seat = s.to_move
            if seat is None:  # pragma: no cover - the script is checked by the tests
                raise AssertionError(f"the script has no one to move at round {r} turn {k}")
            s.apply(parse_decision(text, seat))
    raise AssertionError(f"step {step.id!r} is past the script")  # pragma: no cover


def step_of(step_id: str) -> PlayStep | QuizStep:
    step = BY_ID.get(step_id)
    if step is None:
        raise StepNotFound(f"no tutorial step {step_id!r}; the steps are {', '.join(BY_ID)}")
    return step


def _play_step(step_id: str) -> PlayStep:
    step = step_of(step_id)
    if not isinstance(step, PlayStep):
        raise InvalidRequest(f"tutorial step {step_id!r} is a question: answer it instead")
    return step


def _quiz_step(step_id: str) -> QuizStep:
    step = step_of(step_id)
    if not isinstance(step, QuizStep):
        raise InvalidRequest(f"tutorial step {step_id!r} is played on the board, not answered")
    return step


#: The players of the script, as the game page shows seats (the page puts names in its language).
_SEATS: tuple[tuple[str, SeatKind, str | None], ...] = (
    ("You", "human", None),
    ("Teacher", "bot", "tutorial"),
)
#: The script's fixed clock time: a step has no turn timer.
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _game_json(step: PlayStep, s: GameState, decisions: int) -> dict[str, Any]:
    """The step's position as the learner's ``Game`` JSON (docs/api.md), built by the one
    snapshot that builds every game's: the game page draws it as any game."""
    live = Live(
        id=f"tutorial-{step.id}",
        status="playing",
        removal=s.removal,
        tileset=s.tileset.name,
        seats=[
            Seat(i, name, color, kind, bot, False, None)
            for i, (color, (name, kind, bot)) in enumerate(zip(COLORS, _SEATS, strict=True))
        ],
        state=s,
        decision_count=decisions,
        event_count=decisions,
        turn_started_at=_EPOCH,
        created_at=_EPOCH,
        updated_at=_EPOCH,
        result=None,
    )
    return Snapshot.of(live, 0.0).for_seat(LEARNER)


def play(step_id: str, decisions: Sequence[object]) -> dict[str, Any]:
    """The position of a playing step after the learner's ``decisions`` (JSON), and whether the
    turn is still going (``"playing"``), did what the step asks (``"passed"``) or not
    (``"failed"``). An illegal decision raises the engine's error, naming the rule.
    """
    step = _play_step(step_id)
    if len(decisions) > MAX_DECISIONS:
        raise InvalidRequest(
            f"a tutorial step takes at most {MAX_DECISIONS} decisions (a placement and its "
            f"follow-up), got {len(decisions)}"
        )
    before = position(step)
    s = before.copy()
    made: list[Decision] = []
    for i, obj in enumerate(decisions):
        if s.to_move != LEARNER:
            raise InvalidRequest(
                f"decision {i + 1}: the learner's turn is already over; the step takes "
                f"{len(made)} decision(s)"
            )
        d = check_decision_json(obj)
        try:
            s.apply(d)
        except IllegalDecisionError as e:
            raise IllegalDecision(f"illegal decision: {e}", rule=e.rule or None) from None
        made.append(d)
    if not made or s.to_move == LEARNER:
        outcome = "playing"
    else:
        outcome = "passed" if step.goal(before, s, made) else "failed"
    return {"step": step.id, "outcome": outcome, "game": _game_json(step, s, len(made))}


def quiz_score(step: QuizStep) -> ScoreBreakdown:
    return score_grounds(read_grounds(step.grounds))


def answer(step_id: str, value: int) -> dict[str, Any]:
    """Whether ``value`` is the figure the question asks for, and the whole breakdown."""
    step = _quiz_step(step_id)
    if value not in step.options:
        raise InvalidRequest(
            f"the answer must be one of {', '.join(map(str, step.options))}, got {value}"
        )
    b = quiz_score(step)
    return {
        "step": step.id,
        "correct": getattr(b, step.field) == value,
        "score": {**b.to_json(), "symbols_by_color": dict(b.symbols_by_color)},
    }


def steps_json() -> list[dict[str, Any]]:
    """The steps in order: a playing step's id, a question's grounds, figure and choices."""
    out: list[dict[str, Any]] = []
    for s in STEPS:
        if isinstance(s, PlayStep):
            out.append({"id": s.id, "kind": "play"})
        else:
            out.append(
                {
                    "id": s.id,
                    "kind": "quiz",
                    "grounds": s.grounds,
                    "field": s.field,
                    "options": list(s.options),
                }
            )
    return out
