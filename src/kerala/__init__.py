"""Kerala: The Way of the Elephant — the rules engine and its public interface.

The engine (``tiles``, ``grounds``, ``actions``, ``game``, ``scoring``, ``views``, ``notation``)
does no I/O beyond loading its own tile-set data and imports nothing outside the standard
library. Everything else (CLI, bots, server, research environments) builds on it.

>>> from kerala import new_game
>>> state = new_game(["blue", "red"], seed=1)
>>> state.advance_chance()
>>> len(state.display)
2
"""

from kerala.actions import Decision, FollowUpSkip, MoveElephant, MoveStack, Pass, Place
from kerala.errors import (
    IllegalDecisionError,
    IllegalDrawError,
    KeralaError,
    NotationError,
    SetupError,
    TileSetError,
)
from kerala.game import CHANCE, TERMINAL, GameState, Phase, new_game
from kerala.scoring import ScoreBreakdown, rank, score_grounds
from kerala.tiles import COLORS, EDGES, TileSet, TileType, load_tileset, tile
from kerala.views import PlayerView

__all__ = [
    "CHANCE",
    "COLORS",
    "EDGES",
    "TERMINAL",
    "Decision",
    "FollowUpSkip",
    "GameState",
    "IllegalDecisionError",
    "IllegalDrawError",
    "KeralaError",
    "MoveElephant",
    "MoveStack",
    "NotationError",
    "Pass",
    "Phase",
    "Place",
    "PlayerView",
    "ScoreBreakdown",
    "SetupError",
    "TileSet",
    "TileSetError",
    "TileType",
    "load_tileset",
    "new_game",
    "rank",
    "score_grounds",
    "tile",
]
