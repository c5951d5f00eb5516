"""Rate limits per client (docs/security.md, "Rate limits"): one address cannot create games,
take seats or submit decisions without end; a refusal is 429 with ``Retry-After``.

The tests that set a rate set it per hour: the limiter's sliding-window counter weighs the last
window's hits by the share of that window still in view, so just after a window ends it lets a
few more through, and a per-minute rate sometimes put a test across that edge."""

from __future__ import annotations

import asyncio
import secrets
import socket
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from serverlib import TWO_HUMANS, AppFactory, auth, choose, create, game_socket, tokens_of

from kerala.server.app import create_app
from kerala.server.breaker import PAUSE, Breaker, RedisAway
from kerala.server.ratelimit import RateLimited, RateLimiter
from kerala.server.settings import Settings

REDIS = "redis://127.0.0.1:6379/0"
#: The shipped limits; the suite's environment raises them (tests/conftest.py).
DEFAULTS = Settings.model_construct()

OPEN_GAME = [
    {"name": "Host", "color": "blue"},
    {"color": "red", "kind": "open"},
    {"color": "green", "kind": "open"},
    {"color": "black", "kind": "open"},
    {"color": "purple", "kind": "open"},
]


def other_client(client: TestClient, address: str) -> TestClient:
    """A test client of the same (running) app that comes from another address."""
    return TestClient(client.app, client=(address, 50000))


def assert_rate_limited(r: Any) -> None:
    assert r.status_code == 429, r.text
    body = r.json()
    assert body["code"] == "rate_limited" and "try again" in body["detail"]
    retry = int(r.headers["retry-after"])
    assert 1 <= retry <= 3600 and body["retry_after"] == retry


def test_one_client_cannot_create_games_without_end(make_client: AppFactory) -> None:
    """One client made 2,355 five-seat games in 20 s. With the default limits an address makes
    30 in a minute, then is told when to try again; other addresses are not held up."""
    client = make_client(rate_create=DEFAULTS.rate_create)
    made = 0
    while True:
        r = client.post("/api/games", json={"seats": TWO_HUMANS})
        if r.status_code != 201:
            break
        made += 1
        assert made <= 100, "no limit on creating games"
    assert made == 30
    assert_rate_limited(r)
    listed = client.get("/api/games", params={"limit": 100}).json()["games"]
    assert len(listed) == 30  # the refused one made nothing
    other = other_client(client, "192.0.2.7")
    assert other.post("/api/games", json={"seats": TWO_HUMANS}).status_code == 201


def test_one_client_cannot_take_every_open_seat(make_client: AppFactory) -> None:
    """Anyone could take every open seat of every listed game with a name. With the default
    limits an address takes 30 seats in a minute; the seats left stay open for others."""
    client = make_client(rate_seat=DEFAULTS.rate_seat)
    host = other_client(client, "192.0.2.1")
    games = []
    for _ in range(10):
        r = host.post("/api/games", json={"seats": OPEN_GAME})
        assert r.status_code == 201, r.text
        games.append(r.json()["id"])
    taken = 0
    last = None
    for gid in games:
        for seat in range(1, 5):
            last = client.post(f"/api/games/{gid}/seats/{seat}/join", json={"name": "Hoarder"})
            if last.status_code != 200:
                break
            taken += 1
        if last is not None and last.status_code != 200:
            break
    assert taken == 30
    assert_rate_limited(last)
    # The seat refused is still open, and someone else may take it.
    someone = other_client(client, "192.0.2.9")
    gid, seat = games[7], 3
    assert client.get(f"/api/games/{gid}").json()["players"][seat]["kind"] == "open"
    assert (
        someone.post(f"/api/games/{gid}/seats/{seat}/join", json={"name": "Cy"}).status_code == 200
    )


def _play(client: TestClient, gid: str, tokens: dict[int, str]) -> Any:
    for seat, token in tokens.items():
        me = client.get(f"/api/games/{gid}", headers=auth(token)).json()
        if me["legal"]:
            return client.post(
                f"/api/games/{gid}/decisions",
                json={"decision": choose(me["legal"]), "expected": me["decision_number"]},
                headers=auth(tokens[seat]),
            )
    raise AssertionError("no seat to move")


@pytest.mark.timeout(60)
def test_decisions_past_the_rate_get_429_by_rest_and_websocket(make_client: AppFactory) -> None:
    client = make_client(rate_decide="5/hour")
    created = create(client)
    gid, tokens = created["id"], tokens_of(created)
    for _ in range(5):
        assert _play(client, gid, tokens).status_code == 200
    before = client.get(f"/api/games/{gid}").json()["decision_number"]
    assert_rate_limited(_play(client, gid, tokens))
    seat = next(
        s
        for s, t in tokens.items()
        if client.get(f"/api/games/{gid}", headers=auth(t)).json()["legal"]
    )
    me = client.get(f"/api/games/{gid}", headers=auth(tokens[seat])).json()
    with game_socket(client, gid, tokens[seat]) as ws:
        assert ws.receive_json()["type"] == "sync"
        ws.send_json(
            {"type": "decision", "decision": choose(me["legal"]), "expected": me["decision_number"]}
        )
        err = ws.receive_json()
        assert err["type"] == "error" and err["status"] == 429, err
        assert err["code"] == "rate_limited" and err["retry_after"] >= 1
    assert client.get(f"/api/games/{gid}").json()["decision_number"] == before


def test_hints_past_the_rate_get_429(make_client: AppFactory) -> None:
    client = make_client(rate_hint="2/hour", hint_budget=0)
    created = create(client, hints=True)
    gid, tokens = created["id"], tokens_of(created)
    mover = next(
        t
        for t in tokens.values()
        if client.get(f"/api/games/{gid}", headers=auth(t)).json()["legal"]
    )
    for _ in range(2):
        r = client.post(f"/api/games/{gid}/hint", headers=auth(mover))
        assert r.status_code == 200, r.text
    assert_rate_limited(client.post(f"/api/games/{gid}/hint", headers=auth(mover)))
    taken = client.get(f"/api/games/{gid}").json()["hints_taken"]
    assert len(taken) == 2


def test_analyses_past_the_rate_get_429_before_any_work(make_client: AppFactory) -> None:
    """Counted per client whatever the request holds: a flood of analysis requests is refused
    at the door, before the record is even read."""
    client = make_client(rate_analysis="2/hour")
    for _ in range(2):
        r = client.post("/api/records/analysis", json={"not": "a record"})
        assert r.status_code in (400, 422), r.text
    assert_rate_limited(client.post("/api/records/analysis", json={"not": "a record"}))
    gid = create(client)["id"]
    assert_rate_limited(client.post(f"/api/games/{gid}/analysis"))
    other = other_client(client, "192.0.2.7")
    assert other.post(f"/api/games/{gid}/analysis").status_code == 409


def test_rate_limits_are_shared_by_the_processes_of_one_world(make_client: AppFactory) -> None:
    """With KERALA_REDIS the counters are in Redis: two processes of one world count together."""
    prefix = f"kerala-test-{secrets.token_hex(4)}"
    one = make_client(redis=REDIS, redis_prefix=prefix, rate_create="3/hour")
    two = make_client(redis=REDIS, redis_prefix=prefix, rate_create="3/hour")
    assert create(one) and create(two) and create(one)
    assert_rate_limited(two.post("/api/games", json={"seats": TWO_HUMANS}))
    assert_rate_limited(one.post("/api/games", json={"seats": TWO_HUMANS}))


def test_the_rate_counters_connections_to_redis_are_closed_when_the_server_stops(
    sqlite_url: str,
) -> None:
    """The counters' connections carry the name ``<prefix>:rate`` (Redis's CLIENT LIST shows
    them) and are closed at shutdown, not left to the process's end."""
    prefix = f"kerala-test-{secrets.token_hex(4)}"
    admin = redis.Redis.from_url(REDIS)

    def named() -> int:
        return sum(1 for c in admin.client_list() if c["name"] == f"{prefix}:rate")

    try:
        settings = Settings(db=sqlite_url, redis=REDIS, redis_prefix=prefix, tune_gc=False)
        with TestClient(create_app(settings)) as client:
            create(client)  # counted in Redis
            assert named() >= 1
        assert named() == 0
    finally:
        admin.close()


@pytest.mark.parametrize("bad", ["lots", "5/fortnight", "1/minute;x"])
def test_a_rate_setting_that_is_no_rate_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a rate"):
        Settings(rate_create=bad)


def test_an_empty_rate_setting_means_no_limit(make_client: AppFactory) -> None:
    client = make_client(rate_create="")
    for _ in range(40):
        create(client)


def test_while_redis_is_away_a_process_counts_alone_and_asks_redis_again_after_5_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis away: the first check fails over to this process's counters, and the next ones
    are counted here without asking Redis again until 5 s have passed (a check counted here
    does not end the wait), so an outage costs one failed Redis request per 5 s."""
    with socket.socket() as s:  # a port where nothing listens: every Redis request fails
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Per hour, as the module says: a second's edge fell between these checks now and then.
    limiter = RateLimiter(Settings(redis=f"redis://127.0.0.1:{port}/0", rate_decide="5/hour"))
    asked: list[tuple[Any, ...]] = []
    assert limiter._shared is not None
    shared_test = limiter._shared.test

    async def counted(*args: Any) -> bool:
        asked.append(args)
        return await shared_test(*args)

    monkeypatch.setattr(limiter._shared, "test", counted)

    async def checks(n: int, client: str) -> None:
        for _ in range(n):
            await limiter.check("decide", client)

    asyncio.run(checks(4, "192.0.2.1"))  # all counted, the first one after asking Redis
    assert len(asked) == 1
    with pytest.raises(RateLimited):  # counted here: the fifth of the hour passes, not a sixth
        asyncio.run(checks(2, "192.0.2.1"))
    assert len(asked) == 1
    assert limiter.breaker.failed_at is not None
    limiter.breaker.failed_at -= 5.1  # as if 5.1 s had passed
    asyncio.run(checks(1, "192.0.2.2"))
    assert len(asked) == 2


def test_a_redis_that_hangs_is_waited_on_for_the_timeout_then_one_request_alone_asks_again() -> (
    None
):
    """A hung Redis costs one bounded wait per pause: the request past the timeout fails over,
    the next ones do without Redis at once, and after the pause one request asks again while
    the others still do without it; its answer ends the outage. An error that is not Redis's
    passes through and changes nothing."""
    breaker = Breaker("test", timeout=0.2, errors=(ConnectionError,))
    asked: list[str] = []

    async def scenario() -> None:
        never, answer = asyncio.Event(), asyncio.Event()

        async def hung() -> int:
            asked.append("hung")
            await never.wait()
            return 0

        async def answers() -> int:
            asked.append("again")
            await answer.wait()
            return 7

        async def not_asked() -> int:
            asked.append("not asked")
            return 0

        async def refused() -> int:
            raise ValueError("not Redis's fault")

        with pytest.raises(ValueError):
            await breaker.call(refused)
        assert breaker.failed_at is None
        with pytest.raises(RedisAway):
            await breaker.call(hung)  # after 0.2 s
        with pytest.raises(RedisAway):
            await breaker.call(not_asked)
        assert breaker.failed_at is not None
        breaker.failed_at -= PAUSE + 0.1  # as if the pause had passed
        again = asyncio.create_task(breaker.call(answers))
        while "again" not in asked:
            await asyncio.sleep(0)
        with pytest.raises(RedisAway):
            await breaker.call(not_asked)  # while one request asks again
        answer.set()
        assert await again == 7
        assert breaker.failed_at is None and not breaker.away()

    asyncio.run(scenario())
    assert asked == ["hung", "again"]
