"""Time controls and game clocks: pure arithmetic on times handed in (no I/O, no reading the time).

A game may have a time control (docs/server.md, "Clocks"):

- ``realtime``: each seat has ``minutes`` for the whole game, and ``increment`` seconds are
  added to it after each of its decisions;
- ``correspondence``: each decision may take ``hours``; a seat's clock is set to ``hours``
  whenever its turn starts.

Only a seat of a person has a running clock: the clock of the seat to move runs while the game
is ``playing`` and that seat is a person's, or a person's handed to a bot (:func:`clock_kinds`).
When it runs out, a bot of the control's ``bot`` level takes the seat (:func:`timed_out`). A
player may also hand a seat to a bot (:func:`handed_over`: their own, or a silent one); its
clock runs on while the bot plays. The person may take it back with their token
(:func:`taken_back`): with the time left after a hand-over (a hand-over never gives time back),
with at least :data:`COMEBACK` seconds (or the whole budget when that is less) after a timeout.
The clock's log lists each of these for the record.

Every function takes the time as an argument, so the server's time source is injectable and
tests need not sleep (``tests/server/test_server_clocks.py``).

>>> import datetime as dt
>>> t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
>>> c = Clock.start(TimeControl("realtime", minutes=1, increment=2), 2, 0, t0)
>>> used = c.advance(0, 1, t0 + dt.timedelta(seconds=10), decided=True)
>>> used, c.remaining
(10.0, [52.0, 60.0])
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

#: Seconds a seat taken back after a timeout has at least (or its whole budget, if less).
COMEBACK = 60.0
#: Largest values accepted (a game of a week in real time; a decision of 30 days).
MAX_MINUTES = 10080.0
MAX_INCREMENT = 3600.0
MAX_HOURS = 720.0


class ClockError(ValueError):
    """A time control that cannot be used: one line saying which field and why."""


@dataclass(frozen=True)
class TimeControl:
    """The clock settings a game was created with."""

    kind: str
    minutes: float = 0.0
    increment: float = 0.0
    hours: float = 0.0
    #: The bot level that takes a seat whose time runs out.
    bot: str = "easy"

    @property
    def budget(self) -> float:
        """Seconds on a seat's clock at the start (realtime) or each turn (correspondence)."""
        return self.minutes * 60.0 if self.kind == "realtime" else self.hours * 3600.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "realtime":
            out.update(minutes=self.minutes, increment=self.increment)
        else:
            out.update(hours=self.hours)
        out["bot"] = self.bot
        return out

    @classmethod
    def from_json(cls, obj: object, where: str = "clock") -> TimeControl:
        """Check and read a time control; :class:`ClockError` names the bad field.

        >>> TimeControl.from_json({"kind": "correspondence", "hours": 24}).budget
        86400.0
        >>> TimeControl.from_json({"kind": "realtime", "minutes": True})
        Traceback (most recent call last):
        ...
        kerala.clocks.ClockError: clock.minutes must be a number above 0, at most 10080: true
        """
        if not isinstance(obj, dict):
            raise ClockError(f"{where} must be an object")
        kind = obj.get("kind")
        fields = {"realtime": {"minutes", "increment"}, "correspondence": {"hours"}}
        if kind not in fields:
            raise ClockError(f'{where}.kind must be "realtime" or "correspondence"')
        extra = sorted(set(obj) - fields[kind] - {"kind", "bot"})
        if extra:
            raise ClockError(f"{where}: unexpected field(s) for {kind}: {', '.join(extra)}")
        bot = obj.get("bot", "easy")
        if not isinstance(bot, str) or not bot:
            raise ClockError(f"{where}.bot must be a bot level name")
        if kind == "realtime":
            minutes = _number(obj, "minutes", where, 0.0, MAX_MINUTES, required=True)
            inc = _number(obj, "increment", where, 0.0, MAX_INCREMENT, zero_ok=True)
            return cls("realtime", minutes=minutes, increment=inc, bot=bot)
        hours = _number(obj, "hours", where, 0.0, MAX_HOURS, required=True)
        return cls("correspondence", hours=hours, bot=bot)


def _number(
    obj: dict[str, Any],
    key: str,
    where: str,
    low: float,
    high: float,
    *,
    required: bool = False,
    zero_ok: bool = False,
) -> float:
    if key not in obj:
        if required:
            raise ClockError(f"{where}.{key} is missing")
        return 0.0
    v = obj[key]
    ok = (
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and math.isfinite(v)
        and (low <= v if zero_ok else low < v)
        and v <= high
    )
    if not ok:
        bound = "at least 0" if zero_ok else "above 0"
        shown = json.dumps(v, default=str)
        raise ClockError(f"{where}.{key} must be a number {bound}, at most {high:g}: {shown}")
    return float(v)


@dataclass
class Clock:
    """The clocks of one game: each seat's seconds left, and since when the running one runs.

    ``remaining[s]`` is seat ``s``'s time at ``since`` (for the running seat) or now (others).
    ``since`` is ``None`` when no clock runs (the game is open or over, or a bot is to move)."""

    control: TimeControl
    remaining: list[float]
    since: dt.datetime | None = None
    #: Clock events for the record (docs/notation.md, "Clock fields"): ``{"at", "seat",
    #: "kind": "timeout", "bot"}``, ``{..., "kind": "handover", "bot", "by"}``, ``{..., "kind":
    #: "back"}``.
    log: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def start(
        cls, control: TimeControl, seats: int, running: int | None, now: dt.datetime
    ) -> Clock:
        return cls(control, [control.budget] * seats, now if running is not None else None)

    def copy(self) -> Clock:
        return Clock(self.control, list(self.remaining), self.since, [dict(e) for e in self.log])

    def left(self, seat: int, running: int | None, now: dt.datetime) -> float:
        """Seconds seat ``seat`` has left at ``now`` (never below 0)."""
        t = self.remaining[seat]
        if seat == running and self.since is not None:
            t -= (now - self.since).total_seconds()
        return max(0.0, t)

    def deadline(self, running: int | None) -> dt.datetime | None:
        """When the running seat's time runs out (``None``: no clock runs)."""
        if running is None or self.since is None:
            return None
        return self.since + dt.timedelta(seconds=max(0.0, self.remaining[running]))

    def advance(
        self,
        was_running: int | None,
        now_running: int | None,
        now: dt.datetime,
        *,
        decided: bool = False,
    ) -> float | None:
        """After an event at ``now``: charge the seat whose clock ran (its increment if it
        ``decided``), and start the clock of ``now_running``. Returns the seconds charged."""
        used = None
        if was_running is not None and self.since is not None:
            used = max(0.0, (now - self.since).total_seconds())
            r = max(0.0, self.remaining[was_running] - used)
            if decided and self.control.kind == "realtime":
                r += self.control.increment
            self.remaining[was_running] = r
        if now_running is None:
            self.since = None
        else:
            if self.control.kind == "correspondence" and (decided or now_running != was_running):
                self.remaining[now_running] = self.control.budget
            self.since = now
        return used

    def timed_out(self, seat: int, at: int) -> None:
        """Seat ``seat``'s time ran out after ``at`` decisions: a bot takes it (no clock runs)."""
        self.remaining[seat] = 0.0
        self.since = None
        self.log.append({"at": at, "seat": seat, "kind": "timeout", "bot": self.control.bot})

    def handed_over(self, seat: int, at: int, bot: str, by: int) -> None:
        """Seat ``by`` handed seat ``seat`` (``by`` itself, or a silent one) to bot level ``bot``
        after ``at`` decisions. The seat's clock runs on while its bot plays (:func:`clock_kinds`).

        >>> c = Clock(TimeControl("correspondence", hours=1), [3600.0, 3600.0])
        >>> c.handed_over(0, 3, "medium", 1)
        >>> c.log
        [{'at': 3, 'seat': 0, 'kind': 'handover', 'bot': 'medium', 'by': 1}]
        """
        self.log.append({"at": at, "seat": seat, "kind": "handover", "bot": bot, "by": by})

    def on_bot(self, seat: int) -> bool:
        """Whether seat ``seat``'s last clock event is a hand-over: its bot plays on its time."""
        for e in reversed(self.log):
            if e["seat"] == seat:
                return bool(e["kind"] == "handover")
        return False

    def taken_back(self, seat: int, at: int, running: int | None, now: dt.datetime) -> None:
        """Seat ``seat`` is a person's again. After a hand-over it keeps the time it has left
        (its clock ran while its bot played: a hand-over never gives time back); after a
        timeout it gets at least :data:`COMEBACK` s (or the budget: correspondence)."""
        if not self.on_bot(seat):
            floor = min(COMEBACK, self.control.budget)
            if self.control.kind == "correspondence":
                floor = self.control.budget
            if self.remaining[seat] < floor:
                self.remaining[seat] = floor
                if running == seat:
                    self.since = now
        self.log.append({"at": at, "seat": seat, "kind": "back"})

    def shifted(self, gap: dt.timedelta) -> None:
        """The server world was down for ``gap``: nobody is charged for it."""
        if self.since is not None:
            self.since += gap

    # -- storage and the wire ---------------------------------------------------------------

    def to_store(self) -> dict[str, Any]:
        return {"control": self.control.to_json(), "remaining": self.remaining, "log": self.log}

    @classmethod
    def from_store(cls, obj: dict[str, Any], since: dt.datetime | None) -> Clock:
        return cls(
            TimeControl.from_json(obj["control"]),
            [float(x) for x in obj["remaining"]],
            since,
            list(obj.get("log", [])),
        )

    def to_wire(self, running: int | None) -> dict[str, Any]:
        """What a client needs to show every seat's time (all public, docs/rules.md I2)."""
        return {
            **self.control.to_json(),
            "remaining": [round(x, 3) for x in self.remaining],
            "running": running if self.since is not None else None,
            "since": None if self.since is None else self.since.isoformat(),
            "deadline": None if (d := self.deadline(running)) is None else d.isoformat(),
            # Timeouts, hand-overs and take-backs, as the record lists them: the log shows them.
            "events": list(self.log),
        }


def format_clock(seconds: float) -> str:
    """Seconds as a clock shows them: ``m:ss``, ``h:mm:ss``, or days and hours.

    >>> format_clock(65.9), format_clock(3725), format_clock(90000)
    ('1:05', '1:02:05', '1d 01h')
    """
    s = max(0, int(seconds))
    if s >= 86400:
        return f"{s // 86400}d {(s % 86400) // 3600:02d}h"
    h, m, sec = s // 3600, (s % 3600) // 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def parse_realtime(text: str, bot: str) -> TimeControl:
    """A realtime control from ``M+S`` (minutes per player, seconds added per decision).

    >>> parse_realtime("5+3", "easy").to_json()
    {'kind': 'realtime', 'minutes': 5.0, 'increment': 3.0, 'bot': 'easy'}
    """
    minutes, _, inc = text.strip().partition("+")
    try:
        obj: dict[str, Any] = {"kind": "realtime", "minutes": float(minutes), "bot": bot}
        if inc:
            obj["increment"] = float(inc)
    except ValueError:
        raise ClockError(f"a time control is M+S (e.g. 5+3), not {json.dumps(text)}") from None
    return TimeControl.from_json(obj)


class _SeatKind(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def handed_to_bot(self) -> bool: ...


def clock_kinds(seats: Sequence[_SeatKind], clock: Clock | None) -> list[str]:
    """Each seat's kind as its clock sees it: a seat a player handed to a bot is still on the
    clock (``"human"``) while the bot plays it, so that a hand-over never stops the clock; a
    seat whose time ran out is not (its last clock event is a timeout)."""
    out = []
    for s in seats:
        kind = s.kind
        if kind == "bot" and s.handed_to_bot and clock is not None and clock.on_bot(s.seat):
            kind = "human"
        out.append(kind)
    return out


def running_seat(status: str, to_move: int | None, kinds: list[str]) -> int | None:
    """The seat whose clock runs: the seat to move of a game in play, if a person plays it."""
    if status != "playing" or to_move is None or kinds[to_move] != "human":
        return None
    return to_move
