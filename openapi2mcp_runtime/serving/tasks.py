"""Long-running tools called as MCP tasks: a task runs the tool call in the background (its
operation polled until it ends or the task's time to live runs out) and keeps its result for
`tasks/get`, `tasks/result` and `tasks/cancel` (task_methods.py answers them). A task belongs to
whoever created it: the authenticated principal, the bearer token or the forwarded API credential
of the HTTP request (none over stdio), and nobody else finds it."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import mcp.types as types
from mcp import MCPError

from ..discovery.enabled import session_of
from ..upstream import long_running as lro
from . import request_meta

logger = logging.getLogger(__name__)

TTL_MS = 3_600_000  # a task's time to live when the client asks for none: an hour
MAX_TTL_MS = 86_400_000  # the longest a client may ask for: a day
MIN_TTL_MS = 60_000
MAX_RUNNING = 200  # tasks running at once in all; one more is refused (isError)
MAX_RUNNING_EACH = 20  # and for one caller (its owner, over HTTP its session too)
MAX_KEPT = 1_000  # tasks kept (the oldest ended ones go first)
TERMINAL = ("completed", "failed", "cancelled")


@dataclass
class TaskRecord:
    """One task: its status as tasks/get shows it, its result once it ended."""

    task_id: str
    owner: str | None
    tool: str
    ttl_ms: int
    session: str | None = None  # the HTTP session that made it (for MAX_RUNNING_EACH)
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: str = "working"
    message: str | None = None
    poll_interval_ms: int = 1_000
    result: types.CallToolResult | None = None
    error: types.ErrorData | None = None
    job: lro.Job | None = None  # the API's operation, once its first answer named one
    runner: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def fields(self, modern: bool) -> dict[str, Any]:
        """The Task as the wire has it (2026-07-28: ttlMs and pollIntervalMs)."""
        task: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.message:
            task["statusMessage"] = self.message
        task["createdAt"] = _iso(self.created)
        task["lastUpdatedAt"] = _iso(self.updated)
        task["ttlMs" if modern else "ttl"] = self.ttl_ms
        task["pollIntervalMs" if modern else "pollInterval"] = self.poll_interval_ms
        return task

    def expired(self, now: datetime) -> bool:
        return (now - self.created).total_seconds() * 1000 > self.ttl_ms

    def set(self, status: str, message: str | None) -> None:
        if self.status not in TERMINAL:
            self.status, self.message = status, message
            self.updated = datetime.now(UTC)


Cancel = Callable[[TaskRecord], Awaitable[str | None]]  # the API's cancel call: what it answered


class Tasks:
    """The tasks of one server process."""

    def __init__(self, cancel_operation: Cancel, credential_header: str | None = None) -> None:
        """`credential_header`: --credentials from-request's, which binds a task too."""
        self._tasks: OrderedDict[str, TaskRecord] = OrderedDict()
        self._cancel_operation = cancel_operation
        self._headers = (
            "authorization",
            *([credential_header.lower()] if credential_header else []),
        )

    def refusal(self, ctx: Any) -> str | None:
        """Why the caller may not start another task now (None: it may)."""
        running = [task for task in self._tasks.values() if task.status not in TERMINAL]
        if len(running) >= MAX_RUNNING:
            return f"{MAX_RUNNING} tasks are running on this server: try again when one has ended"
        caller = (owner_of(ctx, self._headers), session_of(ctx))
        if sum((task.owner, task.session) == caller for task in running) >= MAX_RUNNING_EACH:
            return (
                f"This client has {MAX_RUNNING_EACH} tasks running: wait for one to end (tasks/get)"
                " or cancel one (tasks/cancel)"
            )
        return None

    def start(
        self,
        ctx: Any,
        tool: str,
        run: Callable[[], Awaitable[types.CallToolResult]],
        ttl_ms: int | None,
    ) -> TaskRecord:
        """A task running `run()` in the background, owned by the request's caller."""
        self._forget_expired()
        ttl = min(max(ttl_ms or TTL_MS, MIN_TTL_MS), MAX_TTL_MS)
        task = TaskRecord(
            secrets.token_urlsafe(24), owner_of(ctx, self._headers), tool, ttl, session_of(ctx)
        )
        loop = asyncio.get_running_loop()
        watch = lro.Watch(loop.time() + ttl / 1000, _reporter(task))
        with request_meta.detached():  # the request ends now: no progress on its token
            task.runner = loop.create_task(self._run(task, run, watch))
        self._tasks[task.task_id] = task
        return task

    async def _run(
        self, task: TaskRecord, run: Callable[[], Awaitable[types.CallToolResult]], watch: lro.Watch
    ) -> None:
        token = lro.WATCH.set(watch)
        try:
            result = await run()
            task.result = result
            task.set("failed" if result.is_error else "completed", None)
        except MCPError as error:
            task.error = error.error
            task.set("failed", error.error.message)
        except asyncio.CancelledError:
            task.set("cancelled", task.message)
        finally:
            lro.WATCH.reset(token)
            task.done.set()

    def find(self, ctx: Any, task_id: str) -> TaskRecord:
        """The caller's task `task_id`; MCPError -32602 when there is none (or no longer)."""
        self._forget_expired()
        task = self._tasks.get(task_id)
        if task is None or task.owner != owner_of(ctx, self._headers):
            raise MCPError(
                code=types.INVALID_PARAMS, message="Failed to retrieve task: Task not found"
            )
        return task

    async def cancel(self, task: TaskRecord) -> None:
        """Stop following the operation and (when the spec has a cancel operation) ask the API to
        cancel it; the task ends `cancelled`."""
        if task.status in TERMINAL:
            return
        task.set("cancelled", "cancelled by the client")
        if task.runner is not None:
            task.runner.cancel()
        answered = await self._cancel_operation(task)
        if answered:
            task.message = f"cancelled by the client; {answered}"
        await task.done.wait()

    def _forget_expired(self) -> None:
        now = datetime.now(UTC)
        for task_id, task in list(self._tasks.items()):
            if task.expired(now) or (len(self._tasks) > MAX_KEPT and task.status in TERMINAL):
                if task.runner is not None and not task.runner.done():
                    task.runner.cancel()
                del self._tasks[task_id]

    async def aclose(self) -> None:
        """Cancel the tasks still running (at shutdown)."""
        runners = [t.runner for t in self._tasks.values() if t.runner and not t.runner.done()]
        for runner in runners:
            runner.cancel()
        await asyncio.gather(*runners, return_exceptions=True)


def owner_of(ctx: Any, headers: tuple[str, ...]) -> str | None:
    """Who a task belongs to: the HTTP request's authenticated principal, else a digest of its
    `headers` (Authorization, the forwarded API credential); None over stdio (one client)."""
    request = getattr(ctx, "request", None)
    if request is None:
        return None
    from mcp.server.request_state import authenticated_principal

    principal = authenticated_principal(ctx) or ""
    parts = [principal, *(f"{name}:{request.headers.get(name, '')}" for name in headers)]
    joined = "\n".join(parts)
    return hashlib.sha256(joined.encode("utf-8", "surrogateescape")).hexdigest()


def _reporter(task: TaskRecord) -> Callable[[lro.Job, lro.Status, int], Awaitable[None]]:
    async def report(job: lro.Job, status: lro.Status, polls: int) -> None:
        task.job = job
        task.poll_interval_ms = int(lro.next_wait(status, polls) * 1000)
        task.set("working", status.message)

    return report


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
