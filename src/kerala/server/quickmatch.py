"""The quick-match queue: tickets in one shared place, paired by one process at a time.

People join with ``POST /api/quickmatch`` and get a ticket id and a secret; they ask how it
goes with the secret (``GET``) until a game is found, or leave (``DELETE``). Every process of a
cluster runs :meth:`QuickMatch.run`, a loop that every ``quickmatch_interval`` seconds tries to
become the pairer (a Redis lock with a short expiry, so a stopped process hands over at once),
reads the waiting tickets, forms games with :func:`kerala.server.matchmaking.pair`, creates them
through the game service, and leaves each ticket's seat and token for its owner to collect.

With one process and no Redis, the queue is this process's memory (:class:`MemoryQueue`); with
Redis (:class:`RedisQueue`) it is shared: tickets in a hash, results as keys that expire.
A ticket nobody asks about for ``quickmatch_abandon`` seconds is dropped: its person left.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from redis.exceptions import RedisError
from starlette.concurrency import run_in_threadpool

from kerala.server.background import stop_task
from kerala.server.domain import BadToken, Conflict, InvalidRequest
from kerala.server.errors import database_fault
from kerala.server.matchmaking import CONTROLS, Group, Ticket, TicketError, pair
from kerala.server.service import GameService
from kerala.server.settings import Settings

log = logging.getLogger("kerala.server")

#: Seat colors in the order a quick match hands them out.
COLORS = ("blue", "red", "green", "purple", "black")
#: How long a found game waits to be collected, in seconds.
RESULT_TTL = 600


def key_name(t: Ticket) -> str:
    """A ticket's key as a string: who it may meet (``"4:fast:casual"``)."""
    return f"{t.players}:{t.control}:{'rated' if t.rated else 'casual'}"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Queue(Protocol):
    """Where the tickets wait and the results are left (one process or shared)."""

    async def add(self, ticket: Ticket, secret_hash: str) -> None: ...
    async def readd(self, ticket: Ticket) -> None: ...
    async def forget(self, ticket_ids: Sequence[str]) -> None: ...
    async def owner(self, ticket_id: str) -> str | None: ...
    async def seen(self, ticket_id: str, now: float) -> None: ...
    async def remove(self, ticket_ids: Sequence[str]) -> list[str]: ...
    async def waiting(self) -> list[tuple[Ticket, float]]: ...
    async def ticket(self, ticket_id: str) -> Ticket | None: ...
    async def put_counts(self, counts: dict[str, int]) -> None: ...
    async def count(self, key: str) -> int: ...
    async def size(self) -> int: ...
    async def put_result(self, ticket_id: str, result: dict[str, Any]) -> None: ...
    async def result(self, ticket_id: str) -> dict[str, Any] | None: ...
    async def lock(self, holder: str, seconds: float) -> bool: ...
    async def close(self) -> None: ...


class MemoryQueue:
    """The queue of one process."""

    def __init__(self) -> None:
        self.tickets: dict[str, tuple[Ticket, float]] = {}
        self.owners: dict[str, str] = {}
        self.results: dict[str, tuple[dict[str, Any], float]] = {}

    async def add(self, ticket: Ticket, secret_hash: str) -> None:
        self.owners[ticket.id] = secret_hash
        await self.readd(ticket)

    async def readd(self, ticket: Ticket) -> None:
        self.tickets[ticket.id] = (ticket, time.time())

    async def forget(self, ticket_ids: Sequence[str]) -> None:
        for i in ticket_ids:
            self.owners.pop(i, None)

    async def owner(self, ticket_id: str) -> str | None:
        if ticket_id in self.owners:
            return self.owners[ticket_id]
        r = await self.result(ticket_id)
        return r["owner"] if r is not None else None

    async def seen(self, ticket_id: str, now: float) -> None:
        if ticket_id in self.tickets:
            self.tickets[ticket_id] = (self.tickets[ticket_id][0], now)

    async def remove(self, ticket_ids: Sequence[str]) -> list[str]:
        return [i for i in ticket_ids if self.tickets.pop(i, None) is not None]

    async def waiting(self) -> list[tuple[Ticket, float]]:
        return list(self.tickets.values())

    async def ticket(self, ticket_id: str) -> Ticket | None:
        got = self.tickets.get(ticket_id)
        return got[0] if got is not None else None

    async def put_counts(self, counts: dict[str, int]) -> None:
        return None  # counted from the tickets themselves

    async def count(self, key: str) -> int:
        return sum(1 for t, _ in self.tickets.values() if key_name(t) == key)

    async def size(self) -> int:
        return len(self.tickets)

    async def put_result(self, ticket_id: str, result: dict[str, Any]) -> None:
        now = time.time()
        self.results = {k: v for k, v in self.results.items() if v[1] > now}
        self.results[ticket_id] = (result, now + RESULT_TTL)

    async def result(self, ticket_id: str) -> dict[str, Any] | None:
        r = self.results.get(ticket_id)
        return r[0] if r is not None and r[1] > time.time() else None

    async def lock(self, holder: str, seconds: float) -> bool:
        return True

    async def close(self) -> None:
        return None


class RedisQueue:
    """The queue shared by the processes of a cluster, in Redis."""

    def __init__(self, url: str, prefix: str, timeout: float = 1.0) -> None:
        import redis.asyncio as aioredis

        # ``KERALA_REDIS_TIMEOUT`` bounds each request: a Redis that hangs gets the player a
        # 503 within it, not after a long socket timeout (docs/security.md, "Faults").
        self.redis = aioredis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.key = f"{prefix}:qm"

    async def add(self, ticket: Ticket, secret_hash: str) -> None:
        await self.redis.hset(f"{self.key}:owners", ticket.id, secret_hash)
        await self.readd(ticket)

    async def readd(self, ticket: Ticket) -> None:
        pipe = self.redis.pipeline()
        pipe.hset(f"{self.key}:tickets", ticket.id, json.dumps(ticket.to_json()))
        pipe.hset(f"{self.key}:seen", ticket.id, repr(time.time()))
        await pipe.execute()

    async def forget(self, ticket_ids: Sequence[str]) -> None:
        if ticket_ids:
            await self.redis.hdel(f"{self.key}:owners", *ticket_ids)

    async def owner(self, ticket_id: str) -> str | None:
        h = await self.redis.hget(f"{self.key}:owners", ticket_id)
        if h is None:
            r = await self.result(ticket_id)
            return r["owner"] if r is not None else None
        return h.decode() if isinstance(h, bytes) else str(h)

    async def seen(self, ticket_id: str, now: float) -> None:
        if await self.redis.hexists(f"{self.key}:tickets", ticket_id):
            await self.redis.hset(f"{self.key}:seen", ticket_id, repr(now))

    async def remove(self, ticket_ids: Sequence[str]) -> list[str]:
        if not ticket_ids:
            return []
        pipe = self.redis.pipeline()
        for i in ticket_ids:
            pipe.hdel(f"{self.key}:tickets", i)
        gone = await pipe.execute()
        await self.redis.hdel(f"{self.key}:seen", *ticket_ids)
        return [i for i, n in zip(ticket_ids, gone, strict=True) if n]

    async def waiting(self) -> list[tuple[Ticket, float]]:
        raw = await self.redis.hgetall(f"{self.key}:tickets")
        seen = await self.redis.hgetall(f"{self.key}:seen")
        out = []
        for k, v in raw.items():
            try:
                t = Ticket.from_json(json.loads(v))
            except (TicketError, ValueError):
                log.warning("quick match: dropped an unreadable ticket %r", k)
                await self.redis.hdel(f"{self.key}:tickets", k)
                continue
            out.append((t, float(seen.get(k, t.since))))
        return out

    async def ticket(self, ticket_id: str) -> Ticket | None:
        raw = await self.redis.hget(f"{self.key}:tickets", ticket_id)
        try:
            return Ticket.from_json(json.loads(raw)) if raw is not None else None
        except (TicketError, ValueError):
            return None

    async def put_counts(self, counts: dict[str, int]) -> None:
        pipe = self.redis.pipeline()
        pipe.delete(f"{self.key}:counts")
        for k, n in counts.items():
            pipe.hset(f"{self.key}:counts", k, n)
        await pipe.execute()

    async def count(self, key: str) -> int:
        n = await self.redis.hget(f"{self.key}:counts", key)
        return int(n) if n is not None else 1

    async def size(self) -> int:
        return int(await self.redis.hlen(f"{self.key}:tickets"))

    async def put_result(self, ticket_id: str, result: dict[str, Any]) -> None:
        await self.redis.set(f"{self.key}:result:{ticket_id}", json.dumps(result), ex=RESULT_TTL)

    async def result(self, ticket_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(f"{self.key}:result:{ticket_id}")
        return json.loads(raw) if raw is not None else None

    async def lock(self, holder: str, seconds: float) -> bool:
        key = f"{self.key}:lock"
        if await self.redis.set(key, holder, nx=True, px=int(seconds * 1000)):
            return True
        if await self.redis.get(key) == holder.encode():
            await self.redis.pexpire(key, int(seconds * 1000))
            return True
        return False

    async def close(self) -> None:
        await self.redis.aclose()


def make_queue(settings: Settings) -> Queue:
    if settings.redis is not None:
        return RedisQueue(settings.redis, settings.redis_prefix, settings.redis_timeout)
    return MemoryQueue()


#: Creates a game for a group (in a worker thread): returns the game id, each person's seat and
#: token by ticket id, and what :data:`Started` is told on the event loop.
CreateGame = Callable[[Group], tuple[str, dict[str, tuple[int, str]], Any]]
#: Told of each game created, on the event loop (the server starts its bots' turns).
Started = Callable[[Any], None]


class QuickMatch:
    """Joining, asking, leaving, and the pairing loop (domain errors; no HTTP here)."""

    def __init__(
        self, queue: Queue, settings: Settings, create: CreateGame, started: Started
    ) -> None:
        self.queue = queue
        self.settings = settings
        self.create = create
        self.started = started
        self.holder = secrets.token_hex(8)
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    async def join(
        self,
        players: int,
        control: str,
        name: str,
        rating: float,
        bots_after: float | None,
        account: str | None = None,
        rated: bool = False,
    ) -> tuple[Ticket, str]:
        if control not in CONTROLS:
            known = ", ".join(f'"{c}"' for c in CONTROLS)
            raise InvalidRequest(f'unknown time control "{control}"; controls: {known}')
        if await self.queue.size() >= self.settings.quickmatch_max_waiting:
            raise Conflict("the quick-match queue is full: try again in a minute, or open a game")
        ticket = Ticket(
            id=secrets.token_urlsafe(12),
            players=players,
            control=control,
            rating=rating,
            since=time.time(),
            bots_after=bots_after,
            name=name,
            account=account,
            rated=rated,
        )
        secret = secrets.token_urlsafe(24)
        await self.queue.add(ticket, _hash(secret))
        self._wake.set()
        return ticket, secret

    async def _check(self, ticket_id: str, secret: str) -> None:
        owner = await self.queue.owner(ticket_id)
        if owner is None:
            raise BadToken("no such ticket (it was served long ago, dropped, or never made)")
        if not hmac.compare_digest(owner, _hash(secret)):
            raise BadToken("this secret does not hold that ticket")

    async def status(self, ticket_id: str, secret: str) -> dict[str, Any]:
        """``waiting`` (with how long and how many wait alike) or ``matched`` (game, seat,
        token)."""
        await self._check(ticket_id, secret)
        found = await self.queue.result(ticket_id)
        if found is not None:
            return {k: v for k, v in found.items() if k != "owner"}
        now = time.time()
        await self.queue.seen(ticket_id, now)
        mine = await self.queue.ticket(ticket_id)
        if mine is None:
            found = await self.queue.result(ticket_id)
            if found is not None:  # served since the check above
                return {k: v for k, v in found.items() if k != "owner"}
            # Held by its owner but out of the queue: its game is being made right now.
            return {"status": "waiting", "waited": 0.0, "alike": None}
        # Counted by the last pairing pass (a cluster does not count the queue at every ask).
        alike = max(1, await self.queue.count(key_name(mine)))
        return {"status": "waiting", "waited": round(now - mine.since, 1), "alike": alike}

    async def leave(self, ticket_id: str, secret: str) -> None:
        await self._check(ticket_id, secret)
        if not await self.queue.remove([ticket_id]):
            raise Conflict("the ticket was already served: its game has started")
        await self.queue.forget([ticket_id])

    # -- the pairing loop ---------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name="kerala-quickmatch")

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None
        await self.queue.close()

    async def run(self) -> None:
        every = self.settings.quickmatch_interval
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), every)
            self._wake.clear()
            try:
                await self.pass_once()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the next pass tries again
                if isinstance(e, RedisError | OSError) or database_fault(e):  # a passing fault
                    log.warning("quick match: a pairing pass failed (%s)", e)
                else:  # a bug: its traceback is wanted
                    log.exception("quick match: a pairing pass failed")

    async def pass_once(self, now: float | None = None) -> list[Group]:
        """One pairing pass, if this process holds the pairer's lock; the games it started."""
        # The lock outlives a few passes, so that a process that stops hands over soon, and is
        # renewed before each game, so that a long pass keeps it.
        ttl = max(10.0, 3 * self.settings.quickmatch_interval + 1)
        if not await self.queue.lock(self.holder, ttl):
            return []
        now = time.time() if now is None else now
        s = self.settings
        live: list[Ticket] = []
        stale: list[str] = []
        for t, seen in await self.queue.waiting():
            if now - seen > s.quickmatch_abandon:
                stale.append(t.id)
            else:
                live.append(t)
        if stale:
            await self.queue.forget(await self.queue.remove(stale))
        counts: dict[str, int] = {}
        for t in live:
            counts[key_name(t)] = counts.get(key_name(t), 0) + 1
        await self.queue.put_counts(counts)
        started = []
        for group in pair(
            live,
            now,
            base=s.quickmatch_window,
            widen=s.quickmatch_widen,
            widest=s.quickmatch_widest,
        ):
            if not await self.queue.lock(self.holder, ttl):  # another process took over
                break
            ids = [t.id for t in group.tickets]
            taken = await self.queue.remove(ids)
            if len(taken) < len(ids):  # someone left meanwhile: the others wait on
                for t in group.tickets:
                    if t.id in taken:
                        await self.queue.readd(t)
                continue
            try:
                game_id, seats, made = await run_in_threadpool(self.create, group)
            except Exception:
                for t in group.tickets:
                    await self.queue.readd(t)
                raise
            self.started(made)
            for t in group.tickets:
                seat, token = seats[t.id]
                await self.queue.put_result(
                    t.id,
                    {
                        "status": "matched",
                        "game": game_id,
                        "seat": seat,
                        "token": token,
                        "waited": round(now - t.since, 1),
                        "bots": group.bots,
                        "owner": await self.queue.owner(t.id),
                    },
                )
            await self.queue.forget(ids)
            log.info(
                "quick match: game %s for %d people and %d bots (spread %.0f)",
                game_id,
                len(group.tickets),
                group.bots,
                group.spread,
            )
            started.append(group)
        return started


def game_maker(service: GameService) -> CreateGame:
    """What makes the game of a group through the game service: casual, random removal, the
    group's time control; each person's seat and token by ticket id."""

    def create(group: Group) -> tuple[str, dict[str, tuple[int, str]], Any]:
        control = CONTROLS[group.tickets[0].control]
        made = service.create(
            seats_for(group),
            "random",
            None,
            0,
            dict(control) if control is not None else None,
            rated=group.tickets[0].rated,
        )
        seats = {t.id: (i, made.tokens[i]) for i, t in enumerate(group.tickets)}
        return made.snapshot.base["id"], seats, made.snapshot

    return create


def seats_for(group: Group) -> list[dict[str, Any]]:
    """The seats of a quick-match game: its people in ticket order, then its bots."""
    seats: list[dict[str, Any]] = [
        {"name": t.name, "color": COLORS[i], "kind": "human"} for i, t in enumerate(group.tickets)
    ]
    for k in range(group.bots):
        seats.append({"name": f"Bot {k + 1}", "color": COLORS[len(seats)], "kind": "bot"})
    return seats


__all__ = [
    "CONTROLS",
    "MemoryQueue",
    "QuickMatch",
    "RedisQueue",
    "game_maker",
    "make_queue",
    "seats_for",
]
