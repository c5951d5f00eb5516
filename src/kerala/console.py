"""What every command of the ``kerala`` program shares: its consoles, its one error line, the
scoring pad, reading an input file and the progress bar.

The commands live in their parts (``kerala.cli`` for the engine's, ``kerala.bots.commands``,
``kerala.tui.commands``, ``kerala.server.commands``); they all import this module, which
imports no command, so no part reaches into another's command module.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kerala.errors import KeralaError
from kerala.scoring import ScoreBreakdown
from kerala.tiles import COLORS

console = Console()
err_console = Console(stderr=True)


def print_error(message: str) -> None:
    """One error line on standard error, never wrapped (the terminal wraps it if needed)."""
    text = Text("error:", style="bold red")
    text.append(f" {message}", style="")
    err_console.print(text, soft_wrap=True, highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    print_error(message)
    raise typer.Exit(code)


def scoring_pad(breakdowns: list[tuple[str, ScoreBreakdown]]) -> Table:
    """A table laid out like the scoring pad: a column per grounds, a row per line of the pad."""
    table = Table(title="Scoring pad", show_lines=False)
    table.add_column("", style="bold")
    for name, _ in breakdowns:
        table.add_column(Text(name), justify="right", overflow="fold")  # a name, not markup
    for color in COLORS:
        table.add_row(
            f"{color} symbols",
            *[str(dict(b.symbols_by_color).get(color, 0)) for _, b in breakdowns],
        )
    table.add_row("standing elephants", *[f"{b.standing:+d}" for _, b in breakdowns])
    table.add_row("arches", *[f"{b.arches:+d}" for _, b in breakdowns])
    table.add_row("surplus areas", *[f"{b.surplus:+d}" for _, b in breakdowns])
    table.add_row("missing colors", *[f"{b.missing:+d}" for _, b in breakdowns])
    table.add_row(
        "total", *[Text(str(b.total), style="bold") for _, b in breakdowns], end_section=True
    )
    return table


class InputFileError(KeralaError):
    """A file named on the command line cannot be read; the message says why (not where)."""


def read_input_file(path: Path) -> str:
    """The text of ``path`` (``-`` is standard input); the caller names the file in errors."""
    if str(path) == "-":
        try:
            return sys.stdin.read()
        except (OSError, UnicodeDecodeError) as e:
            raise InputFileError(f"cannot read standard input: {e}") from None
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError("no such file") from None
    except IsADirectoryError:
        raise InputFileError("is a folder, not a file") from None
    except PermissionError:
        raise InputFileError("permission denied") from None
    except UnicodeDecodeError:
        raise InputFileError("not UTF-8 text") from None
    except OSError as e:
        raise InputFileError(f"cannot read: {e.strerror or e}") from None


def progress_bar(total: int, *, enabled: bool, transient: bool = True) -> Any:
    """A progress bar on standard error: ``done/total``, elapsed time and ETA."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        disable=not enabled,
        transient=transient,
        refresh_per_second=4,
    )
