"""A stored game (setup + events) back to a state, through the engine's one replay.

The server stores a game as its setup and its events (:mod:`kerala.server.store`), not as a
record; it turns them into the engine's log and replays it with :func:`kerala.game.replay`
(the one replay to decision k), or applies the events it has not seen yet to a cached state.
"""

from __future__ import annotations

from collections.abc import Sequence

from kerala.actions import Decision, decision_from_json
from kerala.game import GameState, replay
from kerala.server.domain import Event
from kerala.tiles import TILE_TYPES, TileType, load_tileset
from kerala.vocabulary import Removal


def _tiles(names: Sequence[str]) -> list[TileType]:
    return [TILE_TYPES[n] for n in names]


def apply_event(state: GameState, ev: Event) -> bool:
    """Apply a decision event (the decision, then the tiles drawn after it); ``False`` if the
    event is not a decision."""
    if ev.kind != "decision":
        return False
    state.apply(decision_from_json(ev.data["decision"]))
    for t in _tiles(ev.data["drawn"]):
        state.apply_draw(t)
    return True


def replay_state(
    colors: Sequence[str],
    tileset: str,
    removal: Removal,
    removed: Sequence[str],
    first_drawn: Sequence[str],
    events: Sequence[Event],
    upto: int | None = None,
) -> GameState:
    """Rebuild a game's state from its setup and events, stopping after ``upto`` decisions.

    The stored events become the engine's log (the first display, then each decision with the
    tiles drawn right after it) for :func:`kerala.game.replay`, the one replay to decision k.
    A random removal is imposed on the removal's chance nodes: the state stays a random-removal
    game, whose views hide it (I2)."""
    log: list[TileType | Decision] = list(_tiles(first_drawn))
    for ev in events:
        if ev.kind == "decision":
            log.append(decision_from_json(ev.data["decision"]))
            log.extend(_tiles(ev.data["drawn"]))
    return replay(
        list(colors),
        log,
        tileset=load_tileset(tileset),
        removal=removal,
        removed=_tiles(removed),
        upto=upto,
    )
