"""What the runtime's HTTP client sends, and by which route: the URL split as given (pre-encoded,
never re-quoted), the request headers exactly as httpx2.AsyncClient builds them (but advertising
only the codings http_body.py decodes), and the proxy the environment sets for a URL."""

from __future__ import annotations

import base64
import functools
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit
from urllib.request import proxy_bypass_environment  # type: ignore[attr-defined,unused-ignore]

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    from http_types import ConnectFailed, RawHeaders  # type: ignore[import-not-found,unused-ignore]
else:
    try:
        from .http_types import ConnectFailed, RawHeaders
    except ImportError:  # loaded as a top-level module, next to its siblings
        from http_types import ConnectFailed, RawHeaders

__all__ = ["DEFAULT_HEADERS", "Target", "environment_proxies", "parse_url", "proxy_for"]

DEFAULT_HEADERS = (
    (b"Accept", b"*/*"),
    (b"Accept-Encoding", b"gzip, deflate"),
    (b"Connection", b"keep-alive"),
    (b"User-Agent", b"python-mcp-runtime"),  # the runtime always sets its own (see sending.py)
)
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "QUERY"})  # Content-Length: 0 when empty
_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: str
    port: int
    target: bytes  # path?query, as given
    host_header: bytes
    basic: bytes | None  # from the URL's userinfo

    def headers(self, method: str, headers: RawHeaders, body: bytes | None) -> RawHeaders:
        """As httpx2.AsyncClient builds them: Host, defaults the caller did not set, the caller's."""
        given = {name.lower() for name, _ in headers}
        out = [] if b"host" in given else [(b"Host", self.host_header)]
        out += [(name, value) for name, value in DEFAULT_HEADERS if name.lower() not in given]
        out += headers
        if self.basic is not None and b"authorization" not in given:
            out.append((b"Authorization", self.basic))
        if b"content-length" not in given and b"transfer-encoding" not in given:
            if body:
                out.append((b"Content-Length", str(len(body)).encode("ascii")))
            elif method in _BODY_METHODS:
                out.append((b"Content-Length", b"0"))
        return out


@functools.lru_cache(maxsize=512)
def parse_url(url: str) -> Target:
    """Split an http(s) URL; a bad one raises ConnectFailed. (Targets are immutable: the last 512
    are kept, as a tool's calls often repeat their URL.)"""
    try:
        parts = urlsplit(url)
        scheme, host, port = parts.scheme.lower(), parts.hostname or "", parts.port
        host = host if host.isascii() else host.encode("idna").decode("ascii")
    except (ValueError, UnicodeError) as error:
        raise ConnectFailed(f"invalid URL ({error})") from None
    if scheme not in _PORTS or not host:
        raise ConnectFailed("invalid URL (it needs http:// or https:// and a host)")
    default = _PORTS[scheme]
    port = port or default
    shown = f"[{host}]" if ":" in host else host
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not (target.isascii() and target.isprintable()) or " " in target:
        target = quote(target, safe=string.punctuation)  # as httpx: only what cannot be sent
    basic = None
    if parts.username or parts.password:
        userpass = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        basic = b"Basic " + base64.b64encode(userpass.encode())
    netloc = shown if port == default else f"{shown}:{port}"
    return Target(scheme, host, port, target.encode("ascii"), netloc.encode("ascii"), basic)


def environment_proxies(env: Mapping[str, str]) -> dict[str, str]:
    """urllib.request.getproxies_environment() over `env`: lowercase names win; CGI drops HTTP_PROXY."""
    proxies = {
        name.lower()[:-6]: value
        for name, value in env.items()
        if value and name.lower().endswith("_proxy")
    }
    if "REQUEST_METHOD" in env:
        proxies.pop("http", None)
    for name, value in env.items():
        if name.endswith("_proxy"):
            if value:
                proxies[name[:-6]] = value
            else:
                proxies.pop(name[:-6], None)
    return proxies


def proxy_for(proxies: Mapping[str, str], target: Target) -> str | None:
    """The proxy URL for `target` (NO_PROXY applied), or None to go direct."""
    proxy = proxies.get(target.scheme) or proxies.get("all")
    if not proxy:
        return None
    host = target.host if ":" in target.host else f"{target.host}:{target.port}"
    if proxy_bypass_environment(host, proxies):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"
