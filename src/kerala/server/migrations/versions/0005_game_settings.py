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
    # Plain ADD COLUMN, not a batch: on SQLite a batch may copy the table, and dropping the old
    # games table would cascade to every game's seats and events.
    op.add_column(
        "games", sa.Column("hints", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column("games", sa.Column("handover_bot", sa.String(64), nullable=True))
    # At most one seat is (or was, before a hand-over) a person's or open: hints on.
    op.execute(
        sa.text(
            "UPDATE games SET hints = true WHERE (SELECT count(*) FROM seats"
            " WHERE seats.game_id = games.id"
            " AND (seats.kind <> 'bot' OR seats.handed_to_bot = true)) <= 1"
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("handover_bot")
        batch.drop_column("hints")
