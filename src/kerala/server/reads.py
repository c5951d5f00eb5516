"""Reads of stored games that need neither the game cache nor its locks: the game list (a page
at a time) and the public position after any decision (replay). No side effects, no HTTP.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from dataclasses import replace
from typing import Any

from kerala.scoring import score_grounds
from kerala.server.domain import GameNotFound, InvalidRequest, js
from kerala.server.replay import replay_state
from kerala.server.repository import GameQuery, GameRepository
from kerala.server.wire import result_json


class GameReads:
    """Game list and replay, straight from the repository."""

    def __init__(self, repo: GameRepository) -> None:
        self.repo = repo

    def list_games(self, query: GameQuery) -> tuple[list[dict[str, Any]], str | None]:
        """A page of games (public facts only: no token, no hidden tile) and the cursor of
        the next page (``None``: this is the last)."""
        found = self.repo.list_games(replace(query, limit=query.limit + 1))
        more = len(found) > query.limit
        found = found[: query.limit]
        games = [
            {
                "id": r.id,
                "status": r.status,
                "players": [s.to_json() for s in seats],
                "decision_number": r.decision_count,
                "created_at": r.created_at.isoformat(),
                "updated_at": r.updated_at.isoformat(),
                "ranks": r.result["ranks"] if r.result is not None else None,
                "rated": r.rated,
            }
            for r, seats in found
        ]
        cursor = encode_cursor(found[-1][0].updated_at, found[-1][0].id) if more else None
        return games, cursor

    def lobby_games(self, limit: int = 100) -> list[dict[str, Any]]:
        """The open games, newest first, as the lobby shows them: players waiting, free seats,
        player count, time control and whether the game is rated (public facts only)."""
        out = []
        for r, seats in self.repo.list_games(GameQuery(limit=limit, status="open")):
            control = (r.clock or {}).get("control")
            out.append(
                {
                    "id": r.id,
                    "players": [s.to_json() for s in seats],
                    "count": len(seats),
                    "free": sum(1 for s in seats if s.kind == "open"),
                    "clock": control,
                    "rated": r.rated,
                    "created_at": r.created_at.isoformat(),
                }
            )
        return out

    def replay(self, game_id: str, at: int | None) -> dict[str, Any]:
        """The public position after ``at`` decisions (default: all of them)."""
        row = self.repo.game(game_id)
        if row is None:
            raise GameNotFound(game_id)
        total = row.decision_count
        k = total if at is None else at
        if not 0 <= k <= total:
            raise InvalidRequest(f"'at' must be between 0 and {total} (decisions so far), got {k}")
        seats = self.repo.seats(game_id)
        events = self.repo.events(game_id, 0, row.event_count)
        state = replay_state(
            [s.color for s in seats],
            row.tileset,
            row.removal,
            row.hidden_removed,
            row.first_drawn,
            events,
            upto=k,
        )
        decisions = [e.data["decision"] for e in events if e.kind == "decision"]
        return {
            "at": k,
            "decision_number": total,
            "decision": decisions[k - 1] if k > 0 else None,
            "view": state.view(None).to_json(),
            # The running score: each grounds as it stands, scored as if the game ended here.
            "running_totals": [score_grounds(g).total for g in state.grounds],
            "result": result_json(state) if state.is_over() else None,
        }


def encode_cursor(updated_at: dt.datetime, game_id: str) -> str:
    """The opaque cursor of a game list page: where the next page starts after."""
    raw = json.dumps([updated_at.isoformat(), game_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    """The (``updated_at``, ``id``) a cursor names; :class:`InvalidRequest` if it names none."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        t, game_id = json.loads(raw)
        when = dt.datetime.fromisoformat(t)
        if not isinstance(game_id, str) or when.tzinfo is None:
            raise ValueError(game_id)
    except (ValueError, TypeError, UnicodeDecodeError):
        raise InvalidRequest(
            f"'cursor' {js(cursor)} is not a cursor this server handed out (use 'next')"
        ) from None
    return when, game_id
