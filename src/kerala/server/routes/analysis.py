"""Post-game analysis over HTTP: start an analysis, follow its progress, read it.

- ``POST /api/games/{id}/analysis`` analyses a finished game of this server (refused while it
  is in progress: the analysis is offered to everyone, so only once nothing is secret any more);
- ``POST /api/records/analysis`` analyses a record document the user sends (a replayed file),
  only if its game is over: no route gives engine advice about a game still being played
  (docs/security.md, "Fair play");
- ``GET /api/analysis/{job}`` tells ``status`` (``running``, ``done``, ``failed``,
  ``cancelled``), ``done`` and ``total`` decisions, and once done the ``analysis`` object
  (:mod:`kerala.bots.analysis`, the record's optional ``analysis`` field);
- ``DELETE /api/analysis/{job}`` cancels it.

Each decision is judged from its seat's view at the time (docs/rules.md I1, I2). The searches run
one at a time in the advice workers (:mod:`kerala.server.advice`), never in the game bots' pool
and never on the event loop. Analyses are admitted within quotas per client address and in all
(429 with ``Retry-After`` above them), and one that nobody has asked about for
``KERALA_ANALYSIS_ABANDON`` seconds is cancelled: its client has gone. Jobs live in this
process's memory; a game's analysis is kept and handed out again for the same settings.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
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
    read,
    review_point,
)
from kerala.errors import KeralaError
from kerala.notation import Record, write_record
from kerala.server.advice import ANALYSIS, Advice, Closed
from kerala.server.errors import ApiError
from kerala.server.routes.clients import client_address
from kerala.server.routes.deps import (
    BotsDep,
    GameIdDep,
    ServiceDep,
    analysis_jobs_of,
    rate_limit,
    settings_of,
)
from kerala.server.schemas import ANALYSIS_ERRORS, ERRORS

log = logging.getLogger("kerala.server.analysis")

router = APIRouter(prefix="/api", tags=["analysis"])

#: Search seconds (CPU) per decision unless the request asks otherwise, and the most allowed.
DEFAULT_TIME = 0.2
MAX_TIME = 2.0
#: Jobs kept in memory; the oldest finished ones are forgotten first.
MAX_JOBS = 64
#: The statuses of a game's analysis handed out again (a failed or cancelled one starts anew).
KEPT = ("running", "done")

JobId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


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
    #: Who asked (the quota's client address), and when anyone last asked about it.
    client: str = ""
    seen: float = field(default_factory=monotonic)

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
    jobs: Jobs = analysis_jobs_of(request)
    return jobs


class Abandoned(Exception):
    """Nobody has asked about the job for the abandon time: its client went away."""


async def _run(job: Job, points: list[DecisionPoint], advice: Advice, abandon: float) -> None:
    reviews: list[dict[str, Any]] = []
    try:
        for i, p in enumerate(points):
            if monotonic() - job.seen > abandon:
                raise Abandoned
            # One search at a time, after the hints, in the advice workers (bots first).
            reviews.append(await advice.run(ANALYSIS, review_point, p, job.budget, i))
            job.done = i + 1
        job.analysis = make_analysis(reviews, job.seats, job.budget)
        job.status = "done"
    except Abandoned:
        log.info("analysis %s cancelled: nobody asked about it for %g s", job.id, abandon)
        job.status = "cancelled"
        job.error = f"cancelled: nobody asked how it went for {abandon:g} s"
    except asyncio.CancelledError:
        if job.status == "running":
            job.status, job.error = "failed", "the server stopped"
        raise
    except Closed:
        job.status, job.error = "failed", "the server stopped"
    except Exception as e:  # a worker crash must end the job, not hang it
        log.error("analysis %s failed: %s", job.id, type(e).__name__)
        job.status, job.error = "failed", f"the analysis failed ({type(e).__name__})"
    finally:
        advice.analyses.give(job.client)


async def _start(
    request: Request,
    advice: Advice,
    prepare: Callable[[], tuple[list[DecisionPoint], list[int]]],
    budget: float,
    key: tuple[Any, ...] | None,
) -> Job:
    """Admit an analysis within the quotas (429 above them, before the record is even read, so
    that a flood costs little), then read its decision points (``prepare``, in a worker
    thread) and start it."""
    client = client_address(request)
    jobs = _jobs(request)
    advice.analyses.take(client)
    try:
        points, seats = await run_in_threadpool(prepare)
        job = Job(secrets.token_urlsafe(9), key, seats, budget, total=len(points), client=client)
        jobs.add(job)
    except BaseException:
        advice.analyses.give(client)
        raise
    abandon = settings_of(request).analysis_abandon
    job.task = asyncio.get_running_loop().create_task(_run(job, points, advice, abandon))
    return job


def _points(
    doc: dict[str, Any] | Record, seats: list[int] | None
) -> tuple[list[DecisionPoint], list[int]]:
    try:
        points = decision_points(doc, seats)
    except AnalysisError as e:
        raise ApiError(422, "invalid_request", str(e)) from None
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"record: {e}") from None
    n = doc.state.n if isinstance(doc, Record) else len(doc["players"])
    return points, sorted(set(seats)) if seats is not None else list(range(n))


def _finished_points(
    doc: dict[str, Any], seats: list[int] | None
) -> tuple[list[DecisionPoint], list[int]]:
    """The decision points of a record whose game is over; a record of a game still being
    played is refused (409), whoever sends it: its analysis would be engine advice in a live
    game (a watcher's copy of the record, plus one turn, is a position to move in)."""
    try:
        rec = read(doc)
    except KeralaError as e:
        raise ApiError(422, "invalid_document", f"record: {e}") from None
    if not rec.state.is_over():
        raise ApiError(
            409,
            "not_over",
            "the record's game is not over: only finished games are analysed (no engine "
            "advice in a game still being played)",
        )
    return _points(rec, seats)


@router.post(
    "/games/{game_id}/analysis",
    status_code=202,
    response_model=AnalysisJobOut,
    responses=ANALYSIS_ERRORS,
    dependencies=[rate_limit("analysis")],
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
    if known is not None and known in jobs.by_id and jobs.by_id[known].status in KEPT:
        job = jobs.by_id[known]
        job.seen = monotonic()
        return job.to_json()

    def prepare() -> tuple[list[DecisionPoint], list[int]]:
        state, players = service.record_parts(game_id)
        if not state.is_over():
            raise ApiError(
                409, "conflict", "the game is not over: its analysis is offered once it ends"
            )
        return _points(write_record(state, players), seats)

    return (await _start(request, bots.advice, prepare, time, key)).to_json()


@router.post(
    "/records/analysis",
    status_code=202,
    response_model=AnalysisJobOut,
    responses=ANALYSIS_ERRORS,
    dependencies=[rate_limit("analysis")],
)
async def analyse_record(
    request: Request,
    bots: BotsDep,
    doc: Annotated[dict[str, Any], Body(description="a game record (docs/notation.md)")],
    seat: SeatQuery = None,
    time: TimeQuery = DEFAULT_TIME,
) -> dict[str, Any]:
    """Start the analysis of a record document whose game is over (409 ``not_over`` if not)."""
    seats = None if seat is None else [seat]
    job = await _start(request, bots.advice, lambda: _finished_points(doc, seats), time, None)
    return job.to_json()


@router.get("/analysis/{job_id}", response_model=AnalysisJobOut, responses=ERRORS)
async def analysis_job(
    request: Request,
    job_id: JobId,
) -> dict[str, Any]:
    """An analysis: its progress, and the result once done. Asking keeps it alive: one nobody
    asks about for ``KERALA_ANALYSIS_ABANDON`` seconds is cancelled."""
    job = _job(request, job_id)
    job.seen = monotonic()
    return job.to_json()


@router.delete("/analysis/{job_id}", response_model=AnalysisJobOut, responses=ERRORS)
async def cancel_analysis(request: Request, job_id: JobId) -> dict[str, Any]:
    """Cancel an analysis (whoever has its id may): it stops, its place in the queue is freed.
    A finished one is left as it is."""
    job = _job(request, job_id)
    if job.status == "running" and job.task is not None:
        job.status, job.error = "cancelled", "cancelled on request"
        job.task.cancel()
    return job.to_json()


def _job(request: Request, job_id: str) -> Job:
    job = _jobs(request).by_id.get(job_id)
    if job is None:
        raise ApiError(404, "not_found", f"no analysis {job_id!r} (finished ones may be forgotten)")
    return job
