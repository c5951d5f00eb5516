"""Fixtures of the security tests: the server tests' own (serverfixtures.py)."""

from serverfixtures import client, db_url, make_client, pg_url, sqlite_url

__all__ = ["client", "db_url", "make_client", "pg_url", "sqlite_url"]
