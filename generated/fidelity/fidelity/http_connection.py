"""One HTTP/1.1 connection of the runtime's HTTP client: an asyncio stream, one exchange at a time
(the bytes on the wire: http_wire.py)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    import http_wire as wire  # type: ignore[import-not-found,unused-ignore]
    from http_body import Sink  # type: ignore[import-not-found,unused-ignore]
    from http_types import Answer, Headers, connect_failed  # type: ignore[import-not-found,unused-ignore]
else:
    try:
        from . import http_wire as wire
        from .http_body import Sink
        from .http_types import Answer, Headers, connect_failed
    except ImportError:  # loaded as a top-level module, next to its siblings
        import http_wire as wire
        from http_body import Sink
        from http_types import Answer, Headers, connect_failed

__all__ = ["Connection", "Origin"]

Origin = tuple[str, str, int]  # scheme, host, port
_KEEPALIVE_EXPIRY = 5.0  # seconds idle before a connection is not reused (Node closes at 5 s)


class Connection:
    __slots__ = ("idle_since", "origin", "reader", "reusable", "writer")

    def __init__(self, origin: Origin, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.origin, self.reader, self.writer = origin, reader, writer
        self.reusable, self.idle_since = False, 0.0

    @classmethod
    async def open(cls, origin: Origin, tls: ssl.SSLContext | None) -> Connection:
        """Connect (TLS with SNI and hostname checks when `tls`); failures raise ConnectFailed."""
        _scheme, host, port = origin
        try:
            reader, writer = await asyncio.open_connection(
                host, port, ssl=tls, server_hostname=host if tls else None, limit=wire.MAX_HEAD
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

    async def exchange(
        self, method: str, request: bytes, close_after: bool, cap: int, drain_limit: int
    ) -> Answer:
        """Send `request` (http_wire.encode_request) and read the answer; `reusable` tells after.
        wire.EndedEarly when the connection ended before answering; wire.Malformed and OSError
        otherwise."""
        self.reusable = False
        self.writer.write(request)
        with contextlib.suppress(OSError):  # the server may have answered early (a 413): read it
            await self.writer.drain()
        head = await wire.read_head(self.reader)
        headers = Headers.from_raw(head.headers)
        sink = Sink(cap, drain_limit, headers.get("content-encoding"))
        body = wire.framing(method, head)
        if await wire.read_body(self.reader, body, sink.take):
            sink.finish()
            self.reusable = not close_after and wire.keeps_alive(head, body)
        reason = head.reason.decode("ascii", errors="ignore")
        return Answer(head.status, reason, headers, bytes(sink.kept), sink.total, sink.cut)

    def close(self) -> None:
        self.writer.close()
