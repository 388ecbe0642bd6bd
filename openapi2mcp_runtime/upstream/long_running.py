"""Following a long-running operation (a route with `longRunning` in the tool data): the answer
that starts one (202 with `Location`, or any success with `Operation-Location` or
`Azure-AsyncOperation`) names a status URL; it is polled, honoring `Retry-After`, until the
operation ends or the deadline comes: the call's PREFIX_TIMEOUT for a plain call, the task's for
a task (serving/tasks.py sets the `Watch`). The state is read from the status answer: a JSON
`status`, `state` or `provisioningState` (also under `properties`), Google's `done`, or HTTP 202
(still working) and a final 200/201 that names no state (the resource itself)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..results import responses as res
from ..settings import ToolError
from . import audit
from . import resilience as rs
from . import serialize as ser

if TYPE_CHECKING:
    from ..hooks import api as hk
    from .credentials import Chosen
    from .http_client import Sender

WORKING, COMPLETED, FAILED, CANCELLED = "working", "completed", "failed", "cancelled"
FINAL_STATE_VIA = ("location", "azure-async-operation", "original-uri", "operation-location")
_STATES = {
    COMPLETED: "succeeded success successful completed complete done finished ok",
    FAILED: "failed failure error errored faulted timedout",
    CANCELLED: "canceled cancelled aborted",
}
_STATE_OF = {word: state for state, words in _STATES.items() for word in words.split()}
# the words of a `status` or `state` still going on (any other is a resource's own: completed);
# a `provisioningState` not terminal is always still going on (Azure)
_GOING_ON = frozenset(
    {
        *("running", "inprogress", "pending", "accepted", "queued", "notstarted", "started"),
        *("processing", "creating", "updating", "deleting", "provisioning", "working"),
        *("waiting", "scheduled", "submitted", "initializing", "validating", "executing", "busy"),
    }
)
_STATE_KEYS = ("status", "state", "provisioningState")
_TRANSIENT = frozenset(rs.RETRIED_STATUSES)  # a poll answered so: polled again later
_FIRST_WAIT, _MAX_WAIT, _MIN_WAIT = 1.0, 10.0, 0.05  # seconds between polls without Retry-After


@dataclass(frozen=True)
class LongRunning:
    """A route's `longRunning`: where the result is when it ends, which tool cancels it."""

    final_state_via: str | None = None
    cancel: str | None = None  # a tool name

    @classmethod
    def from_json(cls, raw: Any) -> LongRunning | None:
        if not isinstance(raw, dict):
            return None
        via = raw.get("finalStateVia")
        cancel = raw.get("cancel")
        return cls(
            via if via in FINAL_STATE_VIA else None, cancel if isinstance(cancel, str) else None
        )


@dataclass(frozen=True)
class Job:
    """An operation that goes on after its first answer: where its status is, and where its
    result will be (None: the last status answer is the result)."""

    status_url: str
    result_url: str | None = None


@dataclass(frozen=True)
class Status:
    """What one status answer says."""

    state: str  # WORKING, COMPLETED, FAILED or CANCELLED
    message: str  # e.g. "HTTP 202 Accepted; status: Running, 40 %"
    percent: float | None = None
    wait: float | None = None  # its Retry-After, in seconds


@dataclass(frozen=True)
class Watch:
    """How the current call follows its operation: until `deadline` (the event loop's clock),
    telling `report` each status (and how many polls were made)."""

    deadline: float
    report: Callable[[Job, Status, int], Awaitable[None]]


WATCH: ContextVar[Watch | None] = ContextVar("openapi2mcp_watch", default=None)


@dataclass(frozen=True)
class Outcome:
    """How following ended: `answer` is the last one (the result's, when it completed); with
    `pending`, the deadline came first."""

    job: Job
    status: Status
    answer: res.Upstream
    polls: int
    pending: bool = False


def started(answer: res.Upstream, method: str, request_url: str, how: LongRunning) -> Job | None:
    """The job `answer` started, or None when it is the operation's final answer."""
    if answer.status not in (200, 201, 202):
        return None
    headers = answer.headers
    monitor = headers.get("azure-asyncoperation") or headers.get("operation-location")
    location = headers.get("location")
    location = urljoin(request_url, location) if location else None
    if monitor:
        status_url = urljoin(request_url, monitor)
    elif answer.status == 202 and location:
        status_url = location
    elif method in ("PUT", "PATCH") and classify(answer).state == WORKING:
        status_url = request_url  # Azure: the resource says it is still being made
    else:
        return None
    return Job(status_url, _result_url(how.final_state_via, method, request_url, location, monitor))


def _result_url(
    via: str | None, method: str, request_url: str, location: str | None, monitor: str | None
) -> str | None:
    """Where the result is fetched once the status says it completed (Azure's final-state-via,
    else its defaults: the resource itself for PUT and PATCH, Location for the others)."""
    if via == "original-uri" or (via is None and monitor and method in ("PUT", "PATCH")):
        return request_url
    if via == "location" or (via is None and monitor):
        return location
    return None


def classify(answer: res.Upstream) -> Status:
    """The state a status answer says."""
    wait = rs.retry_after(answer.headers.get("retry-after"), time.time())
    head = f"HTTP {answer.status} {answer.reason}".strip()
    if answer.status == 202 or answer.status in _TRANSIENT:
        return Status(WORKING, head, None, wait)
    if answer.status >= 400:
        return Status(FAILED, head, None, wait)
    value = json_of(answer)
    if isinstance(value, dict):
        if isinstance(done := value.get("done"), bool):  # Google's long-running Operation
            state = (FAILED if value.get("error") else COMPLETED) if done else WORKING
            return Status(state, f"{head}; done: {str(done).lower()}", None, wait)
        (key, said), percent = _said_state(value), _percent(value)
        if said is not None:
            word = re.sub(r"[^a-z]", "", said.lower())
            going_on = key == "provisioningState" or word in _GOING_ON
            state = _STATE_OF.get(word, WORKING if going_on else COMPLETED)
            shown = f"{head}; status: {said[:100]}"
            shown += f", {percent:g} %" if percent is not None else ""
            return Status(state, shown, percent, wait)
    return Status(COMPLETED, head, None, wait)  # the resource itself


def json_of(answer: res.Upstream) -> Any:
    """A JSON answer's value (None: not JSON, cut, or not valid)."""
    if answer.kind != "json" or answer.omitted:
        return None
    try:
        return json.loads(answer.body)
    except ValueError:
        return None


def _said_state(value: dict[str, Any]) -> tuple[str, str | None]:
    """(the key, its value) of the first state a status body says."""
    for holder in (value, value.get("properties")):
        if isinstance(holder, dict):
            for key in _STATE_KEYS:
                if isinstance(said := holder.get(key), str) and said.strip():
                    return key, said.strip()
    return "", None


def _percent(value: dict[str, Any]) -> float | None:
    for key in ("percentComplete", "percent_complete", "progress"):
        found = value.get(key)
        if isinstance(found, int | float) and not isinstance(found, bool) and 0 <= found <= 100:
            return float(found)
    return None


def next_wait(status: Status, polls: int) -> float:
    """Seconds before the next poll: the answer's Retry-After, else 1 s growing to 10 s."""
    if status.wait is not None:
        return max(status.wait, _MIN_WAIT)
    return min(_FIRST_WAIT * 1.5**polls, _MAX_WAIT)


class Follower:
    """Polls a job's status URL through the sender (credentials only on the API's own origin)."""

    def __init__(self, sender: Sender) -> None:
        self.sender = sender

    async def follow(
        self,
        job: Job,
        first: res.Upstream,
        chosen: Chosen,
        base_url: str,
        call: hk.Call,
        watch: Watch,
    ) -> Outcome:
        loop = asyncio.get_running_loop()
        status, answer, polls = classify(first), first, 0
        if status.state == FAILED and first.status < 400:  # a start that is no job at all
            status = Status(WORKING, status.message, status.percent, status.wait)
        while status.state == WORKING:
            await watch.report(job, status, polls)
            wait = next_wait(status, polls)
            if loop.time() + wait >= watch.deadline:
                return Outcome(job, status, answer, polls, pending=True)
            await asyncio.sleep(wait)
            try:
                answer = await self.get(job.status_url, chosen, base_url, call, watch.deadline)
            except ToolError:
                if watch.deadline - loop.time() > _MIN_WAIT:  # a poll that failed on its own
                    raise
                return Outcome(job, status, answer, polls, pending=True)  # cut by the deadline
            status, polls = classify(answer), polls + 1
        await watch.report(job, status, polls)
        if status.state == COMPLETED and job.result_url and job.result_url != job.status_url:
            answer = await self.get(job.result_url, chosen, base_url, call, watch.deadline)
        return Outcome(job, status, answer, polls)

    async def get(
        self, url: str, chosen: Chosen, base_url: str, call: hk.Call, deadline: float
    ) -> res.Upstream:
        """GET `url` (retried as any idempotent call), with the credentials when it is on the
        API's origin, never elsewhere."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        request = ser.PreparedRequest(
            "GET", parts.path or "/", [parts.query] if parts.query else []
        )
        own = origin == _origin(base_url)
        record = audit.CURRENT.get(None)
        attempts = record.attempts if record is not None else 0
        try:
            return await self.sender.send(
                request, chosen if own else (), origin, call, retried=True, deadline=deadline
            )
        finally:
            if record is not None:  # a poll is no attempt of the call's request
                record.attempts = attempts


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
