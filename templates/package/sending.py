"""Sending a prepared request to the API: credentials, the before_request hooks, the shared
httpx2.AsyncClient (`http_client.py`, made on first use) within PREFIX_TIMEOUT, and failures as
ToolErrors the model can act on.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import auth  # type: ignore[import-not-found,unused-ignore]
    import hooks_api as hk  # type: ignore[import-not-found,unused-ignore]
    import hooks_runner as run  # type: ignore[import-not-found,unused-ignore]
    import http_client as http  # type: ignore[import-not-found,unused-ignore]
    import responses as res  # type: ignore[import-not-found,unused-ignore]
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
    from settings import Settings  # type: ignore[import-not-found,unused-ignore]
else:
    from . import auth
    from . import hooks_api as hk
    from . import hooks_runner as run
    from . import http_client as http
    from . import responses as res
    from . import serialize as ser
    from .settings import Settings

logger = logging.getLogger(__name__)

_DRAIN_LIMIT = 64 * 1024 * 1024  # bytes counted (not kept) past the cap, to say how much was cut
_ACCEPT = "application/json, */*;q=0.8"
# httpx2's loggers: their lines (URLs, response headers at DEBUG) are scrubbed of secrets too
_LOGGERS = (
    "httpx2",
    *(f"httpcore2.{name}" for name in ("connection", "http11", "http2", "proxy", "socks")),
)
_UNSAFE_AGENT = re.compile(r"[^!#$%&'*+.^_`|~0-9A-Za-z/-]")  # the spec's version is untrusted text


class ToolError(Exception):
    """A failed call, reported to the model as an isError result with this (safe) message."""


class Sender:
    """The API side of a ToolRuntime; close it with `aclose()` at shutdown."""

    def __init__(
        self, settings: Settings, credentials: auth.Credentials, hooks: hk.Hooks, agent: str
    ) -> None:
        self.settings, self.credentials, self.hooks = settings, credentials, hooks
        self._user_agent = settings.user_agent or _UNSAFE_AGENT.sub("_", agent)
        # a PREFIX_CA_BUNDLE, _CLIENT_CERT or _CLIENT_KEY that cannot be used: ConfigError at start
        self._verify = http.tls_context(settings)
        self._client: httpx2.AsyncClient | None = None
        self._creating: asyncio.Lock | None = None

    async def _http(self) -> httpx2.AsyncClient:
        """The shared HTTP client, created on first use with the options the http_client hooks of
        hooks.py leave."""
        self._creating = self._creating or asyncio.Lock()
        async with self._creating:
            if self._client is None:
                options = http.client_options(self._verify)
                self._client = await run.make_client(
                    self.hooks.client_hooks(), options, httpx2.AsyncClient
                )
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
        self,
        extra: Mapping[str, str],
        content_type: str | None,
        cookies: Sequence[str] = (),
        to_api: bool = True,
    ) -> list[tuple[bytes, bytes]]:
        """Defaults < PREFIX_HEADERS (API requests only) < parameters and credentials; one Cookie."""
        merged = {"user-agent": ("User-Agent", self._user_agent), "accept": ("Accept", _ACCEPT)}
        configured = list(self.settings.headers.items()) if to_api else []
        for name, value in [*configured, *extra.items()]:
            merged[name.lower()] = (name, value)
        if content_type:
            merged["content-type"] = ("Content-Type", content_type)
        if cookies:
            static = merged.get("cookie", ("", ""))[1]
            merged["cookie"] = ("Cookie", "; ".join([static, *cookies] if static else cookies))
        return [(name.encode("ascii"), value.encode()) for name, value in merged.values()]

    async def _post(self, url: str, headers: Mapping[str, str], body: bytes) -> res.Upstream:
        """A token request: the token endpoint is another party, so PREFIX_HEADERS stay out."""
        return await self.exchange("POST", url, self._headers(headers, None, to_api=False), body)

    async def send(
        self, request: ser.PreparedRequest, chosen: auth.Chosen, base_url: str, call: hk.Call
    ) -> res.Upstream:
        """Send with credentials, then the before_request hooks; after a 401 on a fetched OAuth2
        token, fetch anew and retry once."""
        stale: dict[tuple[str, str], str] = {}
        while True:
            attempt = replace(
                request,
                query=[*request.query],
                headers={**request.headers},
                cookies=[*request.cookies],
            )
            used = await self.credentials.apply(attempt, chosen, stale, self._post)
            headers = self._headers(attempt.headers, attempt.content_type, attempt.cookies)
            method, url, body = attempt.method, attempt.url(base_url), attempt.body
            if self.hooks.hooks:  # its before_request hooks run, and call.request is set
                named = {name.decode(): value.decode() for name, value in headers}
                wanted = hk.Request.parse(method, url, named, body)
                hooks = self.hooks.before_for(call.tool)
                method, url, headers, body = await run.run_before(hooks, call, wanted)
            answer = await self.exchange(method, url, headers, body)
            call.status, call.response_headers = answer.status, answer.headers
            logger.info("%s %s -> HTTP %s", answer.method, answer.url, answer.status)
            if answer.status != 401 or not used or stale:
                return answer
            stale = used

    async def exchange(
        self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes | None
    ) -> res.Upstream:
        """One HTTP exchange within PREFIX_TIMEOUT; failures become ToolErrors the model can act on."""
        shown, timeout = self.credentials.shown_url(url), self.settings.timeout
        what = f"{method} {shown}"
        client = self._client or await self._http()
        try:
            async with asyncio.timeout(timeout) as deadline:  # asyncio: anyio's backend here
                cap = self.settings.max_response_bytes
                answer = await http.exchange(
                    client, method, url, headers, body, cap=cap, drain_limit=_DRAIN_LIMIT
                )
        except TimeoutError:
            limit = f"{timeout:g} seconds ({self.settings.prefix}_TIMEOUT)"
            raise ToolError(
                f"The API did not answer {what} within "
                f"{limit if deadline.expired() else 'the timeout set in hooks.py'}."
                " It may be overloaded or unreachable: try again later."
            ) from None
        except http.InvalidRequest as error:
            raise ToolError(
                f"The request {what} cannot be sent ({self.credentials.scrub(str(error))})."
                " Nothing was sent to the API."
            ) from None
        except http.ConnectFailed as error:
            problem = "a TLS/certificate error" if error.tls else "the connection failed"
            raise ToolError(
                f"Could not reach the API for {what}: {problem} ({self.credentials.scrub(str(error))})."
                f" Check that {self.settings.prefix}_BASE_URL is right and the API is up."
            ) from None
        except http.Broken as error:
            raise ToolError(
                f"The connection to the API broke during {what} ({self.credentials.scrub(str(error))})."
                " The request may or may not have been processed."
            ) from None
        omitted = answer.total - len(answer.kept)
        status, reason, kept, cut = answer.status, answer.reason, answer.kept, answer.cut_short
        return res.Upstream(method, shown, status, reason, answer.headers, kept, omitted, cut)
