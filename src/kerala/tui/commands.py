"""The ``kerala play`` command: checks its options and starts a terminal session.

Seats (docs/terminal.md): humans take the first ``--humans`` seats (default 1), bots the rest;
``--bots`` gives one level for every bot seat or one per bot seat. Without ``--players`` the
count is humans plus the bots listed (at least 2).

>>> assign_seats(None, None, None, "random")
[None, 'random']
>>> assign_seats(None, None, ["easy", "hard"], "random")
[None, 'easy', 'hard']
>>> assign_seats(4, 2, ["medium"], "random")
[None, None, 'medium', 'medium']
>>> assign_seats(3, 1, ["easy", "hard", "hard"], "random")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kerala.tui.commands.SeatError: --bots lists 3 bots, but 3 players with 1 human leave 2 ...
>>> assign_seats(3, 2, ["easy", "hard"], "random")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kerala.tui.commands.SeatError: --bots lists 2 bots, but ... 2 humans leave 1 bot seat: ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kerala.errors import KeralaError


class SeatError(KeralaError):
    """The seat options (``--players``, ``--humans``, ``--bots``) do not fit together."""


def assign_seats(
    players: int | None, humans: int | None, bots: list[str] | None, default_bot: str
) -> list[str | None]:
    """The bot spec of every seat, ``None`` for a human seat (humans first)."""
    h = 1 if humans is None else humans
    if players is not None:
        n = players
    elif bots is not None and len(bots) > 1:
        n = h + len(bots)
    elif bots is not None or h <= 1:
        n = max(2, h + 1)
    else:
        n = h  # several humans and no --bots: a game among humans only
    if not 2 <= n <= 5:
        raise SeatError(f"a game has 2 to 5 players (S1), these options give {n}")
    if not 0 <= h <= n:
        raise SeatError(f"--humans must be 0 to {n} in a {n}-player game, got {h}")
    slots = n - h
    if bots is None:
        specs = [default_bot] * slots
    elif len(bots) == 1:
        specs = bots * slots
    elif len(bots) == slots:
        specs = list(bots)
    else:
        raise SeatError(
            f"--bots lists {len(bots)} bots, but {n} players with {_count(h, 'human')} leave "
            f"{_count(slots, 'bot seat')}: give one level for all of them or exactly {slots}"
        )
    if bots is not None and slots == 0:
        raise SeatError(f"--bots was given but {h} humans fill all {n} seats")
    return [None] * h + specs


def _count(n: int, word: str) -> str:
    """``1 human``, ``2 humans``, ``1 bot seat``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _split(value: str | None, option: str) -> list[str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if not all(parts):
        raise SeatError(f"{option}: empty entry in {value!r} (separate entries by commas)")
    return parts


def register(app: typer.Typer) -> None:
    """Add ``play`` to the ``kerala`` app.

    Long because the command declares each of its options inline, as Typer reads them.
    """

    @app.command("play")
    def play(
        players: Annotated[
            int | None, typer.Option(min=2, max=5, metavar="N", help="number of players (2-5)")
        ] = None,
        humans: Annotated[
            int | None,
            typer.Option(
                min=0, max=5, metavar="H", help="humans sharing the keyboard, first seats [1]"
            ),
        ] = None,
        bots: Annotated[
            str | None,
            typer.Option(
                metavar="LEVEL,…",
                help="bot level(s), comma-separated: easy, medium, hard, random, …",
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(metavar="S", help="seed of the draws and bots (replayable game)"),
        ] = None,
        load: Annotated[
            Path | None,
            typer.Option(metavar="RECORD", help="continue a saved game record (docs/notation.md)"),
        ] = None,
        colors: Annotated[
            str | None,
            typer.Option(metavar="COLOR,…", help="seat colors, comma-separated, e.g. red,blue"),
        ] = None,
        names: Annotated[
            str | None,
            typer.Option(metavar="NAME,…", help="human players' names, comma-separated"),
        ] = None,
        clock: Annotated[
            str | None,
            typer.Option(
                metavar="M+S",
                help="time control: minutes per player + seconds added per decision (5+3)",
            ),
        ] = None,
    ) -> None:
        """Play Kerala in the terminal: humans at one keyboard against bots.

        \f
        Long because each option is declared in its signature and checked in one place.
        """
        from rich.console import Console

        from kerala.bots import BotSpecError, make_bot
        from kerala.console import fail, read_input_file
        from kerala.tiles import COLORS
        from kerala.tui.session import default_bot_spec, load_session, new_session

        console = Console(highlight=False)
        if load is not None:
            given = [
                f"--{k}"
                for k, v in (
                    ("players", players),
                    ("humans", humans),
                    ("bots", bots),
                    ("colors", colors),
                    ("names", names),
                    ("clock", clock),
                )
                if v is not None
            ]
            if given:
                fail(f"--load continues the record's own players; leave out {', '.join(given)}")
            try:
                text = read_input_file(load)
            except KeralaError as e:  # no such file, a folder, not UTF-8 …
                fail(f"--load {load}: {e}")
                return
            try:
                session = load_session(console, text, seed=seed)
            except KeralaError as e:
                fail(f"--load {load}: {e}")
                return
            raise typer.Exit(session.run())
        try:
            bot_list = _split(bots, "--bots")
            for level in bot_list or []:
                make_bot(level)
            specs = assign_seats(players, humans, bot_list, default_bot_spec())
            n = len(specs)
            color_list = _split(colors, "--colors") or list(COLORS[:n])
            if len(color_list) != n:
                raise SeatError(f"--colors names {len(color_list)} colors for {n} players")
            bad = [c for c in color_list if c not in COLORS]
            if bad:
                raise SeatError(
                    f"--colors: unknown color {bad[0]!r}; colors are {', '.join(COLORS)}"
                )
            if len(set(color_list)) != n:
                raise SeatError("--colors: every player needs a distinct color (S1)")
            human_count = specs.count(None)
            name_list = _split(names, "--names")
            if name_list is None:
                name_list = (
                    ["You"] if human_count == 1 else [f"Player {i + 1}" for i in range(human_count)]
                )
            if len(name_list) != human_count:
                raise SeatError(f"--names gives {len(name_list)} names for {human_count} humans")
            if any(len(x) > 20 for x in name_list):
                raise SeatError("--names: a name has at most 20 characters")
        except (SeatError, BotSpecError) as e:
            fail(f"--bots: {e}" if isinstance(e, BotSpecError) else str(e))
            return
        all_names: list[str] = []
        hi = 0
        for i, seat_spec in enumerate(specs):
            if seat_spec is None:
                all_names.append(name_list[hi])
                hi += 1
            else:
                label = f"{seat_spec} bot"
                all_names.append(label if specs.count(seat_spec) == 1 else f"{label} {i + 1}")
        control = None
        if clock is not None:
            from kerala.clocks import ClockError, parse_realtime

            try:
                control = parse_realtime(clock, default_bot_spec())
            except ClockError as e:
                fail(f"--clock: {e}")
                return
        session = new_session(
            console, colors=color_list, names=all_names, bot_specs=specs, seed=seed, clock=control
        )
        raise typer.Exit(session.run())
