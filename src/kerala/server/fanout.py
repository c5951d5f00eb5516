"""One game world over several server processes: events to every process, one runner per bot.

Every committed event is *announced* once, by the process that committed it
(:meth:`Announcer.announce`): to the WebSockets of this process (:class:`kerala.server.hub.Hub`),
to the bot runner of this process, and, when there are several processes, to the others through
a broker. Each process hands the events it receives to its own sockets and bot runner. So every
socket gets every event whichever process it is connected to, and every process's bot runner
hears of every bot turn, whoever made it due.

- :class:`LocalBroker`: one process, nothing to share (the zero-setup default).
- :class:`RedisBroker`: Redis pub/sub carries the events (one channel per world, named by the
  key prefix); a Redis key with an expiry is the lease of a game's bot turns (``SET NX PX``,
  renewed while the bot thinks, released after): exactly one process runs a bot seat's turn,
  and when that process dies its lease runs out and another takes the turn over (each process
  looks for bot turns left waiting every few seconds, :class:`kerala.server.botrunner.BotRunner`).

Pub/sub delivers at most once. A message lost (Redis away or restarting) costs a delay, never an
event: :class:`GapFiller` compares the event count of every game this process has sockets for
with the database's, at once when the subscription comes back and every few seconds besides,
and hands the newest event of a game that moved on to its sockets, which fill the gap from the
database; a reconnecting client asks for what it missed, and waiting bot turns are found by the
periodic sweep. Should
Redis not answer, a process takes the bot lease as its own: the conditional write of every
decision (``WHERE event_count = seen``) keeps two runners from both playing the same turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Callable
from typing import Protocol

import orjson

from kerala.server.background import stop_task
from kerala.server.breaker import Breaker, RedisAway
from kerala.server.domain import Event
from kerala.server.hub import Hub
from kerala.server.wire import Snapshot, dumpb

log = logging.getLogger("kerala.server.fanout")

#: What a broker calls with each event another process announced.
OnEvent = Callable[[Event, Snapshot], None]


class Broker(Protocol):
    """How the processes of one game world share events and bot leases."""

    name: str

    async def start(self, on_event: OnEvent) -> None: ...

    async def close(self) -> None: ...

    def publish(self, event: Event, snapshot: Snapshot) -> None: ...

    async def acquire(self, game_id: str) -> bool: ...

    async def renew(self, game_id: str) -> bool: ...

    async def release(self, game_id: str) -> None: ...

    async def ping(self) -> None: ...


class LocalBroker:
    """One process: every event is already here, every bot lease is this process's."""

    name = "local"

    async def start(self, on_event: OnEvent) -> None:
        return None

    async def close(self) -> None:
        return None

    def publish(self, event: Event, snapshot: Snapshot) -> None:
        return None

    async def acquire(self, game_id: str) -> bool:
        return True

    async def renew(self, game_id: str) -> bool:
        return True

    async def release(self, game_id: str) -> None:
        return None

    async def ping(self) -> None:
        return None


_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class RedisBroker:
    """Redis pub/sub for the events, Redis keys with an expiry for the bot leases."""

    name = "redis"

    def __init__(
        self,
        url: str,
        prefix: str,
        lease_seconds: float,
        timeout: float = 1.0,
        outbox: int = 10_000,
    ) -> None:
        import redis.asyncio as aioredis

        self._errors: tuple[type[BaseException], ...] = (
            aioredis.RedisError,
            OSError,
            asyncio.TimeoutError,
        )
        #: The leases are asked for on the way of a bot turn: a Redis that hangs must not hold
        #: it (``KERALA_REDIS_TIMEOUT``; docs/security.md, "Faults").
        self.leases = Breaker("bot leases", timeout, (aioredis.RedisError,))
        self.timeout = timeout
        self.redis = aioredis.from_url(
            url, socket_timeout=5, socket_connect_timeout=5, health_check_interval=10
        )
        self.prefix = prefix
        self.channel = f"{prefix}:events"
        self.lease_ms = max(1, int(lease_seconds * 1000))
        #: Tells this process's own messages apart, and names the holder of a lease
        #: (``<pid>-<random>``: an operator can see which process runs a game's bots).
        self.me = f"{os.getpid()}-{secrets.token_hex(6)}"
        self._mine = self.me.encode() + b"\n"
        #: Events waiting for the sender. Bounded: a Redis that hangs takes one publish per
        #: socket timeout, and the queue must not grow with the length of the outage. An event
        #: dropped is found by the other processes' gap check, as one lost by Redis is.
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=outbox)
        #: Events dropped because the outbox was full (since this process started).
        self.dropped = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._on_event: OnEvent | None = None
        #: Called (on the event loop) each time the subscription is back after it was lost:
        #: whatever was published meanwhile is lost to this process.
        self.on_resubscribe: Callable[[], None] | None = None

    def _lease_key(self, game_id: str) -> str:
        return f"{self.prefix}:bot:{game_id}"

    async def start(self, on_event: OnEvent) -> None:
        self._on_event = on_event
        await self.redis.ping()  # fails at startup, with a clear line, if Redis is not there
        subscribed = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._listen(subscribed), name="kerala-redis-listen"),
            asyncio.create_task(self._send(), name="kerala-redis-send"),
        ]
        await asyncio.wait_for(subscribed.wait(), 10)

    async def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # else the sender is stopped after 5 s
            self._outbox.put_nowait(None)
        for t in self._tasks:
            if t.get_name() == "kerala-redis-send":
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(t, 5)
        for t in self._tasks:
            await stop_task(t)
        await self.redis.aclose()

    def publish(self, event: Event, snapshot: Snapshot) -> None:
        # One sender task keeps this process's events in the order they were committed.
        data = b"\n".join((self.me.encode(), dumpb(event.to_json()), snapshot.to_bytes()))
        try:
            self._outbox.put_nowait(data)
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped % 1000 == 1:
                log.warning(
                    "Redis takes events slower than they come: %d not sent to the other"
                    " processes so far (their gap check finds them)",
                    self.dropped,
                )

    def waiting(self) -> int:
        """Events waiting to be published (not counting one being published now)."""
        return self._outbox.qsize()

    async def _send(self) -> None:
        while True:
            data = await self._outbox.get()
            if data is None:
                return
            try:
                await self.redis.publish(self.channel, data)
            except self._errors as e:
                log.warning("could not publish an event to Redis (%s)", type(e).__name__)

    async def _listen(self, subscribed: asyncio.Event) -> None:
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                if subscribed.is_set():
                    log.warning("Redis subscription back; looking for events missed meanwhile")
                    if self.on_resubscribe is not None:
                        self.on_resubscribe()
                subscribed.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._deliver(message["data"])
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis 8
                raise
            except self._errors as e:
                log.warning("Redis subscription lost (%s); subscribing again", type(e).__name__)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # typed from redis 8
                await asyncio.sleep(0.5)

    def _deliver(self, data: bytes) -> None:
        if data.startswith(self._mine) or self._on_event is None:
            return  # this process's own event, handed to its sockets already
        try:
            _origin, event, snap = data.split(b"\n", 2)
            self._on_event(Event.from_json(orjson.loads(event)), Snapshot.from_bytes(snap))
        except Exception:  # a foreign or broken message must not stop the listener
            log.exception("a message on %s could not be read", self.channel)

    async def acquire(self, game_id: str) -> bool:
        try:
            return bool(
                await self.leases.call(
                    lambda: self.redis.set(
                        self._lease_key(game_id), self.me, nx=True, px=self.lease_ms
                    )
                )
            )
        except RedisAway:
            return True  # the lease not checked: this process runs the bot turn

    async def renew(self, game_id: str) -> bool:
        try:
            key = self._lease_key(game_id)
            return bool(
                await self.leases.call(
                    lambda: self.redis.eval(_RENEW, 1, key, self.me, self.lease_ms)
                )
            )
        except RedisAway:
            return True

    async def release(self, game_id: str) -> None:
        with contextlib.suppress(RedisAway):
            key = self._lease_key(game_id)
            await self.leases.call(lambda: self.redis.eval(_RELEASE, 1, key, self.me))

    async def ping(self) -> None:
        async with asyncio.timeout(self.timeout):
            await self.redis.ping()


def make_broker(
    redis_url: str | None,
    prefix: str,
    lease_seconds: float,
    timeout: float = 1.0,
    outbox: int = 10_000,
) -> Broker:
    """Redis when a URL is given, else the one-process broker."""
    if redis_url:
        return RedisBroker(redis_url, prefix, lease_seconds, timeout, outbox)
    return LocalBroker()


class Announcer:
    """Where every committed event goes: this process's sockets and bots, and the others."""

    def __init__(self, hub: Hub, broker: Broker) -> None:
        self.hub = hub
        self.broker = broker
        self._bots: Callable[[Snapshot], None] | None = None
        self._cache: OnEvent | None = None

    def bots_hear(self, on_snapshot: Callable[[Snapshot], None]) -> None:
        self._bots = on_snapshot

    def cache_hears(self, on_event: OnEvent) -> None:
        """Who keeps the cached games up to date with other processes' events."""
        self._cache = on_event

    def announce(self, event: Event, snapshot: Snapshot) -> None:
        """A committed event of this process (call on the event loop)."""
        self.deliver(event, snapshot)
        self.broker.publish(event, snapshot)

    def from_others(self, event: Event, snapshot: Snapshot) -> None:
        """An event another process committed (the broker calls this on the event loop)."""
        if self._cache is not None:
            self._cache(event, snapshot)
        self.deliver(event, snapshot)

    def deliver(self, event: Event, snapshot: Snapshot) -> None:
        """An event for this process's sockets and bot runner (its own, or another's)."""
        self.hub.publish(snapshot.game_id, event, snapshot)
        if self._bots is not None:
            self._bots(snapshot)


class GapFiller:
    """Events this process's sockets missed (a Redis message lost) reach them within seconds.

    Every ``interval`` seconds, and at once when :meth:`wake` is called (the Redis subscription
    came back), the event count of each game with sockets here is read from the database (one
    query for all of them); for a game that moved on past what its sockets were handed, the
    newest event is handed to them (and to the bot runner), and each socket fills the gap before
    it from the database as it does for any gap (:class:`kerala.server.hub.Hub`).
    """

    def __init__(
        self,
        hub: Hub,
        announcer: Announcer,
        counts: Callable[[list[str]], dict[str, int]],
        latest: Callable[[str], tuple[Event, Snapshot] | None],
        interval: float,
    ) -> None:
        self.hub = hub
        self.announcer = announcer
        self.counts = counts
        self.latest = latest
        self.interval = interval
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="kerala-gap-filler")

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None

    def wake(self) -> None:
        """Look now (call on the event loop)."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)
            self._wake.clear()
            try:
                await self.fill()
            except Exception as e:  # the database away too: the next look tries again
                log.warning("could not look for missed events (%s)", type(e).__name__)

    async def fill(self) -> int:
        """Hand each watched game that moved on its newest event; how many games did."""
        watched = self.hub.watched()
        if not watched:
            return 0
        counts = await asyncio.to_thread(self.counts, watched)
        filled = 0
        for game_id, count in counts.items():
            if count <= self.hub.known(game_id):
                continue
            got = await asyncio.to_thread(self.latest, game_id)
            if got is None or got[1].event_number <= self.hub.known(game_id):
                continue  # heard meanwhile
            self.announcer.deliver(*got)
            filled += 1
        if filled:
            log.warning("%d game(s) had missed events; handed to their sockets", filled)
        return filled
