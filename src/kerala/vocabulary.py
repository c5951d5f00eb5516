"""The engine's vocabularies: the words a string field of the engine may hold, as types.

The engine keeps these words as plain strings (they are its JSON, docs/notation.md); the
``Literal`` types let the type checker hold every use to the words the rules name.

>>> REMOVALS, SPECIALS
(('random', 'chosen'), ('move-elephant', 'move-tile'))
"""

from __future__ import annotations

from typing import Final, Literal, get_args

#: How the tiles left out before play are chosen (S3).
Removal = Literal["random", "chosen"]
REMOVALS: Final[tuple[Removal, ...]] = get_args(Removal)

#: A special tile's kind, and the follow-up a state waits for after one is placed (SP1, SP2).
Special = Literal["move-elephant", "move-tile"]
SPECIALS: Final[tuple[Special, ...]] = get_args(Special)

#: The kind of each special tile: the special itself (``None`` for every other kind).
SPECIAL_OF: Final[dict[str, Special]] = {s: s for s in SPECIALS}

#: A state's phase as a view names it: the removal's or a draw's chance nodes, placing a tile
#: or passing, a special tile's follow-up, the end.
PhaseName = Literal["removal", "draw", "place", "follow_up", "over"]
PHASE_NAMES: Final[tuple[PhaseName, ...]] = get_args(PhaseName)
