"""The tutorial's routes (docs/web.md, "Tutorial"; docs/api.md): each step starts with the
learner to move, its scripted turn does what it teaches, the engine judges every turn and refuses
an illegal one with its rule, the questions have one answer that the engine's score gives, and
no step shows what a player may not know (I2)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kerala.actions import parse_decision
from kerala.server import tutorial
from kerala.server.tutorial import SCRIPT, STEPS, PlayStep, QuizStep


def play(client: TestClient, step: str, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    r = client.post(f"/api/tutorial/{step}/play", json={"decisions": decisions})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def scripted_turn(step: PlayStep) -> list[dict[str, Any]]:
    """The script's own turn at the step: the placement (or pass) and its follow-up."""
    turns = SCRIPT[step.round][1][step.turn :]
    out = [parse_decision(turns[0], 0)]
    if len(turns) > 1 and turns[1].split()[0] in ("elephant", "stack", "skip"):
        out.append(parse_decision(turns[1], 0))
    return [d.to_json() for d in out]


PLAY = [s for s in STEPS if isinstance(s, PlayStep)]
QUIZ = [s for s in STEPS if isinstance(s, QuizStep)]


def test_the_steps_are_listed_in_order_with_the_questions_choices(client: TestClient) -> None:
    steps = client.get("/api/tutorial").json()["steps"]
    assert [s["id"] for s in steps] == [s.id for s in STEPS]
    for s in steps:
        if s["kind"] == "quiz":
            assert s["grounds"]["format"] == "kerala-grounds" and len(s["options"]) == 3


@pytest.mark.parametrize("step", PLAY, ids=[s.id for s in PLAY])
def test_each_step_starts_with_the_learner_to_move_and_its_scripted_turn_passes(
    client: TestClient, step: PlayStep
) -> None:
    start = play(client, step.id, [])
    assert start["outcome"] == "playing"
    game = start["game"]
    assert game["to_move"] == 0 and game["seat"] == 0 and game["legal"]
    turn = scripted_turn(step)
    for k in range(1, len(turn)):
        assert play(client, step.id, turn[:k])["outcome"] == "playing"
    assert play(client, step.id, turn)["outcome"] == "passed"


@pytest.mark.parametrize("step", PLAY, ids=[s.id for s in PLAY])
def test_a_turn_that_misses_the_lesson_is_judged_failed(client: TestClient, step: PlayStep) -> None:
    """Every step teaches something: some legal turn misses it (a special tile's step, by
    leaving the move out)."""
    legal = play(client, step.id, [])["game"]["legal"]
    outcomes = set()
    for d in legal[:12]:
        r = play(client, step.id, [d])
        if r["outcome"] == "playing":  # a special tile: leave its move out
            skip = next(f for f in r["game"]["legal"] if "skip" in f)
            r = play(client, step.id, [d, skip])
        outcomes.add(r["outcome"])
    assert "failed" in outcomes


def test_an_illegal_decision_is_refused_with_its_rule(client: TestClient) -> None:
    bad = {"seat": 0, "take": "blue:e2", "to": [5, 0], "from": [0, 0]}
    r = client.post("/api/tutorial/take/play", json={"decisions": [bad]})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "illegal" and r.json()["rule"] == "P1"
    # Nothing is kept: the step starts where it always does.
    assert play(client, "take", [])["game"]["decision_number"] == 0


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("nope/play", {"decisions": []}, 404, "no tutorial step 'nope'"),
        ("surplus/play", {"decisions": []}, 422, "is a question"),
        ("take/answer", {"answer": 1}, 422, "played on the board"),
        ("surplus/answer", {"answer": 7}, 422, "must be one of"),
        ("surplus/answer", {"answer": "-4"}, 422, "answer"),
        ("take/play", {"decisions": [{}, {}, {}]}, 422, "at most 2"),
        ("take/play", {"decisions": [{"seat": 0, "take": "blue:nope"}]}, 400, "decision"),
        ("take/play", {"decisions": [], "extra": 1}, 422, "extra"),
    ],
)
def test_bad_requests_are_refused_in_one_line(
    client: TestClient, path: str, body: dict[str, Any], status: int, words: str
) -> None:
    r = client.post(f"/api/tutorial/{path}", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["detail"] and "\n" not in r.json()["detail"]


def test_decisions_after_the_learners_turn_are_refused(client: TestClient) -> None:
    turn = scripted_turn(PLAY[0])  # the "take" step
    r = client.post(
        "/api/tutorial/take/play", json={"decisions": [*turn, {"seat": 0, "pass": True}]}
    )
    assert r.status_code == 422 and "already over" in r.json()["detail"]


@pytest.mark.parametrize("step", QUIZ, ids=[s.id for s in QUIZ])
def test_each_question_has_exactly_one_answer_the_engine_agrees_with(
    client: TestClient, step: QuizStep
) -> None:
    verdicts = {}
    for v in step.options:
        r = client.post(f"/api/tutorial/{step.id}/answer", json={"answer": v})
        assert r.status_code == 200, r.text
        verdicts[v] = r.json()["correct"]
        assert r.json()["score"][step.field] == getattr(tutorial.quiz_score(step), step.field)
    assert sum(verdicts.values()) == 1


def test_no_step_shows_the_removed_tiles_or_the_bag(client: TestClient) -> None:
    """I2: the script's removal is random, so its stand-ins stay hidden like any game's."""
    assert tutorial.position(PLAY[0]).removed  # the script did remove tiles
    for step in PLAY:
        r = client.post(f"/api/tutorial/{step.id}/play", json={"decisions": []})
        game = r.json()["game"]
        assert game["removal"] == "random" and not game["view"].get("removed")
        assert '"bag"' not in r.text and "seed" not in r.text
