"""Post-game analysis over HTTP (issue 16): start an analysis, follow its progress, read it.

- ``POST /api/games/{id}/analysis`` analyses a finished game of this server (refused while it
  is in progress: the analysis is offered to everyone, so only once nothing is secret any more);
- ``POST /api/records/analysis`` analyses a record document the user sends (a replayed file);
- ``GET /api/analysis/{job}`` tells ``status`` (``running``, ``done``, ``failed``), ``done`` and
  ``total`` decisions, and once done the ``analysis`` object (:mod:`kerala.bots.analysis`, the
  record's optional ``analysis`` field).

Each decision is judged from its seat's view at the time (docs/rules.md I1, I2). The searches run
one at a time in the bots' worker pool (never on the event loop), so that an analysis shares
the workers fairly with the bots playing other games. Jobs live in this process's memory; a
game's analysis is kept and handed out again for the same settings.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from time import monotonic
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from kerala.bots.analysis import (
    AnalysisError,
    DecisionPoint,
    decision_points,
    make_analysis,
    review_point,
)
from kerala.errors import KeralaError
from kerala.notation import write_record
from kerala.server.botrunner import BotRunner
from kerala.server.errors import ApiError
from kerala.server.routes.deps import BotsDep, GameIdDep, ServiceDep
from kerala.server.schemas import ERRORS

log = logging.getLogger("kerala.server.analysis")

router = APIRouter(prefix="/api", tags=["analysis"])

#: Search seconds (CPU) per decision unless the request asks otherwise, and the most allowed.
DEFAULT_TIME = 0.2
MAX_TIME = 2.0
#: Jobs kept in memory; the oldest finished ones are forgotten first.
MAX_JOBS = 64


SeatQuery = Annotated[
    int | None, Query(ge=0, le=4, description="the seat to analyse (default: every seat)")
]
TimeQuery = Annotated[
    float, Query(ge=0.01, le=MAX_TIME, description="search seconds (CPU) per decision")
]


class AnalysisJobOut(BaseModel):
    id: str
    status: str
    done: int
    total: int
    error: str | None = None
    analysis: dict[str, Any] | None = None


@dataclass
class Job:
    id: str
    key: tuple[Any, ...] | None
    seats: list[int]
    budget: float
    total: int
    done: int = 0
    status: str = "running"
    error: str | None = None
    analysis: dict[str, Any] | None = None
    started: float = field(default_factory=monotonic)
    task: asyncio.Task[None] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "error": self.error,
            "analysis": self.analysis,
        }


class Jobs:
    """The analyses of this process, by id (and a finished game's by its settings)."""

    def __init__(self) -> None:
        self.by_id: dict[str, Job] = {}
        self.by_key: dict[tuple[Any, ...], str] = {}

    def add(self, job: Job) -> None:
        if len(self.by_id) >= MAX_JOBS:
            finished = [j for j in self.by_id.values() if j.status != "running"]
            if not finished:
                raise ApiError(503, "busy", "too many analyses are running; try again later")
            old = min(finished, key=lambda j: j.started)
            del self.by_id[old.id]
            if old.key is not None:
                self.by_key.pop(old.key, None)
        self.by_id[job.id] = job
        if job.key is not None:
            self.by_key[job.key] = job.id


def _jobs(request: Request) -> Jobs:
    jobs = getattr(request.app.state, "analysis_jobs", None)
    if jobs is None:
        jobs = request.app.state.analysis_jobs = Jobs()
    return jobs


async def _run(job: Job, points: list[DecisionPoint], bots: BotRunner) -> None:
    reviews: list[dict[str, Any]] = []
    try:
        for i, p in enumerate(points):
            # One search at a time: bots of other games keep their turn in the pool's queue.
            reviews.append(await bots.run_in_pool(review_point, p, job.budget, i))
            job.done = i + 1
        job.analysis = make_analysis(reviews, job.seats, job.budget)
        job.status = "done"
    except asyncio.CancelledError:
        job.status, job.error = "failed", "the server stopped"
        raise
    except Exception as e:  # a worker crash must end the job, not hang it
        log.error("analysis %s failed: %s", job.id, type(e).__name__)
        job.status, job.error = "failed", f"the analysis failed ({type(e).__name__})"


def _start(
    jobs: Jobs,
    bots: BotRunner,
    points: list[DecisionPoint],
    seats: list[int],
    budget: float,
    key: tuple[Any, ...] | None,
) -> Job:
    job = Job(secrets.token_urlsafe(9), key, seats, budget, total=len(points))
    jobs.add(job)
    job.task = asyncio.get_running_loop().create_task(_run(job, points, bots))
    return job


def _points(doc: dict[str, Any], seats: list[int] | None) -> tuple[list[DecisionPoint], list[int]]:
    try:
        points = decision_points(doc, seats)
    except AnalysisError as e:
        raise ApiError(422, "invalid_request", str(e)) from None
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"record: {e}") from None
    n = len(doc["players"])
    return points, sorted(set(seats)) if seats is not None else list(range(n))


@router.post(
    "/games/{game_id}/analysis", status_code=202, response_model=AnalysisJobOut, responses=ERRORS
)
async def analyse_game(
    request: Request,
    game_id: GameIdDep,
    service: ServiceDep,
    bots: BotsDep,
    seat: SeatQuery = None,
    time: TimeQuery = DEFAULT_TIME,
) -> dict[str, Any]:
    """Start the analysis of a finished game (or return the one already made or running)."""
    jobs = _jobs(request)
    seats = None if seat is None else [seat]
    key = ("game", game_id, seat, time)
    known = jobs.by_key.get(key)
    if known is not None and known in jobs.by_id and jobs.by_id[known].status != "failed":
        return jobs.by_id[known].to_json()

    def prepare() -> tuple[list[DecisionPoint], list[int]]:
        state, players = service.record_parts(game_id)
        if not state.is_over():
            raise ApiError(
                409, "conflict", "the game is not over: its analysis is offered once it ends"
            )
        return _points(write_record(state, players), seats)

    points, chosen = await run_in_threadpool(prepare)
    return _start(jobs, bots, points, chosen, time, key).to_json()


@router.post("/records/analysis", status_code=202, response_model=AnalysisJobOut, responses=ERRORS)
async def analyse_record(
    request: Request,
    bots: BotsDep,
    doc: Annotated[dict[str, Any], Body(description="a game record (docs/notation.md)")],
    seat: SeatQuery = None,
    time: TimeQuery = DEFAULT_TIME,
) -> dict[str, Any]:
    """Start the analysis of a record document (any game, finished or not)."""
    seats = None if seat is None else [seat]
    points, chosen = await run_in_threadpool(_points, doc, seats)
    return _start(_jobs(request), bots, points, chosen, time, None).to_json()


@router.get("/analysis/{job_id}", response_model=AnalysisJobOut, responses=ERRORS)
async def analysis_job(
    request: Request,
    job_id: Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")],
) -> dict[str, Any]:
    """An analysis: its progress, and the result once done."""
    job = _jobs(request).by_id.get(job_id)
    if job is None:
        raise ApiError(404, "not_found", f"no analysis {job_id!r} (finished ones may be forgotten)")
    return job.to_json()
