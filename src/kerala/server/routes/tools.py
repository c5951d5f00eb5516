"""Routes that need no game: the score calculator and the record checker."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from kerala.actions import Decision
from kerala.errors import KeralaError
from kerala.gridtext import GridTextError, format_grid, read_grid
from kerala.notation import read_grounds, read_record
from kerala.scoring import score_grounds
from kerala.server.errors import ApiError
from kerala.server.schemas import ERRORS, RecordCheck, ScoreOut
from kerala.server.service import result_json
from kerala.tiles import TileType

router = APIRouter(prefix="/api", tags=["tools"])

GROUNDS_EXAMPLE = {
    "format": "kerala-grounds",
    "version": 1,
    "color": "blue",
    "passes": 1,
    "elephants": [[1, 0], [0, 0]],
    "stacks": [
        {"at": [0, 0], "tiles": ["blue:start", "green:e2"]},
        {"at": [1, 0], "tiles": ["purple:arch-green@W"]},
    ],
}


@router.post("/score", response_model=ScoreOut, responses=ERRORS)
def score(
    doc: Annotated[
        dict[str, Any], Body(description="a grounds document", examples=[GROUNDS_EXAMPLE])
    ],
) -> dict[str, Any]:
    """Score one player's grounds (SC1–SC6): the score calculator."""
    try:
        b = score_grounds(read_grounds(doc))
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"grounds: {e}") from None
    return {**b.to_json(), "symbols_by_color": dict(b.symbols_by_color)}


class GridTextIn(BaseModel):
    """A text grid of one player's grounds (docs/terminal.md, "Text grid")."""

    text: str = Field(max_length=20_000, description="the text grid, as typed or pasted")


class GroundsFromText(BaseModel):
    """The grounds document a text grid describes, its score, and the grid written back."""

    grounds: dict[str, Any]
    score: ScoreOut
    text: str


GRID_EXAMPLE = {"text": "Bs@ G2z\n.   P<g\n"}


@router.post("/grounds/from-text", response_model=GroundsFromText, responses=ERRORS)
def grounds_from_text(
    body: Annotated[GridTextIn, Body(examples=[GRID_EXAMPLE])],
) -> dict[str, Any]:
    """Read a text grid into a grounds document and score it (the calculator's paste box).

    A mistake is refused (422) with its line and column, in ``detail`` and as ``line`` and
    ``column`` fields.
    """
    try:
        doc = read_grid(body.text)
        g = read_grounds(doc)
    except GridTextError as e:
        raise ApiError(
            422, "invalid_document", f"text: {e}", line=e.line, column=e.column
        ) from None
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"text: {e}") from None
    b = score_grounds(g)
    return {
        "grounds": doc,
        "score": {**b.to_json(), "symbols_by_color": dict(b.symbols_by_color)},
        "text": format_grid(g),
    }


def _decisions(log: list[TileType | Decision]) -> list[Decision]:
    return [e for e in log if not isinstance(e, TileType)]


def _check(doc: dict[str, Any], at: int | None) -> dict[str, Any]:
    try:
        rec = read_record(doc)
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"record: {e}") from None
    state = rec.state
    decisions = _decisions(state.log)
    k = len(decisions) if at is None else at
    if not 0 <= k <= len(decisions):
        raise ApiError(
            422,
            "invalid_request",
            f"'at' must be between 0 and {len(decisions)} (the record's decisions), got {k}",
        )
    shown = state if k == len(decisions) else state.after(k)
    return {
        "ok": True,
        "finished": state.is_over(),
        "players": rec.players,
        "removal": state.removal,
        "decision_number": len(decisions),
        "decisions": [d.to_json() for d in decisions],
        "at": k,
        "view": shown.view(None).to_json(),
        # The running score: each grounds as it stands at ``at``, scored as if the game ended there.
        "running_totals": [score_grounds(g).total for g in shown.grounds],
        "result": result_json(state) if state.is_over() else None,
    }


@router.post("/records/check", response_model=RecordCheck, responses=ERRORS)
async def check_record(
    doc: Annotated[dict[str, Any], Body(description="a game record (docs/notation.md)")],
    at: Annotated[int | None, Query(ge=0, le=1_000_000)] = None,
) -> dict[str, Any]:
    """Replay a record through the rules; its decisions, and the position after ``at``."""
    return await run_in_threadpool(_check, doc, at)
