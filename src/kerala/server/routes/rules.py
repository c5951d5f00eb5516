"""What the browser needs to know of the rules, from the engine: one place per rule.

``GET /api/rules`` gives the tile set, the tile kinds, the setup counts and the points, so the
browser restates none of them. ``POST /api/rules/scores`` scores several grounds at once (the
live score "if the game ended now" of every player, docs/rules.md SC1–SC6): public information
(I1), computed by the engine's scoring, never by the browser.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from kerala.errors import KeralaError
from kerala.game import MAX_PASSES, REMOVAL_COUNT
from kerala.notation import read_grounds
from kerala.scoring import ARCH_POINTS, MISSING_COLOR_POINTS, REMOVED_TILE_POINTS, score_grounds
from kerala.server.errors import ApiError
from kerala.server.schemas import ERRORS
from kerala.tiles import ALL_TILE_TYPES, COLORS, EDGES, load_tileset

router = APIRouter(prefix="/api/rules", tags=["rules"])

#: The most grounds one request may score (a game has at most 5 players).
MAX_GROUNDS = 5


def rules_json(tileset: str = "standard") -> dict[str, Any]:
    """The rules' numbers as JSON (see the module docstring).

    >>> r = rules_json()
    >>> r["removal_count"]["2"], r["tileset"]["counts"]["green:e2"], r["points"]["arch"]
    (20, 5, 5)
    """
    ts = load_tileset(tileset)
    return {
        "colors": list(COLORS),
        "edges": list(EDGES),
        "players": {"min": min(REMOVAL_COUNT), "max": max(REMOVAL_COUNT)},
        "removal_count": {str(n): k for n, k in REMOVAL_COUNT.items()},
        "max_passes": MAX_PASSES,
        "points": {
            "arch": ARCH_POINTS,
            "removed_tile": REMOVED_TILE_POINTS,
            "missing_color": MISSING_COLOR_POINTS,
            "standing_elephant": 1,
            "symbol": 1,
        },
        "tile_types": [
            {
                "name": t.name,
                "color": t.color,
                "kind": t.kind,
                "symbols": t.symbols,
                "arch": t.arch_color,
                "special": t.special,
            }
            for t in ALL_TILE_TYPES
        ],
        "tileset": {"name": ts.name, "counts": {t.name: n for t, n in ts.counts.items()}},
    }


@router.get("")
def rules() -> dict[str, Any]:
    """The standard tile set, the tile kinds, the setup counts (S3) and the points (SC1–SC5)."""
    return rules_json()


class GroundsList(BaseModel):
    grounds: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_GROUNDS)


def _scores(docs: list[dict[str, Any]]) -> dict[str, Any]:
    out = []
    for i, doc in enumerate(docs):
        try:
            b = score_grounds(read_grounds({"format": "kerala-grounds", "version": 1, **doc}))
        except KeralaError as e:
            raise ApiError(422, "invalid_document", f"grounds[{i}]: {e}") from None
        out.append({**b.to_json(), "symbols_by_color": dict(b.symbols_by_color)})
    return {"scores": out}


@router.post("/scores", responses=ERRORS)
async def scores(
    body: Annotated[GroundsList, Body(description="the grounds of a view, as the game sends them")],
) -> dict[str, Any]:
    """Score each grounds as if the game ended now (SC1–SC6): the live score."""
    return await run_in_threadpool(_scores, body.grounds)
