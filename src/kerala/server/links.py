"""The invite and watch links the server hands out (docs/security.md, "Seat tokens stay out
of URLs").

A seat's link carries its token in the fragment (``#token=…``), which a browser never sends to
a server or a proxy, nor in a ``Referer``; the page then moves it into the tab's storage.
A link's ``url`` is absolute only under the configured public address (``KERALA_PUBLIC_URL``):
the request's ``Host`` header is the client's to forge, so it never goes into a link. Without
a public address ``url`` is ``None`` and the browser prefixes its own origin to ``path``.

>>> seat_link("https://kerala.example/", "g1", 0, "tok")
{'path': '/?game=g1&seat=0#token=tok', 'url': 'https://kerala.example/?game=g1&seat=0#token=tok'}
>>> watch_link(None, "g1")
{'path': '/?game=g1', 'url': None}
"""

from __future__ import annotations

from urllib.parse import urlencode


def _link(public_url: str | None, path: str) -> dict[str, str | None]:
    return {"path": path, "url": public_url.rstrip("/") + path if public_url else None}


def seat_link(public_url: str | None, game_id: str, seat: int, token: str) -> dict[str, str | None]:
    """The invite link of ``seat``: its page, with the token in the fragment."""
    query = urlencode({"game": game_id, "seat": seat})
    return _link(public_url, f"/?{query}#{urlencode({'token': token})}")


def watch_link(public_url: str | None, game_id: str) -> dict[str, str | None]:
    """The link that watches the game."""
    return _link(public_url, "/?" + urlencode({"game": game_id}))
