"""Tournaments between bots: the schedule, playing games locally or on Ray, resuming, the report.

The ``kerala tournament`` command (:mod:`kerala.bots.commands`) is a thin shell over this module.

**Schedule.** ``--bots`` lists *entries* (bot specs; a spec may repeat, e.g.
``mcts,greedy,greedy,greedy``). A *line-up* is the entries of one game: with as many entries as
players, all of them; with more, every combination of ``players`` entries in turn; with fewer,
the entries repeated in order until every seat is filled. Games come in *blocks* of
``players`` games that share one deal (the same removal and the same draws, from one game seed)
and rotate the line-up over the seats, so that every entry plays every seat equally and luck of
the draw cancels out; from block to block the seat colors rotate too. Game ``i`` is fully
determined by the tournament seed and ``i``: the backend, ``--jobs`` and the order in which
games finish change nothing (bots with a time budget aside, whose search depends on speed).

**Results.** Each finished game is one game record (docs/notation.md, ``players[].bot`` = the entry)
written atomically to ``OUT/records/game-NNNNN.json``. A run with the same ``OUT`` reads them
back and plays only the games missing, so an interruption (Ctrl-C, kill) loses at most the
games in flight and never plays a game twice. ``OUT/tournament.json`` holds the settings; a
run with other bots, players or seed is refused.

**Report** (``report.json``): per bot name (the spec as given), ``games`` (seats played),
``wins`` (a first place shared by k players counts 1/k), ``win_rate`` with a 95% Wilson
interval, ``mean_score``, an OpenSkill rating (:mod:`kerala.ratings`: ``mu``, ``sigma``,
``conservative`` = ``mu - 3 sigma``, ``display``, ``provisional``; every game rated in index
order from the prior of a new player), seats played, and a head-to-head table (share of games in
which a bot placed above another, ties counting half).

>>> plan = schedule(["random", "greedy"], players=2, games=4, seed=1)
>>> [g.entries for g in plan]  # doctest: +NORMALIZE_WHITESPACE
[('random', 'greedy'), ('greedy', 'random'), ('random', 'greedy'), ('greedy', 'random')]
>>> plan[0].seed == plan[1].seed != plan[2].seed
True
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from kerala.bots.match import game_seed
from kerala.errors import KeralaError
from kerala.files import record_name, write_atomic
from kerala.ratings import Rating, rate
from kerala.tiles import COLORS

SETTINGS_FILE: Final = "tournament.json"
REPORT_FILE: Final = "report.json"
RECORDS_DIR: Final = "records"


class TournamentError(KeralaError):
    """A tournament cannot run as asked (bad settings, an output folder of another one)."""


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its index, the entry on each seat, the seat colors and seeds."""

    index: int
    entries: tuple[str, ...]
    colors: tuple[str, ...]
    seed: int
    bot_seeds: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "entries": list(self.entries),
            "colors": list(self.colors),
            "seed": self.seed,
            "bot_seeds": list(self.bot_seeds),
        }


def lineups(entries: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The line-ups of a tournament (see the module docstring)."""
    if len(entries) == players:
        return [tuple(entries)]
    if len(entries) > players:
        return [tuple(entries[i] for i in c) for c in combinations(range(len(entries)), players)]
    return [tuple(entries[i % len(entries)] for i in range(players))]


def schedule(entries: Sequence[str], *, players: int, games: int, seed: int) -> list[GameSpec]:
    """Every game of the tournament, in index order."""
    ups = lineups(entries, players)
    out = []
    for i in range(games):
        block, r = divmod(i, players)
        lineup = ups[block % len(ups)]
        offset = (block // len(ups)) % len(COLORS)
        colors = tuple(COLORS[(s + offset) % len(COLORS)] for s in range(players))
        seated = tuple(lineup[(s + r) % players] for s in range(players))
        deal = game_seed(seed, block)
        bot_base = game_seed(seed ^ 0x5EED, i)
        out.append(
            GameSpec(
                index=i,
                entries=seated,
                colors=colors,
                seed=deal,
                bot_seeds=tuple((bot_base + s + 1) % (1 << 63) for s in range(players)),
            )
        )
    return out


# -- playing one game (runs in a worker process or a Ray task) -----------------------------


def play_scheduled(spec: GameSpec) -> dict[str, Any]:
    """Play one scheduled game; its record (docs/notation.md) with timing, as a JSON-able dict."""
    from kerala.bots import make_bot
    from kerala.bots.match import play_game
    from kerala.notation import write_record

    bots = [make_bot(e, seed=s) for e, s in zip(spec.entries, spec.bot_seeds, strict=True)]
    start = time.perf_counter()
    state = play_game(bots, seed=spec.seed, colors=list(spec.colors))
    seconds = time.perf_counter() - start
    players = [{"name": f"{e} (seat {i})", "bot": e} for i, e in enumerate(spec.entries)]
    record = write_record(state, players)
    return {"index": spec.index, "record": record, "seconds": seconds}


def game_path(out: Path, index: int) -> Path:
    return out / RECORDS_DIR / record_name(index)


def save_game(out: Path, result: dict[str, Any]) -> None:
    write_atomic(game_path(out, result["index"]), json.dumps(result["record"], indent=1))


# -- the output folder -----------------------------------------------------------------


def _settings_words(settings: dict[str, Any]) -> str:
    bots = settings.get("bots")
    bots_text = ",".join(map(str, bots)) if isinstance(bots, list) else repr(bots)
    return f"--bots {bots_text} --players {settings.get('players')} --seed {settings.get('seed')}"


def finished_indices(out: Path) -> list[int]:
    """The indices of the game records in ``out`` (whole files only: leftovers are ``.tmp``)."""
    found = []
    for p in (out / RECORDS_DIR).glob("game-*.json"):
        with contextlib.suppress(ValueError):
            found.append(int(p.stem.removeprefix("game-")))
    return sorted(found)


def prepare_out(out: Path, settings: dict[str, Any]) -> None:
    """Create ``out``, or check that it holds the same tournament, no bigger than asked.

    Resuming never shrinks what is there: a run asking for fewer games than the folder's
    tournament (its settings, or the records on disk) is refused; asking for more extends it.
    Nothing is written before every check has passed.
    """
    if out.exists() and not out.is_dir():
        raise TournamentError(f"--out {out}: a file of that name exists; give a folder")
    f = out / SETTINGS_FILE
    if f.exists():
        try:
            old = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise TournamentError(f"--out {out}: unreadable {SETTINGS_FILE}: {e}") from None
        keys = ("bots", "players", "seed")
        if not isinstance(old, dict) or any(old.get(k) != settings[k] for k in keys):
            shown = _settings_words(old) if isinstance(old, dict) else "unknown settings"
            raise TournamentError(
                f"--out {out} holds another tournament ({shown}); "
                "use the same --bots, --players and --seed to resume it, or another --out"
            )
        on_disk = finished_indices(out) if (out / RECORDS_DIR).is_dir() else []
        old_games = old.get("games")
        least = max(
            old_games if isinstance(old_games, int) else 0,
            on_disk[-1] + 1 if on_disk else 0,
        )
        if settings["games"] < least:
            raise TournamentError(
                f"--out {out} holds a tournament of {least} games ({len(on_disk)} finished); "
                f"a run with --games {settings['games']} would report fewer than are there: "
                f"ask for --games {least} (to resume) or more (to extend it), or use another --out"
            )
    try:
        (out / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TournamentError(f"--out {out}: cannot create the folder: {e.strerror or e}") from None
    # Leftovers of writes cut short by a kill are never whole games: drop them.
    for tmp in (out / RECORDS_DIR).glob(".game-*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()
    write_atomic(f, json.dumps(settings, indent=1))


def load_finished(out: Path, plan: Sequence[GameSpec]) -> dict[int, dict[str, Any]]:
    """The games of ``plan`` already finished in ``out`` (their records), by index.

    A file that does not hold the scheduled game whole is refused with its name.
    """
    from kerala.notation import read_record

    done: dict[int, dict[str, Any]] = {}
    for spec in plan:
        p = game_path(out, spec.index)
        if not p.exists():
            continue
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
            rec = read_record(doc)
        except (OSError, ValueError) as e:
            raise TournamentError(
                f"{p}: not a valid game record ({e}); delete it to play the game again"
            ) from None
        bots = tuple(pl.get("bot") for pl in rec.players)
        colors = tuple(pl["color"] for pl in rec.players)
        if bots != spec.entries or colors != spec.colors or not rec.state.is_over():
            raise TournamentError(
                f"{p}: holds another game than the one scheduled "
                f"({list(spec.entries)} as {list(spec.colors)}); delete it to play it again"
            )
        done[spec.index] = {"index": spec.index, "record": doc, "seconds": None}
    return done


# -- running ---------------------------------------------------------------------------


ProgressFn = Callable[[dict[str, Any]], None]


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the driver, which stops them and keeps what is finished.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tournament: ``finished`` games are done (with an output folder, those
    whose records are on disk)."""

    def __init__(self, finished: int) -> None:
        super().__init__(finished)
        self.finished = finished


def run_local(specs: Sequence[GameSpec], jobs: int, on_done: ProgressFn) -> None:
    """Play ``specs`` here: in this process (``jobs=1``) or ``jobs`` worker processes.

    On an interruption the workers are stopped at once; their games in flight are lost.
    """
    if jobs <= 1:
        for spec in specs:
            on_done(play_scheduled(spec))
        return
    import multiprocessing

    with multiprocessing.Pool(jobs, initializer=_ignore_sigint) as pool:
        # Leaving the block (an exception included) terminates the workers.
        for result in pool.imap_unordered(play_scheduled, specs):
            on_done(result)


def run_ray(
    specs: Sequence[GameSpec],
    jobs: int | None,
    address: str | None,
    on_done: ProgressFn,
    *,
    init_kwargs: dict[str, Any] | None = None,
) -> None:
    """Play ``specs`` as Ray tasks: on the cluster at ``address``, else a local Ray instance.

    The driver (this process) writes every result, so workers need no shared file system;
    every node needs ``kerala`` importable.
    """
    try:
        import ray
    except ImportError:
        raise TournamentError(
            "--backend ray needs the 'ray' package (pip install kerala[ray])"
        ) from None
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        elif jobs is not None:
            kwargs["num_cpus"] = jobs
        kwargs.update(init_kwargs or {})
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise TournamentError(f"--backend ray: cannot start or join {where}: {e}") from None
        started_here = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(play_scheduled)
        pending = [task.remote(spec) for spec in specs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                on_done(ray.get(ref))
    except BaseException:
        for ref in locals().get("pending", []):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()


# -- the report ------------------------------------------------------------------------


def wilson(wins: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (``wins`` may be fractional).

    >>> [round(x, 3) for x in wilson(50, 100)]
    [0.404, 0.596]
    """
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def _games_of(
    results: Iterable[dict[str, Any]],
) -> Iterator[tuple[list[str], list[int], list[int]]]:
    for r in sorted(results, key=lambda r: r["index"]):
        rec = r["record"]
        names = [p["bot"] for p in rec["players"]]
        totals = [s["total"] for s in rec["result"]["scores"]]
        ranks = list(rec["result"]["ranks"])
        yield names, totals, ranks


#: What ``report.json`` says about its ratings (docs/ratings.md).
RATING_SYSTEM: Final = (
    "OpenSkill Plackett-Luce (openskill package via kerala.ratings: mu 25, sigma 25/3, "
    "beta 25/6, tau 25/300, sigma never grows; shared places as the mean over their orders); "
    "games rated in index order; conservative = mu - 3 sigma; display = 1500 + 30 (mu - 25)"
)


def rate_in_order(
    games: Iterable[tuple[Sequence[str], Sequence[int]]], names: Iterable[str]
) -> dict[str, Rating]:
    """Rate ``(seat names, SC7 placings)`` game after game, every name from a new player's prior.

    Each seat is rated on its own; a name on several seats of one game (``greedy,greedy``) takes
    the mean of their updates.

    >>> r = rate_in_order([(["a", "b"], [1, 2]), (["b", "a"], [2, 1])], ["a", "b"])
    >>> r["a"].mu > 25 > r["b"].mu
    True
    """
    rating = {n: Rating() for n in names}
    for seat_names, ranks in games:
        new = rate([rating.setdefault(n, Rating()) for n in seat_names], ranks)
        updates: dict[str, list[Rating]] = {}
        for n, r in zip(seat_names, new, strict=True):
            updates.setdefault(n, []).append(r)
        for n, rs in updates.items():
            rating[n] = Rating(
                mu=statistics.fmean(r.mu for r in rs), sigma=statistics.fmean(r.sigma for r in rs)
            )
    return rating


def build_report(
    results: Iterable[dict[str, Any]], entries: Sequence[str], settings: dict[str, Any]
) -> dict[str, Any]:
    """The tournament report (``report.json``) from finished games (see the module docstring)."""
    names = list(dict.fromkeys(entries))
    games = 0
    seats_played = {n: 0 for n in names}
    wins = dict.fromkeys(names, 0.0)
    scores: dict[str, list[int]] = {n: [] for n in names}
    by_seat: dict[str, dict[str, int]] = {n: {} for n in names}
    h2h: dict[str, dict[str, list[float]]] = {a: {b: [0.0, 0.0] for b in names} for a in names}
    played: list[tuple[list[str], list[int]]] = []
    for seat_names, totals, ranks in _games_of(results):
        games += 1
        played.append((seat_names, ranks))
        firsts = ranks.count(1)
        for s, (n, t, rk) in enumerate(zip(seat_names, totals, ranks, strict=True)):
            seats_played[n] += 1
            scores[n].append(t)
            by_seat[n][str(s)] = by_seat[n].get(str(s), 0) + 1
            if rk == 1:
                wins[n] += 1 / firsts
        for i, a in enumerate(seat_names):
            for j, b in enumerate(seat_names):
                if i != j and a != b:
                    cell = h2h[a][b]
                    cell[0] += 1
                    ti, tj = totals[i], totals[j]
                    cell[1] += 1.0 if ti > tj else 0.5 if ti == tj else 0.0
    rating = rate_in_order(played, names)
    bots: dict[str, Any] = {}
    for n in names:
        g = seats_played[n]
        lo, hi = wilson(wins[n], g)
        sc = scores[n]
        r = rating[n]
        bots[n] = {
            "games": g,
            "wins": wins[n],
            "win_rate": wins[n] / g if g else 0.0,
            "win_rate_ci95": [lo, hi],
            "mean_score": statistics.fmean(sc) if sc else 0.0,
            "stdev_score": statistics.pstdev(sc) if sc else 0.0,
            "min_score": min(sc) if sc else 0,
            "max_score": max(sc) if sc else 0,
            "seats": dict(sorted(by_seat[n].items())),
            "rating": {
                "mu": r.mu,
                "sigma": r.sigma,
                "conservative": r.conservative,
                "display": r.display,
                "provisional": r.provisional,
            },
        }
    head: dict[str, dict[str, Any]] = {}
    for a in names:
        row = {}
        for b in names:
            cnt, won = h2h[a][b]
            if a != b and cnt:
                row[b] = {"games": int(cnt), "wins": won, "rate": won / cnt}
        head[a] = row
    return {
        "format": "kerala-tournament-report",
        "version": 2,
        "games": games,
        "players": settings["players"],
        "seed": settings["seed"],
        "entries": list(entries),
        "bots": bots,
        "head_to_head": head,
        "rating_system": RATING_SYSTEM,
    }


def require_plotting() -> None:
    """Refuse ``--out`` (which draws the plots) before any game when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise TournamentError(
            "--out draws scores.png and ratings.png, which needs matplotlib: "
            "pip install 'kerala[plot]', or leave out --out"
        ) from None


def plot_report(report: dict[str, Any], results: Iterable[dict[str, Any]], out: Path) -> None:
    """``scores.png`` (score distribution per bot) and ``ratings.png`` (mu ± 3 sigma)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["bots"])
    scores: dict[str, list[int]] = {n: [] for n in names}
    for seat_names, totals, _ in _games_of(results):
        for n, t in zip(seat_names, totals, strict=True):
            scores[n].append(t)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(names) + 2), 4.5))
    data = [scores[n] or [0] for n in names]
    parts = ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=15)
    ax.set_ylabel("final score")
    ax.set_title(f"Score distribution per bot ({report['games']} games)")
    ax.grid(axis="y", alpha=0.3)
    # A legend for the markers: what the line, the triangle, the box and the circles mean.
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    median = parts["medians"][0]
    mean = parts["means"][0]
    handles = [
        Line2D([], [], color=median.get_color(), linewidth=median.get_linewidth(), label="median"),
        Line2D(
            [],
            [],
            linestyle="none",
            marker=mean.get_marker(),
            markerfacecolor=mean.get_markerfacecolor(),
            markeredgecolor=mean.get_markeredgecolor(),
            label="mean",
        ),
        Patch(facecolor="none", edgecolor="black", label="middle half (25th-75th percentile)"),
        Line2D([], [], color="black", label="whiskers: within 1.5 box heights"),
        Line2D(
            [],
            [],
            linestyle="none",
            marker="o",
            markerfacecolor="none",
            markeredgecolor="black",
            label="outliers",
        ),
    ]
    ax.legend(handles=handles, loc="best", fontsize="small", framealpha=0.8)
    fig.tight_layout()
    write_png(fig, out / "scores.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(names) + 2), 4.5))
    mus = [report["bots"][n]["rating"]["mu"] for n in names]
    err = [3 * report["bots"][n]["rating"]["sigma"] for n in names]
    ax.errorbar(range(len(names)), mus, yerr=err, fmt="o", capsize=6)
    ax.set_xticks(range(len(names)), names, rotation=15)
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("OpenSkill μ ± 3σ")
    ax.set_title("Ratings")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    write_png(fig, out / "ratings.png")
    plt.close(fig)


def write_png(fig: Any, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fig.savefig(tmp, format="png", dpi=100)
    os.replace(tmp, path)


# -- the whole run ---------------------------------------------------------------------


@dataclass
class Outcome:
    """What :func:`run_tournament` did: the report and how many games it played now."""

    report: dict[str, Any]
    played: int
    resumed: int
    results: list[dict[str, Any]]


def run_tournament(
    entries: Sequence[str],
    *,
    players: int,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    backend: str = "local",
    address: str | None = None,
    out: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    ray_init: dict[str, Any] | None = None,
) -> Outcome:
    """Run (or resume, with ``out``) a tournament and return its report.

    ``on_progress(done, total)`` is called once with the games already done and after every
    game. Ctrl-C raises :class:`Interrupted` (a ``KeyboardInterrupt``) after the finished games
    are saved.
    """
    from kerala.bots import BotSpecError, make_bot

    if not 2 <= players <= 5:
        raise TournamentError(f"--players must be 2 to 5, got {players}")
    if games < 1:
        raise TournamentError(f"--games must be at least 1, got {games}")
    if jobs < 1:
        raise TournamentError(f"--jobs must be at least 1, got {jobs}")
    if backend not in ("local", "ray"):
        raise TournamentError(f"--backend must be 'local' or 'ray', got {backend!r}")
    if address and backend != "ray":
        raise TournamentError("--address is only for --backend ray")
    if not entries:
        raise TournamentError("--bots names no bot")
    if len(entries) < 2:
        # One entry would only play itself; a repeated one (random,random) is asked for.
        other = "greedy" if entries[0] == "random" else "random"
        raise TournamentError(
            f"--bots names only {entries[0]!r}: a tournament needs at least two bots, "
            f"e.g. --bots {entries[0]},{other}"
        )
    for e in entries:
        try:
            make_bot(e, seed=0)
        except BotSpecError as err:
            raise TournamentError(f"--bots: {err}") from None
    if out is not None:
        require_plotting()
    settings = {"bots": list(entries), "players": players, "seed": seed, "games": games}
    plan = schedule(entries, players=players, games=games, seed=seed)
    done: dict[int, dict[str, Any]] = {}
    if out is not None:
        prepare_out(out, settings)
        done = load_finished(out, plan)
    resumed = len(done)
    todo = [g for g in plan if g.index not in done]
    if on_progress:
        on_progress(len(done), games)

    def on_done(result: dict[str, Any]) -> None:
        if out is not None:
            save_game(out, result)
        done[result["index"]] = result
        if on_progress:
            on_progress(len(done), games)

    try:
        if backend == "ray":
            run_ray(todo, jobs, address, on_done, init_kwargs=ray_init)
        else:
            run_local(todo, jobs, on_done)
    except KeyboardInterrupt:
        # Counted from the disk: a Ctrl-C just after a record took its name, before the game
        # was counted here, still leaves a finished game that a resume keeps.
        saved = sum(game_path(out, g.index).exists() for g in plan) if out else len(done)
        raise Interrupted(saved) from None
    results = [done[i] for i in sorted(done)]
    report = build_report(results, entries, settings)
    if out is not None:
        write_atomic(out / REPORT_FILE, json.dumps(report, indent=1))
        plot_report(report, results, out)
    return Outcome(report=report, played=len(todo), resumed=resumed, results=results)


__all__ = [
    "GameSpec",
    "Outcome",
    "TournamentError",
    "build_report",
    "lineups",
    "play_scheduled",
    "rate_in_order",
    "run_tournament",
    "schedule",
    "wilson",
]
