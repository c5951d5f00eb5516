"""What one player may see (docs/rules.md I1) and nothing they may not (I2).

A :class:`PlayerView` holds every public fact: all grounds (stacks, arch edges, elephants,
passes), the display, the bag count, the tiles drawn so far, every decision taken, the tile set
and, only under ``chosen`` removal, the removed tiles. It never holds the bag's content or
order, the randomly removed tiles, an RNG or a seed. :meth:`GameState.view
<kerala.game.GameState.view>` builds one; the values themselves are defined in
:mod:`kerala.playerview`, and this module imports the game, never the reverse.

:func:`sample_state` turns a view back into a full :class:`~kerala.game.GameState` by drawing
the hidden tiles at random, consistently with everything the view shows: what a search bot
(information-set MCTS) needs.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=3); s.advance_chance()
>>> v = s.view(0)
>>> v.bag_count, v.seat, sorted(v.to_json())[:4]
(78, 0, ['bag_count', 'colors', 'decisions', 'display'])
>>> v
<PlayerView of seat 0: 2 players, round 0, place, to move 0, bag 78>
"""

from __future__ import annotations

import random
from collections import Counter

from kerala.actions import Decision
from kerala.chance import shuffle
from kerala.game import GameState, Phase
from kerala.grounds import key
from kerala.playerview import GroundsView, PlayerView, view_from_json
from kerala.tiles import TileSet, TileType, load_tileset


def sample_state(view: PlayerView, rng: random.Random) -> GameState:
    """A full game state consistent with ``view``, its hidden tiles drawn at random.

    Under random removal the removed tiles are drawn from the unseen tiles of colors no
    player plays; the rest of the unseen tiles form the bag. The result carries no RNG.
    """
    unseen = sorted(view.unseen().elements(), key=lambda t: t.index)
    ts = load_tileset(view.tileset) if view.tileset == "standard" else None
    if ts is None or dict(ts.counts) != dict(view.tileset_counts):
        ts = TileSet(view.tileset, dict(view.tileset_counts))
    player_colors = set(view.colors)
    phase = Phase[view.phase.upper()]
    pool: list[TileType] = []
    if view.removed is not None:
        removed = list(view.removed)
        bag = unseen
    else:
        candidates = [t for t in unseen if t.color not in player_colors]
        shuffle(rng, candidates)
        if phase == Phase.REMOVAL:
            removed = []
            pool = candidates
            bag = [t for t in unseen if t.color in player_colors]
        else:
            removed = candidates[: view.to_remove]
            rest = Counter(unseen)
            rest.subtract(removed)
            bag = list((+rest).elements())
    shuffle(rng, bag)
    log: list[TileType | Decision] = []
    for drawn, decs in view.rounds:
        log.extend(drawn)
        log.extend(decs)
    return GameState(
        view.colors,
        ts,
        view.removal,
        view.to_remove,
        removed=removed,
        removal_known=view.removed is not None,
        pool=pool,
        bag=bag,
        grounds=[g.to_grounds() for g in view.grounds],
        round=view.round,
        turn=view.turn,
        display=view.display,
        phase=phase,
        pending=view.pending,
        log=log,
    )


__all__ = ["GroundsView", "PlayerView", "key", "sample_state", "view_from_json"]
