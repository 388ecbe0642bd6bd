"""What a tools/call request's `_meta` asks of the call: with a progress token, MCP progress
notifications (at the start, while a response body of known size downloads, at the end); with W3C
trace context (`traceparent`, and `tracestate` beside it), the same headers on the API request
when they are well-formed (malformed ones are dropped). Both live in a context variable for the
length of the call, so the calls a hook makes within it share them."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from mcp.types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger(__name__)

Report = Callable[[float, float | None, str | None], Awaitable[None]]  # (progress, total, message)
BodyProgress = Callable[[int, int], Awaitable[None]]  # (bytes received, Content-Length)

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
_TRACESTATE_MEMBER = re.compile(
    r"[a-z0-9][_0-9a-z*/@-]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
)
_BODY_START, _BODY_SPAN, _BODY_STEP = 0.1, 0.8, 0.05  # the body's share of the progress, each step


class Progress:
    """The progress of one call, in fractions of 1 (the total), each greater than the last."""

    def __init__(self, report: Report) -> None:
        self._report, self._last = report, -1.0

    async def __call__(self, fraction: float, message: str) -> None:
        if fraction <= self._last:
            return
        self._last = fraction
        try:
            await self._report(fraction, 1.0, message)
        except Exception as error:  # a client gone or a closed stream must not fail the call
            logger.debug("progress notification not sent: %r", error)

    async def step(self, message: str, done: float | None = None) -> None:
        """A step of work whose end is unknown (or `done`, a fraction of it): a quarter of the way
        left to 0.99, or `done`'s share when that is further."""
        fraction = self._last + (0.99 - max(self._last, 0.0)) * 0.25
        if done is not None:
            fraction = max(fraction, 0.1 + 0.85 * min(max(done, 0.0), 1.0))
        await self(round(fraction, 4), message)

    async def body(self, received: int, size: int) -> None:
        """A response body of `size` bytes (its Content-Length), `received` so far."""
        fraction = round(_BODY_START + _BODY_SPAN * min(received, size) / size, 3)
        if fraction - self._last >= _BODY_STEP or (received >= size and fraction > self._last):
            await self(fraction, f"received {received:,} of {size:,} bytes")


@dataclass(frozen=True)
class CallMeta:
    progress: Progress | None = None
    trace: Mapping[str, str] = field(default_factory=dict)
    started: float | None = None  # the event loop's clock when the call began


_CURRENT: ContextVar[CallMeta | None] = ContextVar("openapi2mcp_call_meta", default=None)


@asynccontextmanager
async def bound(ctx: Any, tool: str) -> AsyncIterator[None]:
    """The request's progress and trace context for the call inside; its start and end reported."""
    meta: Mapping[str, Any] = getattr(ctx, "meta", None) or {}
    session = getattr(ctx, "session", None)
    # the SDK sends nothing when the request has no progress token (or calls an in-process
    # client's callback directly)
    progress = Progress(session.report_progress) if session is not None else None
    now = asyncio.get_running_loop().time()
    reset = _CURRENT.set(CallMeta(progress, trace_headers(meta), now))
    try:
        if progress is not None:
            await progress(0.0, f"calling {tool}")
        yield
        if progress is not None:
            await progress(1.0, f"{tool} finished")
    finally:
        _CURRENT.reset(reset)


@contextmanager
def detached() -> Iterator[None]:
    """Inside: the current call's trace context without its progress (a task's background work,
    which outlives the request whose progress token it had), and its clock started anew."""
    current = _CURRENT.get()
    trace = current.trace if current is not None else {}
    reset = _CURRENT.set(CallMeta(None, trace, None))
    try:
        yield
    finally:
        _CURRENT.reset(reset)


def started() -> float | None:
    """When the current call began (the event loop's clock); None outside one."""
    current = _CURRENT.get()
    return current.started if current is not None else None


async def step(message: str, done: float | None = None) -> None:
    """Report a step of the current call (Progress.step), when its request asked for progress."""
    current = _CURRENT.get()
    if current is not None and current.progress is not None:
        await current.progress.step(message, done)


def modern(ctx: Any) -> bool:
    """Whether the request speaks a protocol of the 2026-07-28 era (no handshake: change
    notifications ride subscriptions/listen, questions ride input_required, tasks are an
    extension); an in-process call (no ctx) is not."""
    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def trace() -> Mapping[str, str]:
    """The current call's trace headers (none outside a call or without trace context)."""
    current = _CURRENT.get()
    return current.trace if current is not None else {}


def body_progress() -> BodyProgress | None:
    """How to report the current call's body download (None: nobody asked)."""
    current = _CURRENT.get()
    return current.progress.body if current is not None and current.progress is not None else None


def trace_headers(meta: Mapping[str, Any]) -> dict[str, str]:
    """`traceparent` (W3C Trace Context level 1) and `tracestate` when both are well-formed, or
    `traceparent` alone when only it is; nothing without a valid `traceparent`."""
    parent, state = meta.get("traceparent"), meta.get("tracestate")
    if not isinstance(parent, str) or not _valid_traceparent(parent):
        return {}
    headers = {"traceparent": parent}
    if isinstance(state, str) and _valid_tracestate(state):
        headers["tracestate"] = state
    return headers


def _valid_traceparent(value: str) -> bool:
    match = _TRACEPARENT.fullmatch(value)
    if match is None:
        return False
    version, trace_id, parent_id, _flags, more = match.groups()
    if version == "ff" or trace_id == "0" * 32 or parent_id == "0" * 16:
        return False
    return more is None or version != "00"  # a later version may add fields after a dash


def _valid_tracestate(value: str) -> bool:
    members = [member.strip(" \t") for member in value.split(",")]
    members = [member for member in members if member]
    return (
        len(value) <= 512
        and len(members) <= 32
        and all(_TRACESTATE_MEMBER.fullmatch(member) for member in members)
    )
