"""The ``kerala tournament`` command (added to the CLI by :func:`register`).

Everything it does lives in :mod:`kerala.bots.tournament`; this module parses and checks the
options, shows the progress bar and prints the report. Heavy imports (Ray, matplotlib,
TrueSkill) happen only when the command runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer


def _print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title=f"{report['games']} games, {report['players']} players, seed {report['seed']}")
    for col in ("bot", "games", "wins", "win rate", "95% CI", "mean score", "TrueSkill"):
        t.add_column(col, justify="left" if col == "bot" else "right")
    ranked = sorted(report["bots"].items(), key=lambda kv: -kv[1]["rating"]["mu"])
    for name, b in ranked:
        lo, hi = b["win_rate_ci95"]
        t.add_row(
            name,
            str(b["games"]),
            f"{b['wins']:g}",
            f"{b['win_rate']:.1%}",
            f"{lo:.1%}–{hi:.1%}",
            f"{b['mean_score']:.1f}",
            f"{b['rating']['mu']:.1f} ± {b['rating']['sigma']:.1f}",
        )
    console.print(t)
    names = [n for n, _ in ranked]
    if len(names) > 1:
        h = Table(title="head to head (row placed above column)")
        h.add_column("")
        for n in names:
            h.add_column(n, justify="right")
        for a in names:
            row = []
            for b in names:
                cell = report["head_to_head"][a].get(b)
                row.append(f"{cell['rate']:.1%} ({cell['games']})" if cell else "–")
            h.add_row(a, *row)
        console.print(h)


def tournament(
    bots: Annotated[
        str,
        typer.Option(
            help="bot specs, comma-separated (e.g. random,greedy,mcts:time=0.5); "
            "a spec may repeat (mcts,greedy,greedy,greedy)"
        ),
    ],
    players: Annotated[int, typer.Option(min=2, max=5, help="players per game")] = 2,
    games: Annotated[int, typer.Option(min=1, help="number of games")] = 100,
    jobs: Annotated[int, typer.Option(min=1, help="games played at once")] = 1,
    backend: Annotated[str, typer.Option(help="local (processes) or ray")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (--backend ray; default: local Ray)")
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the whole tournament")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(help="folder for report.json, records and plots; reused to resume"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print report.json to stdout")] = False,
) -> None:
    """Play a tournament between bots and report win rates, scores and ratings."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from kerala.bots.tournament import TournamentError, run_tournament

    err = Console(stderr=True)
    entries = [s.strip() for s in bots.split(",") if s.strip()]
    if backend not in ("local", "ray"):
        err.print(f"[bold red]error:[/] --backend must be 'local' or 'ray', got {backend!r}")
        raise typer.Exit(2)
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task("games", total=games)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            outcome = run_tournament(
                entries,
                players=players,
                games=games,
                seed=seed,
                jobs=jobs,
                backend=backend,
                address=address,
                out=out,
                on_progress=on_progress,
            )
        except TournamentError as e:
            progress.stop()
            err.print(f"[bold red]error:[/] {e}", highlight=False)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            progress.stop()
            if out is not None:
                msg = f"interrupted: finished games are saved; run again with --out {out} to resume"
            else:
                msg = "interrupted (without --out nothing was saved)"
            err.print(msg, highlight=False)
            raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(outcome.report))
        return
    if outcome.resumed:
        err.print(f"resumed: {outcome.resumed} games were already played, {outcome.played} now")
    _print_report(outcome.report)
    if out is not None:
        err.print(f"report, records and plots in {out}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``kerala tournament`` to the CLI."""
    app.command(name="tournament")(tournament)
