"""The HTTP protocol ``kerala serve`` runs: uvicorn's, with a deadline and a size for headers.

uvicorn closes a keep-alive connection that stays idle between requests
(``timeout_keep_alive``), but not one that has begun a request and never finishes its headers:
200 such "slow header" connections all stayed open after 20 s, each holding a socket and a
parser. And its httptools parser does not bound how much a request line and headers may take.
This subclass of uvicorn's own protocol adds both bounds (docs/security.md, "Bounded input and
memory"):

- a connection must send a request's complete headers within ``KERALA_HEADER_TIMEOUT`` seconds
  of opening, or of the first byte of each later request on it; else it is closed;
- a request line and headers over ``KERALA_MAX_HEADER_BYTES`` get ``431`` and the connection is
  closed.

The bounds are class attributes: :func:`configure` sets them in each server process, from its
settings, when the app is made (:func:`kerala.server.app.create_app`), so that the worker
processes of ``kerala serve --workers N`` (which get the class by name) have them too.
"""

from __future__ import annotations

import asyncio
import logging

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("kerala.server")


class BoundedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a header deadline and a header size limit."""

    #: Seconds allowed for a request's headers (set by :func:`configure`).
    header_timeout: float = 10.0
    #: Bytes allowed for a request line and its headers (set by :func:`configure`).
    max_header_bytes: int = 64 * 1024

    _header_timer: asyncio.TimerHandle | None = None
    _in_headers: bool = True
    _header_bytes: int = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._in_headers = True
        self._header_bytes = 0
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_headers:
            self._header_bytes += len(data)
            if self._header_bytes > self.max_header_bytes:
                self._refuse_headers()
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_headers:  # a later request on a kept-alive connection
            self._in_headers = True
            self._header_bytes = 0
            self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._cancel_header_timer()
        super().on_headers_complete()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._in_headers and not self.transport.is_closing():
            log.debug("closed a connection whose headers took over %s s", self.header_timeout)
            self.transport.close()

    def _refuse_headers(self) -> None:
        self._cancel_header_timer()
        if self.transport.is_closing():
            return
        log.warning(
            "refused a request whose headers were over %s bytes from %s",
            self.max_header_bytes,
            self.client[0] if self.client else "?",
        )
        body = b'{"detail":"the request line and headers are too large","code":"too_large"}'
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        self.transport.close()


def configure(header_timeout: float, max_header_bytes: int) -> type[BoundedHttpProtocol]:
    """Set the bounds of :class:`BoundedHttpProtocol` in this process; the class."""
    BoundedHttpProtocol.header_timeout = header_timeout
    BoundedHttpProtocol.max_header_bytes = max_header_bytes
    return BoundedHttpProtocol
