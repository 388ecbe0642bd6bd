"""One HTTP/1.1 connection of the runtime's HTTP client: an asyncio stream and its h11 state."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from typing import TYPE_CHECKING

import h11

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    from http_types import connect_failed  # type: ignore[import-not-found,unused-ignore]
else:
    try:
        from .http_types import connect_failed
    except ImportError:  # loaded as a top-level module, next to its siblings
        from http_types import connect_failed

__all__ = ["Connection", "Origin", "Stale", "frame"]

Origin = tuple[str, str, int]  # scheme, host, port
_READ_SIZE = 64 * 1024
_MAX_HEAD = 100 * 1024  # response line and headers, as httpcore
_KEEPALIVE_EXPIRY = 5.0  # seconds idle before a connection is not reused (Node closes at 5 s)


def frame(state: h11.Connection, request: h11.Request, body: bytes | None) -> bytes:
    """The request's bytes; h11.LocalProtocolError when its framing headers do not fit the body."""
    data = state.send(request)
    if body:
        data += state.send(h11.Data(data=body))
    return data + state.send(h11.EndOfMessage())


class Stale(Exception):
    """The connection ended or failed before any byte of the answer."""


class Connection:
    __slots__ = ("answered", "h11", "idle_since", "origin", "reader", "writer")

    def __init__(self, origin: Origin, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.origin, self.reader, self.writer = origin, reader, writer
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD)
        self.answered, self.idle_since = False, 0.0

    @classmethod
    async def open(cls, origin: Origin, tls: ssl.SSLContext | None) -> Connection:
        """Connect (TLS with SNI and hostname checks when `tls`); failures raise ConnectFailed."""
        _scheme, host, port = origin
        try:
            reader, writer = await asyncio.open_connection(
                host, port, ssl=tls, server_hostname=host if tls else None
            )
        except OSError as error:  # ssl.SSLError and socket.gaierror included
            raise connect_failed(error, host, port) from None
        return cls(origin, reader, writer)

    def usable(self, now: float) -> bool:
        """Not expired, not closed by the server, nothing unasked-for waiting (an early 408)."""
        reader = self.reader
        return (
            now - self.idle_since < _KEEPALIVE_EXPIRY
            and not self.writer.is_closing()
            and not reader.at_eof()
            and reader.exception() is None
            and not getattr(reader, "_buffer", b"")
        )

    def reusable(self) -> bool:
        """Ready for the next request, and the server sent nothing past the answer."""
        state = self.h11
        return state.our_state is h11.IDLE and not state.trailing_data[0]

    async def send(self, request: h11.Request, body: bytes | None) -> None:
        self.writer.write(frame(self.h11, request, body))
        with contextlib.suppress(OSError):  # the server may have answered early (a 413): read it
            await self.writer.drain()

    async def next_event(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        while (event := self.h11.next_event()) is h11.NEED_DATA:
            try:
                data = await self.reader.read(_READ_SIZE)
            except OSError as error:
                if not self.answered:
                    raise Stale from error
                raise
            if not data and not self.answered:
                raise Stale
            self.answered = True
            self.h11.receive_data(data)
        return event

    def finish_cycle(self) -> None:
        """After a complete exchange: make the connection ready for the next one."""
        state = self.h11
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            self.answered = False

    def close(self) -> None:
        self.writer.close()
