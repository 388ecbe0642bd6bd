"""The runtime's HTTP side: `Sender` sends a prepared request to the API (credentials, the
before_request hooks, PREFIX_TIMEOUT, failures as ToolErrors) through one `httpx2.AsyncClient` per
server; `exchange` is one capped exchange, httpx2's errors as short messages."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TYPE_CHECKING, Any
from urllib.request import getproxies_environment, proxy_bypass_environment  # type: ignore[attr-defined,unused-ignore]

import httpx2

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import audit  # type: ignore[import-not-found,unused-ignore]
    import hooks_api as hk  # type: ignore[import-not-found,unused-ignore]
    import hooks_runner as run  # type: ignore[import-not-found,unused-ignore]
    import resilience as rs  # type: ignore[import-not-found,unused-ignore]
    import responses as res  # type: ignore[import-not-found,unused-ignore]
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
    from settings import Chosen, ConfigError, Credentials, Settings, ToolError  # type: ignore[import-not-found,unused-ignore]
else:
    from . import audit
    from . import hooks_api as hk
    from . import hooks_runner as run
    from . import resilience as rs
    from . import responses as res
    from . import serialize as ser
    from .settings import Chosen, ConfigError, Credentials, Settings, ToolError

logger = logging.getLogger(__name__)

RawHeaders = list[tuple[bytes, bytes]]
_DRAIN_LIMIT = 64 * 1024 * 1024  # bytes counted (not kept) past the cap, to say how much was cut
_ACCEPT = "application/json, */*;q=0.8"
# httpx2's loggers: their lines (URLs, response headers at DEBUG) are scrubbed of secrets too
_LOGGERS = (
    "httpx2",
    *(f"httpcore2.{name}" for name in ("connection", "http11", "http2", "proxy", "socks")),
)
_UNSAFE_AGENT = re.compile(r"[^!#$%&'*+.^_`|~0-9A-Za-z/-]")  # the spec's version is untrusted text
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})  # without annotations
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
    *,
    cap: int,
    drain_limit: int = _DRAIN_LIMIT,
) -> Answer:
    """The body decoded in pieces of at most 1 MiB (no gzip bomb), the first `cap` bytes kept, up to
    `drain_limit` more counted, then the connection dropped; a hooks.py timeout: TimeoutError."""
    if problem := _framing_problem(headers, body):
        raise InvalidRequest(problem)
    given = any(name.lower() == b"authorization" for name, _ in headers)
    # no Basic credentials from the URL's userinfo over an Authorization header (a hook's auth wins)
    auth = httpx2.Auth() if given and client.auth is None else httpx2.USE_CLIENT_DEFAULT
    try:
        async with client.stream(method, url, headers=headers, content=body, auth=auth) as response:
            kept, total, cut = bytearray(), 0, False
            async for piece in response.aiter_bytes():
                total += len(piece)
                kept += piece[: max(0, cap - len(kept))]
                if cut := total > cap + drain_limit:
                    break
    except httpx2.TimeoutException:
        raise TimeoutError from None
    except httpx2.LocalProtocolError as error:
        raise InvalidRequest(str(error)) from None
    except _UNREACHED as error:
        raise _connect_failed(error, url) from None
    except (httpx2.TransportError, httpx2.DecodingError) as error:
        raise Broken(_short(error)) from None
    status, reason = response.status_code, response.reason_phrase
    return Answer(status, reason, response.headers, bytes(kept), total, cut)


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


class Sender:
    """The API side of a ToolRuntime; close it with `aclose()` at shutdown."""

    def __init__(
        self, settings: Settings, credentials: Credentials, hooks: hk.Hooks, agent: str
    ) -> None:
        self.settings, self.credentials, self.hooks = settings, credentials, hooks
        self._user_agent = _UNSAFE_AGENT.sub("_", agent)
        self._verify = tls_context(settings)  # a ConfigError at start, not on the first call
        self._client: httpx2.AsyncClient | None = None
        self._creating = asyncio.Lock()
        self.resilience = rs.Resilience.from_env(settings.env, settings.prefix)
        self._limits = rs.Limits(self.resilience)

    async def _http(self) -> httpx2.AsyncClient:
        """The shared client, made on first use with the options the http_client hooks leave."""
        async with self._creating:
            if self._client is None:
                hooks, options = self.hooks.client_hooks(), client_options(self._verify)
                self._client = await run.make_client(hooks, options, httpx2.AsyncClient)
                for name in _LOGGERS:
                    logging.getLogger(name).addFilter(self._log_filter)
        return self._client

    async def aclose(self) -> None:
        """Close the shared HTTP client (call at shutdown)."""
        client, self._client = self._client, None
        if client is not None:
            for name in _LOGGERS:
                logging.getLogger(name).removeFilter(self._log_filter)
            await client.aclose()

    def _log_filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if (clean := self.credentials.scrub(message)) != message:
            record.msg, record.args = clean, None
        return True

    def _headers(
        self, extra: Mapping[str, str], content_type: str | None = None, cookies: Sequence[str] = ()
    ) -> RawHeaders:
        """The defaults < `extra` < `content_type`; the `cookies` joined into one Cookie header."""
        merged = hk.Headers({"User-Agent": self._user_agent, "Accept": _ACCEPT})
        merged.update(extra)
        if content_type:
            merged["Content-Type"] = content_type
        if cookies:
            merged["Cookie"] = "; ".join(filter(None, [merged.get("Cookie"), *cookies]))
        return [(name.encode("ascii"), value.encode()) for name, value in merged.items()]

    async def _post(self, url: str, headers: Mapping[str, str], body: bytes) -> res.Upstream:
        """A token request: the token endpoint is another party, so PREFIX_HEADERS stay out."""
        return await self._exchange("POST", url, self._headers(headers), body)

    async def send(
        self,
        request: ser.PreparedRequest,
        chosen: Chosen,
        base_url: str,
        call: hk.Call,
        retried: bool = False,
    ) -> res.Upstream:
        """With credentials, then the before_request hooks; a 401 on a fetched token: one retry.
        A `retried` call is sent again on a broken connection, 429, 502, 503 or 504 (_attempts)."""
        stale: dict[tuple[str, str], str] = {}
        deadline = asyncio.get_running_loop().time() + self.settings.timeout
        while True:
            attempt = replace(  # credentials are added to a copy of the mutable parts
                request,
                query=[*request.query],
                headers={**request.headers},
                cookies=[*request.cookies],
            )
            used = await self.credentials.apply(attempt, chosen, stale, self._post)
            extra = {**self.settings.headers, **attempt.headers}  # PREFIX_HEADERS < parameters
            headers = self._headers(extra, attempt.content_type, attempt.cookies)
            method, url, body = attempt.method, attempt.url(base_url), attempt.body
            if self.hooks.hooks:  # its before_request hooks run, and call.request is set
                named = {name.decode(): value.decode() for name, value in headers}
                wanted = hk.Request.parse(method, url, named, body)
                hooks = self.hooks.before_for(call.tool)
                method, url, headers, body = await run.run_before(hooks, call, wanted)
            answer = await self._attempts(method, url, headers, body, retried, deadline)
            call.status, call.response_headers = answer.status, answer.headers
            logger.info("%s %s -> HTTP %s", answer.method, answer.url, answer.status)
            if answer.status != 401 or not used or stale:
                return answer
            stale = used

    async def _attempts(
        self,
        method: str,
        url: str,
        headers: RawHeaders,
        body: bytes | None,
        retried: bool,
        deadline: float,
    ) -> res.Upstream:
        """The exchange, then (when `retried`) up to PREFIX_RETRIES more after a broken connection
        or a 429/502/503/504: full-jitter backoff or the answer's Retry-After, never past the
        deadline (the last answer or failure stands when the next wait would pass it)."""
        record, loop = audit.CURRENT.get(None), asyncio.get_running_loop()
        left, attempt = self.resilience.retries if retried else 0, 0
        while True:
            attempt += 1
            if record is not None:
                record.attempts += 1
            try:
                answer = await self._exchange(method, url, headers, body, deadline)
            except Retryable as failure:
                if not left or (wait := rs.backoff(attempt)) > deadline - loop.time():
                    raise
                why = failure.why
            else:
                if record is not None:
                    record.status = answer.status
                if answer.status not in rs.RETRIED_STATUSES or not left:
                    return answer
                told = rs.retry_after(answer.headers.get("retry-after"), time.time())
                wait = rs.backoff(attempt) if told is None else told
                if wait > deadline - loop.time():
                    if record is not None:
                        source = "backoff" if told is None else "Retry-After"
                        limit = (
                            f"{self.settings.timeout:g} s timeout ({self.settings.prefix}_TIMEOUT)"
                        )
                        record.note = (
                            f"Not retried: waiting {wait:.3g} s ({source}) would pass the {limit}."
                        )
                    return answer
                why = f"HTTP {answer.status}"
            left -= 1
            logger.warning(
                "%s %s: %s; retrying in %.2f s", method, self.credentials.shown_url(url), why, wait
            )
            if record is not None:
                data = {
                    "tool": record.tool,
                    "attempt": attempt,
                    "reason": why,
                    "wait_s": round(wait, 3),
                }
                await record.notify("warning", data)
            await asyncio.sleep(wait)

    async def _exchange(
        self,
        method: str,
        url: str,
        headers: RawHeaders,
        body: bytes | None,
        deadline: float | None = None,
    ) -> res.Upstream:
        """One HTTP exchange within the deadline (default: PREFIX_TIMEOUT from now), through the
        limits; failures become ToolErrors the model can act on (Retryable: a retry may help)."""
        shown, timeout = self.credentials.shown_url(url), self.settings.timeout
        what = f"{method} {shown}"
        client = self._client or await self._http()
        deadline = deadline or asyncio.get_running_loop().time() + timeout
        sent = False
        try:
            async with asyncio.timeout_at(deadline) as scope:  # asyncio: anyio's backend here
                async with self._limits.slot(deadline):
                    sent, cap = True, self.settings.max_response_bytes
                    answer = await exchange(client, method, url, headers, body, cap=cap)
        except TimeoutError:
            limit = f"{timeout:g} seconds ({self.settings.prefix}_TIMEOUT)"
            if not sent:
                raise ToolError(self._waited(what, limit)) from None
            raise ToolError(
                f"The API did not answer {what} within "
                f"{limit if scope.expired() else 'the timeout set in hooks.py'}."
                " It may be overloaded or unreachable: try again later."
            ) from None
        except rs.LimitWait as error:
            raise ToolError(self._waited(what, f"{timeout:g} seconds, at {error}")) from None
        except InvalidRequest as error:
            raise ToolError(
                f"The request {what} cannot be sent ({self.credentials.scrub(str(error))})."
                " Nothing was sent to the API."
            ) from None
        except ConnectFailed as error:
            problem = "a TLS/certificate error" if error.tls else "the connection failed"
            message = (
                f"Could not reach the API for {what}: {problem} ({self.credentials.scrub(str(error))})."
                f" Check that {self.settings.prefix}_BASE_URL is right and the API is up."
            )
            if error.lasting:
                raise ToolError(message) from None
            raise Retryable(message, "the connection failed") from None
        except Broken as error:
            raise Retryable(
                f"The connection to the API broke during {what} ({self.credentials.scrub(str(error))})."
                " The request may or may not have been processed.",
                "the connection broke",
            ) from None
        omitted = answer.total - len(answer.kept)
        status, reason, kept, cut = answer.status, answer.reason, answer.kept, answer.cut_short
        return res.Upstream(method, shown, status, reason, answer.headers, kept, omitted, cut)

    def _waited(self, what: str, limit: str) -> str:
        names = f"{self.settings.prefix}_MAX_CONCURRENCY / {self.settings.prefix}_RATE_LIMIT"
        return (
            f"The MCP server's own limits ({names}) kept {what} waiting past {limit}:"
            " it is busy. Nothing was sent to the API: try again later."
        )


class Retryable(ToolError):
    """A broken or refused connection: another attempt may succeed."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(text)
        self.why = why
