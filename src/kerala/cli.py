"""The ``kerala`` command: score calculator, record checker, simulations, benchmark.

Other parts add their own commands (``serve``, ``play``, ``tournament``) by a ``register``
function in their package; each imports its heavy dependencies only when run.
"""

from __future__ import annotations

import importlib
import json
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from kerala.actions import FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.errors import KeralaError
from kerala.game import Phase, new_game
from kerala.notation import read_grounds, read_record, write_record
from kerala.scoring import ScoreBreakdown, score_grounds
from kerala.tiles import COLORS

app = typer.Typer(
    name="kerala",
    help="Kerala: The Way of the Elephant — rules engine, notation, bots and play.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
record_app = typer.Typer(help="Game records (NOTATION.md).", no_args_is_help=True)
app.add_typer(record_app, name="record")

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    raise typer.Exit(code)


# -- score -------------------------------------------------------------------------------


def scoring_pad(breakdowns: list[tuple[str, ScoreBreakdown]]) -> Table:
    """A table laid out like the scoring pad: a column per grounds, a row per line of the pad."""
    table = Table(title="Scoring pad", show_lines=False)
    table.add_column("", style="bold")
    for name, _ in breakdowns:
        table.add_column(name, justify="right", overflow="fold")
    for color in COLORS:
        table.add_row(
            f"{color} symbols",
            *[str(dict(b.symbols_by_color).get(color, 0)) for _, b in breakdowns],
        )
    table.add_row("standing elephants", *[f"{b.standing:+d}" for _, b in breakdowns])
    table.add_row("arches", *[f"{b.arches:+d}" for _, b in breakdowns])
    table.add_row("surplus areas", *[f"{b.surplus:+d}" for _, b in breakdowns])
    table.add_row("missing colors", *[f"{b.missing:+d}" for _, b in breakdowns])
    table.add_row("total", *[f"[bold]{b.total}[/]" for _, b in breakdowns], end_section=True)
    return table


def _read_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeralaError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise KeralaError(f"{path}: cannot read: {e}") from None


@app.command()
def score(
    files: Annotated[list[Path], typer.Argument(help="grounds documents (NOTATION.md)")],
    as_json: Annotated[bool, typer.Option("--json", help="print the NOTATION.md fields")] = False,
) -> None:
    """Score festival grounds of a physical game (the score calculator)."""
    results: list[tuple[str, ScoreBreakdown]] = []
    bad = False
    for f in files:
        try:
            g = read_grounds(_read_file(f))
        except KeralaError as e:
            msg = str(e) if str(e).startswith(str(f)) else f"{f}: {e}"
            err_console.print(f"[bold red]error:[/] {msg}", highlight=False)
            bad = True
            continue
        b = score_grounds(g)
        results.append((f.name if len(files) > 1 else str(f), b))
        if as_json:
            print(json.dumps({"file": str(f), "color": g.color, **b.to_json()}))
    if not as_json and results:
        console.print(scoring_pad(results))
        for name, b in results:
            cells = ", ".join(f"({x}, {y})" for x, y in b.removed_cells) or "none"
            console.print(f"{name}: removed cells: {cells}", highlight=False)
    if bad:
        raise typer.Exit(1)


# -- record check ------------------------------------------------------------------------


@record_app.command("check")
def record_check(
    files: Annotated[list[Path], typer.Argument(help="game records (NOTATION.md)")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON line per file")] = False,
) -> None:
    """Replay and validate game records; exit status 1 if any is bad."""
    bad = 0
    for f in files:
        error: str | None = None
        totals: list[int] | None = None
        finished = False
        try:
            rec = read_record(_read_file(f))
            finished = rec.state.is_over()
            if finished:
                totals = [s.total for s in rec.state.scores()]
        except KeralaError as e:
            error = str(e)
        if error is not None:
            bad += 1
        if as_json:
            print(
                json.dumps({"file": str(f), "ok": error is None, "error": error, "totals": totals})
            )
        elif error is None:
            what = f"finished, totals {totals}" if finished else "valid game in progress"
            console.print(f"[green]ok[/]  {f}: {what}", highlight=False)
        else:
            console.print(f"[red]bad[/] {f}: {error}", highlight=False)
    if bad:
        raise typer.Exit(1)


# -- simulate ----------------------------------------------------------------------------


def _simulate_one(args: tuple[int, int, list[str], int, str | None]) -> dict[str, Any]:
    from kerala.bots import make_bot
    from kerala.match import game_seed, play_game

    index, players, bot_specs, seed, records = args
    gs = game_seed(seed, index)
    bots = [make_bot(spec, seed=gs + i + 1) for i, spec in enumerate(bot_specs)]
    state = play_game(bots, seed=gs, colors=list(COLORS[:players]))
    scores = state.scores()
    usage: Counter[str] = Counter()
    for _, decs in state.history():
        prev: Place | None = None
        for d in decs:
            if isinstance(d, Pass):
                usage["pass"] += 1
            elif isinstance(d, Place) and d.take.special is not None:
                usage[f"{d.take.special} placed"] += 1
                prev = d
                continue
            elif isinstance(d, MoveElephant | MoveStack) and prev is not None:
                usage[f"{prev.take.special} used"] += 1
            elif isinstance(d, FollowUpSkip) and prev is not None:
                usage[f"{prev.take.special} skipped"] += 1
            prev = None
    if records:
        doc = write_record(
            state, [{"name": f"{spec} #{i}", "bot": spec} for i, spec in enumerate(bot_specs)]
        )
        Path(records, f"game-{index:05d}.json").write_text(json.dumps(doc, indent=1))
    return {
        "index": index,
        "totals": [s.total for s in scores],
        "ranks": state.ranks(),
        "usage": dict(usage),
    }


@app.command()
def simulate(
    games: Annotated[int, typer.Option(min=1, help="number of games")] = 100,
    players: Annotated[int, typer.Option(min=2, max=5, help="players per game")] = 2,
    bots: Annotated[str, typer.Option(help="bot spec per seat, comma-separated")] = "random",
    seed: Annotated[int, typer.Option(help="seed of the whole series")] = 0,
    records: Annotated[Path | None, typer.Option(help="write every game's record here")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="worker processes")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
) -> None:
    """Play bot games and print a summary (wins, scores, passes, specials)."""
    from kerala.bots import BotSpecError, make_bot

    specs = [s.strip() for s in bots.split(",") if s.strip()]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        fail(f"--bots names {len(specs)} bots for {players} players (give one, or one per seat)")
    for spec in specs:
        try:
            make_bot(spec)
        except BotSpecError as e:
            fail(f"--bots: {e}")
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"--records {records}: {e}")
    tasks = [(i, players, specs, seed, str(records) if records else None) for i in range(games)]
    results: list[dict[str, Any]] = []
    show = console.is_terminal and not as_json
    from rich.progress import Progress

    with Progress(console=console, disable=not show, transient=True) as progress:
        task = progress.add_task("playing", total=games)
        if jobs == 1:
            for t in tasks:
                results.append(_simulate_one(t))
                progress.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for r in pool.map(_simulate_one, tasks, chunksize=max(1, games // (jobs * 8))):
                    results.append(r)
                    progress.advance(task)
    summary = summarize(results, specs)
    if as_json:
        print(json.dumps(summary))
        return
    print_summary(summary)


def summarize(results: list[dict[str, Any]], specs: list[str]) -> dict[str, Any]:
    n = len(specs)
    wins = [0.0] * n
    totals: list[list[int]] = [[] for _ in range(n)]
    usage: Counter[str] = Counter()
    for r in results:
        firsts = [i for i, rk in enumerate(r["ranks"]) if rk == 1]
        for i in firsts:
            wins[i] += 1 / len(firsts)
        for i, t in enumerate(r["totals"]):
            totals[i].append(t)
        usage.update(r["usage"])
    games = len(results)
    seats = []
    for i in range(n):
        seats.append(
            {
                "seat": i,
                "bot": specs[i],
                "wins": wins[i],
                "win_rate": wins[i] / games if games else 0.0,
                "mean_score": statistics.fmean(totals[i]) if totals[i] else 0.0,
                "stdev_score": statistics.pstdev(totals[i]) if totals[i] else 0.0,
            }
        )
    by_bot: dict[str, dict[str, float]] = {}
    for spec in dict.fromkeys(specs):
        idx = [i for i in range(n) if specs[i] == spec]
        scores = [t for i in idx for t in totals[i]]
        by_bot[spec] = {
            "seats": len(idx),
            "wins": sum(wins[i] for i in idx),
            "mean_score": statistics.fmean(scores) if scores else 0.0,
            "stdev_score": statistics.pstdev(scores) if scores else 0.0,
        }
    return {
        "games": games,
        "players": n,
        "seats": seats,
        "bots": by_bot,
        "per_game": {k: v / games for k, v in sorted(usage.items())} if games else {},
    }


def print_summary(summary: dict[str, Any]) -> None:
    t = Table(title=f"{summary['games']} games, {summary['players']} players")
    for col in ("seat", "bot", "wins", "win rate", "mean score", "spread (sd)"):
        t.add_column(col, justify="right" if col != "bot" else "left")
    for s in summary["seats"]:
        t.add_row(
            str(s["seat"]),
            s["bot"],
            f"{s['wins']:g}",
            f"{s['win_rate']:.1%}",
            f"{s['mean_score']:.1f}",
            f"{s['stdev_score']:.1f}",
        )
    console.print(t)
    b = Table(title="by bot")
    for col in ("bot", "seats", "wins", "mean score", "spread (sd)"):
        b.add_column(col)
    for name, v in summary["bots"].items():
        b.add_row(
            name,
            str(v["seats"]),
            f"{v['wins']:g}",
            f"{v['mean_score']:.1f}",
            f"{v['stdev_score']:.1f}",
        )
    console.print(b)
    u = Table(title="per game (all seats)")
    u.add_column("event")
    u.add_column("mean", justify="right")
    for k, v in summary["per_game"].items():
        u.add_row(k, f"{v:.2f}")
    console.print(u)


# -- bench -------------------------------------------------------------------------------


def bench_playouts(players: int, seconds: float, seed: int = 1) -> dict[str, Any]:
    """Uniform random full-game playouts on one core, listing every legal decision."""
    rng = random.Random(seed)
    colors = list(COLORS[:players])
    games = decisions = 0
    place, over = Phase.PLACE, Phase.OVER
    start = time.perf_counter()
    while True:
        s = new_game(colors, rng=rng)
        while True:
            phase = s.phase
            if phase < place:
                s.sample_draw(rng)
                continue
            if phase == over:
                break
            legal = s.legal_decisions()
            s.apply_unchecked(legal[int(rng.random() * len(legal))])
            decisions += 1
        s.scores()
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"games": games, "decisions": decisions, "seconds": elapsed, "players": players}


@app.command()
def bench(
    players: Annotated[int, typer.Option(min=2, max=5)] = 2,
    seconds: Annotated[float, typer.Option(min=0.01)] = 3.0,
    seed: Annotated[int, typer.Option()] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="last line is JSON")] = False,
) -> None:
    """Random full-game playouts: games/s and decisions/s (player decisions, not draws)."""
    r = bench_playouts(players, seconds, seed)
    gps = r["games"] / r["seconds"]
    dps = r["decisions"] / r["seconds"]
    print(
        f"{players} players: {r['games']} games, {r['decisions']} decisions in {r['seconds']:.2f} s"
    )
    print(f"{gps:,.1f} games/s, {dps:,.0f} decisions/s")
    if as_json:
        print(
            json.dumps({"games": r["games"], "decisions": r["decisions"], "seconds": r["seconds"]})
        )


# -- optional parts ----------------------------------------------------------------------

_OPTIONAL_COMMANDS = ("kerala.bots.commands", "kerala.tui.commands", "kerala.server.commands")


def _register_optional() -> None:
    for name in _OPTIONAL_COMMANDS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
                continue  # that part is not written (or not installed) yet
            raise
        mod.register(app)


_register_optional()


def main() -> None:
    try:
        app()
    except KeralaError as e:
        err_console.print(f"[bold red]error:[/] {e}", highlight=False)
        sys.exit(2)
