"""A lean async HTTP/1.1 client for the runtime: asyncio streams, one keep-alive pool.

- `exchange` sends the URL as given (pre-encoded) with the headers httpx sends (the caller's win;
  only gzip and deflate are advertised, and decoded), and keeps at most `cap` decoded body bytes,
  counting up to `drain_limit` more.
- At most `max_connections` open; a connection not read to the end, cancelled, or told to close is
  closed; a reused one that fails before any answer byte is retried once on a new connection.
- No timeouts inside: wrap `exchange` in `asyncio.timeout` (it runs on asyncio only).
- A proxy set in the environment (HTTP(S)_PROXY, ALL_PROXY, NO_PROXY, any case) sends the request
  through httpx2 instead, imported only then; `via_httpx2=True` sends every request through it
  (PREFIX_HTTP_CLIENT=httpx2), with the same answers and errors.
Its siblings: http_types.py (Answer, Headers, errors), http_request.py (URL, headers, proxies),
http_body.py (decoding and the cap), http_connection.py (one connection), http_wire.py (the bytes on
the wire), http_httpx2.py.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import zlib
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    import http_wire as wire  # type: ignore[import-not-found,unused-ignore]
    from http_connection import Connection, Origin  # type: ignore[import-not-found,unused-ignore]
    from http_httpx2 import Httpx2Route  # type: ignore[import-not-found,unused-ignore]
    from http_request import (  # type: ignore[import-not-found,unused-ignore]
        Target,
        environment_proxies,
        parse_url,
        proxy_for,
    )
    from http_types import (  # type: ignore[import-not-found,unused-ignore]
        Answer,
        ConnectFailed,
        ConnectionBroken,
        Headers,
        HttpError,
        RawHeaders,
        short,
    )
else:
    try:
        from . import http_wire as wire
        from .http_connection import Connection, Origin
        from .http_httpx2 import Httpx2Route
        from .http_request import Target, environment_proxies, parse_url, proxy_for
        from .http_types import (
            Answer,
            ConnectFailed,
            ConnectionBroken,
            Headers,
            HttpError,
            RawHeaders,
            short,
        )
    except ImportError:  # loaded as a top-level module, next to its siblings
        import http_wire as wire
        from http_connection import Connection, Origin
        from http_httpx2 import Httpx2Route
        from http_request import Target, environment_proxies, parse_url, proxy_for
        from http_types import (
            Answer,
            ConnectFailed,
            ConnectionBroken,
            Headers,
            HttpError,
            RawHeaders,
            short,
        )

__all__ = ["Answer", "ConnectFailed", "ConnectionBroken", "Headers", "HttpClient", "HttpError"]


class HttpClient:
    """Pooled keep-alive HTTP/1.1 exchanges (asyncio); close with `aclose()`."""

    def __init__(
        self,
        *,
        max_connections: int = 32,
        max_idle_per_origin: int = 8,
        ssl_context: ssl.SSLContext | None = None,
        env: Mapping[str, str] | None = None,
        via_httpx2: bool = False,
    ) -> None:
        self._max, self._max_idle = max_connections, max_idle_per_origin
        self._ssl = ssl_context
        self._proxies = environment_proxies(os.environ if env is None else env)
        self._via_httpx2 = via_httpx2
        self._idle: dict[Origin, list[Connection]] = {}
        self._open = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._httpx2: Httpx2Route | None = None
        self._closed = False

    @property
    def open_connections(self) -> int:
        """Connections of the built-in route (httpx2's are its own)."""
        return self._open

    async def exchange(
        self,
        method: str,
        url: str,
        headers: RawHeaders,
        body: bytes | None,
        *,
        cap: int,
        drain_limit: int,
    ) -> Answer:
        if self._closed:
            raise HttpError("the HTTP client is closed")
        method, target = method.upper(), parse_url(url)
        proxy = self._proxy_for(target)
        via_httpx2 = self._via_httpx2 or proxy is not None
        try:  # an invalid request is neither sent nor connected for, on either route
            all_headers = target.headers(method, headers, body)
            request = wire.encode_request(method, target.target, all_headers, body)
        except wire.InvalidRequest as error:
            raise HttpError(f"invalid request ({error})") from None
        if via_httpx2:
            route = self._httpx2_route()
            return await route.exchange(
                proxy, target, method, url, headers, body, cap=cap, drain_limit=drain_limit
            )
        origin = (target.scheme, target.host, target.port)
        close_after = wire.asks_close(all_headers)
        for fresh in (False, True):
            conn, reused = await self._acquire(origin, fresh)
            try:
                return await conn.exchange(method, request, close_after, cap, drain_limit)
            except wire.EndedEarly:
                if not reused or fresh:
                    raise ConnectionBroken(
                        "the server closed the connection without answering"
                    ) from None
            except (OSError, wire.Malformed, zlib.error) as error:
                raise ConnectionBroken(short(error)) from None
            finally:
                self._release(conn, conn.reusable)
        raise AssertionError("unreachable")

    # ---- routes --------------------------------------------------------------------------------

    def _proxy_for(self, target: Target) -> str | None:
        return proxy_for(self._proxies, target)

    def _httpx2_route(self) -> Httpx2Route:
        if self._httpx2 is None:
            self._httpx2 = Httpx2Route(
                max_connections=self._max, max_idle=self._max_idle, tls=self._tls_context
            )
        return self._httpx2

    def _tls_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    # ---- the pool ------------------------------------------------------------------------------

    async def _acquire(self, origin: Origin, fresh: bool) -> tuple[Connection, bool]:
        """An idle connection to `origin` (reused=True) or a new one, within max_connections."""
        while True:
            if self._closed:
                raise HttpError("the HTTP client is closed")
            idle = self._idle.get(origin)
            now = asyncio.get_running_loop().time()
            while idle and not fresh:
                conn = idle.pop()
                if conn.usable(now):
                    return conn, True
                self._drop(conn)
            if self._open < self._max or self._evict_one():
                self._open += 1
                try:
                    tls = self._tls_context() if origin[0] == "https" else None
                    return await Connection.open(origin, tls), False
                except BaseException:
                    self._open -= 1
                    self._wake()
                    raise
            await self._wait()

    def _evict_one(self) -> bool:
        """Close the longest idle connection of any origin to make room."""
        for idle in self._idle.values():
            if idle:
                self._drop(idle.pop(0))
                return True
        return False

    async def _wait(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._wake()  # pass on the wake-up this task can no longer use
            raise
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _release(self, conn: Connection, keep: bool) -> None:
        idle = self._idle.setdefault(conn.origin, [])
        if (
            keep
            and not self._closed
            and len(idle) < self._max_idle
            and not conn.writer.is_closing()
        ):
            conn.idle_since = asyncio.get_running_loop().time()
            idle.append(conn)
            self._wake()
        else:
            self._drop(conn)

    def _drop(self, conn: Connection) -> None:
        conn.close()
        self._open -= 1
        self._wake()

    async def aclose(self) -> None:
        """Close idle connections now and busy ones when their exchange ends."""
        self._closed = True
        for idle in self._idle.values():
            while idle:
                self._drop(idle.pop())
        while self._waiters:
            self._wake()
        route, self._httpx2 = self._httpx2, None
        if route is not None:
            await route.aclose()
