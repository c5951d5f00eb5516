"""Player ratings: OpenSkill's Plackett-Luce model over Kerala's placings (docs/ratings.md).

One rating system serves the whole project: the server's rated games, the tournament runner
(:mod:`kerala.bots.tournament`) and the bots' published ratings (``data/bot_ratings.json``).
This module owns the model and its parameters; it does no I/O beyond reading its own package
data, and the engine never imports it.

**Model.** ``openskill``'s :class:`~openskill.models.PlackettLuce` with its defaults (``mu`` 25,
``sigma`` 25/3, ``beta`` 25/6, ``tau`` 25/300) and ``limit_sigma=True``: each game first adds
the ``tau`` drift and then takes the Plackett-Luce update, but a rated game never leaves a
player *more* uncertain than before, so a settled rating stays settled. Every seat is a team of
one; the placings are SC7's (ties share a place, numbered 1, 1, 3), which the engine gives as
:meth:`kerala.game.GameState.ranks` and a record as ``result.ranks``. A shared place is rated
as the mean of the updates of every order the tied players could have finished in (see
:func:`strict_orders`); a game without a shared place is rated exactly as openskill rates it.

**Groups.** A rating belongs to a :data:`RatingGroup`: ``"2p"`` (two players) or ``"3-5p"``
(three to five). Two players is a duel (every tile taken is one the other lacks); from three on
the game is a race on a shared display, and PL rates any number of seats in one model, so one
group pools a player's 3-, 4- and 5-player games and settles sooner than a group per count.

**Display.** :attr:`Rating.display` is ``1500 + 30 (mu - 25)``, rounded: a newcomer shows 1500,
and between two settled players a difference of D points predicts roughly the 2-player win
chance that an Elo difference of D does. :attr:`Rating.provisional` holds while ``sigma`` is
above :data:`PROVISIONAL_SIGMA` (5.0: about 11 games against settled players).

>>> a, b, c = rate([Rating(), Rating(), Rating()], [1, 2, 2])
>>> a.mu > 25 > b.mu == c.mu, a.sigma < 25 / 3
(True, True)
>>> Rating().display, Rating().provisional
(1500, True)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import permutations, product
from typing import Any, Final, Literal

from openskill.models import PlackettLuce

from kerala.errors import KeralaError
from kerala.scoring import rank

#: The prior of a new player (openskill's defaults).
MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
#: Performance noise of one game (openskill's default, ``sigma / 2``).
BETA: Final = 25.0 / 6.0
#: Drift added to ``sigma`` before each game (openskill's default).
TAU: Final = 25.0 / 300.0
#: Ratings with ``sigma`` above this are provisional (shown with a mark, kept off leaderboards).
PROVISIONAL_SIGMA: Final = 5.0
#: What :attr:`Rating.display` shows for ``mu`` = :data:`MU`, and display points per unit of mu.
DISPLAY_CENTRE: Final = 1500
DISPLAY_SCALE: Final = 30.0

RatingGroup = Literal["2p", "3-5p"]
#: The rating groups, in the order a profile lists them.
GROUPS: Final[tuple[RatingGroup, ...]] = ("2p", "3-5p")

_MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, limit_sigma=True)


class RatingError(KeralaError):
    """A rating, a group or a game's placings that the rating system cannot take."""


def group_for(players: int) -> RatingGroup:
    """The rating group of a game of ``players`` players.

    >>> [group_for(n) for n in (2, 3, 5)]
    ['2p', '3-5p', '3-5p']
    """
    if players == 2:
        return "2p"
    if 3 <= players <= 5:
        return "3-5p"
    raise RatingError(f"a rated game has 2 to 5 players, not {players}")


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's skill in one group: the mean ``mu`` and its uncertainty ``sigma``.

    >>> r = Rating(mu=31.5, sigma=2.25)
    >>> Rating.from_json(r.to_json()) == r, r.display, r.provisional
    (True, 1695, False)
    """

    mu: float = MU
    sigma: float = SIGMA

    def __post_init__(self) -> None:
        # bool is an int: refuse it, as JSON true is not a number of anything here.
        for name in ("mu", "sigma"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise RatingError(f"rating {name} must be a finite number, not {v!r}")
        if self.sigma <= 0:
            raise RatingError(f"rating sigma must be above 0, not {self.sigma!r}")

    @property
    def display(self) -> int:
        """The one number shown to people: ``1500 + 30 (mu - 25)``, rounded."""
        return round(DISPLAY_CENTRE + DISPLAY_SCALE * (self.mu - MU))

    @property
    def provisional(self) -> bool:
        """Whether the rating is still uncertain (``sigma`` > :data:`PROVISIONAL_SIGMA`)."""
        return self.sigma > PROVISIONAL_SIGMA

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma`` (openskill's ordinal): a skill the player almost surely has."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma}

    @classmethod
    def from_json(cls, d: Any) -> Rating:
        """Read ``{"mu": …, "sigma": …}``; anything else is a :class:`RatingError`."""
        if not isinstance(d, Mapping) or set(d) != {"mu", "sigma"}:
            raise RatingError(f'a rating is {{"mu": number, "sigma": number}}, not {d!r}')
        return cls(mu=d["mu"], sigma=d["sigma"])


def check_ranks(ranks: Sequence[int]) -> None:
    """Refuse placings that are not SC7's for 2 to 5 players (1-based, ties numbered 1, 1, 3).

    >>> check_ranks([1, 1, 3])
    >>> check_ranks([1, 1, 2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    kerala.ratings.RatingError: placings [1, 1, 2] are not SC7's (shared places are ...)
    """
    group_for(len(ranks))
    if any(isinstance(r, bool) or not isinstance(r, int) for r in ranks):
        raise RatingError(f"placings must be whole numbers, not {list(ranks)!r}")
    # SC7's ranks of the negated placings are the placings themselves exactly when they are SC7's.
    if rank([-r for r in ranks]) != list(ranks):
        raise RatingError(
            f"placings {list(ranks)} are not SC7's (shared places are numbered 1, 1, 3)"
        )


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> tuple[Rating, ...]:
    """The ratings after one game, seat by seat, from the ratings before and SC7's placings.

    ``ranks[i]`` is seat ``i``'s placing (``GameState.ranks()``, a record's ``result.ranks``).
    Every seat is updated; a caller with fixed ratings (bots) keeps its own. The players must
    all be rated in :func:`group_for` of the game's player count.

    >>> won, lost = rate([Rating(), Rating()], [1, 2])
    >>> (won.display, lost.display), won.sigma == lost.sigma < Rating().sigma
    ((1579, 1421), True)
    """
    if len(ratings) != len(ranks):
        raise RatingError(f"{len(ratings)} ratings for {len(ranks)} placings")
    check_ranks(ranks)
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    orders = list(strict_orders(ranks))
    mus: list[list[float]] = [[] for _ in ratings]
    sigmas: list[list[float]] = [[] for _ in ratings]
    for order in orders:
        for i, t in enumerate(_MODEL.rate(teams, ranks=[float(r) for r in order])):
            mus[i].append(t[0].mu)
            sigmas[i].append(t[0].sigma)
    # fsum rounds once, whatever the order of the terms: tied equals come out exactly equal, and
    # a mean of sigmas none above the old one is not above it by a rounding either.
    k = len(orders)
    return tuple(
        Rating(mu=math.fsum(m) / k, sigma=min(math.fsum(s) / k, r.sigma))
        for m, s, r in zip(mus, sigmas, ratings, strict=True)
    )


def strict_orders(ranks: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every finishing order without ties that SC7's placings ``ranks`` allow.

    A shared place is rated as the mean over these orders (a draw as half a win and half a
    loss, as in Elo): openskill's own handling of shared places misorders players around them
    with three or more seats (docs/ratings.md). At most 5! = 120 orders.

    >>> list(strict_orders([1, 1, 3]))
    [(1, 2, 3), (2, 1, 3)]
    """
    seats: dict[int, list[int]] = {}
    for i, r in enumerate(ranks):
        seats.setdefault(r, []).append(i)
    for perms in product(*(permutations(s) for s in seats.values())):
        order = [0] * len(ranks)
        for place, perm in zip(seats, perms, strict=True):
            for k, i in enumerate(perm):
                order[i] = place + k
        yield tuple(order)


# -- the bots' published ratings -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotRating:
    """A bot level's fixed rating in one group, and the tournament entry that measured it."""

    level: str
    group: RatingGroup
    rating: Rating
    measured_as: str
    games: int


@cache
def bot_ratings() -> dict[RatingGroup, dict[str, BotRating]]:
    """The bots' published ratings (``kerala/data/bot_ratings.json``), by group and level.

    >>> r = bot_ratings()["2p"]["medium"].rating
    >>> 1300 < r.display < 1800 and not r.provisional
    True
    """
    text = resources.files("kerala").joinpath("data/bot_ratings.json").read_text("utf-8")
    return read_bot_ratings(json.loads(text))


def bot_rating(level: str, players: int) -> Rating:
    """The fixed rating of bot level ``level`` in a game of ``players`` players."""
    group = group_for(players)
    found = bot_ratings()[group].get(level)
    if found is None:
        known = ", ".join(sorted(bot_ratings()[group]))
        raise RatingError(f"bot level {level!r} has no published rating; rated levels: {known}")
    return found.rating


def read_bot_ratings(doc: Any) -> dict[RatingGroup, dict[str, BotRating]]:
    """Read a ``kerala-bot-ratings`` document (what ``benchmarks/bot_ratings.py`` writes)."""
    if not isinstance(doc, dict) or doc.get("format") != "kerala-bot-ratings":
        raise RatingError("bot_ratings.json: not a kerala-bot-ratings document")
    groups = doc.get("groups")
    if not isinstance(groups, dict) or set(groups) != set(GROUPS):
        raise RatingError(f"bot_ratings.json: groups must be {list(GROUPS)}")
    out: dict[RatingGroup, dict[str, BotRating]] = {}
    for g in GROUPS:
        levels = groups[g]
        if not isinstance(levels, dict):
            raise RatingError(f"bot_ratings.json: group {g} is not an object")
        out[g] = {}
        for level, entry in levels.items():
            try:
                rating = Rating.from_json({"mu": entry["mu"], "sigma": entry["sigma"]})
                out[g][level] = BotRating(
                    level=level,
                    group=g,
                    rating=rating,
                    measured_as=str(entry["measured_as"]),
                    games=int(entry["games"]),
                )
            except (KeyError, TypeError, ValueError) as e:
                raise RatingError(f"bot_ratings.json: {g} {level}: {e}") from None
    return out


__all__ = [
    "BETA",
    "DISPLAY_CENTRE",
    "DISPLAY_SCALE",
    "GROUPS",
    "MU",
    "PROVISIONAL_SIGMA",
    "SIGMA",
    "TAU",
    "BotRating",
    "Rating",
    "RatingError",
    "RatingGroup",
    "bot_rating",
    "bot_ratings",
    "check_ranks",
    "group_for",
    "rate",
    "read_bot_ratings",
    "strict_orders",
]
