"""Fixtures of the server tests (serverfixtures.py, shared with tests/security)."""

from serverfixtures import client, db_url, make_client, pg_url, sqlite_url

__all__ = ["client", "db_url", "make_client", "pg_url", "sqlite_url"]
