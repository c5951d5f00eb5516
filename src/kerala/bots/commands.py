"""The ``kerala tournament`` command (added to the CLI by :func:`register`).

Everything it does lives in :mod:`kerala.bots.tournament`; this module parses and checks the
options, shows the progress bar and prints the report. Heavy imports (Ray, matplotlib,
OpenSkill) happen only when the command runs.
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
    columns = ("bot", "games", "wins", "win rate", "95% CI", "mean score", "rating", "μ ± σ")
    for col in columns:
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
            f"{b['rating']['display']}{'?' if b['rating']['provisional'] else ''}",
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
            metavar="BOT,…",
            help="bot specs, comma-separated (e.g. random,greedy,mcts:time=0.5); "
            "a spec may repeat (mcts,greedy,greedy,greedy); at least two",
        ),
    ],
    players: Annotated[
        int, typer.Option(min=2, max=5, metavar="P", help="players per game (2-5)")
    ] = 2,
    games: Annotated[int, typer.Option(min=1, metavar="N", help="number of games")] = 100,
    jobs: Annotated[int, typer.Option(min=1, metavar="J", help="games played at once")] = 1,
    backend: Annotated[
        str, typer.Option(metavar="local|ray", help="local (processes) or ray")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            metavar="ADDR", help="Ray cluster address (--backend ray; default: local Ray)"
        ),
    ] = None,
    seed: Annotated[int, typer.Option(metavar="S", help="seed of the whole tournament")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="folder for report.json, records and plots; run again to resume or extend",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print report.json to stdout")] = False,
) -> None:
    """Play a tournament between bots and report win rates, scores and ratings."""
    from kerala.bots.tournament import Interrupted, TournamentError, run_tournament
    from kerala.console import err_console, fail, progress_bar

    entries = [s.strip() for s in bots.split(",") if s.strip()]
    if backend not in ("local", "ray"):
        fail(f"--backend must be 'local' or 'ray', got {backend!r}")
    done_now = [0, 0]  # games finished, games already there when the run started
    with progress_bar(games, enabled=err_console.is_terminal, transient=False) as progress:
        task = progress.add_task("games", total=games)

        def on_progress(done: int, total: int) -> None:
            if done_now == [0, 0] and done:
                done_now[1] = done
                # Games found on disk are not this run's speed: the ETA starts from here.
                progress.reset(task, total=total, completed=done)
            done_now[0] = done
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
            fail(str(e))
        except KeyboardInterrupt as e:
            progress.stop()
            finished = e.finished if isinstance(e, Interrupted) else done_now[0]
            if out is not None:
                msg = (
                    f"interrupted: {finished} of {games} games finished, saved in {out}; "
                    "run the same command again to resume"
                )
            else:
                msg = (
                    f"interrupted: {finished} of {games} games finished, not saved "
                    "(--out DIR keeps them)"
                )
            err_console.print(msg, highlight=False, soft_wrap=True)
            raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(outcome.report))
        return
    if outcome.resumed:
        err_console.print(
            f"resumed: {outcome.resumed} games were already played, {outcome.played} now",
            highlight=False,
            soft_wrap=True,
        )
    _print_report(outcome.report)
    if out is not None:
        err_console.print(f"report, records and plots in {out}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``kerala tournament`` to the CLI."""
    app.command(name="tournament")(tournament)
