"""The ``kerala analyse`` command (added to the CLI by :func:`register`).

``kerala analyse RECORD [--seat S] [--time T] [--json] [--out FILE]`` reviews every decision of
the chosen seat (default: every seat) with :mod:`kerala.bots.analysis` and prints a table, or
the record extended with its ``analysis`` field (``--json`` to stdout, ``--out`` to a file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from kerala.actions import decision_from_json
from kerala.bots.analysis import DEFAULT_TIME


def _words(d: dict[str, Any]) -> str:
    try:
        return str(decision_from_json(d))
    except Exception:  # a decision this reader cannot parse: show its JSON
        return json.dumps(d)


def _print_table(analysis: dict[str, Any], names: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title=f"analysis by {analysis['bot']} (from each seat's view at the time)")
    for col in ("#", "round", "player", "played", "best", "win %", "win lost", "pts lost", ""):
        t.add_column(col, justify="left" if col in ("player", "played", "best", "") else "right")
    style = {"blunder": "bold red", "mistake": "red", "inaccuracy": "yellow"}
    for d in analysis["decisions"]:
        flag = d["flag"] or ""
        same = d["played"] == d["best"]
        t.add_row(
            str(d["at"] + 1),
            str(d["round"] + 1),
            names[d["seat"]],
            _words(d["played"]),
            "=" if same else _words(d["best"]),
            f"{100 * d['win']['played']:.0f}",
            f"{100 * d['cost']['win']:.0f}" if d["cost"]["win"] else "",
            f"{d['cost']['points']:.1f}" if d["cost"]["points"] else "",
            f"[{style[flag]}]{flag}[/]" if flag else "",
        )
    console.print(t)
    for seat, row in analysis["summary"].items():
        console.print(
            f"{names[int(seat)]}: {row['decisions']} decisions, {row['agreed']} as the bot, "
            f"{row['inaccuracys']} inaccuracies, {row['mistakes']} mistakes, "
            f"{row['blunders']} blunders; win chance lost {100 * row['win_lost']:.0f} points "
            f"of %, evaluation points lost {row['points_lost']:.1f}",
            highlight=False,
        )


def analyse(
    record: Annotated[Path, typer.Argument(help="a game record (.json, the Kerala notation)")],
    seat: Annotated[
        int | None, typer.Option(help="the seat to review, from 0 (default: every seat)")
    ] = None,
    time: Annotated[
        float, typer.Option("--time", help="search seconds (CPU) per decision")
    ] = DEFAULT_TIME,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the record with its analysis as JSON")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="write the record with its analysis to this file")
    ] = None,
) -> None:
    """Review a game: the strongest bot's choice and the cost of each decision played."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from kerala.bots.analysis import AnalysisError, check_budget, extend_record
    from kerala.bots.analysis import analyse as run
    from kerala.errors import KeralaError
    from kerala.notation import load_json

    err = Console(stderr=True)

    def fail(msg: str) -> None:
        from kerala.console import fail as one_line_error  # the CLI's one error style

        one_line_error(msg)

    try:
        text = record.read_bytes()
    except OSError as e:
        fail(f"cannot read {record}: {e.strerror or e}")
    try:
        doc = load_json(text, str(record))
        budget = check_budget(time)
    except (KeralaError, AnalysisError) as e:
        fail(str(e))
    if not isinstance(doc, dict):
        fail(f"{record}: a record document must be a JSON object")
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task("decisions", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            analysis = run(
                doc,
                seats=None if seat is None else [seat],
                budget=budget,
                progress=on_progress,
            )
        except (KeralaError, AnalysisError) as e:
            progress.stop()
            fail(f"{record}: {e}")
    extended = extend_record(doc, analysis)
    if out is not None:
        try:
            out.write_text(json.dumps(extended, indent=1) + "\n")
        except OSError as e:
            fail(f"cannot write {out}: {e.strerror or e}")
    if as_json:
        print(json.dumps(extended))
        return
    names = [str(p.get("name", f"seat {i}")) for i, p in enumerate(doc.get("players", []))]
    _print_table(analysis, names)
    if out is not None:
        err.print(f"record with its analysis written to {out}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``kerala analyse`` to the CLI."""
    app.command(name="analyse")(analyse)
