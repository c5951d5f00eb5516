"""Quick match: who plays whom, from a queue of people waiting for a game (docs/server.md).

A :class:`Ticket` is one person waiting: the player count they want (2–5), a time control
(one of :data:`CONTROLS`), their rating and when they joined. :func:`pair` forms games from the
waiting tickets; it is pure (no clock, no storage), so that any process of a cluster can run
it over the shared queue (:mod:`kerala.server.quickmatch`) and a benchmark can run it alone.

Pairing, as lichess pairs its pools but for 2 to 5 players:

- only tickets that want the same player count and time control meet;
- the oldest ticket is served first; it takes the waiting tickets closest to its rating;
- a group is formed when the ratings within it span no more than every member's *window*,
  which starts at ``base`` rating points and widens by ``widen`` points a second of waiting,
  up to ``widest``: a long wait buys a wider range, never a worse one for the others;
- a ticket whose chosen bot wait (``bots_after`` seconds) has passed gets a game at once: the
  closest waiting tickets that fit, and bots (at the server's default level) for the rest.

>>> t = [Ticket(f"t{i}", 2, "fast", 1500 + 40 * i, 0.0) for i in range(3)]
>>> [[x.id for x in g.tickets] for g in pair(t, now=0.0)]
[['t0', 't1']]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

#: The time controls a quick match offers, by name: what a game of that name is created with.
CONTROLS: Final[Mapping[str, Mapping[str, Any] | None]] = {
    "none": None,
    "fast": {"kind": "realtime", "minutes": 3, "increment": 5},
    "realtime": {"kind": "realtime", "minutes": 10, "increment": 10},
    "day": {"kind": "correspondence", "hours": 24},
    "3days": {"kind": "correspondence", "hours": 72},
}
#: A window's start, its growth per second of waiting, and its widest, in rating points.
BASE: Final = 100.0
WIDEN: Final = 10.0
WIDEST: Final = 800.0


class TicketError(ValueError):
    """A ticket that cannot be read (bad stored data or bad input)."""


@dataclass(frozen=True)
class Ticket:
    """One person waiting for a quick match."""

    id: str
    players: int
    control: str
    rating: float
    since: float
    #: Seconds of waiting after which bots fill the game; ``None``: wait for people only.
    bots_after: float | None = None
    name: str = "Player"
    #: The account of the person, if signed in (a rated ticket always has one).
    account: str | None = field(default=None)
    #: Whether the game is to be rated (only people signed in ask for one).
    rated: bool = False

    @property
    def key(self) -> tuple[int, str, bool]:
        """Tickets meet only with the same key."""
        return (self.players, self.control, self.rated)

    def window(self, now: float, base: float = BASE, widen: float = WIDEN) -> float:
        """How far apart in rating the game may be for this ticket, after its wait so far."""
        return base + widen * max(0.0, now - self.since)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: object) -> Ticket:
        if not isinstance(obj, dict):
            raise TicketError("a ticket is a JSON object")
        try:
            t = cls(**obj)
        except TypeError as e:
            raise TicketError(f"not a ticket: {e}") from None
        if not (isinstance(t.players, int) and 2 <= t.players <= 5 and t.control in CONTROLS):
            raise TicketError(f"not a ticket: players {t.players!r}, control {t.control!r}")
        return t


@dataclass(frozen=True)
class Group:
    """A game to start: its tickets (people) and how many seats bots fill."""

    tickets: tuple[Ticket, ...]
    bots: int = 0

    @property
    def spread(self) -> float:
        """How far apart the people's ratings are."""
        r = [t.rating for t in self.tickets]
        return max(r) - min(r)


def pair(
    tickets: Iterable[Ticket],
    now: float,
    *,
    base: float = BASE,
    widen: float = WIDEN,
    widest: float = WIDEST,
) -> list[Group]:
    """The games to start now from the waiting ``tickets`` (each ticket in one game at most)."""
    by_key: dict[tuple[int, str, bool], list[Ticket]] = {}
    for t in sorted(tickets, key=lambda t: (t.since, t.id)):
        by_key.setdefault(t.key, []).append(t)
    out: list[Group] = []
    for (n, _, _), queue in by_key.items():
        used: set[str] = set()

        def window(t: Ticket) -> float:
            return min(widest, t.window(now, base, widen))

        for first in queue:
            if first.id in used:
                continue
            others = sorted(
                (t for t in queue if t.id not in used and t.id != first.id),
                key=lambda t: (abs(t.rating - first.rating), t.since),
            )
            chosen = _fit(first, others, n - 1, window)
            bots_due = first.bots_after is not None and now - first.since >= first.bots_after
            if len(chosen) == n - 1 or bots_due:
                group = Group((first, *chosen), bots=n - 1 - len(chosen))
                used.update(t.id for t in group.tickets)
                out.append(group)
    return out


def _fit(first: Ticket, others: Sequence[Ticket], k: int, window: Any) -> list[Ticket]:
    """Up to ``k`` of ``others`` (closest first) such that every member's window holds the
    group's spread."""
    chosen: list[Ticket] = []
    lo = hi = first.rating
    narrowest = window(first)
    for t in others:
        if len(chosen) == k:
            break
        nlo, nhi = min(lo, t.rating), max(hi, t.rating)
        w = min(narrowest, window(t))
        if nhi - nlo <= w:
            chosen.append(t)
            lo, hi, narrowest = nlo, nhi, w
    return chosen


__all__ = ["BASE", "CONTROLS", "WIDEN", "WIDEST", "Group", "Ticket", "TicketError", "pair"]
