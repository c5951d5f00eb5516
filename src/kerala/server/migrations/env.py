"""Alembic environment of the Kerala server: runs the migrations online against one URL."""

from __future__ import annotations

from alembic import context

from kerala.server.store import Base, make_engine

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
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
