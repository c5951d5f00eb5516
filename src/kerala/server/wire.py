"""The wire encoding: JSON bytes built fast (orjson), the ``Game`` snapshot, event messages.

Everything a client receives about a game is put together here from the service's model
(:class:`kerala.server.domain.Live`); the routes send it as it is.

>>> dumpb({"a": [1, 2], "b": None})
b'{"a":[1,2],"b":null}'
>>> dumpb({"name": "\\ud800"})  # a lone surrogate: orjson refuses it, the json module escapes it
b'{"name":"\\\\ud800"}'
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import orjson

from kerala.game import GameState
from kerala.scoring import rank

if TYPE_CHECKING:
    from kerala.server.domain import Live


def dumpb(obj: Any) -> bytes:
    """Compact JSON of ``obj`` as UTF-8 bytes.

    orjson is several times faster than the json module. What it refuses (text with lone
    surrogates, integers beyond 64 bits, non-string keys) goes through the json module instead,
    which escapes everything outside ASCII: both are valid JSON of the same value.
    """
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(obj, separators=(",", ":")).encode("ascii")


def dumps(obj: Any) -> str:
    """:func:`dumpb` as text (a WebSocket text frame)."""
    return dumpb(obj).decode("utf-8")


def result_json(state: GameState) -> dict[str, Any]:
    """Scores with the full breakdown (SC1–SC6, symbols by color) and ranks (SC7)."""
    scores = state.scores()
    return {
        "scores": [
            {"seat": i, **s.to_json(), "symbols_by_color": dict(s.symbols_by_color)}
            for i, s in enumerate(scores)
        ],
        "ranks": rank([s.total for s in scores]),
    }


def event_message(event_json: bytes, game_json: bytes) -> str:
    """The ``event`` message: the event and the game after it, as one seat sees it."""
    return b"".join((b'{"type":"event","event":', event_json, b',"game":', game_json, b"}")).decode(
        "utf-8"
    )


def sync_message(snap: Snapshot, seat: int | None) -> str:
    """The ``sync`` message: the whole game as ``seat`` sees it."""
    head = f'{{"type":"sync","event_number":{snap.event_number},"game":'.encode()
    return b"".join((head, snap.game_json(seat), b"}")).decode("utf-8")


class Snapshot:
    """The ``Game`` JSON of docs/api.md at one event, cheap to specialise for each seat.

    It is kept as JSON bytes, not as a tree of dicts and lists: a snapshot of every cached game
    lives in memory, and thousands of small objects per game would make each of Python's full
    garbage collections slower (a pause of the whole server). Each seat's text is put together
    from the pieces once, without serialising the view again. The pieces travel between server
    processes as they are (:meth:`to_bytes`, :meth:`from_bytes`).
    """

    _WATCHER_VIEW = b'{"seat":null'

    def __init__(
        self,
        base: dict[str, Any],
        view_rest: bytes,
        legal: bytes | None,
        base_json: bytes | None = None,
    ) -> None:
        self.base = base
        self.to_move: int | None = base["to_move"]
        self.event_number: int = base["event_number"]
        #: The view after its ``seat`` field: each seat's view is ``{"seat":N`` + this.
        self._view_rest = view_rest
        self._legal = legal
        #: ``base`` as JSON without the closing brace (``base_json``: as already written).
        self._head = (base_json if base_json is not None else dumpb(base))[:-1]
        self._games: dict[int | None, bytes] = {}

    @classmethod
    def of(cls, live: Live, seat_timeout: float) -> Snapshot:
        """The snapshot of a game replayed in this process."""
        state = live.state
        to_move = state.to_move
        view = dumpb(state.view(None).to_json())
        if not view.startswith(cls._WATCHER_VIEW):  # pragma: no cover - the view's first key
            raise AssertionError("a watcher's view starts with its seat")
        legal = (
            dumpb([d.to_json() for d in state.legal_decisions()]) if to_move is not None else None
        )
        base: dict[str, Any] = {
            "id": live.id,
            "status": live.status,
            "players": [s.to_json() for s in live.seats],
            "removal": live.removal,
            "decision_number": live.decision_count,
            "event_number": live.event_count,
            "to_move": to_move,
            "turn_started_at": live.turn_started_at.isoformat(),
            "seat_timeout": seat_timeout,
            "result": live.result,
            # Every seat's time, whose clock runs and since when (server time); public (I2).
            "clock": None if live.clock is None else live.clock.to_wire(live.running()),
            # The game's fair-play settings and the hints taken: every seat sees them.
            "hints": live.hints,
            "hints_taken": list(live.hints_taken),
            "handover_bot": live.handover_bot,
            "rated": live.rated,
        }
        return cls(base, view[len(cls._WATCHER_VIEW) :], legal)

    @property
    def game_id(self) -> str:
        game_id: str = self.base["id"]
        return game_id

    def bot_to_move(self) -> bool:
        """Whether the seat to move is played by a bot."""
        seat = self.to_move
        return seat is not None and self.base["players"][seat]["kind"] == "bot"

    def game_json(self, seat: int | None) -> bytes:
        """The ``Game`` JSON as ``seat`` sees it (its legal decisions on its turn)."""
        out = self._games.get(seat)
        if out is None:
            s = b"null" if seat is None else str(int(seat)).encode()
            legal = self._legal if seat is not None and seat == self.to_move else None
            out = b"".join(
                (
                    self._head,
                    b',"seat":',
                    s,
                    b',"view":{"seat":',
                    s,
                    self._view_rest,
                    b',"legal":',
                    b"null" if legal is None else legal,
                    b"}",
                )
            )
            self._games[seat] = out
        return out

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """:meth:`game_json` as a dict."""
        game: dict[str, Any] = orjson.loads(self.game_json(seat))
        return game

    def to_bytes(self) -> bytes:
        """The pieces as one byte string (JSON pieces never hold a raw newline)."""
        legal = b"" if self._legal is None else self._legal
        return b"\n".join((self._head + b"}", self._view_rest, legal))

    @classmethod
    def from_bytes(cls, data: bytes) -> Snapshot:
        base, view_rest, legal = data.split(b"\n", 2)
        return cls(orjson.loads(base), view_rest, legal or None, base)
