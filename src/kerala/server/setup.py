"""Setting up a new game for the service: seats in bag order, the removal, the first display.

Draws and removals come from the operating system's random source (:data:`SYSTEM_RANDOM`): no
seed exists that could leak (docs/rules.md I2). Seat tokens are made here and kept only as hashes.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from kerala.errors import SetupError
from kerala.game import GameState, new_game
from kerala.server.domain import InvalidRequest, Seat, js
from kerala.tiles import TILE_TYPES
from kerala.vocabulary import Removal

#: Draws and removals come from the operating system: no seed exists that could leak (I2).
SYSTEM_RANDOM = secrets.SystemRandom()


def hash_token(token: str) -> str:
    """The SHA-256 hash under which a seat token is stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def plan_game(
    seats: Sequence[dict[str, Any]],
    removal: Removal,
    removed: Sequence[str] | None,
    first: int,
    resolve_level: Callable[[str | None], str],
) -> tuple[GameState, list[Seat], dict[int, str]]:
    """The state after setup (S1–S4) and the first draw, the seats, and the human seats' tokens.

    ``seats`` are rotated so that ``first`` holds the bag first (G1)."""
    n = len(seats)
    if not 0 <= first < n:
        raise InvalidRequest(f"'first' must name one of the {n} seats (0–{n - 1})")
    order = [seats[(first + i) % n] for i in range(n)]
    colors = [s["color"] for s in order]
    chosen = None
    if removal == "chosen":
        if removed is None:
            raise InvalidRequest("chosen removal needs 'removed': the tiles to take out")
        chosen = []
        for i, name in enumerate(removed):
            t = TILE_TYPES.get(name)
            if t is None or t.kind == "start":
                raise InvalidRequest(f"removed[{i}]: unknown tile {js(name)}")
            chosen.append(t)
    elif removed is not None:
        raise InvalidRequest("'removed' is only given with removal 'chosen' (S3)")
    try:
        state = new_game(colors, removal=removal, removed=chosen)
    except SetupError as e:
        raise InvalidRequest(str(e)) from None
    state.advance_chance(SYSTEM_RANDOM)
    built: list[Seat] = []
    tokens: dict[int, str] = {}
    for i, s in enumerate(order):
        kind = s.get("kind", "human")
        bot = resolve_level(s.get("level")) if kind == "bot" else None
        if kind != "bot" and s.get("level") is not None:
            raise InvalidRequest(f"seats[{(first + i) % n}]: a human seat has no level")
        token_hash = None
        if kind == "human":
            tokens[i] = secrets.token_urlsafe(24)
            token_hash = hash_token(tokens[i])
        name = "" if kind == "open" else s["name"]  # an open seat is named by who takes it
        built.append(Seat(i, name, s["color"], kind, bot, False, token_hash))
    return state, built, tokens
