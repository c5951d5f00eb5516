"""Correspondence e-mail (docs/server.md, "E-mail"): an account's address and opt-in, and
what is to be told in its next digest.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_mail",
        sa.Column(
            "account_id",
            sa.String(32),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("notify", sa.Boolean, nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("unsubscribe", sa.String(64), nullable=False, unique=True),
        sa.Column("last_sent_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "mail_notices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.String(32),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("account_id", "game_id", "kind", "turn"),
    )
    op.create_index("ix_mail_notices_account_id", "mail_notices", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_mail_notices_account_id", "mail_notices")
    op.drop_table("mail_notices")
    op.drop_table("account_mail")
