"""Accounts (docs/accounts.md): accounts, their sessions and passkeys, WebAuthn ceremonies
under way, and the seats an account holds.

New tables only: the games, seats and events of guests are untouched.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _account_fk(nullable: bool = False) -> sa.Column[str]:
    return sa.Column(
        "account_id",
        sa.String(32),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=nullable,
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("handle", sa.String(64), nullable=False),
        sa.Column("handle_key", sa.String(64), nullable=False, unique=True),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        _account_fk(),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_index("ix_account_sessions_expires_at", "account_sessions", ["expires_at"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(1400), primary_key=True),
        _account_fk(),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("transports", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_passkeys_account_id", "passkeys", ["account_id"])
    op.create_table(
        "webauthn_challenges",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("challenge", sa.String(128), nullable=False),
        _account_fk(nullable=True),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_webauthn_challenges_expires_at", "webauthn_challenges", ["expires_at"])
    op.create_table(
        "account_seats",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        _account_fk(),
        sa.Column("token", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_account_seats_account_id", "account_seats", ["account_id"])


def downgrade() -> None:
    op.drop_table("account_seats")
    op.drop_table("webauthn_challenges")
    op.drop_table("passkeys")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
