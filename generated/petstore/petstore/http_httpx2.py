"""The httpx2 route of the runtime's HTTP client: through a proxy from the environment, and for
every exchange when PREFIX_HTTP_CLIENT=httpx2. httpx2 is imported on first use only.

Same contract as the built-in route: the same request headers (the client's defaults are ours), the
body read raw and decoded by http_body.Sink (same codings, cap and bounded pieces), and httpx2's
errors mapped to HttpError, ConnectFailed (with the built-in route's messages) and ConnectionBroken.
"""

from __future__ import annotations

import contextlib
import ssl
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    import httpx2
    from http_body import Sink  # type: ignore[import-not-found,unused-ignore]
    from http_request import DEFAULT_HEADERS, Target  # type: ignore[import-not-found,unused-ignore]
    from http_types import (  # type: ignore[import-not-found,unused-ignore]
        Answer,
        ConnectFailed,
        ConnectionBroken,
        Headers,
        HttpError,
        RawHeaders,
        connect_failed,
        short,
    )
else:
    try:
        from .http_body import Sink
        from .http_request import DEFAULT_HEADERS, Target
        from .http_types import (
            Answer,
            ConnectFailed,
            ConnectionBroken,
            Headers,
            HttpError,
            RawHeaders,
            connect_failed,
            short,
        )
    except ImportError:  # loaded as a top-level module, next to its siblings
        from http_body import Sink
        from http_request import DEFAULT_HEADERS, Target
        from http_types import (
            Answer,
            ConnectFailed,
            ConnectionBroken,
            Headers,
            HttpError,
            RawHeaders,
            connect_failed,
            short,
        )

__all__ = ["Httpx2Route"]


class Httpx2Route:
    """One httpx2.AsyncClient per proxy URL (None: direct), with the limits and TLS context of the
    built-in route; close with `aclose()`."""

    def __init__(
        self, *, max_connections: int, max_idle: int, tls: Callable[[], ssl.SSLContext]
    ) -> None:
        self._max, self._max_idle, self._tls = max_connections, max_idle, tls
        self._clients: dict[str | None, httpx2.AsyncClient] = {}

    async def exchange(
        self,
        proxy: str | None,
        target: Target,
        method: str,
        url: str,
        headers: RawHeaders,
        body: bytes | None,
        *,
        cap: int,
        drain_limit: int,
    ) -> Answer:
        client = self._client(proxy)
        import h11  # loaded with httpx2 (httpcore2 uses it)
        import httpx2  # loaded by _client

        try:
            async with client.stream(method, url, headers=headers, content=body) as response:
                sink = Sink(cap, drain_limit, response.headers.get("content-encoding"))
                async for chunk in response.aiter_raw():
                    if not sink.take(chunk):
                        break
                else:
                    sink.finish()
        except (httpx2.LocalProtocolError, h11.LocalProtocolError) as error:
            raise HttpError(f"invalid request ({error})") from None
        except (httpx2.ConnectError, httpx2.ProxyError, httpx2.UnsupportedProtocol) as error:
            raise _connect_failure(error, proxy, target) from None
        except httpx2.InvalidURL as error:  # stricter than urlsplit here and there
            raise ConnectFailed(f"invalid URL ({error})") from None
        except (httpx2.TransportError, httpx2.DecodingError, zlib.error) as error:
            raise ConnectionBroken(short(error)) from None
        raw = Headers.from_raw(response.headers.raw)
        kept, total, cut = bytes(sink.kept), sink.total, sink.cut
        return Answer(response.status_code, response.reason_phrase, raw, kept, total, cut)

    def _client(self, proxy: str | None) -> httpx2.AsyncClient:
        if (client := self._clients.get(proxy)) is not None:
            return client
        try:
            import httpx2

            limits = httpx2.Limits(
                max_connections=self._max, max_keepalive_connections=self._max_idle
            )
            client = httpx2.AsyncClient(
                proxy=proxy,
                trust_env=False,
                verify=self._tls(),
                timeout=None,
                limits=limits,
                follow_redirects=False,
                headers=list(DEFAULT_HEADERS),
            )
        except (ImportError, ValueError) as error:  # no httpx2, or a proxy it cannot use
            where = "through the proxy" if proxy else "with httpx2"
            raise ConnectFailed(f"cannot connect {where} ({short(error)})") from None
        self._clients[proxy] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.aclose()


def _connect_failure(error: Exception, proxy: str | None, target: Target) -> ConnectFailed:
    """The built-in route's message for the DNS, TCP or TLS error under httpx2's; through a proxy, the
    host named is the proxy's unless TLS failed."""
    low = _os_error(error)
    host, port = target.host, target.port
    if proxy is not None and not isinstance(low, ssl.SSLError):
        parts = urlsplit(proxy)
        host, port = parts.hostname or "the proxy", 443 if parts.scheme == "https" else 80
        with contextlib.suppress(ValueError):  # a port out of range
            port = parts.port or port
    if low is not None:
        failure = connect_failed(low, host, port)
    else:
        failure = ConnectFailed(f"cannot connect to {host} port {port} ({short(error)})")
    if proxy is None:
        return failure
    return ConnectFailed(f"cannot connect through the proxy: {failure}", tls=failure.tls)


def _os_error(error: BaseException) -> OSError | None:
    """The innermost OSError that caused `error` (httpx2 → httpcore2 → anyio → socket/ssl)."""
    found = None
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            found = current
        current = current.__cause__ or current.__context__
    return found
