"""Fixtures of the server and security tests: apps on a fresh SQLite file, a fresh PostgreSQL
database. Both folders' conftest.py files import them from here."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serverlib import AppFactory

from kerala.server.app import create_app
from kerala.server.settings import Settings

PG_BASES = (
    os.environ.get("KERALA_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
    "postgresql+psycopg://root@127.0.0.1:5432/test",
)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'kerala.sqlite3'}"


def _admin_engine() -> tuple[sa.Engine, str]:
    last: Exception | None = None
    for base in PG_BASES:
        eng = sa.create_engine(base, isolation_level="AUTOCOMMIT")
        try:
            with eng.connect():
                return eng, base
        except sa.exc.OperationalError as e:
            last = e
            eng.dispose()
    raise RuntimeError(f"no PostgreSQL server at 127.0.0.1:5432 answers: {last}")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, uniquely named PostgreSQL database, dropped afterwards."""
    admin, base = _admin_engine()
    name = f"kerala_test_{secrets.token_hex(6)}"
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Both databases, one after the other."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
def make_client(sqlite_url: str) -> Iterator[AppFactory]:
    """Build test clients (lifespan run) with settings overrides; all closed at the end."""
    clients: list[TestClient] = []

    def factory(**overrides: Any) -> TestClient:
        opts: dict[str, Any] = {
            "db": sqlite_url,
            "bot_executor": "thread",
            "bot_workers": 1,
            "bot_delay": 0.0,
            "hint_budget": 0.2,  # a short search keeps the tests fast
            "tune_gc": False,  # many apps share this process; test_gc_is_tuned runs its own
        }
        opts.update(overrides)
        client = TestClient(create_app(Settings(**opts)))
        client.__enter__()
        clients.append(client)
        return client

    yield factory
    for c in reversed(clients):
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client()
