"""Replay to decision k, the server's one: a stored game (setup + events) back to a state.

The server stores a game as its setup and its events (:mod:`kerala.server.store`), not as a
record, so it replays events rather than reading a record (:func:`kerala.notation.read_record`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kerala.actions import Decision, decision_from_json
from kerala.game import GameState, replay
from kerala.tiles import TILE_TYPES, TileType, load_tileset


def _tiles(names: Sequence[str]) -> list[TileType]:
    return [TILE_TYPES[n] for n in names]


def apply_event(state: GameState, ev: dict[str, Any]) -> bool:
    """Apply a decision event (the decision, then the tiles drawn after it); ``False`` if the
    event is not a decision."""
    if ev["kind"] != "decision":
        return False
    state.apply(decision_from_json(ev["decision"]))
    for t in _tiles(ev["drawn"]):
        state.apply_draw(t)
    return True


def replay_state(
    colors: Sequence[str],
    tileset: str,
    removal: str,
    removed: Sequence[str],
    first_drawn: Sequence[str],
    events: Sequence[dict[str, Any]],
    upto: int | None = None,
) -> GameState:
    """Rebuild a game's state from its setup and events, stopping after ``upto`` decisions.

    The server's one replay to decision k (the games it stores are setup + events, not
    records). A random removal is imposed on the removal's chance nodes, as any draw: the
    state stays a random-removal game, whose views hide it (I2)."""
    log: list[TileType | Decision] = [*_tiles(first_drawn)]
    for ev in events:
        if ev["kind"] == "decision":
            log.append(decision_from_json(ev["decision"]))
            log += _tiles(ev["drawn"])
    ts = load_tileset(tileset)
    return replay(colors, log, tileset=ts, removal=removal, removed=_tiles(removed), upto=upto)
