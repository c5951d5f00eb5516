"""Clocks: each game's time control and seconds left, the running clock's start and deadline,
and the game world's sign of life (to pause clocks while no server runs).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock", sa.JSON, nullable=True))
        batch.add_column(sa.Column("clock_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("clock_deadline", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_games_clock_deadline", ["clock_deadline"])
    op.create_table(
        "world",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("alive_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopped", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("world")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_clock_deadline")
        batch.drop_column("clock_deadline")
        batch.drop_column("clock_since")
        batch.drop_column("clock")
