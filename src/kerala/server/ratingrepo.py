"""Queries of ratings (docs/ratings.md): the games waiting to be rated, the facts of one game
for its rating, writing a game's ratings once, and what profiles and leaderboards read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import cast

import sqlalchemy as sa
from sqlalchemy import Engine

from kerala.server.store import (
    AccountRow,
    AccountSeatRow,
    GameRow,
    RatingHistoryRow,
    RatingRow,
    SeatRow,
)

_ACCOUNTS = cast(sa.Table, AccountRow.__table__)
_HELD = cast(sa.Table, AccountSeatRow.__table__)
_GAMES = cast(sa.Table, GameRow.__table__)
_SEATS = cast(sa.Table, SeatRow.__table__)
_RATINGS = cast(sa.Table, RatingRow.__table__)
_HISTORY = cast(sa.Table, RatingHistoryRow.__table__)


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a finished game, as its rating needs it."""

    seat: int
    kind: str
    bot: str | None
    rank: int
    color: str
    #: The account that holds the seat, and whether the seat has been rated already.
    account: str | None
    done: bool
    #: A person's seat (handed to a bot or not), as against a bot's from the start.
    person: bool = True


@dataclass(frozen=True)
class Stored:
    """An account's stored rating in one group."""

    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class HistoryEntry:
    game_id: str
    seat: int
    grp: str
    mu: float
    sigma: float
    rank: int
    players: int
    color: str
    at: dt.datetime


def _unheld_person(game_id: sa.ColumnElement[str]) -> sa.ColumnElement[bool]:
    """A person's seat of the game (handed to a bot or not) that no account holds: a guest's.
    Such a game waits unrated (and out of the pending list) until the guest claims the seat."""
    s = _SEATS
    held = sa.exists().where(_HELD.c.game_id == s.c.game_id, _HELD.c.seat == s.c.seat)
    return sa.and_(
        s.c.game_id == game_id,
        sa.or_(s.c.kind != "bot", s.c.handed_to_bot.is_(True)),
        ~held,
    )


class RatingRepository:
    """Reads and writes of ratings."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def pending(self, limit: int = 100) -> list[str]:
        """Finished rated games with a seat held by an account and not rated yet, oldest
        finished first (so that each account's ratings move in the order its games ended)."""
        h = _HELD
        r = _HISTORY
        q = (
            sa.select(_GAMES.c.id, _GAMES.c.updated_at)
            .join(h, h.c.game_id == _GAMES.c.id)
            .outerjoin(r, sa.and_(r.c.game_id == h.c.game_id, r.c.seat == h.c.seat))
            .where(
                _GAMES.c.status == "over",
                _GAMES.c.rated.is_(True),
                r.c.game_id.is_(None),
                ~sa.exists().where(_unheld_person(_GAMES.c.id)),
            )
            .group_by(_GAMES.c.id, _GAMES.c.updated_at)
            .order_by(_GAMES.c.updated_at, _GAMES.c.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [row.id for row in conn.execute(q)]

    def seats(self, game_id: str) -> list[RatedSeat]:
        """Every seat of a finished game with its rank, holder and whether it is rated."""
        with self.engine.connect() as conn:
            seats = conn.execute(
                sa.select(_SEATS).where(_SEATS.c.game_id == game_id).order_by(_SEATS.c.seat)
            ).all()
            held = dict(
                conn.execute(
                    sa.select(_HELD.c.seat, _HELD.c.account_id).where(_HELD.c.game_id == game_id)
                ).all()
            )
            done = {
                row.seat
                for row in conn.execute(
                    sa.select(_HISTORY.c.seat).where(_HISTORY.c.game_id == game_id)
                )
            }
        return [
            RatedSeat(
                s.seat,
                s.kind,
                s.bot,
                int(s.rank or 0),
                s.color,
                held.get(s.seat),
                s.seat in done,
                s.kind != "bot" or bool(s.handed_to_bot),
            )
            for s in seats
        ]

    def ratings(self, account_ids: list[str], grp: str) -> dict[str, Stored]:
        if not account_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(_RATINGS).where(
                    _RATINGS.c.account_id.in_(account_ids), _RATINGS.c.grp == grp
                )
            ).all()
        return {r.account_id: Stored(r.mu, r.sigma, r.games) for r in rows}

    def seated(self, game_ids: list[str]) -> dict[str, list[tuple[str, dict[str, Stored]]]]:
        """For each game, its seated accounts and their ratings by group (one query)."""
        if not game_ids:
            return {}
        q = (
            sa.select(_HELD.c.game_id, _HELD.c.account_id, _RATINGS)
            .outerjoin(_RATINGS, _RATINGS.c.account_id == _HELD.c.account_id)
            .where(_HELD.c.game_id.in_(game_ids))
        )
        out: dict[str, dict[str, dict[str, Stored]]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                groups = out.setdefault(r.game_id, {}).setdefault(r.account_id, {})
                if r.grp is not None:
                    groups[r.grp] = Stored(r.mu, r.sigma, r.games)
        return {g: list(accounts.items()) for g, accounts in out.items()}

    def settle(
        self,
        game_id: str,
        grp: str,
        rows: list[tuple[int, str, float, float, int]],
        at: dt.datetime,
    ) -> bool:
        """Store the new ratings of the seats ``(seat, account, mu, sigma, rank)`` of a game, in
        one transaction; ``False`` if another process rated one of them first (nothing
        written)."""
        try:
            with self.engine.begin() as conn:
                for seat, account, mu, sigma, rank in rows:
                    conn.execute(
                        sa.insert(_HISTORY).values(
                            game_id=game_id,
                            seat=seat,
                            account_id=account,
                            grp=grp,
                            mu=mu,
                            sigma=sigma,
                            rank=rank,
                            at=at,
                        )
                    )
                    n = conn.execute(
                        sa.update(_RATINGS)
                        .where(_RATINGS.c.account_id == account, _RATINGS.c.grp == grp)
                        .values(mu=mu, sigma=sigma, games=_RATINGS.c.games + 1, updated_at=at)
                    ).rowcount
                    if not n:
                        conn.execute(
                            sa.insert(_RATINGS).values(
                                account_id=account,
                                grp=grp,
                                mu=mu,
                                sigma=sigma,
                                games=1,
                                updated_at=at,
                            )
                        )
        except sa.exc.IntegrityError:
            return False
        return True

    def of_account(self, account_id: str) -> dict[str, Stored]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(_RATINGS).where(_RATINGS.c.account_id == account_id))
            return {r.grp: Stored(r.mu, r.sigma, r.games) for r in rows}

    def history(self, account_id: str) -> list[HistoryEntry]:
        """The account's rated seats, oldest first, with the game's player count and color."""
        others = _SEATS.alias("all_seats")
        players = (
            sa.select(sa.func.count())
            .select_from(others)
            .where(others.c.game_id == _HISTORY.c.game_id)
            .correlate(_HISTORY)
            .scalar_subquery()
        )
        q = (
            sa.select(_HISTORY, players.label("players"), _SEATS.c.color)
            .join(
                _SEATS,
                sa.and_(_SEATS.c.game_id == _HISTORY.c.game_id, _SEATS.c.seat == _HISTORY.c.seat),
            )
            .where(_HISTORY.c.account_id == account_id)
            .order_by(_HISTORY.c.at, _HISTORY.c.game_id)
        )
        with self.engine.connect() as conn:
            return [
                HistoryEntry(
                    r.game_id, r.seat, r.grp, r.mu, r.sigma, r.rank, r.players, r.color, r.at
                )
                for r in conn.execute(q)
            ]

    def leaderboard(self, grp: str, max_sigma: float, limit: int) -> list[tuple[str, str, Stored]]:
        """The settled ratings of a group, best first: (handle, display name, rating)."""
        q = (
            sa.select(_ACCOUNTS.c.handle, _ACCOUNTS.c.display_name, _RATINGS)
            .join(_RATINGS, _RATINGS.c.account_id == _ACCOUNTS.c.id)
            .where(_RATINGS.c.grp == grp, _RATINGS.c.sigma <= max_sigma)
            .order_by(_RATINGS.c.mu.desc(), _ACCOUNTS.c.handle)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [
                (r.handle, r.display_name, Stored(r.mu, r.sigma, r.games)) for r in conn.execute(q)
            ]

    def forget_account(self, account_id: str) -> None:
        """Delete an account's ratings and history (its games stay)."""
        with self.engine.begin() as conn:
            for table in (_HISTORY, _RATINGS):
                conn.execute(sa.delete(table).where(table.c.account_id == account_id))
