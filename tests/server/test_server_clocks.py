"""Issue 11.3, clocks and absent players: time controls, timeouts played by a bot, taking the
seat back, restarts never charged, one timeout over two processes.

In-process tests move the service's injectable time source (``service.now``) instead of
sleeping; the process tests use tiny controls and real ``kerala serve`` processes."""

from __future__ import annotations

import datetime as dt
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from serverlib import TWO_HUMANS as HUMANS
from serverlib import AppFactory, FakeTime, auth, create, play_chosen, tokens_of, wait_for_events
from serverproc import Server

from kerala.actions import decision_from_json
from kerala.clocks import COMEBACK, Clock, TimeControl
from kerala.notation import read_record
from kerala.server.decisions import DecisionService
from kerala.server.domain import NotYourTurn

REDIS = "redis://127.0.0.1:6379/0"


def left(clock: dict[str, Any], seat: int, now: dt.datetime) -> float:
    """What a client shows: the seat's time at ``now`` (server time)."""
    t = float(clock["remaining"][seat])
    if clock["running"] == seat:
        t -= (now - dt.datetime.fromisoformat(clock["since"])).total_seconds()
    return max(0.0, t)


def timeout_events(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in evs if e["kind"] == "seat" and e.get("timeout")]


# -- the clock arithmetic (pure) ----------------------------------------------------------


def test_realtime_charges_the_mover_and_adds_the_increment() -> None:
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    c = Clock.start(TimeControl("realtime", minutes=1, increment=5), 3, 0, t0)
    assert c.deadline(0) == t0 + dt.timedelta(seconds=60)
    assert c.advance(0, 1, t0 + dt.timedelta(seconds=20), decided=True) == 20.0
    assert c.remaining == [45.0, 60.0, 60.0]
    assert c.left(1, 1, t0 + dt.timedelta(seconds=30)) == 50.0
    c.shifted(dt.timedelta(seconds=100))  # a restart: the running clock moves on
    assert c.left(1, 1, t0 + dt.timedelta(seconds=130)) == 50.0


def test_correspondence_gives_each_decision_its_hours() -> None:
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    c = Clock.start(TimeControl("correspondence", hours=2), 2, 0, t0)
    c.advance(0, 1, t0 + dt.timedelta(hours=1), decided=True)
    c.advance(1, 0, t0 + dt.timedelta(hours=2), decided=True)
    assert c.remaining[0] == 7200.0  # a fresh allowance for the new turn
    assert c.deadline(0) == t0 + dt.timedelta(hours=4)


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"kind": "blitz"}, "clock.kind"),
        ({"kind": "realtime"}, "clock.minutes is missing"),
        ({"kind": "realtime", "minutes": 0}, "clock.minutes"),
        ({"kind": "realtime", "minutes": "5"}, "clock.minutes"),
        ({"kind": "realtime", "minutes": 5, "increment": -1}, "clock.increment"),
        ({"kind": "realtime", "minutes": 1e9}, "clock.minutes"),
        ({"kind": "correspondence", "hours": True}, "clock.hours"),
        ({"kind": "correspondence", "hours": 24, "minutes": 3}, "minutes"),
        ({"kind": "realtime", "minutes": 5, "bot": "grandmaster"}, "grandmaster"),
    ],
)
def test_bad_time_controls_are_refused_and_nothing_is_stored(
    client: TestClient, clock: dict[str, Any], field: str
) -> None:
    r = client.post("/api/games", json={"seats": HUMANS, "clock": clock})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert field in detail and "\n" not in detail
    assert client.get("/api/games").json()["games"] == []


# -- in process, time moved by the test -------------------------------------------------


@pytest.fixture
def timed(make_client: AppFactory, db_url: str) -> Iterator[tuple[TestClient, FakeTime]]:
    c = make_client(db=db_url, clock_tick=0.05)
    fake = FakeTime()
    c.app.state.service.now = fake  # type: ignore[attr-defined]
    yield c, fake


def test_snapshot_shows_every_seat_time_and_who_runs(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    created = create(
        client, HUMANS, clock={"kind": "realtime", "minutes": 10, "increment": 5, "bot": "random"}
    )
    clock = created["game"]["clock"]
    assert clock["kind"] == "realtime" and clock["minutes"] == 10 and clock["increment"] == 5
    assert clock["remaining"] == [600.0, 600.0]
    assert clock["running"] == 0 and clock["since"] == fake.t.isoformat()
    assert client.get("/api/time").json()["now"] == fake.t.isoformat()
    fake.move(42)
    g = client.get(f"/api/games/{created['id']}").json()
    assert left(g["clock"], 0, fake.t) == pytest.approx(558.0)
    assert left(g["clock"], 1, fake.t) == 600.0
    # A game without a time control has none.
    assert create(client, HUMANS)["game"]["clock"] is None


def test_timeout_bot_plays_take_back_with_token(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    created = create(client, HUMANS, clock={"kind": "realtime", "minutes": 5, "bot": "random"})
    gid, tokens = created["id"], tokens_of(created)
    fake.move(299)
    time.sleep(0.3)  # several ticks: not out of time yet
    assert timeout_events(client.get(f"/api/games/{gid}/events").json()["events"]) == []
    fake.move(2)
    evs = wait_for_events(client, gid, lambda es: any(e["kind"] == "decision" for e in es))
    (out,) = timeout_events(evs)
    assert out["seat"] == 0 and out["bot"] == "random" and out["by"] is None
    first = next(e for e in evs if e["kind"] == "decision")
    assert first["seat"] == 0 and first["bot"] is True and first["number"] > out["number"]
    g = client.get(f"/api/games/{gid}").json()
    assert g["players"][0]["kind"] == "bot" and g["players"][0]["handed_to_bot"]
    assert g["clock"]["remaining"][0] == 0.0
    # The record says so: the clock settings and the timeout.
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["clock"]["kind"] == "realtime" and record["clock"]["minutes"] == 5
    assert {"at": 0, "seat": 0, "kind": "timeout", "bot": "random"} in record["clock"]["events"]
    read_record(record)
    # Only the seat's own token takes it back.
    r = client.post(f"/api/games/{gid}/seats/0/back", headers=auth(tokens[1]))
    assert r.status_code == 403, r.text
    r = client.post(f"/api/games/{gid}/seats/0/back", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    back = r.json()
    assert back["players"][0]["kind"] == "human" and back["players"][0]["bot"] is None
    assert back["clock"]["remaining"][0] == COMEBACK
    evs = client.get(f"/api/games/{gid}/events").json()["events"]
    assert evs[-1]["kind"] == "seat" and evs[-1]["back"] is True
    r = client.post(f"/api/games/{gid}/seats/0/back", headers=auth(tokens[0]))
    assert r.status_code == 409  # nothing to take back twice


def test_a_seat_with_time_left_is_not_timed_out(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    created = create(client, HUMANS, clock={"kind": "correspondence", "hours": 1})
    gid = created["id"]
    fake.move(3599)
    time.sleep(0.3)
    g = client.get(f"/api/games/{gid}").json()
    assert g["players"][0]["kind"] == "human"
    assert left(g["clock"], 0, fake.t) == pytest.approx(1.0)


def test_each_decision_charges_and_the_record_keeps_times(
    timed: tuple[TestClient, FakeTime],
) -> None:
    """Every decision charges its seat (plus the increment) and starts the next seat's clock;
    the finished game's record carries the control and each turn's seconds; a rematch keeps
    the control with full clocks."""
    client, fake = timed
    created = create(client, HUMANS, clock={"kind": "realtime", "minutes": 30, "increment": 1})
    gid, tokens = created["id"], tokens_of(created)
    g = client.get(f"/api/games/{gid}").json()
    seat = g["to_move"]
    fake.move(7)
    g = play_chosen(client, gid, tokens, 1)
    assert g["clock"]["remaining"][seat] == pytest.approx(1800 - 7 + 1)
    assert g["clock"]["running"] == g["to_move"] and g["clock"]["since"] == fake.t.isoformat()
    evs = client.get(f"/api/games/{gid}/events").json()["events"]
    assert evs[-1]["time"] == pytest.approx(7.0)
    while g["status"] != "over":
        fake.move(0.5)
        g = play_chosen(client, gid, tokens, 1)
    assert g["clock"]["running"] is None and g["clock"]["deadline"] is None
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["clock"] == {
        "kind": "realtime",
        "minutes": 30.0,
        "increment": 1.0,
        "bot": "easy",
        "events": [],
    }
    turns = [t for rd in record["rounds"] for t in rd["turns"]]
    assert turns[0]["time"] == pytest.approx(7.0)
    assert all(t["time"] >= 0.5 for t in turns[1:])
    rec = read_record(record)
    assert rec.extra["times"] == [t["time"] for t in turns]
    again = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])).json()
    new = client.get(f"/api/games/{again['id']}").json()
    assert new["clock"]["minutes"] == 30 and new["clock"]["remaining"] == [1800.0, 1800.0]
    assert new["clock"]["running"] == new["to_move"]


def test_open_game_clock_starts_with_the_game(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    created = create(
        client,
        [{"name": "Ada", "color": "blue"}, {"color": "red", "kind": "open"}],
        clock={"kind": "correspondence", "hours": 2},
    )
    gid = created["id"]
    assert created["game"]["clock"]["running"] is None  # nobody plays before the start
    fake.move(10_000)  # longer than a decision may take: no clock ran
    time.sleep(0.2)
    r = client.post(f"/api/games/{gid}/seats/1/join", json={"name": "Zoe"})
    assert r.status_code == 200, r.text
    g = client.get(f"/api/games/{gid}").json()
    assert g["status"] == "playing" and g["players"][0]["kind"] == "human"
    assert g["clock"]["running"] == g["to_move"] and g["clock"]["since"] == fake.t.isoformat()
    assert left(g["clock"], g["to_move"], fake.t) == 7200.0


def test_handing_over_keeps_the_time_left_and_a_late_bot_is_refused(
    timed: tuple[TestClient, FakeTime],
) -> None:
    client, fake = timed
    created = create(
        client, HUMANS, clock={"kind": "realtime", "minutes": 10}, handover_bot="random"
    )
    gid, tokens = created["id"], tokens_of(created)
    fake.move(30)
    r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    g = wait_for_events(client, gid, lambda es: any(e["kind"] == "decision" for e in es))
    game = client.get(f"/api/games/{gid}").json()
    assert game["clock"]["remaining"][0] == pytest.approx(570.0)  # charged until handed over
    # Taken back while the other seat moves: a bot's decision for the seat is refused now.
    back = client.post(f"/api/games/{gid}/seats/0/back", headers=auth(tokens[0])).json()
    assert back["clock"]["remaining"][0] == pytest.approx(570.0)  # the time left, no more
    # Every seat is a person's again: a bot's decision that was under way is refused.
    decisions = DecisionService(client.app.state.service)  # type: ignore[attr-defined]
    mover = back["to_move"]
    legal = client.get(f"/api/games/{gid}", headers=auth(tokens[mover])).json()["legal"]
    with pytest.raises(NotYourTurn):
        decisions.submit(
            gid, mover, decision_from_json(legal[0]), back["decision_number"], by_bot=True
        )
    assert g


# -- real server processes ------------------------------------------------------------------


def _post(http: httpx.Client, path: str, **kw: Any) -> Any:
    r = http.post(path, **kw)
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_process_timeout_bot_marked_take_back(db_url: str, tmp_path: Path) -> None:
    """A tiny control (1.2 s): the bot takes over and its turn is marked; the token takes the
    seat back. Against ``kerala serve`` on SQLite and PostgreSQL."""
    srv = Server(db_url, tmp_path / "s.log", KERALA_CLOCK_TICK="0.1", KERALA_BOT_DELAY="0.2")
    try:
        created = _post(
            srv.http,
            "/api/games",
            json={
                "seats": HUMANS,
                "clock": {"kind": "realtime", "minutes": 0.02, "bot": "random"},
            },
        )
        gid, tokens = created["id"], tokens_of(created)
        evs = wait_for_events(srv.http, gid, lambda es: any(e.get("bot") is True for e in es))
        assert timeout_events(evs)[0]["seat"] == 0
        assert next(e for e in evs if e["kind"] == "decision")["bot"] is True
        back = _post(srv.http, f"/api/games/{gid}/seats/0/back", headers=auth(tokens[0]))
        assert back["players"][0]["kind"] == "human"
    finally:
        srv.stop()


def test_restart_is_not_charged(db_url: str, tmp_path: Path) -> None:
    """The seat to move is not charged for the time no server ran: a clean stop and a
    ``kill -9`` with seconds between stop and start."""
    log = tmp_path / "s.log"
    srv = Server(db_url, log, KERALA_CLOCK_TICK="0.1")
    try:
        created = _post(
            srv.http,
            "/api/games",
            json={"seats": HUMANS, "clock": {"kind": "realtime", "minutes": 1}},
        )
        gid = created["id"]
        for stop in ("stop", "kill9"):
            before = srv.http.get(f"/api/games/{gid}").json()["clock"]
            t_before = dt.datetime.now(dt.UTC)
            getattr(srv, stop)()
            time.sleep(2.5)
            srv = Server(db_url, log, KERALA_CLOCK_TICK="0.1")
            after = srv.http.get(f"/api/games/{gid}").json()["clock"]
            t_after = dt.datetime.now(dt.UTC)
            charged = left(before, 0, t_before) - left(after, 0, t_after)
            # Without the pause the seat would lose >= 2.5 s; what it loses is the time the
            # server ran (start-up, and the last tick before the kill), well under that.
            assert charged < 1.5, (stop, charged)
            assert after["running"] == 0 and after["remaining"] == before["remaining"]
    finally:
        srv.stop()


@pytest.fixture
def prefix() -> Iterator[str]:
    p = f"kerala_test_{secrets.token_hex(6)}"
    yield p
    r = redis.Redis.from_url(REDIS)
    for key in r.scan_iter(f"{p}:*"):
        r.delete(key)
    r.close()


def test_two_processes_time_out_once(pg_url: str, prefix: str, tmp_path: Path) -> None:
    env = {"KERALA_REDIS_PREFIX": prefix, "KERALA_CLOCK_TICK": "0.05", "KERALA_BOT_DELAY": "0.3"}
    servers = [Server(pg_url, tmp_path / f"s{i}.log", "--redis", REDIS, **env) for i in range(2)]
    try:
        gids = [
            _post(
                servers[i % 2].http,
                "/api/games",
                json={"seats": HUMANS, "clock": {"kind": "realtime", "minutes": 0.01}},
            )["id"]
            for i in range(4)
        ]
        for gid in gids:
            evs = wait_for_events(servers[0].http, gid, lambda es: len(timeout_events(es)) >= 2)
            time.sleep(0.3)  # a second timeout of the same seat would have come by now
            evs = servers[1].http.get(f"/api/games/{gid}/events").json()["events"]
            seats = [e["seat"] for e in timeout_events(evs)]
            assert sorted(seats) == [0, 1], evs  # each seat timed out exactly once
    finally:
        for s in servers:
            s.stop()


def test_processes_starting_together_on_a_new_world_all_start(pg_url: str) -> None:
    """On an empty database the world's sign-of-life row is made by one of the processes that
    start together; the others' attempt is not an error (it used to stop their start)."""
    import threading

    from kerala.server.repository import GameRepository
    from kerala.server.store import make_engine, migrate

    migrate(pg_url)
    repos = [GameRepository(make_engine(pg_url)) for _ in range(8)]
    go = threading.Barrier(len(repos))
    errors: list[BaseException] = []
    now = dt.datetime.now(dt.UTC)

    def start(repo: GameRepository) -> None:
        go.wait()
        try:
            repo.resume_world(now, dt.timedelta(seconds=10))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=start, args=(r,)) for r in repos]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for r in repos:
        r.engine.dispose()
    assert errors == []
