"""The queries of accounts, and nothing else: accounts, sessions, passkeys, WebAuthn
challenges, and the seats an account holds (docs/accounts.md). No rules, no HTTP, no hashing.

Writes here are rare (a sign-up, a sign-in, a claimed seat) and go straight to the database in
their own transaction, not through the games' group committer.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from kerala.server.domain import Seat
from kerala.server.repository import GameInfo, aware
from kerala.server.store import (
    AccountMailRow,
    AccountRow,
    AccountSeatRow,
    AccountSessionRow,
    ChallengeRow,
    EventRow,
    GameRow,
    MailNoticeRow,
    PasskeyRow,
    RatingHistoryRow,
    RatingRow,
    SeatRow,
)

_ACCOUNTS = cast(sa.Table, AccountRow.__table__)
_SESSIONS = cast(sa.Table, AccountSessionRow.__table__)
_PASSKEYS = cast(sa.Table, PasskeyRow.__table__)
_CHALLENGES = cast(sa.Table, ChallengeRow.__table__)
_HELD = cast(sa.Table, AccountSeatRow.__table__)
_GAMES = cast(sa.Table, GameRow.__table__)
_SEATS = cast(sa.Table, SeatRow.__table__)
_EVENTS = cast(sa.Table, EventRow.__table__)
_RATINGS = cast(sa.Table, RatingRow.__table__)
_HISTORY = cast(sa.Table, RatingHistoryRow.__table__)
_MAIL = cast(sa.Table, AccountMailRow.__table__)
_NOTICES = cast(sa.Table, MailNoticeRow.__table__)


@dataclass(frozen=True)
class Account:
    """An ``accounts`` row."""

    id: str
    handle: str
    handle_key: str
    display_name: str
    password_hash: str | None
    created_at: dt.datetime

    @classmethod
    def of(cls, r: Any) -> Account:
        return cls(
            r.id, r.handle, r.handle_key, r.display_name, r.password_hash, aware(r.created_at)
        )


@dataclass(frozen=True)
class Passkey:
    """A ``passkeys`` row."""

    id: str
    account_id: str
    public_key: bytes
    sign_count: int
    transports: list[str]
    created_at: dt.datetime
    last_used_at: dt.datetime | None

    @classmethod
    def of(cls, r: Any) -> Passkey:
        return cls(
            r.id,
            r.account_id,
            bytes(r.public_key),
            r.sign_count,
            list(r.transports),
            aware(r.created_at),
            None if r.last_used_at is None else aware(r.last_used_at),
        )


@dataclass(frozen=True)
class Challenge:
    """A ``webauthn_challenges`` row (:meth:`AccountRepository.take_challenge` deletes it)."""

    id: str
    kind: str
    challenge: str
    account_id: str | None
    data: dict[str, Any]
    expires_at: dt.datetime


@dataclass(frozen=True)
class HeldGame:
    """A game with a seat held by an account: the game, its seats (no token hashes), and the
    seats the account holds."""

    game: GameInfo
    seats: list[Seat]
    held: list[int]


class AccountRepository:
    """Reads and writes of accounts and what belongs to them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- accounts ----------------------------------------------------------------------

    def insert_account(self, account: Account) -> bool:
        """Store a new account; ``False`` if its handle is taken (nothing stored)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.insert(_ACCOUNTS).values(
                        id=account.id,
                        handle=account.handle,
                        handle_key=account.handle_key,
                        display_name=account.display_name,
                        password_hash=account.password_hash,
                        created_at=account.created_at,
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def account(self, account_id: str) -> Account | None:
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id)).first()
        return None if r is None else Account.of(r)

    def account_by_key(self, handle_key: str) -> Account | None:
        with self.engine.connect() as conn:
            r = conn.execute(
                sa.select(_ACCOUNTS).where(_ACCOUNTS.c.handle_key == handle_key)
            ).first()
        return None if r is None else Account.of(r)

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == account_id)
                .values(password_hash=password_hash)
            )

    def delete_account(self, account_id: str, deleted_name: str) -> list[str]:
        """Delete the account and all that is only its own (sessions, passkeys, held seats);
        its seats in games stay, their names (and the names in the games' join events)
        replaced by ``deleted_name``. Returns the ids of the games renamed."""
        with self.engine.begin() as conn:
            held = conn.execute(
                sa.select(_HELD.c.game_id, _HELD.c.seat).where(_HELD.c.account_id == account_id)
            ).all()
            for game_id, seat in held:
                conn.execute(
                    sa.update(_SEATS)
                    .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                    .values(name=deleted_name)
                )
                for number, data in conn.execute(
                    sa.select(_EVENTS.c.number, _EVENTS.c.data).where(
                        _EVENTS.c.game_id == game_id, _EVENTS.c.kind == "join"
                    )
                ).all():
                    if data.get("seat") == seat and "name" in data:
                        conn.execute(
                            sa.update(_EVENTS)
                            .where(_EVENTS.c.game_id == game_id, _EVENTS.c.number == number)
                            .values(data={**data, "name": deleted_name})
                        )
            # Not left to ON DELETE CASCADE: SQLite enforces it only with foreign_keys on.
            for table in (
                _HELD, _SESSIONS, _PASSKEYS, _CHALLENGES, _HISTORY, _RATINGS, _NOTICES, _MAIL,
            ):  # fmt: skip
                conn.execute(sa.delete(table).where(table.c.account_id == account_id))
            conn.execute(sa.delete(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id))
        return sorted({g for g, _ in held})

    # -- sessions ----------------------------------------------------------------------

    def insert_session(
        self,
        id_hash: str,
        account_id: str,
        csrf: str,
        now: dt.datetime,
        expires_at: dt.datetime,
        *,
        replaces: str | None = None,
    ) -> None:
        """Store a session (and delete the one it ``replaces``, the browser's previous one)."""
        with self.engine.begin() as conn:
            if replaces is not None:
                conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.id_hash == replaces))
            conn.execute(
                sa.insert(_SESSIONS).values(
                    id_hash=id_hash,
                    account_id=account_id,
                    csrf=csrf,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

    def session(self, id_hash: str, now: dt.datetime) -> tuple[Account, str] | None:
        """The account of an unexpired session and the session's CSRF token."""
        with self.engine.connect() as conn:
            r = conn.execute(
                sa.select(_ACCOUNTS, _SESSIONS.c.csrf)
                .join(_SESSIONS, _SESSIONS.c.account_id == _ACCOUNTS.c.id)
                .where(_SESSIONS.c.id_hash == id_hash, _SESSIONS.c.expires_at > now)
            ).first()
        return None if r is None else (Account.of(r), r.csrf)

    def delete_session(self, id_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.id_hash == id_hash))

    def delete_sessions(self, account_id: str) -> int:
        """Sign the account out everywhere; how many sessions ended."""
        with self.engine.begin() as conn:
            done = conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.account_id == account_id))
        return int(done.rowcount)

    def purge(self, now: dt.datetime) -> None:
        """Forget expired sessions and challenges."""
        with self.engine.begin() as conn:
            conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.expires_at <= now))
            conn.execute(sa.delete(_CHALLENGES).where(_CHALLENGES.c.expires_at <= now))

    # -- passkeys and their ceremonies ---------------------------------------------------

    def insert_challenge(self, c: Challenge) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sa.insert(_CHALLENGES).values(
                    id=c.id,
                    kind=c.kind,
                    challenge=c.challenge,
                    account_id=c.account_id,
                    data=c.data,
                    expires_at=c.expires_at,
                )
            )

    def take_challenge(self, challenge_id: str, kind: str, now: dt.datetime) -> Challenge | None:
        """The unexpired challenge of ``kind``, deleted as it is read: of two requests that
        bring the same one, only one gets it (the conditional ``DELETE``)."""
        with self.engine.begin() as conn:
            r = conn.execute(sa.select(_CHALLENGES).where(_CHALLENGES.c.id == challenge_id)).first()
            if r is None:
                return None
            done = conn.execute(sa.delete(_CHALLENGES).where(_CHALLENGES.c.id == challenge_id))
            if done.rowcount != 1 or r.kind != kind or aware(r.expires_at) <= now:
                return None
        return Challenge(r.id, r.kind, r.challenge, r.account_id, dict(r.data), aware(r.expires_at))

    def insert_passkey(self, p: Passkey) -> bool:
        """Store a passkey; ``False`` if its credential id is known already."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.insert(_PASSKEYS).values(
                        id=p.id,
                        account_id=p.account_id,
                        public_key=p.public_key,
                        sign_count=p.sign_count,
                        transports=p.transports,
                        created_at=p.created_at,
                        last_used_at=p.last_used_at,
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def passkey(self, credential_id: str) -> Passkey | None:
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(_PASSKEYS).where(_PASSKEYS.c.id == credential_id)).first()
        return None if r is None else Passkey.of(r)

    def passkeys_of(self, account_id: str) -> list[Passkey]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(_PASSKEYS)
                .where(_PASSKEYS.c.account_id == account_id)
                .order_by(_PASSKEYS.c.created_at)
            ).all()
        return [Passkey.of(r) for r in rows]

    def passkey_used(
        self, credential_id: str, seen: int, sign_count: int, now: dt.datetime
    ) -> bool:
        """Note a sign-in with the passkey: its new signature count, if it was still ``seen``
        (two sign-ins racing with one count: one of them fails)."""
        with self.engine.begin() as conn:
            done = conn.execute(
                sa.update(_PASSKEYS)
                .where(_PASSKEYS.c.id == credential_id, _PASSKEYS.c.sign_count == seen)
                .values(sign_count=sign_count, last_used_at=now)
            )
        return bool(done.rowcount == 1)

    # -- seats held ------------------------------------------------------------------

    def hold_seat(
        self, account_id: str, game_id: str, seat: int, token: str, now: dt.datetime
    ) -> str:
        """Let the account hold the seat unless another does; the account that holds it."""
        with self.engine.begin() as conn:
            owner = conn.execute(
                sa.select(_HELD.c.account_id).where(
                    _HELD.c.game_id == game_id, _HELD.c.seat == seat
                )
            ).scalar()
            if owner is not None:
                return str(owner)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.insert(_HELD).values(
                        game_id=game_id,
                        seat=seat,
                        account_id=account_id,
                        token=token,
                        created_at=now,
                    )
                )
        except sa.exc.IntegrityError:  # another claim came first
            return self.hold_seat(account_id, game_id, seat, token, now)
        return account_id

    def held_seats(self, account_id: str, game_id: str) -> list[tuple[int, str]]:
        """The seats (and their tokens) the account holds in the game."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(_HELD.c.seat, _HELD.c.token)
                .where(_HELD.c.account_id == account_id, _HELD.c.game_id == game_id)
                .order_by(_HELD.c.seat)
            ).all()
        return [(r.seat, r.token) for r in rows]

    def seat_holders(self, game_id: str) -> dict[int, str]:
        """Which account holds each held seat of the game: seat -> account id."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(_HELD.c.seat, _HELD.c.account_id).where(_HELD.c.game_id == game_id)
            ).all()
        return {r.seat: r.account_id for r in rows}

    def held_games(self, account_id: str, limit: int) -> list[HeldGame]:
        """The games where the account holds a seat, most recently moved first."""
        with self.engine.connect() as conn:
            held: dict[str, list[int]] = {}
            for game_id, seat in conn.execute(
                sa.select(_HELD.c.game_id, _HELD.c.seat)
                .join(_GAMES, _GAMES.c.id == _HELD.c.game_id)
                .where(_HELD.c.account_id == account_id)
                .order_by(_GAMES.c.updated_at.desc(), _HELD.c.seat)
            ):
                if game_id not in held and len(held) >= limit:
                    break
                held.setdefault(game_id, []).append(seat)
            if not held:
                return []
            games = {
                r.id: GameInfo.of(cast(GameRow, r))
                for r in conn.execute(sa.select(_GAMES).where(_GAMES.c.id.in_(list(held))))
            }
            seats: dict[str, list[Seat]] = {g: [] for g in held}
            for s in conn.execute(
                sa.select(_SEATS)
                .where(_SEATS.c.game_id.in_(list(held)))
                .order_by(_SEATS.c.game_id, _SEATS.c.seat)
            ):
                seats[s.game_id].append(
                    Seat(s.seat, s.name, s.color, s.kind, s.bot, s.handed_to_bot, None)
                )
        return [HeldGame(games[g], seats[g], held[g]) for g in held if g in games]
