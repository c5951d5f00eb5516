"""Alembic environment of the Kerala server: runs the migrations online against one URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from kerala.server.store import Base, make_engine

#: The advisory lock that migrations of one database take (any fixed number; "kerala" in hex).
_LOCK = 0x6B6572616C61

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    # `-x url=...` on the command line wins over alembic.ini.
    x = context.get_x_argument(as_dictionary=True)
    return str(x.get("url") or config.get_main_option("sqlalchemy.url"))


def run_migrations_online() -> None:
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection, target_metadata=target_metadata, render_as_batch=True
            )
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":
                    # Replicas started together migrate one after the other: the second
                    # waits here, then finds the schema up to date (the lock ends with the
                    # transaction). Without it both create the tables, and one fails.
                    connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
