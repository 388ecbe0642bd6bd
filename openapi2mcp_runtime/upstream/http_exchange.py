"""One exchange with the API through an `httpx2.AsyncClient`: the body decoded in bounded pieces and
capped, httpx2's failures as short exceptions without secrets; the shared client's options and TLS
context (http_client.py's `Sender` uses them)."""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.request import getproxies_environment, proxy_bypass_environment  # type: ignore[attr-defined,unused-ignore]

import httpx2

from ..settings import ConfigError, Settings

RawHeaders = list[tuple[bytes, bytes]]
_DRAIN_LIMIT = 64 * 1024 * 1024  # bytes counted (not kept) past the cap, to say how much was cut
_UNREACHED = (httpx2.ConnectError, httpx2.ProxyError, httpx2.UnsupportedProtocol, httpx2.InvalidURL)


class HttpError(Exception):
    """Base class; str() is a short message without secrets."""


class InvalidRequest(HttpError):
    """The request cannot be sent as it is: nothing was sent."""


class ConnectFailed(HttpError):
    """Bad URL, DNS, TCP, TLS or proxy failure before the request was sent."""

    def __init__(self, message: str, *, tls: bool = False, lasting: bool = False) -> None:
        super().__init__(message)
        self.tls, self.lasting = tls, lasting or tls  # lasting: another attempt cannot help


class Broken(HttpError):
    """The exchange failed after sending began: the request may or may not have been processed."""


class Undecodable(HttpError):
    """The API answered, but its body is not in the Content-Encoding its headers name (a gzip
    header on a plain body): the request was processed, and asking again gets the same answer."""

    def __init__(self, message: str, *, status: int, encoding: str) -> None:
        super().__init__(message)
        self.status, self.encoding = status, encoding


@dataclass(frozen=True)
class Answer:
    status: int
    reason: str
    headers: httpx2.Headers  # case-insensitive; repeated headers joined with ", " by .get
    kept: bytes  # decoded body bytes, at most `cap`
    total: int  # decoded body bytes seen (kept + counted and dropped)
    cut_short: bool  # stopped reading past cap + drain_limit (the connection was dropped)


def client_options(verify: ssl.SSLContext | bool) -> dict[str, Any]:
    """The shared client's keyword arguments: a keep-alive pool, no redirects followed or cookies
    kept, no timeout (PREFIX_TIMEOUT bounds each exchange), proxies and CA files from the env."""
    limits = httpx2.Limits(max_connections=32, max_keepalive_connections=8, keepalive_expiry=4.0)
    jar = CookieJar(DefaultCookiePolicy(allowed_domains=[]))  # takes no cookie: none is sent back
    return dict(
        verify=verify,
        trust_env=True,
        timeout=None,
        limits=limits,
        follow_redirects=False,
        cookies=jar,
    )


def tls_context(settings: Settings) -> ssl.SSLContext | bool:
    """`verify=`: True (httpx2's default trust), or a context with PREFIX_CA_BUNDLE's CAs and
    PREFIX_CLIENT_CERT/_KEY; a file that cannot be used is a ConfigError naming its variable."""
    prefix = settings.prefix
    ca, cert, key = settings.ca_bundle, settings.client_cert, settings.client_key
    if key and not cert:
        raise ConfigError(f"{prefix}_CLIENT_KEY is set without {prefix}_CLIENT_CERT")
    if not (ca or cert):
        return True
    try:
        context = ssl.create_default_context(cafile=ca) if ca else httpx2.create_ssl_context()
    except (OSError, ssl.SSLError) as error:
        raise ConfigError(
            f"{prefix}_CA_BUNDLE: cannot load CA certificates from {ca!r} ({error})"
        ) from None
    if cert:
        names = f"{prefix}_CLIENT_CERT" + (f" / {prefix}_CLIENT_KEY" if key else "")
        try:
            context.load_cert_chain(cert, key, password=_no_password)
        except (OSError, ssl.SSLError, ValueError) as error:
            raise ConfigError(
                f"{names}: cannot load the client certificate and key ({error})"
            ) from None
    return context


def _no_password() -> str:
    raise ValueError(
        "the private key is encrypted: give it unencrypted (never asked for on a terminal)"
    )


async def exchange(
    client: httpx2.AsyncClient,
    method: str,
    url: str,
    headers: RawHeaders,
    body: bytes | None,
    cap: int,
    progress: Callable[[int, int], Awaitable[None]] | None = None,
    *,
    drain_limit: int = _DRAIN_LIMIT,
) -> Answer:
    """The body decoded in pieces of at most 1 MiB (no gzip bomb), the first `cap` bytes kept, up to
    `drain_limit` more counted, then the connection dropped; a hooks.py timeout: TimeoutError.
    `progress` hears the bytes received of a body whose Content-Length is known."""
    if problem := _framing_problem(headers, body):
        raise InvalidRequest(problem)
    given = any(name.lower() == b"authorization" for name, _ in headers)
    # no Basic credentials from the URL's userinfo over an Authorization header (a hook's auth wins)
    auth = httpx2.Auth() if given and client.auth is None else httpx2.USE_CLIENT_DEFAULT
    try:
        async with client.stream(method, url, headers=headers, content=body, auth=auth) as response:
            kept, total, cut = await _read(response, cap + drain_limit, cap, progress)
    except httpx2.TimeoutException:
        raise TimeoutError from None
    except httpx2.LocalProtocolError as error:
        raise InvalidRequest(str(error)) from None
    except _UNREACHED as error:
        raise _connect_failed(error, url) from None
    except httpx2.TransportError as error:
        raise Broken(_short(error)) from None
    status, reason = response.status_code, response.reason_phrase
    return Answer(status, reason, response.headers, kept, total, cut)


async def _read(
    response: httpx2.Response,
    limit: int,
    cap: int,
    progress: Callable[[int, int], Awaitable[None]] | None,
) -> tuple[bytes, int, bool]:
    """The answer's decoded body: its first `cap` bytes, the bytes seen, and whether reading stopped
    past `limit`. A body not in its Content-Encoding: Undecodable (the answer itself came)."""
    kept, total, cut = bytearray(), 0, False
    size = _content_length(response.headers) if progress is not None else None
    try:
        async for piece in response.aiter_bytes():
            if size and progress is not None:
                await progress(response.num_bytes_downloaded, size)
            total += len(piece)
            kept += piece[: max(0, cap - len(kept))]
            if cut := total > limit:
                break
    except httpx2.DecodingError as error:
        encoding = response.headers.get("content-encoding", "")
        raise Undecodable(_short(error), status=response.status_code, encoding=encoding) from None
    return bytes(kept), total, cut


def _content_length(headers: httpx2.Headers) -> int | None:
    value = headers.get("content-length", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def _framing_problem(headers: RawHeaders, body: bytes | None) -> str | None:
    """A Transfer-Encoding or a wrong Content-Length would be sent as given and break the exchange."""
    size = len(body or b"")
    for name, value in headers:
        if name.lower() == b"transfer-encoding":
            return "Transfer-Encoding is set by the HTTP client"
        if name.lower() == b"content-length" and value.strip() != str(size).encode():
            given = value.decode("latin-1")
            return f"Content-Length {given!r} does not match the body ({size} bytes)"
    return None


def _short(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300] if str(error) else type(error).__name__


def _connect_failed(error: Exception, url: str) -> ConnectFailed:
    """What failed (DNS, TCP, TLS), from the innermost OSError under httpx2's error."""
    low, seen, current = None, set(), error.__cause__ or error.__context__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        low = current if isinstance(current, OSError) else low
        current = current.__cause__ or current.__context__
    if isinstance(error, httpx2.InvalidURL | httpx2.UnsupportedProtocol):
        return ConnectFailed(f"invalid URL ({error})", lasting=True)
    parsed = httpx2.URL(url)  # httpx2 parsed it to connect
    host, port = parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80)
    if isinstance(low, ssl.SSLCertVerificationError):
        message = f"the TLS certificate of {host} was not accepted ({low.verify_message})"
    elif isinstance(low, ssl.SSLError):
        message = f"the TLS handshake with {host} failed ({low.reason or _short(low)})"
    elif isinstance(low, socket.gaierror):
        message = f"cannot resolve the host name {host} ({low.strerror})"
    else:
        reason = os.strerror(low.errno) if isinstance(low, OSError) and low.errno else _short(error)
        message = f"cannot connect to {host} port {port} ({reason})"
    proxies = getproxies_environment()
    proxied = proxies.get(parsed.scheme) or proxies.get("all")
    if proxied and not proxy_bypass_environment(host, proxies):
        message += "; a proxy is set in the environment (HTTP(S)_PROXY, ALL_PROXY): check it too"
    return ConnectFailed(message, tls=isinstance(low, ssl.SSLError))


REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
_DEFAULT_PORTS = {"http": 80, "https": 443}


def same_origin_redirect(method: str, url: str, status: int, location: str | None) -> str | None:
    """Where a redirect sends the request, when it is followed: to the same origin (scheme, host
    and port: the credentials stay with the host they are for), for GET and HEAD whatever the
    redirect, for other methods only a 307 or 308 (which keep the method and the body). None: the
    answer stands (another origin's redirect is reported with its Location)."""
    if status not in REDIRECTS or not location:
        return None
    if method not in ("GET", "HEAD") and status not in (307, 308):
        return None
    target = urljoin(url, location.strip())
    return target if _origin(target) == _origin(url) else None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port that is no number: no origin to match
        return ("", "", None)
    return parts.scheme, (parts.hostname or "").lower(), port
