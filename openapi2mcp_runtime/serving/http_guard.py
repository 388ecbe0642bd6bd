"""uvicorn's h11 protocol with the connection limits of http_limits.py: imported only to serve HTTP
(uvicorn takes a while to import), and a module-level class so that uvicorn's --workers processes,
which receive their configuration pickled, find it by name."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

from .http_limits import HttpLimits


class GuardedH11(H11Protocol):  # type: ignore[misc,unused-ignore]
    """Closes a connection over the limits at once, and one that has not sent a whole request within
    `request_timeout` of opening or of its last answer. `limits` is set before serving (serve)."""

    limits: ClassVar[HttpLimits] = HttpLimits()
    per_address: ClassVar[Counter[str]] = Counter()
    address: str | None = None
    deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if peer else ""
        self.per_address[self.address] += 1
        crowded = len(self.connections) > self.limits.max_connections
        if crowded or self.per_address[self.address] > self.limits.per_client:
            transport.close()  # before a byte is read: nothing to answer yet
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.address is not None:
            self.per_address[self.address] -= 1
            if self.per_address[self.address] <= 0:
                del self.per_address[self.address]
            self.address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.deadline is not None and self._request_whole():
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request must come whole too (idle_timeout closes sooner)

    def _arm(self) -> None:
        self._disarm()
        self.deadline = self.loop.call_later(self.limits.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _too_slow(self) -> None:
        self.deadline = None
        if not self.transport.is_closing() and not self._request_whole():
            self.transport.close()

    def _request_whole(self) -> bool:
        """The request being answered has arrived whole, head and body (uvicorn's cycle of it
        stops waiting for more body); between requests the last cycle is complete: not whole."""
        cycle = self.cycle
        return cycle is not None and not cycle.response_complete and not cycle.more_body
