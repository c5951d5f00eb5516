"""Game records and grounds documents (docs/notation.md): read, write, validate.

This module owns the JSON forms only; every rule question is asked of the engine
(:mod:`kerala.game`, :mod:`kerala.scoring`). A reader replays a record through the rules and
refuses a bad document with a :class:`~kerala.errors.NotationError` naming the round, the turn
and the reason.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=2); s.advance_chance()
>>> s.apply(s.legal_decisions()[0])
>>> doc = write_record(s, [{"name": "Ada"}, {"name": "Bo"}])
>>> doc["rounds"][0]["turns"]
[{'seat': 0, 'take': 'blue:e1', 'to': [0, -1], 'from': [0, 0]}]
>>> "removed" in doc  # a game in progress under random removal keeps them hidden (I2)
False
>>> read_record(doc).state.turn
1
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from kerala.actions import (
    DecisionSyntaxError,
    FollowUpSkip,
    Place,
    parse_cell,
    turn_from_json,
    turn_to_json,
)
from kerala.errors import (
    IllegalDecisionError,
    IllegalDrawError,
    IllegalRemovalError,
    KeralaError,
    NotationError,
    SetupError,
    TileSetError,
    shown_as_json,
)
from kerala.game import REMOVAL_COUNT, GameState, Phase, replay
from kerala.grounds import Grounds, Placed, cell, key, key_object
from kerala.scoring import ScoreBreakdown, rank, score_grounds, score_removal
from kerala.tiles import COLORS, EDGES, START, TILE_TYPES, TileSet, TileType, load_tileset

RECORD_FORMAT = "kerala-record"
GROUNDS_FORMAT = "kerala-grounds"
VERSION = 1
_SCORE_FIELDS = ("total", "surplus", "missing", "standing", "arches", "symbols")


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema shipped for ``"record"`` or ``"grounds"``."""
    text = resources.files("kerala").joinpath("schemas", f"{name}.schema.json").read_text()
    result: dict[str, Any] = json.loads(text)
    return result


# -- parsing helpers ---------------------------------------------------------------------


def load_json(text: str | bytes, source: str = "document") -> Any:
    """Parse JSON text, turning a syntax error into a :class:`NotationError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise NotationError(
            # Some messages end in "at" already ("Unterminated string starting at").
            f"malformed JSON in {source}: {e.msg.removesuffix(' at')} at line {e.lineno}, "
            f"column {e.colno}"
        ) from None
    except UnicodeDecodeError as e:
        raise NotationError(f"{source} is not UTF-8 text: {e.reason}") from None
    except RecursionError:
        raise NotationError(f"malformed JSON in {source}: nested too deeply") from None
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise NotationError(f"malformed JSON in {source}: {e}") from None


def _as_doc(doc: str | bytes | Mapping[str, Any], expected: str) -> dict[str, Any]:
    if isinstance(doc, str | bytes):
        doc = load_json(doc)
    if not isinstance(doc, Mapping):
        raise NotationError(f"a {expected} document must be a JSON object")
    d = dict(doc)
    for name in ("format", "version"):
        if name not in d:
            raise NotationError(f"the document has no '{name}' field: a {expected} has one")
    fmt = d["format"]
    if fmt != expected:
        raise NotationError(
            f"unknown format {shown_as_json(fmt)}: expected {shown_as_json(expected)}"
        )
    if d["version"] != VERSION:
        raise NotationError(
            f"unsupported {expected} version {shown_as_json(d['version'])}"
            f": this reader knows {VERSION}"
        )
    return d


def _tile(name: object, where: str, r: int | None = None, t: int | None = None) -> TileType:
    tt = TILE_TYPES.get(name) if isinstance(name, str) else None
    if tt is None:
        raise NotationError(f"unknown tile {name!r} in {where}", r, t)
    return tt


def _cell(value: object, where: str) -> tuple[int, int]:
    try:
        return parse_cell(value, where)
    except DecisionSyntaxError as e:
        raise NotationError(str(e)) from None


# -- grounds documents -------------------------------------------------------------------


def read_grounds(doc: str | bytes | Mapping[str, Any], tileset: TileSet | None = None) -> Grounds:
    """Validate a grounds document and build the :class:`~kerala.grounds.Grounds` it shows."""
    d = _as_doc(doc, GROUNDS_FORMAT)
    allowed = {"format", "version", "color", "passes", "elephants", "stacks"}
    extra = sorted(set(d) - allowed)
    if extra:
        raise NotationError(f"unexpected field(s) in grounds: {', '.join(extra)}")
    color = d.get("color")
    if color not in COLORS:
        raise NotationError(f"'color' must be one of {', '.join(COLORS)}, got {color!r}")
    passes = d.get("passes", 0)
    if not isinstance(passes, int) or isinstance(passes, bool) or not 0 <= passes <= 2:
        raise NotationError(f"'passes' must be 0, 1 or 2, got {passes!r}")
    stacks_doc = d.get("stacks")
    if not isinstance(stacks_doc, list) or not stacks_doc:
        raise NotationError("'stacks' must be a non-empty list")
    stacks: dict[int, tuple[Placed, ...]] = {}
    counts: Counter[TileType] = Counter()
    starts = 0
    for i, st in enumerate(stacks_doc):
        where = f"stacks[{i}]"
        if not isinstance(st, dict) or set(st) != {"at", "tiles"}:
            raise NotationError(f"{where} must be an object with 'at' and 'tiles'")
        at = _cell(st["at"], f"{where}.at")
        k = key_object(key(at))
        if k in stacks:
            raise NotationError(f"{where}: cell {list(at)} is listed twice")
        tiles = st["tiles"]
        if not isinstance(tiles, list) or not tiles:
            raise NotationError(f"{where}.tiles must be a non-empty list (bottom to top)")
        placed: list[Placed] = []
        for j, name in enumerate(tiles):
            twhere = f"{where}.tiles[{j}]"
            if not isinstance(name, str):
                raise NotationError(f"{twhere} must be a tile name string")
            base, at_sign, edge = name.partition("@")
            tt = _tile(base, twhere)
            if tt.is_arch:
                if not at_sign or edge not in EDGES:
                    raise NotationError(
                        f"{twhere}: the arch tile {base} needs its edge, e.g. {base}@N"
                    )
                placed.append((tt, edge))
            else:
                if at_sign:
                    raise NotationError(f"{twhere}: {base} is not an arch and takes no @edge")
                placed.append((tt, None))
            if tt.kind == START:
                starts += 1
                if tt.color != color:
                    raise NotationError(f"{twhere}: the start tile must be {color}, not {tt.color}")
                if j != 0:
                    raise NotationError(f"{twhere}: the start tile lies at the bottom of its stack")
            else:
                counts[tt] += 1
        stacks[k] = tuple(placed)
    if starts != 1:
        raise NotationError(f"the grounds must hold exactly one start tile, found {starts}")
    ts = tileset or load_tileset("standard")
    for tt, n in sorted(counts.items(), key=lambda p: p[0].index):
        if n > ts.count(tt):
            raise NotationError(
                f"{n} tiles {tt.name}, but the tile set {ts.name!r} has only {ts.count(tt)}"
            )
    elephants_doc = d.get("elephants")
    elephants: list[int] = []
    if elephants_doc is not None:
        if not isinstance(elephants_doc, list) or len(elephants_doc) != 2:
            raise NotationError("'elephants' must list the cells of both elephants")
        for i, e in enumerate(elephants_doc):
            c = _cell(e, f"elephants[{i}]")
            if key(c) not in stacks:
                raise NotationError(f"elephants[{i}]: no stack at {list(c)}")
            elephants.append(key_object(key(c)))
        if elephants[0] == elephants[1] and len(stacks) > 1:
            raise NotationError("two elephants share a cell only before the first placement (P4)")
    g = Grounds(color, stacks, elephants, passes)
    if not g.is_connected():
        raise NotationError("the grounds are not orthogonally connected")
    return g


def write_grounds(g: Grounds) -> dict[str, Any]:
    """The grounds document of ``g``."""
    doc: dict[str, Any] = {
        "format": GROUNDS_FORMAT,
        "version": VERSION,
        "color": g.color,
        "passes": g.passes,
    }
    if g.elephants:
        doc["elephants"] = [list(cell(k)) for k in g.elephants]
    doc["stacks"] = [
        {"at": list(cell(k)), "tiles": [t.name + (f"@{e}" if e else "") for t, e in s]}
        for k, s in sorted(g.stacks.items(), key=lambda p: cell(p[0]))
    ]
    return doc


# -- game records ------------------------------------------------------------------------


@dataclass
class Record:
    """A record read and replayed: the players, and the game state it leads to."""

    players: list[dict[str, Any]]
    state: GameState
    #: ``True`` when the last turn's follow-up is still to be chosen.
    follow_up_pending: bool = False
    result: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def write_record(
    state: GameState,
    players: Sequence[Mapping[str, Any]] | None = None,
    *,
    include_removed: bool | None = None,
    clock: Mapping[str, Any] | None = None,
    times: Sequence[float | None] | None = None,
) -> dict[str, Any]:
    """The game record of ``state``.

    ``players`` gives each seat's ``name`` (and ``bot``); colors come from the state.
    ``clock`` (the time control and its events) and ``times`` (seconds per decision, in order)
    are the optional clock fields of docs/notation.md.
    Randomly removed tiles are written only for a finished game (or when
    ``include_removed=True``), never for a game in progress (docs/rules.md I2).
    """
    seats = []
    for i, color in enumerate(state.colors):
        p = dict(players[i]) if players is not None and i < len(players) else {}
        entry: dict[str, Any] = {"name": str(p.get("name", f"Player {i + 1}")), "color": color}
        if p.get("bot"):
            entry["bot"] = str(p["bot"])
        seats.append(entry)
    doc: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": VERSION,
        "tileset": state.tileset.name,
        "players": seats,
        "removal": state.removal,
    }
    if include_removed is None:
        include_removed = state.removal == "chosen" or state.is_over()
    if (
        include_removed
        and state.removal_known
        and state.phase != Phase.REMOVAL
        and state.to_remove > 0
    ):
        doc["removed"] = [t.name for t in state.removed]
    elif include_removed and state.removal_known and state.to_remove == 0:
        doc["removed"] = []
    if clock is not None:
        doc["clock"] = dict(clock)
    rounds = []
    pending = False
    done = 0  # decisions written before this round's
    for drawn, decs in state.history():
        turns: list[dict[str, Any]] = []
        i = 0
        while i < len(decs):
            d = decs[i]
            if isinstance(d, Place) and d.take.special is not None:
                if i + 1 < len(decs):
                    turns.append(turn_to_json(decs[i], decs[i + 1]))
                    i += 2
                    continue
                t = d.to_json()
                t["follow_up"] = "pending"
                pending = True
                turns.append(t)
            else:
                turns.append(d.to_json())
            i += 1
        if times is not None:
            _add_times(turns, decs, times, done)
        done += len(decs)
        rounds.append({"drawn": [t.name for t in drawn], "turns": turns})
    doc["rounds"] = rounds
    del pending
    if state.is_over():
        scores = state.scores()
        ranks = rank([s.total for s in scores])
        doc["result"] = {
            "scores": [{"seat": i, **s.to_json()} for i, s in enumerate(scores)],
            "ranks": ranks,
        }
    return doc


#: The optional fields of a record (docs/notation.md, "Optional extensions"): at the top level,
#: and on a turn. A reader of version 1 from before them refuses them as unknown fields.
RECORD_EXTENSIONS = ("analysis", "clock")
TURN_EXTENSIONS = ("time",)


def plain_record(doc: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The plain form of a record: a copy without its optional fields, which every reader of
    format version 1 reads (docs/notation.md, "The plain form"). The game, the players and the
    result are the same; the clock's settings and events, each turn's time and an analysis are
    left out. It checks the document's format, version and rounds, not the game (that is
    :func:`read_record`'s work); the record handed in is left as it was.

    >>> from kerala.game import new_game
    >>> s = new_game(["blue", "red"], seed=2); s.advance_chance()
    >>> s.apply(s.legal_decisions()[0])
    >>> doc = write_record(s, clock={"kind": "correspondence", "hours": 24}, times=[3.5])
    >>> doc["rounds"][0]["turns"][0]["time"], "clock" in doc
    (3.5, True)
    >>> plain = plain_record(doc)
    >>> plain["rounds"][0]["turns"][0], "clock" in plain
    ({'seat': 0, 'take': 'blue:e1', 'to': [0, -1], 'from': [0, 0]}, False)
    """
    d = _as_doc(doc, RECORD_FORMAT)
    out = {k: v for k, v in d.items() if k not in RECORD_EXTENSIONS}
    rounds = out.get("rounds")
    if not isinstance(rounds, list):
        raise NotationError("'rounds' must be a list")
    plain_rounds = []
    for r, rd in enumerate(rounds):
        if not isinstance(rd, dict) or not isinstance(rd.get("turns", []), list):
            raise NotationError("a round is an object with 'drawn' and 'turns'", r)
        rd = dict(rd)
        if "turns" in rd:
            rd["turns"] = [
                {k: v for k, v in t.items() if k not in TURN_EXTENSIONS}
                if isinstance(t, dict)
                else t
                for t in rd["turns"]
            ]
        plain_rounds.append(rd)
    out["rounds"] = plain_rounds
    return copy.deepcopy(out)  # shares nothing with the record handed in


def _add_times(
    turns: list[dict[str, Any]], decs: Sequence[Any], times: Sequence[float | None], first: int
) -> None:
    """Each turn's optional ``time``: the seconds of its decisions (a placement and its
    follow-up are one turn), where known."""
    i = 0
    for turn in turns:
        d = decs[i]
        n = 2 if isinstance(d, Place) and d.take.special is not None and i + 1 < len(decs) else 1
        got = [t for t in times[first + i : first + i + n] if t is not None]
        if got:
            turn["time"] = round(sum(got), 3)
        i += n


#: The fields of each kind of clock event besides ``at``, ``seat`` and ``kind``
#: (docs/notation.md, "Clock fields"): a timeout, a hand-over by a player, a take-back.
CLOCK_EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "timeout": ("bot",),
    "handover": ("bot", "by"),
    "back": (),
}


def _clock_field(clock: object, seats: int, decisions: int) -> dict[str, Any]:
    """The optional ``clock`` field (docs/notation.md, "Clock fields"), checked; ``seats`` is
    the number of players (the seats its events may name), ``decisions`` the number of
    decisions the record holds (an event's ``at`` is a position among them, in order)."""
    if not isinstance(clock, dict) or clock.get("kind") not in ("realtime", "correspondence"):
        raise NotationError("'clock' must be an object whose 'kind' is realtime or correspondence")
    for fld in ("minutes", "increment", "hours"):
        v = clock.get(fld, 0)
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise NotationError(
                f"clock.{fld} must be a number of at least 0, got {shown_as_json(v)}"
            )
    events = clock.get("events", [])
    if not isinstance(events, list):
        raise NotationError(f"clock.events must be a list, got {shown_as_json(events)}")
    last = 0
    for i, e in enumerate(events):
        where = f"clock.events[{i}]"
        _clock_event(e, where, seats)
        at = e["at"]
        if at > decisions:
            raise NotationError(
                f"{where}.at must be at most {decisions} (the decisions in the record), got {at}"
            )
        if at < last:
            raise NotationError(
                f"{where}.at must not be before the event above it (at {last}): events are "
                f"in order, got {at}"
            )
        last = at
    return clock


def _clock_event(e: object, where: str, seats: int) -> None:
    """One clock event: its kind, and exactly that kind's fields, each of the right type."""
    if not isinstance(e, dict):
        raise NotationError(f"{where} must be an object, got {shown_as_json(e)}")
    kind = e.get("kind")
    if kind not in CLOCK_EVENT_FIELDS:
        kinds = ", ".join(CLOCK_EVENT_FIELDS)
        raise NotationError(f"{where}.kind must be one of {kinds}, got {shown_as_json(kind)}")
    fields = ("at", "seat", *CLOCK_EVENT_FIELDS[kind])
    extra = sorted(set(e) - {"kind", *fields})
    if extra:
        raise NotationError(f"{where}: unexpected field(s) for {kind}: {', '.join(extra)}")
    for fld in fields:
        if fld not in e:
            raise NotationError(f"{where}.{fld} is missing")
        v = e[fld]
        if fld == "bot":
            if not isinstance(v, str) or not v:
                raise NotationError(f"{where}.bot must be a bot level name, got {shown_as_json(v)}")
            continue
        whole = isinstance(v, int) and not isinstance(v, bool)
        if fld == "at" and not (whole and v >= 0):
            raise NotationError(
                f"{where}.at must be a number of decisions (>= 0), got {shown_as_json(v)}"
            )
        if fld in ("seat", "by") and not (whole and 0 <= v < seats):
            raise NotationError(
                f"{where}.{fld} must be a seat number from 0 to {seats - 1}, got {shown_as_json(v)}"
            )


def _players(d: dict[str, Any]) -> list[dict[str, Any]]:
    players = d.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 5:
        raise NotationError("'players' must list 2 to 5 players in seat order (S1)")
    out = []
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise NotationError(f"players[{i}] must be an object")
        extra = sorted(set(p) - {"name", "color", "bot"})
        if extra:
            raise NotationError(f"players[{i}]: unexpected field(s) {', '.join(extra)}")
        if not isinstance(p.get("name"), str):
            raise NotationError(f"players[{i}].name must be a string")
        if p.get("color") not in COLORS:
            raise NotationError(f"players[{i}].color must be one of {', '.join(COLORS)}")
        if "bot" in p and not isinstance(p["bot"], str):
            raise NotationError(f"players[{i}].bot must be a string")
        out.append(dict(p))
    colors = [p["color"] for p in out]
    if len(set(colors)) != len(colors):
        raise NotationError("every player needs a distinct color (S1)")
    return out


def _check_draws_possible(
    rounds: list[Any], ts: TileSet, colors: set[str], k: int, removed: list[TileType] | None
) -> tuple[list[TileType], NotationError | None]:
    """Round by round, check the draws could come from the bag: a removal to replay with, and
    the error of the first round whose draws the bag could not have produced (or ``None``).

    Without the removed tiles (a record for a player's eyes, I2) any removal consistent with
    the draws will do: the replay then does not depend on which. The removal returned is
    consistent with every round before the impossible one, so the replay can go on up to it:
    a turn that breaks the rules there is the first point where the record goes wrong.
    """
    drawn: Counter[TileType] = Counter()
    error: NotationError | None = None
    for r, rd in enumerate(rounds):
        try:
            now = Counter(_tile(name, "drawn", r) for name in rd["drawn"])
        except NotationError as e:
            error = e
            break
        for tt, n in now.items():
            avail = ts.count(tt) - (removed.count(tt) if removed is not None else 0)
            if drawn[tt] + n > avail:
                error = NotationError(
                    f"a draw the bag could not have produced: {drawn[tt] + n} × {tt.name}, "
                    f"the bag held {avail}",
                    r,
                )
                break
        if error is None and removed is None:
            spare = sum(ts.count(t) - drawn[t] - now[t] for t in ts if t.color not in colors)
            if spare < k:
                error = NotationError(
                    "a draw the bag could not have produced: too few tiles of unplayed colors "
                    f"are left for the {k} removed ones",
                    r,
                )
        if error is not None:
            break
        drawn += now
    if removed is not None:
        return removed, error
    out: list[TileType] = []
    for t in ts:
        if t.color in colors:
            continue
        out.extend([t] * min(ts.count(t) - drawn[t], k - len(out)))
        if len(out) == k:
            break
    return out, error


def read_record(doc: str | bytes | Mapping[str, Any], tileset: TileSet | None = None) -> Record:
    """Validate a record and replay it through the rules; the result holds the final state.

    Long because every refusal names the turn it is about, so the checks of a turn run in the
    one loop that replays them.
    """
    d = _as_doc(doc, RECORD_FORMAT)
    allowed = {"format", "version", "tileset", "players", "removal", "removed", "rounds", "result"}
    allowed.add("analysis")  # optional post-game analysis (kerala.bots.analysis): ignored here
    allowed.add("clock")  # optional clock fields (docs/notation.md): checked, kept in extra
    extra = sorted(set(d) - allowed)
    if extra:
        raise NotationError(f"unexpected field(s) in record: {', '.join(extra)}")
    ts_name = d.get("tileset", "standard")
    ts: TileSet
    if tileset is not None and tileset.name == ts_name:
        ts = tileset
    else:
        try:
            if not isinstance(ts_name, str):
                raise TileSetError("tile set name must be a string")
            ts = load_tileset(ts_name)
        except TileSetError:
            raise NotationError(f"unknown tile set {ts_name!r}") from None
    players = _players(d)
    colors = [p["color"] for p in players]
    n = len(colors)
    removal = d.get("removal")
    if removal not in ("random", "chosen"):
        raise NotationError(f"'removal' must be 'random' or 'chosen', got {removal!r}")
    removed: list[TileType] | None = None
    if "removed" in d:
        if not isinstance(d["removed"], list):
            raise NotationError("'removed' must be a list of tiles")
        removed = [_tile(x, "removed") for x in d["removed"]]
    elif removal == "chosen":
        raise NotationError("a record with chosen removal lists the 'removed' tiles (S3)")
    rounds = d.get("rounds")
    if not isinstance(rounds, list):
        raise NotationError("'rounds' must be a list")
    for r, rd in enumerate(rounds):
        if not isinstance(rd, dict) or set(rd) - {"drawn", "turns"} or "drawn" not in rd:
            raise NotationError("a round is an object with 'drawn' and 'turns'", r)
        if not isinstance(rd["drawn"], list):
            raise NotationError("'drawn' must be a list of tiles", r)
        if not isinstance(rd.get("turns", []), list):
            raise NotationError("'turns' must be a list", r)
    k = REMOVAL_COUNT.get(n, 0)
    if removed is not None and len(removed) != k:
        raise NotationError(
            f"S3: {n} players remove exactly {k} tiles, 'removed' lists {len(removed)}"
        )
    if removed is not None:
        for t in removed:
            if t.color in colors:
                raise NotationError(f"S3: removed tile {t.name} is of a color a player plays")
    replay_removed, draw_error = _check_draws_possible(rounds, ts, set(colors), k, removed)
    try:
        # Random removal: the removal's chance nodes take the recorded (or, for a record that
        # keeps them secret, a reconstructed) tiles, as any imposed draw. Without 'removed'
        # they are a stand-in, not the game's: a writer must not present them as the record's.
        state = replay(
            colors,
            (),
            tileset=ts,
            removal=removal,
            removed=replay_removed,
            removal_known=removed is not None,
        )
    except (SetupError, IllegalDrawError) as e:
        raise NotationError(str(e)) from None
    pending = False
    for r, rd in enumerate(rounds):
        if draw_error is not None and draw_error.round == r:
            raise draw_error
        if state.is_over():
            raise NotationError("the game was already over", r)
        if state.phase != Phase.DRAW or state.round != r:
            raise NotationError("a new round starts before the last one ended", r)
        drawn = rd["drawn"]
        last_round = r == len(rounds) - 1
        if len(drawn) != n and not (last_round and len(drawn) < n and not rd.get("turns")):
            raise NotationError(
                f"the bag owner draws {n} tiles (G1), 'drawn' lists {len(drawn)}", r
            )
        for name in drawn:
            try:
                state.apply_draw(_tile(name, "drawn", r))
            except IllegalDrawError as e:
                raise NotationError(f"a draw the bag could not have produced: {e}", r) from None
        turns = rd.get("turns", [])
        for i, turn in enumerate(turns):
            if pending:
                raise NotationError("a turn follows a follow-up still pending", r, i)
            pending = _replay_turn(state, turn, r, i, last=(last_round and i == len(turns) - 1))
    result = d.get("result")
    if result is not None:
        _check_result(state, result)
    clock: dict[str, Any] = {}
    if "clock" in d:  # the clock fields: settings and events, and each turn's time
        decisions = sum(len(turns) for _, turns in state.history())
        clock["clock"] = _clock_field(d["clock"], len(colors), decisions)
        clock["times"] = [t.get("time") for rd in rounds for t in rd.get("turns", [])]
    return Record(
        players=players, state=state, follow_up_pending=pending, result=result, extra=clock
    )


def _replay_turn(state: GameState, turn: object, r: int, i: int, last: bool) -> bool:
    if not isinstance(turn, dict):
        raise NotationError("a turn must be an object", r, i)
    expected = state.to_move
    seat = turn.get("seat")
    if expected is not None and seat != expected:
        raise NotationError(
            f"seat out of order: seat {expected} plays now, not {shown_as_json(seat)}", r, i
        )
    pending_flag = turn.get("follow_up")
    if "time" in turn:  # optional clock field (docs/notation.md): the seconds the turn took
        t = turn["time"]
        if isinstance(t, bool) or not isinstance(t, int | float) or t < 0:
            raise NotationError(
                f"'time' must be a number of seconds >= 0, got {shown_as_json(t)}", r, i
            )
        turn = {k: v for k, v in turn.items() if k != "time"}
    if pending_flag is not None and pending_flag != "pending":
        raise NotationError(
            f"'follow_up' can only be \"pending\", got {shown_as_json(pending_flag)}", r, i
        )
    try:
        decision, follow = turn_from_json({k: v for k, v in turn.items() if k != "follow_up"})
        state.apply(decision)
        if isinstance(decision, Place) and decision.take.special is not None:
            if pending_flag == "pending":
                if follow is not None:
                    raise NotationError("a pending follow-up cannot also be given", r, i)
                if not last:
                    raise NotationError("only the last turn of a record may be pending", r, i)
                return True
            state.apply(follow if follow is not None else FollowUpSkip(decision.seat))
        elif pending_flag is not None:
            raise NotationError("only a special tile's follow-up can be pending", r, i)
    except NotationError:
        raise
    except (DecisionSyntaxError, IllegalDecisionError) as e:
        raise NotationError(f"illegal turn: {e}", r, i) from None
    except KeralaError as e:
        raise NotationError(str(e), r, i) from None
    return False


def _check_result(state: GameState, result: object) -> None:
    """docs/notation.md: ``total`` is authoritative. A score that lists ``removed_cells`` must list
    a removal that SC1 allows, and its other fields must be what that removal gives, with the
    best total; without ``removed_cells`` only the fields that every best choice shares
    (``total``, ``missing``, ``standing``) are checked, since equally good choices can differ
    in the others."""
    if not state.is_over():
        raise NotationError("'result' is given but the game is not over")
    if not isinstance(result, dict) or not isinstance(result.get("scores"), list):
        raise NotationError("'result' must hold a 'scores' list and 'ranks'")
    scores = state.scores()
    got = result["scores"]
    if len(got) != len(scores):
        raise NotationError(f"'result' scores {len(got)} seats, the game has {len(scores)}")
    for i, (best, theirs) in enumerate(zip(scores, got, strict=True)):
        where = f"result.scores[{i}]"
        if not isinstance(theirs, dict):
            raise NotationError(f"{where} must be an object")
        if theirs.get("seat", i) != i:
            raise NotationError(
                f"{where} is for seat {shown_as_json(theirs.get('seat'))}, expected {i}"
            )
        if "total" not in theirs:
            raise NotationError(f"{where} lacks 'total'")
        for f in _SCORE_FIELDS:
            if f in theirs and type(theirs[f]) is not int:
                raise NotationError(
                    f"{where}.{f} must be an integer, got {shown_as_json(theirs[f])}"
                )
        if theirs["total"] != best.total:
            raise NotationError(
                f"the result the rules do not give: seat {i} scores at best {best.total}, "
                f"the record says {theirs['total']}"
            )
        checked: tuple[str, ...] = ("missing", "standing")
        own = False
        mine = best.to_json()
        if "removed_cells" in theirs:
            cells = theirs["removed_cells"]
            if not isinstance(cells, list):
                raise NotationError(f"{where}.removed_cells must be a list of cells")
            parsed = [_cell(c, f"{where}.removed_cells[{n}]") for n, c in enumerate(cells)]
            try:
                chosen = score_removal(state.grounds[i], parsed)
            except IllegalRemovalError as e:
                raise NotationError(f"{where}.removed_cells: {e}") from None
            if chosen.total != best.total:
                raise NotationError(
                    f"{where}.removed_cells is not a best choice: it gives {chosen.total}, "
                    f"the best is {best.total}"
                )
            checked = _SCORE_FIELDS
            own = True
            mine = chosen.to_json()
        for f in checked:
            if f in theirs and theirs[f] != mine[f]:
                raise NotationError(
                    f"the result the rules do not give: seat {i} {f} is {mine[f]}"
                    f"{' with those removed_cells' if own else ''}, "
                    f"the record says {theirs[f]}"
                )
    ranks = rank([s.total for s in scores])
    if "ranks" in result and (
        not isinstance(result["ranks"], list)
        or any(type(r) is not int for r in result["ranks"])
        or result["ranks"] != ranks
    ):
        raise NotationError(
            "the result the rules do not give: "
            f"ranks are {shown_as_json(ranks)}, the record says {shown_as_json(result['ranks'])}"
        )


def score_document(doc: str | bytes | Mapping[str, Any]) -> ScoreBreakdown:
    """Score a grounds document (the score calculator)."""
    return score_grounds(read_grounds(doc))


__all__ = [
    "Record",
    "load_json",
    "plain_record",
    "read_grounds",
    "read_record",
    "schema",
    "score_document",
    "write_grounds",
    "write_record",
]
