"""Each seat's final rank (SC7), so that finished games can be listed by who won.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("rank", sa.Integer, nullable=True))
    op.create_index("ix_games_created_at", "games", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_games_created_at", "games")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("rank")
