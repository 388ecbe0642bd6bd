"""What happened on each tool call: a `Record` (the current call's, in a context variable, so the
HTTP side counts attempts and reports retries), written as one JSON line to PREFIX_AUDIT_LOG and
sent as MCP logging notifications (debug per HTTP attempt, info per call, warning per retry, error
on failure). A record holds no argument value and no credential; every line goes through the
credential scrubber too."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import sys
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, Protocol

import mcp.types as types
from mcp import MCPError

from ..settings import ConfigError

LOGGER_NAME = "openapi2mcp"
ATTEMPTS_KEY = "openapi2mcp/attempts"  # the result's _meta key: HTTP attempts made
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_LOGGING_DEPRECATED = "The logging capability is deprecated"  # the SDK's warning, from 2026-07-28
_MODERN = "2026-07-28"  # from this protocol version on, each request opts in to log messages

Log = Callable[[str, Mapping[str, Any]], Awaitable[None]]  # (level, data): one notification


@dataclass
class Record:
    """One tools/call: `session` is the MCP session id over HTTP, "stdio", or None (stateless)."""

    tool: str
    session: str | None = None
    log: Log | None = None
    attempts: int = 0  # HTTP attempts of the API request (token requests not counted)
    status: int | None = None  # the last answer's status
    note: str = ""  # why a retry was not made (added to the result's text)
    started: float = field(default_factory=time.monotonic)
    wall: float = field(default_factory=time.time)  # when it began (formatted only when written)
    share: str | None = None  # whose share of the upstream slots it takes (resilience.Limits)
    run: str | None = None  # code mode: the run_code program it is or belongs to (code_mode/)

    @classmethod
    def of_request(cls, tool: str, ctx: Any, log: Log | None) -> Record:
        return cls(tool, session_of(ctx), log, share=share_of(ctx))

    def child(self, tool: str) -> Record:
        """A call made within this one (a hook's call_tool, a program's): same session, log, share
        and run."""
        return Record(tool, self.session, self.log, share=self.share, run=self.run)

    def line(self, outcome: str) -> dict[str, Any]:
        line = {
            "time": datetime.fromtimestamp(self.wall, UTC).isoformat(),
            "session": self.session,
            "tool": self.tool,
            "status": self.status,
            "attempts": self.attempts,
            "duration_ms": round((time.monotonic() - self.started) * 1000, 1),
            "outcome": outcome,
        }
        return line if self.run is None else {**line, "run": self.run}

    @property
    def heard(self) -> bool:
        """Whether its client wants log notifications."""
        return self.log is not None

    async def notify(self, level: str, data: Mapping[str, Any]) -> None:
        if self.log is not None:
            await self.log(level, data)

    async def debug(self, attempt: int, event: str, **facts: Any) -> None:
        """A debug message on one HTTP attempt (`sending`, `answered`): no URL, no argument value."""
        if self.log is not None:
            elapsed = round((time.monotonic() - self.started) * 1000, 1)
            data = {
                "tool": self.tool,
                "attempt": attempt,
                "event": event,
                **facts,
                "elapsed_ms": elapsed,
            }
            await self.log("debug", data)


CURRENT: contextvars.ContextVar[Record | None] = contextvars.ContextVar("openapi2mcp_call")


def outcome(result: types.CallToolResult, attempts: int) -> str:
    """ok, error (the API was asked, or a hook failed after), or refused (nothing was sent)."""
    if not result.is_error:
        return "ok"
    return "error" if attempts else "refused"


class Scrubber(Protocol):
    """What replaces known secrets (credentials.py's Credentials)."""

    def scrub(self, text: str) -> str: ...

    def scrub_json(self, value: Any) -> Any: ...


async def finished(
    record: Record, result: types.CallToolResult, log: AuditLog, secrets: Scrubber
) -> types.CallToolResult:
    """The result with its attempts (`_meta`, and a note when > 1), written to the audit log and
    sent as a log notification (each only when someone reads it)."""
    attempts = record.attempts
    if attempts:
        meta = {**(result.meta or {}), ATTEMPTS_KEY: attempts}
        notes = [f"The API was tried {attempts} times."] if attempts > 1 else []
        blocks = [types.TextContent(text=" ".join([*notes, record.note]).strip())]
        content = [*result.content, *blocks] if notes or record.note else result.content
        result = result.model_copy(update={"meta": meta, "content": content})
    if not (log.on or record.heard):
        return result
    line = record.line(outcome(result, attempts))
    log.write(line, secrets.scrub)
    if record.heard:
        level = "info" if line["outcome"] == "ok" else "error"
        await record.notify(level, secrets.scrub_json(line))
    return result


class AuditLog:
    """PREFIX_AUDIT_LOG: "stderr", or a file appended to (opened at start); None: off."""

    def __init__(self, where: str | None, prefix: str) -> None:
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        if where is None or where.lower() == "stderr":
            self._file = sys.stderr if where else None
            return
        try:
            self._file = open(where, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        except OSError as error:
            raise ConfigError(f"{prefix}_AUDIT_LOG: cannot open {where!r} ({error})") from None

    @property
    def on(self) -> bool:
        return self._file is not None

    def write(self, line: Mapping[str, Any], scrub: Callable[[str], str]) -> None:
        if self._file is None:
            return
        text = scrub(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
        with self._lock:
            self._file.write(text + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None and self._file is not sys.stderr:
            self._file.close()
        self._file = None


class McpLog:
    """MCP logging notifications, on the request's own stream. Before 2026-07-28 a client sets a
    level with logging/setLevel (per stdio connection or HTTP session; none set: nothing is sent);
    from 2026-07-28 on, each request opts in through the reserved _meta key (LOG_LEVEL_META_KEY)."""

    def __init__(self) -> None:
        self._levels: OrderedDict[str | None, int] = OrderedDict()

    async def set_level(self, ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        """The low-level server's logging/setLevel handler; refused without a session to keep the
        level in (a --stateless server), since it would otherwise reach every sessionless client."""
        key = session_of(ctx)
        if key is None:
            raise MCPError(
                code=types.INVALID_REQUEST,
                message="logging/setLevel needs a session to keep the level in, and this server keeps"
                " none (--stateless): no log messages are sent to this client. From protocol"
                " 2026-07-28 on, a request asks for them in its own _meta.",
            )
        self._levels[key] = _LEVELS.index(params.level)
        self._levels.move_to_end(key)
        if len(self._levels) > 10_000:
            self._levels.popitem(last=False)
        return types.EmptyResult()

    @staticmethod
    @contextlib.contextmanager
    def deprecation_ignored() -> Iterator[None]:
        """The SDK's warning that logging is deprecated from 2026-07-28, silenced: older clients use
        it. Matched by its public base class and text (the SDK does not export the class itself)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", _LOGGING_DEPRECATED, UserWarning)
            yield

    def for_request(self, ctx: Any) -> Log | None:
        """How to notify within this request (None: it wants no log messages)."""
        session = getattr(ctx, "session", None)
        if session is None:
            return None
        if str(getattr(ctx, "protocol_version", "") or "") >= _MODERN:
            asked = (getattr(ctx, "meta", None) or {}).get(types.LOG_LEVEL_META_KEY)
            threshold = _LEVELS.index(asked) if asked in _LEVELS else None
        else:
            threshold = self._levels.get(session_of(ctx))
        if threshold is None:
            return None

        async def send(level: str, data: Mapping[str, Any]) -> None:
            if _LEVELS.index(level) >= threshold:
                with self.deprecation_ignored():  # the warning comes when the coroutine is made
                    sending = session.send_log_message(
                        level, dict(data), LOGGER_NAME, related_request_id=ctx.request_id
                    )
                await sending

        return send


def session_of(ctx: Any) -> str | None:
    """The MCP session id over HTTP (None when stateless), "stdio" without an HTTP request."""
    request = getattr(ctx, "request", None)
    if request is None:
        return "stdio"
    found = getattr(ctx, "session_id", None) or request.headers.get("mcp-session-id")
    return str(found) if found else None


def share_of(ctx: Any) -> str | None:
    """Whose fair share of PREFIX_MAX_CONCURRENCY a call takes: its HTTP session, else (an HTTP
    request without one) its caller, the Authorization header or else the client's address;
    None over stdio (one client: no one to share with)."""
    request = getattr(ctx, "request", None)
    if request is None:
        return None
    if session := session_of(ctx):
        return f"session:{session}"
    if authorization := request.headers.get("authorization"):
        return (
            "token:" + hashlib.sha256(authorization.encode("utf-8", "surrogateescape")).hexdigest()
        )
    client = getattr(request, "client", None)
    return f"address:{client.host if client else ''}"
