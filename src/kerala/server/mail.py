"""Correspondence e-mail (docs/server.md, "E-mail"): one digest per player, for accounts that
opted in, through the SMTP server of ``KERALA_SMTP_URL``; nothing at all without it.

Every ``KERALA_MAIL_CHECK`` seconds a process *notices* what an opted-in account should hear
of in its correspondence games (a game with days-per-move clocks): that it is their turn (one
notice per turn), and that a game ended. A notice is a row whose unique key (account, game,
kind, turn) makes it noticed once, whichever process sees it first. Then, for each account with
notices not sent and no digest in the last ``KERALA_MAIL_DIGEST`` seconds, a process *claims*
them (an update that only one process wins), writes one message listing them, and sends it;
should sending fail, the claim is undone and the next round tries again. Each message carries
an unsubscribe link (and a ``List-Unsubscribe`` header) that turns the e-mail off in one click.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.policy
import logging
import secrets
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Final, cast
from urllib.parse import unquote, urlsplit

import anyio.to_thread
import sqlalchemy as sa
from sqlalchemy import Engine

from kerala.server.background import stop_task
from kerala.server.repository import aware
from kerala.server.store import (
    AccountMailRow,
    AccountRow,
    AccountSeatRow,
    GameRow,
    MailNoticeRow,
    utcnow,
)

log = logging.getLogger("kerala.server")

_MAIL = cast(sa.Table, AccountMailRow.__table__)
_NOTICES = cast(sa.Table, MailNoticeRow.__table__)
_ACCOUNTS = cast(sa.Table, AccountRow.__table__)
_HELD = cast(sa.Table, AccountSeatRow.__table__)
_GAMES = cast(sa.Table, GameRow.__table__)


class SmtpUrlError(ValueError):
    """A ``KERALA_SMTP_URL`` that cannot be used."""


@dataclass(frozen=True)
class Smtp:
    """Where and how to send: ``smtp://[user:password@]host[:port]`` (STARTTLS when offered)
    or ``smtps://…`` (TLS from the start)."""

    host: str
    port: int
    tls: bool
    user: str | None
    password: str | None

    @classmethod
    def parse(cls, url: str) -> Smtp:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps"):
            raise SmtpUrlError("an SMTP URL starts with smtp:// or smtps://")
        if not parts.hostname:
            raise SmtpUrlError("an SMTP URL names a host: smtp://host:port")
        try:
            port = parts.port
        except ValueError:
            raise SmtpUrlError("the SMTP URL's port must be a number from 1 to 65535") from None
        tls = parts.scheme == "smtps"
        return cls(
            parts.hostname,
            port or (465 if tls else 25),
            tls,
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
        )


class MailRepository:
    """The addresses, opt-ins and notices."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def settings_of(self, account_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(_MAIL).where(_MAIL.c.account_id == account_id)).first()
        return None if r is None else {"email": r.email, "notify": bool(r.notify)}

    def set_mail(self, account_id: str, email: str, notify: bool, now: dt.datetime) -> None:
        with self.engine.begin() as conn:
            old = conn.execute(sa.select(_MAIL).where(_MAIL.c.account_id == account_id)).first()
            if old is None:
                conn.execute(
                    sa.insert(_MAIL).values(
                        account_id=account_id,
                        email=email,
                        notify=notify,
                        since=now,
                        unsubscribe=secrets.token_urlsafe(24),
                    )
                )
            else:
                since = now if notify and not old.notify else old.since
                conn.execute(
                    sa.update(_MAIL)
                    .where(_MAIL.c.account_id == account_id)
                    .values(email=email, notify=notify, since=since)
                )

    def unsubscribe(self, token: str) -> bool:
        with self.engine.begin() as conn:
            n = conn.execute(
                sa.update(_MAIL).where(_MAIL.c.unsubscribe == token).values(notify=False)
            ).rowcount
        return bool(n)

    def notice(self, now: dt.datetime) -> int:
        """Note what opted-in accounts should hear of; how many new notices."""
        q = (
            sa.select(
                _GAMES.c.id,
                _GAMES.c.status,
                _GAMES.c.to_move,
                _GAMES.c.decision_count,
                _GAMES.c.clock,
                _GAMES.c.clock_deadline,
                _GAMES.c.updated_at,
                _HELD.c.seat,
                _HELD.c.account_id,
                _MAIL.c.since,
            )
            .join(_HELD, _HELD.c.game_id == _GAMES.c.id)
            .join(_MAIL, _MAIL.c.account_id == _HELD.c.account_id)
            .where(
                _MAIL.c.notify.is_(True),
                _GAMES.c.clock.is_not(None),
                _GAMES.c.updated_at >= _MAIL.c.since,
                _GAMES.c.status.in_(("playing", "over")),
            )
        )
        new = 0
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        for r in rows:
            control = (r.clock or {}).get("control") or {}
            if control.get("kind") != "correspondence":
                continue
            for kind, turn in kinds_of(r, control, now):
                new += self._insert(r.account_id, r.id, kind, turn, now)
        return new

    def _insert(self, account_id: str, game_id: str, kind: str, turn: int, now: dt.datetime) -> int:
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.insert(_NOTICES).values(
                        account_id=account_id, game_id=game_id, kind=kind, turn=turn, created_at=now
                    )
                )
        except sa.exc.IntegrityError:
            return 0  # noticed before (here or by another process)
        return 1

    def due(self, now: dt.datetime, digest: float) -> list[str]:
        """Accounts with notices not sent and no digest for ``digest`` seconds."""
        q = (
            sa.select(_MAIL.c.account_id, _MAIL.c.last_sent_at)
            .join(_NOTICES, _NOTICES.c.account_id == _MAIL.c.account_id)
            .where(_NOTICES.c.sent_at.is_(None), _MAIL.c.notify.is_(True))
            .group_by(_MAIL.c.account_id, _MAIL.c.last_sent_at)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [
            r.account_id
            for r in rows
            if r.last_sent_at is None or (now - aware(r.last_sent_at)).total_seconds() >= digest
        ]

    def claim(self, account_id: str, now: dt.datetime, digest: float) -> dict[str, Any] | None:
        """Take the account's unsent notices for one digest, if no other process did: the
        address, the account's name, the unsubscribe secret and the notices."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(_MAIL, _ACCOUNTS.c.display_name)
                .join(_ACCOUNTS, _ACCOUNTS.c.id == _MAIL.c.account_id)
                .where(_MAIL.c.account_id == account_id)
            ).first()
            if row is None or not row.notify:
                return None
            last = row.last_sent_at
            # Only one process wins the digest: the update is conditional on the old time.
            cond = _MAIL.c.last_sent_at.is_(None) if last is None else _MAIL.c.last_sent_at == last
            if last is not None and (now - aware(last)).total_seconds() < digest:
                return None
            won = conn.execute(
                sa.update(_MAIL)
                .where(_MAIL.c.account_id == account_id, cond)
                .values(last_sent_at=now)
            ).rowcount
            if not won:
                return None
            notices = conn.execute(
                sa.select(_NOTICES.c.id, _NOTICES.c.game_id, _NOTICES.c.kind, _NOTICES.c.turn)
                .where(_NOTICES.c.account_id == account_id, _NOTICES.c.sent_at.is_(None))
                .order_by(_NOTICES.c.id)
            ).all()
            conn.execute(
                sa.update(_NOTICES)
                .where(_NOTICES.c.id.in_([n.id for n in notices]))
                .values(sent_at=now)
            )
        return {
            "email": row.email,
            "name": row.display_name,
            "unsubscribe": row.unsubscribe,
            "previous": last,
            "notices": [{"id": n.id, "game": n.game_id, "kind": n.kind} for n in notices],
        }

    def unclaim(self, account_id: str, claimed: dict[str, Any]) -> None:
        """A digest that could not be sent: its notices wait for the next round."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(_NOTICES)
                .where(_NOTICES.c.id.in_([n["id"] for n in claimed["notices"]]))
                .values(sent_at=None)
            )
            conn.execute(
                sa.update(_MAIL)
                .where(_MAIL.c.account_id == account_id)
                .values(last_sent_at=claimed["previous"])
            )

    def forget(self, account_id: str) -> None:
        with self.engine.begin() as conn:
            for table in (_NOTICES, _MAIL):
                conn.execute(sa.delete(table).where(table.c.account_id == account_id))


#: A turn's time runs low when less than this share of the time per move is left.
LOW: Final = 0.2


def kinds_of(r: Any, control: dict[str, Any], now: dt.datetime) -> list[tuple[str, int]]:
    """What a held seat of a correspondence game should hear of now: ``(kind, turn)``."""
    if r.status == "over":
        return [("over", -1)]
    out = []
    if r.decision_count == 0:
        out.append(("started", -1))
    if r.to_move == r.seat:
        out.append(("your_turn", r.decision_count))
        budget = float(control.get("hours", 0)) * 3600
        if r.clock_deadline is not None and budget > 0:
            left = (aware(r.clock_deadline) - now).total_seconds()
            if left < LOW * budget:
                out.append(("time_low", r.decision_count))
    return out


def digest_message(claimed: dict[str, Any], sender: str, base: str) -> EmailMessage:
    """One e-mail listing the notices; ``base`` is the site's public address."""
    turns = [n for n in claimed["notices"] if n["kind"] == "your_turn"]
    overs = [n for n in claimed["notices"] if n["kind"] == "over"]
    low = sorted({n["game"] for n in claimed["notices"] if n["kind"] == "time_low"})
    started = sorted({n["game"] for n in claimed["notices"] if n["kind"] == "started"})
    games = sorted({n["game"] for n in turns})
    lines = [f"Hello {claimed['name']},", ""]
    play = f"{base}/?game="
    for title, links in (
        ("These games have started:", [play + g for g in started]),
        ("Your time to move runs low in:", [play + g for g in low]),
        (f"It is your turn in {len(games)} game(s) of Kerala:", [play + g for g in games]),
        ("These games have ended:", [f"{base}/#/replay?game={n['game']}" for n in overs]),
    ):
        if links:
            lines += [title, *(f"  {x}" for x in links), ""]
    unsubscribe = f"{base}/api/account/unsubscribe?token={claimed['unsubscribe']}"
    lines += [
        "You get this because you asked for e-mail about your correspondence games.",
        f"No more e-mail: {unsubscribe}",
    ]
    # Lines up to SMTP's limit (998): a long unsubscribe address stays one plain header.
    msg = EmailMessage(policy=email.policy.SMTP.clone(max_line_length=998))
    msg["From"] = sender
    msg["To"] = claimed["email"]
    msg["Subject"] = (
        f"Kerala: your turn in {len(games)} game(s)"
        if games
        else "Kerala: your game has started"
        if started
        else "Kerala: your game has ended"
    )
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content("\n".join(lines) + "\n")
    return msg


class Mailer:
    """The loop that notices and sends (one per process; the database keeps them apart)."""

    def __init__(
        self, repo: MailRepository, smtp: Smtp, sender: str, base: str, check: float, digest: float
    ) -> None:
        self.repo = repo
        self.smtp = smtp
        self.sender = sender
        self.base = base.rstrip("/")
        self.check = check
        self.digest = digest
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name="kerala-mailer")

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.check)
            try:
                await self.round()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database or the SMTP server away: the next round retries
                log.exception("mail: a round failed")

    async def round(self) -> int:
        """Notice, then send the digests that are due; how many were sent."""
        import aiosmtplib

        now = utcnow()
        await anyio.to_thread.run_sync(self.repo.notice, now)
        sent = 0
        for account in await anyio.to_thread.run_sync(self.repo.due, now, self.digest):
            claimed = await anyio.to_thread.run_sync(self.repo.claim, account, now, self.digest)
            if claimed is None or not claimed["notices"]:
                continue
            try:
                msg = digest_message(claimed, self.sender, self.base)
                await aiosmtplib.send(
                    msg,
                    hostname=self.smtp.host,
                    port=self.smtp.port,
                    use_tls=self.smtp.tls,
                    username=self.smtp.user,
                    password=self.smtp.password,
                    timeout=20,
                )
            except Exception as e:  # not sent: the notices wait for the next round
                log.warning("mail: a digest was not sent (%s); retried later", e)
                await anyio.to_thread.run_sync(self.repo.unclaim, account, claimed)
                if not isinstance(e, aiosmtplib.SMTPException | OSError):
                    raise
                continue
            sent += 1
        return sent


def make_mailer(repo: MailRepository, settings: Any) -> Mailer | None:
    """The mailer of ``KERALA_SMTP_URL``, or ``None``: then nothing is ever sent."""
    if settings.smtp_url is None:
        return None
    return Mailer(
        repo,
        Smtp.parse(settings.smtp_url),
        settings.mail_from,
        settings.public_url,
        settings.mail_check,
        settings.mail_digest,
    )


__all__ = ["MailRepository", "Mailer", "Smtp", "SmtpUrlError", "digest_message", "make_mailer"]
