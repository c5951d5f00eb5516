"""The ``kerala`` command: score calculator, record checker, simulations, benchmark.

Other parts add their own commands (``serve``, ``play``, ``tournament``) by a ``register``
function in their package; each imports its heavy dependencies only when run.

Every error, from the option parser or from a command, is one line on standard error,
``error: <what was wrong, and where>``, never wrapped (docs/terminal.md, "The command line").
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import random
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from kerala.actions import FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.console import (
    console,
    err_console,
    fail,
    print_error,
    progress_bar,
    read_input_file,
    scoring_pad,
)
from kerala.errors import KeralaError, NotationError
from kerala.files import record_name, write_atomic
from kerala.game import Phase, new_game
from kerala.gridtext import looks_like_json, parse_grid
from kerala.grounds import Grounds
from kerala.notation import plain_record, read_grounds, read_record, write_record
from kerala.scoring import ScoreBreakdown, score_grounds
from kerala.tiles import COLORS

try:  # Typer 0.2x carries its own copy of Click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover - older Typer uses Click itself
    from click.exceptions import (  # type: ignore[assignment]
        ClickException,
        NoArgsIsHelpError,
        UsageError,
    )

#: The order of the commands in ``kerala --help``: the README's. Commands not listed (added by
#: a part written later) follow in the order they were added.
COMMAND_ORDER = (
    "serve",
    "play",
    "score",
    "record",
    "simulate",
    "tournament",
    "analyse",
    "bench",
)


class KeralaGroup(TyperGroup):
    """The command list in the README's order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subcommand_metavar = "COMMAND [ARGS]…"

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        known = [n for n in COMMAND_ORDER if n in names]
        return known + [n for n in names if n not in known]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # Each command's whole first sentence, wrapped, never cut with "...".
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _metavar(param: Any) -> str:
    """A parameter's metavariable: its own, else its name in capitals (``--port PORT``)."""
    name = param.metavar or (param.name or "value").upper()
    if param.param_type_name == "argument" and param.nargs != 1 and not name.endswith("…"):
        name += "…"
    return str(name)


class KeralaCommand(TyperCommand):
    """Help with real metavariables: ``FILE…`` and ``--games N``, never types in brackets."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        params = self.get_params(ctx)
        pieces = ["[OPTIONS]"] if any(p.param_type_name == "option" for p in params) else []
        for p in params:
            if p.param_type_name == "argument":
                name = _metavar(p)
                pieces.append(name if p.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for p in self.get_params(ctx):
            if p.param_type_name == "argument":
                args.append((_metavar(p), getattr(p, "help", None) or ""))
                continue
            record = p.get_help_record(ctx)
            if record is None:
                continue
            names = ", ".join(p.opts)
            if p.secondary_opts:
                names += " / " + ", ".join(p.secondary_opts)
            if not getattr(p, "is_flag", False) and not getattr(p, "count", False):
                names += " " + _metavar(p)
            opts.append((names, record[1]))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


app = typer.Typer(
    name="kerala",
    cls=KeralaGroup,
    help="Kerala: The Way of the Elephant — rules engine, notation, bots and play.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
record_app = typer.Typer(
    help="Game records (docs/notation.md).",
    no_args_is_help=True,
    cls=KeralaGroup,
    rich_markup_mode=None,
)
app.add_typer(record_app, name="record")
engine_app = typer.Typer(
    help="The engine's two builds, pure Python and compiled (docs/engine.md, Two builds).",
    no_args_is_help=True,
    cls=KeralaGroup,
    rich_markup_mode=None,
)
app.add_typer(engine_app, name="engine")


def version_text() -> str:
    from kerala import __version__, engineform

    return f"kerala {__version__} (engine: {engineform.describe()})"


def _show_version(value: bool) -> None:
    if value:
        print(version_text())
        raise typer.Exit(0)


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """Kerala: The Way of the Elephant — rules engine, notation, bots and play."""


# -- score -------------------------------------------------------------------------------


def _file_label(path: Path) -> str:
    return "stdin" if str(path) == "-" else str(path)


def read_grounds_file(path: Path) -> Grounds:
    """A grounds document (JSON) or a text grid (docs/terminal.md) from ``path`` or stdin."""
    text = read_input_file(path)
    if looks_like_json(text):
        return read_grounds(text)
    return parse_grid(text)


def grounds_drawing(g: Grounds, removed: Sequence[tuple[int, int]], title: str) -> RenderableType:
    """The grounds as the terminal game draws them, removed surplus cells marked ``x``."""
    from kerala.tui.render import grounds_panel_of, max_cols_for

    # As wide as the terminal allows (a cut is named on the frame), and in full height.
    cols = max_cols_for(console.width)
    return grounds_panel_of(g, title, removed=removed, max_cols=cols, max_rows=1000)


@app.command()
def score(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE…",
            help="grounds: a JSON document (docs/notation.md) or a text grid (docs/terminal.md); "
            "- reads standard input",
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="one JSON line per file: docs/notation.md's fields")
    ] = False,
) -> None:
    """Score festival grounds of a physical game (the score calculator)."""
    results: list[tuple[str, ScoreBreakdown, Grounds]] = []
    bad = False
    if sum(str(f) == "-" for f in files) > 1:
        fail("- (standard input) can be given once")
    for f in files:
        label = _file_label(f)
        try:
            g = read_grounds_file(f)
        except KeralaError as e:
            print_error(f"{label}: {e}")
            bad = True
            continue
        b = score_grounds(g)
        results.append((Path(label).name if len(files) > 1 else label, b, g))
        if as_json:
            print(json.dumps({"file": label, "color": g.color, **b.to_json()}))
    if not as_json and results:
        drawings = [grounds_drawing(g, b.removed_cells, name) for name, b, g in results]
        pad = scoring_pad([(name, b) for name, b, _ in results])
        console.print(_side_by_side([*drawings, pad]))
        for name, b, _ in results:
            cells = ", ".join(f"({x}, {y})" for x, y in b.removed_cells) or "none"
            console.print(
                f"{name}: removed surplus cells (x, SC1): {cells}", highlight=False, soft_wrap=True
            )
    if bad:
        raise typer.Exit(1)


def _side_by_side(items: Sequence[RenderableType]) -> RenderableType:
    """The items in a row when the console is wide enough, else one below the other."""
    widths = [console.measure(i).maximum for i in items]
    if sum(widths) + 2 * (len(items) - 1) <= console.width:
        row = Table.grid(padding=(0, 2))
        for _ in items:
            row.add_column(vertical="top")
        row.add_row(*items)
        return row
    return Group(*items)


# -- record check ------------------------------------------------------------------------


@record_app.command("check")
def record_check(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE…", help="game records (docs/notation.md)")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON line per file")] = False,
) -> None:
    """Replay and validate game records; exit status 1 if any is bad."""
    bad = 0
    for f in files:
        error: str | None = None
        where: dict[str, int | None] = {}
        totals: list[int] | None = None
        finished = False
        try:
            rec = read_record(read_input_file(f))
            finished = rec.state.is_over()
            if finished:
                totals = [s.total for s in rec.state.scores()]
        except NotationError as e:
            error = str(e)  # counts rounds and turns from 1, as the game shows them
            where = {"round": e.round, "turn": e.turn}  # JSON keeps 0-based indexes
        except KeralaError as e:
            error = str(e)
        if error is not None:
            bad += 1
        label = _file_label(f)
        if as_json:
            print(
                json.dumps(
                    {"file": label, "ok": error is None, "error": error, **where, "totals": totals}
                )
            )
        elif error is None:
            what = (
                f"finished, totals {', '.join(map(str, totals or []))}"
                if finished
                else "valid game in progress"
            )
            console.print(
                Text.assemble(("ok", "green"), f"  {label}: {what}"),
                highlight=False,
                soft_wrap=True,
            )
        else:
            console.print(
                Text.assemble(("bad", "red"), f" {label}: {error}"), highlight=False, soft_wrap=True
            )
    if bad:
        raise typer.Exit(1)


# -- record plain ------------------------------------------------------------------------


@record_app.command("plain")
def record_plain(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="a game record (docs/notation.md); - for stdin")
    ],
    out: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="write the plain record here (default: print it)"),
    ] = None,
) -> None:
    """The record without its optional fields (clock, times, analysis), for older readers."""
    if out is not None and out.is_dir():
        fail(f"--out {out}: is a folder; give a file name")
    label = _file_label(file)
    try:
        text = read_input_file(file)
        read_record(text)  # a bad record is refused, not converted
        doc = plain_record(text)
    except KeralaError as e:  # NotationError and InputFileError are KeralaErrors
        fail(f"{label}: {e}", code=1)
    body = json.dumps(doc, indent=1) + "\n"
    if out is None:
        sys.stdout.write(body)
        return
    try:
        write_atomic(out, body)
    except OSError as e:
        fail(f"--out {out}: cannot write: {e.strerror or e}")
    err_console.print(f"plain record written to {out}", highlight=False, soft_wrap=True)


# -- simulate ----------------------------------------------------------------------------


def _simulate_one(args: tuple[int, int, list[str], int, bool]) -> dict[str, Any]:
    from kerala.bots import make_bot
    from kerala.bots.match import game_seed, play_game

    index, players, bot_specs, seed, with_record = args
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
    out: dict[str, Any] = {
        "index": index,
        "totals": [s.total for s in scores],
        "ranks": state.ranks(),
        "usage": dict(usage),
    }
    if with_record:
        # The driver writes it: a worker stopped by Ctrl-C never leaves half a file.
        out["record"] = write_record(
            state, [{"name": f"{spec} #{i}", "bot": spec} for i, spec in enumerate(bot_specs)]
        )
    return out


def _ignore_sigint() -> None:
    # Worker processes leave Ctrl-C to the driver, which stops them and keeps what is finished.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_tasks(
    fn: Callable[[Any], dict[str, Any]], tasks: Sequence[Any], jobs: int
) -> Iterator[dict[str, Any]]:
    """``fn`` over ``tasks``, each result as soon as its task is done (one task at a time per
    worker, so progress moves per finished task). Leaving early stops the workers at once."""
    if jobs == 1:
        for t in tasks:
            yield fn(t)
        return
    import multiprocessing

    pool = multiprocessing.Pool(min(jobs, len(tasks)), initializer=_ignore_sigint)
    try:
        yield from pool.imap_unordered(fn, tasks, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _positive_seconds(value: float) -> float:
    if math.isnan(value):
        raise typer.BadParameter("not a number (nan); give seconds, e.g. 3 or 0.5")
    if math.isinf(value):
        raise typer.BadParameter(f"must be finite, got {value}; give seconds, e.g. 3 or 0.5")
    if value < 0.01:
        raise typer.BadParameter(f"must be at least 0.01 seconds, got {value:g}")
    return value


def _record_path(records: Path, result: dict[str, Any]) -> Path:
    return records / record_name(result["index"])


@app.command()
def simulate(
    games: Annotated[int, typer.Option(min=1, metavar="N", help="number of games")] = 100,
    players: Annotated[
        int, typer.Option(min=2, max=5, metavar="P", help="players per game (2-5)")
    ] = 2,
    bots: Annotated[
        str,
        typer.Option(metavar="BOT,…", help="bot spec per seat, comma-separated, or one for all"),
    ] = "random",
    seed: Annotated[int, typer.Option(metavar="S", help="seed of the whole series")] = 0,
    records: Annotated[
        Path | None, typer.Option(metavar="DIR", help="write every game's record here")
    ] = None,
    jobs: Annotated[int, typer.Option(min=1, metavar="J", help="worker processes")] = 1,
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
        if records.exists() and not records.is_dir():
            fail(f"--records {records}: a file of that name exists; give a folder")
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"--records {records}: cannot create the folder: {e.strerror or e}")
    tasks = [(i, players, specs, seed, records is not None) for i in range(games)]
    results: list[dict[str, Any]] = []
    interrupted = False
    with progress_bar(games, enabled=err_console.is_terminal) as progress:
        task = progress.add_task("games", total=games)
        # A game received but not yet counted when Ctrl-C comes: counted if its record is
        # whole on disk (or none is asked for), so the count always matches the files.
        received: dict[str, Any] | None = None
        try:
            for r in run_tasks(_simulate_one, tasks, jobs):
                received = r
                if records is not None:
                    write_atomic(_record_path(records, r), json.dumps(r.pop("record"), indent=1))
                results.append(r)
                received = None
                progress.advance(task)
        except KeyboardInterrupt:
            interrupted = True
            if (
                received is not None
                and (not results or results[-1] is not received)
                and (records is None or _record_path(records, received).exists())
            ):
                results.append(received)
    results.sort(key=lambda r: r["index"])
    if interrupted:
        where = f"; their records are in {records}" if records is not None and results else ""
        err_console.print(
            f"interrupted: {len(results)} of {games} games finished{where}",
            highlight=False,
            soft_wrap=True,
        )
    summary = summarize(results, specs)
    if as_json:
        if interrupted:
            summary["interrupted"] = True
        print(json.dumps(summary))
    elif results:
        print_summary(summary)
    if interrupted:
        raise typer.Exit(130)


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
    players: Annotated[
        int, typer.Option(min=2, max=5, metavar="P", help="players per game (2-5)")
    ] = 2,
    seconds: Annotated[
        float,
        typer.Option(
            metavar="S", callback=_positive_seconds, help="how long to play, at least 0.01"
        ),
    ] = 3.0,
    seed: Annotated[int, typer.Option(metavar="S", help="seed of the random choices")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="last line is JSON")] = False,
) -> None:
    """Random full-game playouts: games/s and decisions/s (player decisions, not draws)."""
    from kerala import engineform

    print(f"engine: {engineform.describe()}")
    r = bench_playouts(players, seconds, seed)
    gps = r["games"] / r["seconds"]
    dps = r["decisions"] / r["seconds"]
    print(
        f"{players} players: {r['games']} games, {r['decisions']} decisions in {r['seconds']:.2f} s"
    )
    print(f"{gps:,.1f} games/s, {dps:,.0f} decisions/s")
    if as_json:
        print(
            json.dumps(
                {
                    "games": r["games"],
                    "decisions": r["decisions"],
                    "seconds": r["seconds"],
                    "engine": engineform.FORM,
                }
            )
        )


# -- engine ------------------------------------------------------------------------------


@engine_app.command("status")
def engine_status(
    check: Annotated[
        bool,
        typer.Option("--check", help="exit 1 unless the compiled form is built and current"),
    ] = False,
) -> None:
    """Say whether the compiled form is built and current, and which form this process runs."""
    from kerala import engineform

    why = engineform.compiled_status()
    print("compiled form: " + ("built and current" if why is None else why))
    print(f"engine: {engineform.describe()}")
    if check and why is not None:
        raise typer.Exit(1)


@engine_app.command("build")
def engine_build(
    force: Annotated[bool, typer.Option("--force", help="build even when it is current")] = False,
) -> None:
    """Compile the engine with mypyc where this machine can; otherwise say why it stays pure.

    Fails only when the compiler itself fails: a machine without one runs the pure form."""
    from kerala import engineform

    why = engineform.compiled_status()
    if why is None and not force:
        print("the compiled engine is built and current")
        return
    cannot = engineform.unavailable()
    if cannot is not None:
        if why is None:
            print(f"the compiled engine is built and current; it cannot be built again: {cannot}")
        else:
            print(f"the engine runs as pure Python ({why}): {cannot} to compile it")
        return
    try:
        print(engineform.build())
    except engineform.EngineFormError as e:
        print_error(str(e))
        raise typer.Exit(1) from None


# -- optional parts ----------------------------------------------------------------------

#: Parts that add commands by a ``register(app)`` function; a part not installed is left out.
_OPTIONAL_COMMANDS = (
    "kerala.bots.commands",
    "kerala.tui.commands",
    "kerala.server.commands",
    "kerala.bots.analysis_commands",
)


def _register_optional() -> None:
    for name in _OPTIONAL_COMMANDS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
                continue  # that part is not written (or not installed) yet
            raise
        mod.register(app)
    # One help style for every command, whoever added it.
    for typer_app in (app, record_app, engine_app):
        for info in typer_app.registered_commands:
            if info.cls is None or info.cls is TyperCommand:
                info.cls = KeralaCommand


_register_optional()


def _usage_hint(e: Any) -> str:
    ctx = getattr(e, "ctx", None)
    path = ctx.command_path if ctx is not None else "kerala"
    return f" (see {path} --help)"


def main(argv: Sequence[str] | None = None) -> None:
    """The ``kerala`` command (``python -m kerala``)."""
    command = typer.main.get_command(app)
    try:
        code = command.main(
            args=list(argv) if argv is not None else None, prog_name="kerala", standalone_mode=False
        )
    except NoArgsIsHelpError as e:
        e.show()  # the help, as asked by typing the bare command
        sys.exit(0)
    except UsageError as e:
        message = e.format_message().rstrip(".")
        print_error(message[:1].lower() + message[1:] + _usage_hint(e))
        sys.exit(2)
    except ClickException as e:
        print_error(e.format_message())
        sys.exit(e.exit_code)
    except KeralaError as e:
        print_error(str(e))
        sys.exit(2)
    except typer.Abort:
        print_error("aborted (input ended)")
        sys.exit(1)
    except KeyboardInterrupt:
        err_console.print("interrupted", highlight=False)
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (kerala … | head): nothing more to say.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except OSError as e:  # a disk full, a folder that went away: said, not a traceback
        where = f"{e.filename}: " if e.filename else ""
        print_error(f"{where}{e.strerror or e}")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
