"""The tutorial's routes ("Learn to play", docs/web.md): its steps, a step's position after the
learner's decisions, and the answer to a scoring question. Cheap and stateless: each request
replays a few scripted rounds (:mod:`kerala.server.tutorial`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path
from pydantic import BaseModel, ConfigDict, Field

from kerala.server import tutorial
from kerala.server.schemas import ERRORS, Game, JSONObject, ScoreOut

router = APIRouter(prefix="/api/tutorial", tags=["tutorial"])

StepId = Annotated[str, Path(max_length=40, description="a step's id, from GET /api/tutorial")]


class TutorialStep(BaseModel):
    id: str
    kind: str
    #: A question's grounds (docs/notation.md), the score field it asks for and the choices.
    grounds: JSONObject | None = None
    field: str | None = None
    options: list[int] | None = None


class TutorialSteps(BaseModel):
    steps: list[TutorialStep]


class StepPlay(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decisions: list[JSONObject] = Field(
        default_factory=list,
        max_length=tutorial.MAX_DECISIONS,
        description="the learner's decisions in this step so far, in order",
    )


class StepPosition(BaseModel):
    step: str
    #: ``playing`` while the learner's turn goes on; then ``passed`` or ``failed``.
    outcome: str
    game: Game


class StepAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: int = Field(strict=True, ge=-1000, le=1000)


class AnswerChecked(BaseModel):
    step: str
    correct: bool
    score: ScoreOut


@router.get("", response_model=TutorialSteps)
def steps() -> dict[str, Any]:
    """The tutorial's steps in order: played on the board, or a question about scoring."""
    return {"steps": tutorial.steps_json()}


@router.post("/{step}/play", response_model=StepPosition, responses=ERRORS)
def play(step: StepId, body: Annotated[StepPlay, Body()]) -> dict[str, Any]:
    """A playing step's position after the learner's decisions (none: where it starts), and
    whether the learner's turn did what the step teaches."""
    return tutorial.play(step, body.decisions)


@router.post("/{step}/answer", response_model=AnswerChecked, responses=ERRORS)
def answer(step: StepId, body: Annotated[StepAnswer, Body()]) -> dict[str, Any]:
    """Check the answer to a scoring question against the engine's score of its grounds."""
    return tutorial.answer(step, body.answer)
