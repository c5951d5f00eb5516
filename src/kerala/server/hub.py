"""Live events inside one server process: every WebSocket of a game gets its events in order.

An event is published only after it is committed. Each connection has a queue and one writer;
the writer sends events in number order and fills any gap (an event published out of order, or
made by another server process) from the database, so a client never misses one. A client too
slow to keep up is disconnected; it reconnects with the last number it saw.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from kerala.server.domain import Event
from kerala.server.wire import Snapshot, dumpb, event_message


@dataclass
class Published:
    """One committed event with the game after it; message texts are cached per seat."""

    event: Event
    snapshot: Snapshot
    texts: dict[int | None, str] = field(default_factory=dict)
    event_json: bytes | None = field(default=None, init=False, repr=False)

    def text_for(self, seat: int | None) -> str:
        t = self.texts.get(seat)
        if t is None:
            if self.event_json is None:
                self.event_json = dumpb(self.event.to_json())
            t = self.texts[seat] = event_message(self.event_json, self.snapshot.game_json(seat))
        return t


class Connection:
    """One subscriber: a seat (or a watcher, ``None``) and its outgoing queue."""

    QUEUE = 1000

    def __init__(self, game_id: str, seat: int | None) -> None:
        self.game_id = game_id
        self.seat = seat
        self.queue: asyncio.Queue[Published | str | None] = asyncio.Queue(self.QUEUE)
        self.overflowed = False

    def put(self, item: Published | str | None) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.overflowed = True


class Hub:
    """Subscribers by game; :meth:`publish` hands a committed event to each of them."""

    def __init__(self) -> None:
        self._games: dict[str, set[Connection]] = {}
        #: The highest event number handed to each watched game's sockets (or sent to them as
        #: they connected): what the gap check compares with the database.
        self._known: dict[str, int] = {}

    def subscribe(self, game_id: str, seat: int | None) -> Connection:
        conn = Connection(game_id, seat)
        self._games.setdefault(game_id, set()).add(conn)
        return conn

    def unsubscribe(self, conn: Connection) -> None:
        conns = self._games.get(conn.game_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._games[conn.game_id]
                self._known.pop(conn.game_id, None)

    def note(self, game_id: str, number: int) -> None:
        """A socket of the game was sent everything up to event ``number``."""
        if game_id in self._games:
            self._known[game_id] = max(self._known.get(game_id, 0), number)

    def known(self, game_id: str) -> int:
        """The highest event number this process's sockets of the game were handed."""
        return self._known.get(game_id, 0)

    def watched(self) -> list[str]:
        """The games this process has sockets for."""
        return list(self._games)

    def publish(self, game_id: str, event: Event, snapshot: Snapshot) -> None:
        conns = self._games.get(game_id)
        if not conns:
            return
        self.note(game_id, event.number)
        item = Published(event, snapshot)
        for c in list(conns):
            c.put(item)

    def chat(self, game_id: str, text: str, *, to_seats: bool, to_watchers: bool) -> None:
        """A chat message (docs/server.md, "Chat") to the seats' sockets, the watchers', or both."""
        for c in list(self._games.get(game_id, ())):
            if (to_seats and c.seat is not None) or (to_watchers and c.seat is None):
                c.put(text)

    def close_all(self) -> None:
        for conns in list(self._games.values()):
            for c in list(conns):
                c.put(None)

    def count(self, game_id: str) -> int:
        return len(self._games.get(game_id, ()))
