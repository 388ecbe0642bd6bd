"""The runtime's HTTP side: `Sender` sends a prepared request to the API (credentials, the
before_request hooks, retries and limits, PREFIX_TIMEOUT, failures as ToolErrors) through one
`httpx2.AsyncClient` per server; http_exchange.py makes each capped exchange."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import httpx2

from ..hooks import api as hk
from ..hooks import runner as run
from ..results import responses as res
from ..serving import request_meta
from ..settings import Settings, ToolError
from . import audit
from . import http_exchange as hx
from . import resilience as rs
from . import serialize as ser
from .credentials import Chosen, Credentials

logger = logging.getLogger(__name__)

_ACCEPT = "application/json, */*;q=0.8"
# httpx2's loggers: their lines (URLs, response headers at DEBUG) are scrubbed of secrets too
_LOGGERS = (
    "httpx2",
    *(f"httpcore2.{name}" for name in ("connection", "http11", "http2", "proxy", "socks")),
)
_UNSAFE_AGENT = re.compile(r"[^!#$%&'*+.^_`|~0-9A-Za-z/-]")  # the spec's version is untrusted text


class Sender:
    """The API side of a ToolRuntime; close it with `aclose()` at shutdown."""

    def __init__(
        self, settings: Settings, credentials: Credentials, hooks: hk.Hooks, agent: str
    ) -> None:
        self.settings, self.credentials, self.hooks = settings, credentials, hooks
        self._user_agent = _UNSAFE_AGENT.sub("_", agent)
        self._verify = hx.tls_context(settings)  # a ConfigError at start, not on the first call
        self._client: httpx2.AsyncClient | None = None
        self._creating = asyncio.Lock()
        self.resilience = rs.Resilience.from_env(settings.env, settings.prefix)
        self._limits = rs.Limits(self.resilience)

    async def _http(self) -> httpx2.AsyncClient:
        """The shared client, made on first use with the options the http_client hooks leave."""
        async with self._creating:
            if self._client is None:
                hooks, options = self.hooks.client_hooks(), hx.client_options(self._verify)
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
    ) -> hx.RawHeaders:
        """The defaults < `extra` < `content_type`; the `cookies` joined into one Cookie header."""
        merged = hk.Headers({"User-Agent": self._user_agent, "Accept": _ACCEPT})
        merged.update(extra)
        if content_type:
            merged["Content-Type"] = content_type
        if cookies:
            merged["Cookie"] = "; ".join(filter(None, [merged.get("Cookie"), *cookies]))
        return [(name.encode("ascii"), ser.wire_bytes(value)) for name, value in merged.items()]

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
        deadline: float | None = None,
    ) -> res.Upstream:
        """With credentials, then the before_request hooks; a 401 on a fetched token: one retry.
        A `retried` call is sent again on a broken connection, 429, 502, 503 or 504 (_attempts).
        Within PREFIX_TIMEOUT from now, or `deadline` (the event loop's clock) when it is sooner."""
        stale: dict[tuple[str, str], str] = {}
        own = asyncio.get_running_loop().time() + self.settings.timeout
        deadline = own if deadline is None else min(own, deadline)
        while True:
            attempt = replace(  # credentials are added to a copy of the mutable parts
                request,
                query=[*request.query],
                headers={**request.headers},
                cookies=[*request.cookies],
            )
            used = await self.credentials.apply(attempt, chosen, stale, self._post)
            # PREFIX_HEADERS < the request's trace context < parameters
            extra = {**self.settings.headers, **request_meta.trace(), **attempt.headers}
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
        headers: hx.RawHeaders,
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
                await record.debug(attempt, "sending", method=method)
            try:
                answer = await self._followed(method, url, headers, body, deadline)
            except Retryable as failure:
                if not left or (wait := rs.backoff(attempt)) > deadline - loop.time():
                    raise
                why = failure.why
            else:
                if record is not None:
                    record.status = answer.status
                    await record.debug(attempt, "answered", status=answer.status)
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

    async def _followed(
        self, method: str, url: str, headers: hx.RawHeaders, body: bytes | None, deadline: float
    ) -> res.Upstream:
        """The exchange, and up to MAX_REDIRECTS more where a redirect stays on the same origin
        (http_exchange.same_origin_redirect: a service moving /api/ to /api); the last answer."""
        for _hop in range(hx.MAX_REDIRECTS):
            answer = await self._exchange(method, url, headers, body, deadline)
            location = answer.headers.get("location")
            target = hx.same_origin_redirect(method, url, answer.status, location)
            if target is None:
                return answer
            logger.info("%s %s -> HTTP %s, following it", method, answer.url, answer.status)
            url = target
        return await self._exchange(method, url, headers, body, deadline)

    async def _exchange(
        self,
        method: str,
        url: str,
        headers: hx.RawHeaders,
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
                async with self._limits.slot(deadline, _share()):
                    sent, cap = True, self.settings.max_response_bytes
                    progress = request_meta.body_progress()
                    answer = await hx.exchange(client, method, url, headers, body, cap, progress)
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
        except hx.InvalidRequest as error:
            raise ToolError(
                f"The request {what} cannot be sent ({self.credentials.scrub(str(error))})."
                " Nothing was sent to the API."
            ) from None
        except hx.ConnectFailed as error:
            problem = "a TLS/certificate error" if error.tls else "the connection failed"
            message = (
                f"Could not reach the API for {what}: {problem} ({self.credentials.scrub(str(error))})."
                f" Check that {self.settings.prefix}_BASE_URL is right and the API is up."
            )
            if error.lasting:
                raise ToolError(message) from None
            raise Retryable(message, "the connection failed") from None
        except hx.Undecodable as error:
            raise ToolError(
                f"The API answered {what} with HTTP {error.status}, but its body is not in the"
                f" Content-Encoding its headers name ({error.encoding!r}:"
                f" {self.credentials.scrub(str(error))}). The request was processed; asking again"
                " gets the same answer."
            ) from None
        except hx.Broken as error:
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


def _share() -> str | None:
    """The share of the upstream slots the call in progress takes (audit.Record.share)."""
    record = audit.CURRENT.get(None)
    return None if record is None else record.share
