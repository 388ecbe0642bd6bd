"""A long-running tool's call after its first answer: its operation followed (long_running.py)
within the call's PREFIX_TIMEOUT (with progress notifications) or its task's time to live, and
the answer the call gives: the result's, the API's failure, or (the time ran out) the last status
with how to look the operation up again. A task's cancellation calls the API's cancel operation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.types import CallToolResult, TextContent

from ..results import responses as res
from ..serving import request_meta
from . import long_running as lro
from . import serialize as ser
from .route_match import RouteIndex

if TYPE_CHECKING:
    from ..hooks import api as hk
    from ..settings import Settings
    from .credentials import Chosen
    from .http_client import Sender

CallTool = Callable[[str, Mapping[str, Any]], Awaitable[CallToolResult]]


class Jobs:
    """The long-running routes of one server."""

    def __init__(
        self,
        sender: Sender,
        settings: Settings,
        routes: Mapping[str, Mapping[str, Any]],
        tools: Mapping[str, Any],
    ) -> None:
        self.follower, self.settings = lro.Follower(sender), settings
        self.index = RouteIndex(routes, tools)

    async def followed(
        self,
        answer: res.Upstream,
        request: ser.PreparedRequest,
        route: ser.Route,
        chosen: Chosen,
        base_url: str,
        call: hk.Call,
    ) -> res.Upstream | CallToolResult:
        """The answer the call goes on with (the result's, or the last status while the
        operation still runs), or its error result when the operation failed or was cancelled."""
        how = lro.LongRunning.from_json(route.long_running) or lro.LongRunning()
        job = lro.started(answer, request.method, request.url(base_url), how)
        if job is None:
            return answer
        watch = lro.WATCH.get() or self._plain_watch()
        outcome = await self.follower.follow(job, answer, chosen, base_url, call, watch)
        if outcome.pending:
            return self._pending(outcome, base_url)
        if outcome.status.state in (lro.FAILED, lro.CANCELLED) and outcome.answer.status < 400:
            ended = "failed" if outcome.status.state == lro.FAILED else "was cancelled by the API"
            return res.error_result(
                f"The long-running operation {ended} ({outcome.status.message}); its last"
                f" status, from {outcome.job.status_url}: {outcome.answer.text()[:2000]}"
            )
        return outcome.answer

    def _plain_watch(self) -> lro.Watch:
        """A plain call's: until PREFIX_TIMEOUT from the call's start, with progress."""
        started = request_meta.started() or asyncio.get_running_loop().time()

        async def report(job: lro.Job, status: lro.Status, polls: int) -> None:
            done = status.percent / 100 if status.percent is not None else None
            await request_meta.step(status.message, done)

        return lro.Watch(started + self.settings.timeout, report)

    def _pending(self, outcome: lro.Outcome, base_url: str) -> res.Upstream:
        """The answer of a call whose time ran out first: the last status, where it is, and
        which tool looks it up (when one of this server's tools is that URL)."""
        prefix, url = self.settings.prefix, outcome.job.status_url
        waited = f"the {self.settings.timeout:g} s this server waits ({prefix}_TIMEOUT)"
        found = self.index.lookup(url, base_url)
        how = (
            f"Call the tool {found[0]} with {json.dumps(found[1], ensure_ascii=False)}"
            if found
            else f"Send GET {url}"
        )
        body: dict[str, Any] = {
            "status": "working",
            "statusMessage": outcome.status.message,
            "statusUrl": url,
            "polls": outcome.polls,
            "howToFollow": f"The operation is still running after {waited}. {how} to see its"
            " status later; do not call this tool again for the same operation.",
        }
        if found:
            body["lookUp"] = {"tool": found[0], "arguments": found[1]}
        if (last := lro.json_of(outcome.answer)) is not None:
            body["lastStatus"] = last
        data = json.dumps(body, ensure_ascii=False).encode()
        headers = httpx2.Headers({"content-type": "application/json"})
        return replace(outcome.answer, status=202, reason="Accepted", headers=headers, body=data)

    async def cancel(
        self, job: lro.Job, route: Mapping[str, Any], call_tool: CallTool
    ) -> str | None:
        """Ask the API to cancel the operation of `job` (started by a tool with `route`): the
        spec's cancel tool, or one found by the status URL (long_running.RouteIndex); what it
        answered, or None when the API has no way to cancel it."""
        how = lro.LongRunning.from_json(route.get("longRunning")) or lro.LongRunning()
        base_url = self.settings.base_url_for(route.get("baseUrl")) or ""
        found = self.index.canceller(job.status_url, base_url, how.cancel)
        if found is None:
            return None
        name, arguments = found
        result = await call_tool(name, arguments)
        text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        ended = "failed" if result.is_error else "answered"
        return f"the API's cancel operation ({name}) {ended}: {text[:300]}"
