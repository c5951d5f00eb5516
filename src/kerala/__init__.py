"""Kerala: The Way of the Elephant — the rules engine and its public interface.

The engine (``tiles``, ``grounds``, ``actions``, ``game``, ``scoring``, ``views``, ``notation``)
does no I/O beyond loading its own tile-set data and imports nothing outside the standard
library. Everything else (CLI, bots, server, research environments) builds on it.

>>> from kerala import new_game
>>> state = new_game(["blue", "red"], seed=1)
>>> state.advance_chance()
>>> len(state.display)
2
>>> before = state.copy()
>>> d = state.parse_decision("B1 0,0>1,0"); state.apply(d); str(d)
'B1 0,0>1,0'
>>> state.undo() == d and state == before
True

The whole tour is ``docs/engine.md``; ``examples/engine_tour.py`` runs it.
"""

from importlib.metadata import PackageNotFoundError, version

# First: decides between the compiled and the pure engine before any engine module loads.
from kerala import engineform as engineform
from kerala.actions import (
    Decision,
    DecisionSyntaxError,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    describe,
    parse_decision,
)
from kerala.errors import (
    IllegalDecisionError,
    IllegalDrawError,
    KeralaError,
    NotationError,
    SetupError,
    TileSetError,
)
from kerala.game import CHANCE, TERMINAL, GameState, Outcome, Phase, new_game, replay
from kerala.notation import Record, read_grounds, read_record, write_grounds, write_record
from kerala.playerview import GroundsView, PlayerView
from kerala.scoring import ScoreBreakdown, rank, score_grounds
from kerala.tiles import COLORS, EDGES, TileSet, TileType, load_tileset, tile, tile_from_code

try:
    #: The installed distribution's version (pyproject.toml), read from package metadata.
    __version__ = version("kerala")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "CHANCE",
    "COLORS",
    "EDGES",
    "TERMINAL",
    "Decision",
    "DecisionSyntaxError",
    "FollowUpSkip",
    "GameState",
    "GroundsView",
    "IllegalDecisionError",
    "IllegalDrawError",
    "KeralaError",
    "MoveElephant",
    "MoveStack",
    "NotationError",
    "Outcome",
    "Pass",
    "Phase",
    "Place",
    "PlayerView",
    "Record",
    "ScoreBreakdown",
    "SetupError",
    "TileSet",
    "TileSetError",
    "TileType",
    "__version__",
    "describe",
    "load_tileset",
    "new_game",
    "parse_decision",
    "rank",
    "read_grounds",
    "read_record",
    "replay",
    "score_grounds",
    "tile",
    "tile_from_code",
    "write_grounds",
    "write_record",
]
