"""Game settings chosen at creation: whether hints are allowed, and the bot level that takes a
seat handed over (docs/server.md, "Fair play").

Games stored before get the rule of new games: hints on when at most one seat is (or was) a
person's, off otherwise; and the server's default hand-over level (``NULL``: the level of
``KERALA_HANDOVER_BOT`` when a seat is handed over).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("hints", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("handover_bot", sa.String(64), nullable=True))
    games = sa.table("games", sa.column("id", sa.String), sa.column("hints", sa.Boolean))
    seats = sa.table(
        "seats",
        sa.column("game_id", sa.String),
        sa.column("kind", sa.String),
        sa.column("handed_to_bot", sa.Boolean),
    )
    people = (
        sa.select(sa.func.count())
        .select_from(seats)
        .where(
            seats.c.game_id == games.c.id,
            sa.or_(seats.c.kind != "bot", seats.c.handed_to_bot.is_(True)),
        )
        .scalar_subquery()
    )
    op.execute(sa.update(games).where(people <= 1).values(hints=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("handover_bot")
        batch.drop_column("hints")
