"""The store on SQLite and PostgreSQL: migrations, and several server processes on one database."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from serverlib import AppFactory, auth, choose, create, play_chosen, play_to_end, tokens_of

from kerala.notation import read_record
from kerala.server.store import (
    Base,
    Committer,
    OneStatement,
    make_engine,
    migrate,
    safe_url,
    utcnow,
)


def test_migrations_build_exactly_the_models_schema(db_url: str) -> None:
    migrate(db_url)
    migrate(db_url)  # a second run is a no-op
    engine = make_engine(db_url)
    try:
        with engine.connect() as c:
            diff = compare_metadata(MigrationContext.configure(c), Base.metadata)
            version = c.execute(sa.text("select version_num from alembic_version")).scalar_one()
    finally:
        engine.dispose()
    assert diff == []
    assert version == "0009"  # the newest migration


def test_games_stored_before_the_fair_play_settings_get_the_default_rule(db_url: str) -> None:
    """Migration 0005 on existing rows: hints on where at most one seat is (or was) a
    person's, off otherwise; the hand-over bot left to the server's setting."""
    from alembic import command

    from kerala.server.store import alembic_config

    command.upgrade(alembic_config(db_url), "0004")
    engine = make_engine(db_url)
    now = utcnow()
    seat_kinds = {
        "people": [("human", False), ("human", False)],
        "solo": [("human", False), ("bot", False)],
        "handed": [("bot", True), ("human", False)],
    }
    try:
        with engine.begin() as c:
            for gid, kinds in seat_kinds.items():
                c.execute(
                    sa.text(
                        "INSERT INTO games (id, created_at, updated_at, status, tileset, removal,"
                        " hidden_removed, first_drawn, decision_count, event_count,"
                        " turn_started_at) VALUES (:id, :t, :t, 'playing', 'standard', 'random',"
                        " '[]', '[]', 0, 0, :t)"
                    ),
                    {"id": gid, "t": now},
                )
                for i, (kind, handed) in enumerate(kinds):
                    c.execute(
                        sa.text(
                            "INSERT INTO seats (game_id, seat, name, color, kind, handed_to_bot)"
                            " VALUES (:g, :s, 'X', 'blue', :k, :h)"
                        ),
                        {"g": gid, "s": i, "k": kind, "h": handed},
                    )
        migrate(db_url)
        with engine.connect() as c:
            rows = {r[0]: r[1] for r in c.execute(sa.text("SELECT id, hints FROM games"))}
            bots = set(c.execute(sa.text("SELECT handover_bot FROM games")).scalars())
    finally:
        engine.dispose()
    assert {k: bool(v) for k, v in rows.items()} == {
        "people": False,
        "solo": True,
        "handed": False,
    }
    assert bots == {None}


def test_safe_url_hides_the_password() -> None:
    assert safe_url("postgresql+psycopg://u:secret@h/db") == "postgresql+psycopg://u:***@h/db"


def test_a_second_server_continues_any_game(make_client: AppFactory, db_url: str) -> None:
    """No game state lives only in one process: two apps on one database take turns."""
    a = make_client(db=db_url)
    b = make_client(db=db_url)
    g = create(a)
    gid, tok = g["id"], tokens_of(g)
    play_chosen(a, gid, tok, 3)
    assert b.get(f"/api/games/{gid}").json()["decision_number"] == 3
    play_chosen(b, gid, tok, 3)
    game = play_chosen(a, gid, tok, 2)  # A catches up on B's decisions first
    assert game["decision_number"] == 8
    # Both servers see the same game; a stale submission on either is refused.
    assert a.get(f"/api/games/{gid}").json() == b.get(f"/api/games/{gid}").json()
    seat = game["to_move"]
    me = a.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()
    body = {"decision": choose(me["legal"]), "expected": 8}
    first = b.post(f"/api/games/{gid}/decisions", json=body, headers=auth(tok[seat]))
    second = a.post(f"/api/games/{gid}/decisions", json=body, headers=auth(tok[seat]))
    assert first.status_code == 200, first.text
    assert second.status_code == 409 and second.json()["code"] == "stale"
    final = play_to_end(b, gid, tok)
    assert a.get(f"/api/games/{gid}").json()["result"] == final["result"]
    rec = read_record(a.get(f"/api/games/{gid}/record").json())
    assert rec.state.is_over()


def test_a_decision_is_judged_on_the_game_the_database_holds(
    make_client: AppFactory, db_url: str
) -> None:
    """A server whose cached game is behind the database takes the current decision, refuses
    a stale one that its cache alone would have accepted, and stores each decision once."""
    a = make_client(db=db_url)
    b = make_client(db=db_url)
    g = create(a)
    gid, tok = g["id"], tokens_of(g)

    def look(client: TestClient) -> Any:
        seat = client.get(f"/api/games/{gid}").json()["to_move"]
        return client.get(f"/api/games/{gid}", headers=auth(tok[seat])).json()

    def send(client: TestClient, me: Any) -> Any:
        body = {"decision": choose(me["legal"]), "expected": me["decision_number"]}
        return client.post(f"/api/games/{gid}/decisions", json=body, headers=auth(tok[me["seat"]]))

    play_chosen(a, gid, tok, 2)  # A's cache: 2 decisions
    play_chosen(b, gid, tok, 2)  # B moves the game on; A has not looked since
    r = send(a, look(b))  # the current decision (4 seen), sent to A
    assert r.status_code == 200, r.text
    assert r.json()["decision_number"] == 5
    old = look(a)  # A's cache: 5 decisions
    play_chosen(b, gid, tok, 2)
    r = send(a, old)  # legal on A's cache, but two decisions out of date
    assert r.status_code == 409 and r.json()["code"] == "stale", r.text
    events = b.get(f"/api/games/{gid}/events").json()["events"]
    assert [e["decision_number"] for e in events] == [1, 2, 3, 4, 5, 6, 7]
    assert a.get(f"/api/games/{gid}").json() == b.get(f"/api/games/{gid}").json()


def test_group_commit_isolates_a_failing_write(sqlite_url: str) -> None:
    """Writes that wait together are committed together; a failing one fails alone."""
    migrate(sqlite_url)
    engine = make_engine(sqlite_url)
    committer = Committer(engine)
    games = Base.metadata.tables["games"]
    now = utcnow()

    def row(game_id: str) -> dict[str, object]:
        return {
            "id": game_id,
            "created_at": now,
            "updated_at": now,
            "status": "playing",
            "tileset": "standard",
            "removal": "random",
            "hidden_removed": [],
            "first_drawn": [],
            "decision_count": 0,
            "event_count": 0,
            "turn_started_at": now,
        }

    def slow_first(conn: sa.Connection) -> str:
        time.sleep(0.3)  # the others queue up meanwhile and form one batch
        conn.execute(sa.insert(games).values(row("g0")))
        return "g0"

    outcomes: dict[str, object] = {}

    def submit(game_id: str, key: str) -> None:
        def write(conn: sa.Connection) -> str:
            conn.execute(sa.insert(games).values(row(game_id)))
            return game_id

        try:
            outcomes[key] = committer.run(write)
        except sa.exc.IntegrityError as e:
            outcomes[key] = e

    try:
        first = threading.Thread(target=lambda: outcomes.update(g0=committer.run(slow_first)))
        first.start()
        time.sleep(0.1)
        names = [(f"g{i}", f"g{i}") for i in range(1, 11)] + [("g0", "dup")]  # dup collides
        threads = [threading.Thread(target=submit, args=n) for n in names]
        for t in threads:
            t.start()
        for t in [first, *threads]:
            t.join(30)
        with engine.connect() as c:
            stored = set(c.execute(sa.select(games.c.id)).scalars())
    finally:
        committer.close()
        engine.dispose()
    assert stored == {f"g{i}" for i in range(11)}
    assert all(outcomes[f"g{i}"] == f"g{i}" for i in range(11))
    assert isinstance(outcomes["dup"], sa.exc.IntegrityError)


def test_a_connection_lost_while_retrying_one_by_one_reports_each_write_truly(
    pg_url: str,
) -> None:
    """A failing write makes the batch retry one write per transaction; if the connection
    breaks during that retry, the writes committed before the break are reported committed
    (not failed), the others failed, and the writer goes on with a new connection."""
    migrate(pg_url)
    engine = make_engine(pg_url)
    committer = Committer(engine)
    games = Base.metadata.tables["games"]
    now = utcnow()

    def insert(game_id: str) -> Callable[[sa.Connection], str]:
        def write(conn: sa.Connection) -> str:
            conn.execute(
                sa.insert(games).values(
                    id=game_id,
                    created_at=now,
                    updated_at=now,
                    status="playing",
                    tileset="standard",
                    removal="random",
                    hidden_removed=[],
                    first_drawn=[],
                    decision_count=0,
                    event_count=0,
                    turn_started_at=now,
                )
            )
            return game_id

        return write

    def kill(conn: sa.Connection) -> str:  # the server ends this very connection
        conn.exec_driver_sql("SELECT pg_terminate_backend(pg_backend_pid())")
        return "not reached"

    def slow(conn: sa.Connection) -> str:
        time.sleep(0.3)  # the writes below queue up meanwhile and form one batch
        return "slow"

    try:
        committer.run(insert("g0"))
        first = committer.submit(slow)
        time.sleep(0.1)
        # In one transaction the duplicate fails first (before the kill runs), so the batch
        # is retried one by one: g1 and g2 are committed, then the kill breaks the connection.
        jobs = [insert("g1"), insert("g0"), insert("g2"), kill, insert("g3")]
        futures = [committer.submit(fn) for fn in jobs]
        assert first.result(30) == "slow"
        outcomes = [f.exception(30) or f.result() for f in futures]
        after = committer.run(insert("g4"))  # the writer reconnects
        with engine.connect() as c:
            stored = set(c.execute(sa.select(games.c.id)).scalars())
    finally:
        committer.close()
        engine.dispose()
    assert outcomes[0] == "g1" and outcomes[2] == "g2"
    assert isinstance(outcomes[1], sa.exc.IntegrityError)
    assert isinstance(outcomes[3], sa.exc.DBAPIError) and outcomes[3].connection_invalidated
    assert isinstance(outcomes[4], sa.exc.DBAPIError)  # never ran: nothing stored
    assert after == "g4"
    assert stored == {"g0", "g1", "g2", "g4"}


def test_sqlite_durability_levels(sqlite_url: str) -> None:
    """WAL mode; synchronous NORMAL (1) survives a killed server, FULL (2) a power cut too."""
    for level, expected in (("normal", 1), ("full", 2)):
        engine = make_engine(sqlite_url, level)
        try:
            with engine.connect() as c:
                assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
                assert c.exec_driver_sql("PRAGMA synchronous").scalar() == expected
        finally:
            engine.dispose()
    with pytest.raises(ValueError, match="NORMAL or FULL"):
        make_engine(sqlite_url, "off")


def test_a_writer_connection_broken_while_the_other_stays_busy_is_checked_before_its_next_write(
    pg_url: str,
) -> None:
    """The writer's two PostgreSQL connections (transactions, and lone statements in autocommit)
    are each checked before a write when *they* were idle over ``CHECK_IDLE``: lone decisions
    keeping the autocommit one busy must not let a batch meet the other one dead, as after a
    database restart (here its session is ended from outside)."""
    migrate(pg_url)
    engine = make_engine(pg_url)
    committer = Committer(engine)

    def pid(conn: sa.Connection) -> int:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())

    try:
        batch_pid = committer.run(pid)  # a batch: the transaction connection
        with engine.connect() as admin:
            admin.exec_driver_sql(f"SELECT pg_terminate_backend({batch_pid})")
            admin.commit()
        idle_since = time.monotonic()
        # Lone statements go on (the other connection) while the broken one idles past the
        # check's threshold: the wait is the condition itself.
        while time.monotonic() - idle_since < Committer.CHECK_IDLE * 1.5:
            committer.run(OneStatement(pid))
            time.sleep(Committer.CHECK_IDLE / 5)
        assert committer.run(pid) != batch_pid  # a new connection, and no error
        assert committer.health.failing() is None
    finally:
        committer.close()
        engine.dispose()
