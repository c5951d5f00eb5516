"""Ratings of accounts (docs/ratings.md): settling finished rated games, profiles, leaderboards.

A rated game moves the rating of every seat held by an account, in the seat's player-count
group (:func:`kerala.ratings.group_for`), by OpenSkill's Plackett-Luce model over the game's
ranks (:func:`kerala.ratings.rate`). The other seats stand in as they are: a bot by its
published rating (:func:`kerala.ratings.bot_rating`). A game is rated only once every
person's seat is held by an account: a guest cannot stand in as a new player whom an account
beats at will (a second tab of its own), so a game with a guest waits until the guest signs up
and claims the seat, and stays unrated if they never do. Then every held seat is rated in one
update from the ratings before, exactly as ``openskill`` rates the game.

Settling is lazy and idempotent: :meth:`RatingService.settle` rates the finished games that
have a held seat not rated yet, oldest first, each in one transaction that writes one history
row per seat (its primary key makes a seat rated once, whichever process gets there first).
It runs when a game ends, when a seat is claimed, and before ratings are read.

Refusals are the domain errors of :mod:`kerala.server.domain`; no HTTP here.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

import anyio.to_thread

from kerala.ratings import (
    PROVISIONAL_SIGMA,
    Rating,
    RatingError,
    bot_rating,
    group_for,
    rate,
)
from kerala.server.domain import InvalidRequest
from kerala.server.ratingrepo import RatingRepository, Stored
from kerala.server.store import utcnow

log = logging.getLogger("kerala.server")

#: The groups, as the API names them.
GROUPS = ("2p", "3-5p")


def shown(s: Stored | None) -> dict[str, Any]:
    """A stored rating as the API shows it."""
    r = Rating() if s is None else Rating(s.mu, s.sigma)
    return {
        "display": r.display,
        "provisional": r.provisional,
        "mu": round(r.mu, 3),
        "sigma": round(r.sigma, 3),
        "games": 0 if s is None else s.games,
    }


class RatingService:
    """Settling rated games and reading ratings."""

    def __init__(self, repo: RatingRepository) -> None:
        self.repo = repo

    async def run(self, every: float) -> None:
        """Settle every ``every`` seconds (in a worker thread), so that a game's ratings move
        soon after its end on whichever process is up."""
        while True:
            await asyncio.sleep(every)
            try:
                await anyio.to_thread.run_sync(self.settle)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away: the next round tries again
                log.exception("ratings: settling failed")

    def settle(self, limit: int = 100) -> int:
        """Rate the finished games waiting for it (oldest first); how many were rated."""
        n = 0
        for game_id in self.repo.pending(limit):
            n += self.settle_game(game_id)
        return n

    def settle_game(self, game_id: str) -> bool:
        seats = self.repo.seats(game_id)
        todo = [s for s in seats if s.account is not None and not s.done]
        if not todo or any(s.rank < 1 for s in seats):
            return False
        if any(s.person and s.account is None for s in seats):
            return False  # a guest's seat: rated once every person's seat is held
        grp = group_for(len(seats))
        accounts = [s.account for s in seats if s.account is not None]
        stored = self.repo.ratings(accounts, grp)
        before: list[Rating] = []
        for s in seats:
            if s.account is not None:
                got = stored.get(s.account)
                before.append(Rating() if got is None else Rating(got.mu, got.sigma))
            elif s.kind == "bot" and s.bot is not None:
                try:
                    before.append(bot_rating(s.bot, len(seats)))
                except RatingError:  # a level without a published rating: a newcomer
                    before.append(Rating())
            else:
                before.append(Rating())
        after = rate(before, [s.rank for s in seats])
        rows = [
            (s.seat, s.account, after[s.seat].mu, after[s.seat].sigma, s.rank)
            for s in todo
            if s.account is not None
        ]
        ok = self.repo.settle(game_id, grp, rows, utcnow())
        if ok:
            log.info("ratings: game %s rated for %d seats", game_id, len(rows))
        return ok

    def display_of(self, account_id: str, players: int) -> int:
        """An account's display rating in the group of a player count (1500 when new)."""
        grp = group_for(players)
        return int(shown(self.repo.ratings([account_id], grp).get(account_id))["display"])

    def seated(self, games: list[tuple[str, int]]) -> dict[str, list[int]]:
        """For each ``(game id, player count)``, the display ratings of the accounts seated
        there, in the game's group, lowest first (for the lobby; one query for all)."""
        seated = self.repo.seated([g for g, _ in games])
        count = dict(games)
        return {
            g: sorted(shown(groups.get(group_for(count[g])))["display"] for _, groups in accounts)
            for g, accounts in seated.items()
        }

    def profile(self, account: Any) -> dict[str, Any]:
        """An account's ratings per group, their history, and its results by player count."""
        self.settle()
        ratings = self.repo.of_account(account.id)
        history = self.repo.history(account.id)
        by_count: dict[int, dict[str, int]] = {}
        colors: Counter[str] = Counter()
        for h in history:
            row = by_count.setdefault(h.players, {"games": 0, "won": 0})
            row["games"] += 1
            row["won"] += h.rank == 1
            colors[h.color] += 1
        return {
            "handle": account.handle,
            "display_name": account.display_name,
            "ratings": {g: shown(ratings.get(g)) for g in GROUPS},
            "history": [
                {
                    "game": h.game_id,
                    "group": h.grp,
                    "players": h.players,
                    "rank": h.rank,
                    "color": h.color,
                    "display": Rating(h.mu, h.sigma).display,
                    "provisional": Rating(h.mu, h.sigma).provisional,
                    "at": h.at.isoformat(),
                }
                for h in history
            ],
            "results": [{"players": n, **row} for n, row in sorted(by_count.items())],
            "colors": [c for c, _ in colors.most_common()],
        }

    def leaderboard(self, grp: str, limit: int = 50) -> dict[str, Any]:
        if grp not in GROUPS:
            raise InvalidRequest(f'unknown group "{grp}": "2p" or "3-5p"')
        self.settle()
        rows = self.repo.leaderboard(grp, PROVISIONAL_SIGMA, limit)
        return {
            "group": grp,
            "players": [
                {"rank": i + 1, "handle": h, "display_name": name, **shown(s)}
                for i, (h, name, s) in enumerate(rows)
            ],
        }


__all__ = ["GROUPS", "RatingService", "shown"]
