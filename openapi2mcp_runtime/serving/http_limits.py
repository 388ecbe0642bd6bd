"""What one HTTP peer may hold of the server: open connections (in all, and per client address),
how long a connection may take to send a whole request, how long it may stay idle, the MCP
sessions open at once and how long an idle one lives, and how long shutdown waits.

uvicorn closes an idle keep-alive connection, but it times nothing before a request has arrived
whole and it limits no connections: a peer sending a request head one byte a second, or opening
thousands of connections and sending nothing, holds them, and the file descriptors, for ever.
http_guard.GuardedH11 is uvicorn's h11 protocol (its `http=` setting takes a protocol class) with
those limits; the session limits are the SDK's own (`streamable_http_app(max_sessions=...,
session_idle_timeout=...)`).
"""

from __future__ import annotations

import resource
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

_T = TypeVar("_T", int, float)


class LimitError(ValueError):
    """A limit variable that is not a positive number; its message names the variable."""


def _limit(default: _T, suffix: str, meaning: str) -> _T:
    """A field of HttpLimits: its default, the suffix of its PREFIX_... variable and what it is (the
    README's line); HTTP_LIMITS lists them."""
    return field(default=default, metadata={"suffix": suffix, "meaning": meaning})


@dataclass(frozen=True)
class HttpLimits:
    request_timeout: float = _limit(
        10.0, "HTTP_REQUEST_TIMEOUT", "seconds a connection has to send a whole request"
    )
    idle_timeout: float = _limit(
        5.0, "HTTP_IDLE_TIMEOUT", "seconds an idle keep-alive connection stays open"
    )
    max_connections: int = _limit(
        1000, "HTTP_MAX_CONNECTIONS", "open connections in all; more are closed"
    )
    per_client: int = _limit(
        100, "HTTP_MAX_CONNECTIONS_PER_CLIENT", "open connections from one address"
    )
    max_sessions: int = _limit(1000, "HTTP_MAX_SESSIONS", "MCP sessions open at once; more get 503")
    sessions_per_client: int = _limit(
        100, "HTTP_MAX_SESSIONS_PER_CLIENT", "sessions of one token (else address)"
    )
    session_idle_timeout: float = _limit(
        1800.0, "HTTP_SESSION_IDLE_TIMEOUT", "seconds an unused session lives"
    )
    shutdown_timeout: float = _limit(
        3.0, "HTTP_SHUTDOWN_TIMEOUT", "seconds SIGTERM waits for calls in flight"
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str], prefix: str) -> HttpLimits:
        values: dict[str, Any] = {}
        for suffix, name, default, _meaning in HTTP_LIMITS:
            raw = env.get(f"{prefix}_{suffix}", "").strip()
            if raw:
                values[name] = _positive(raw, f"{prefix}_{suffix}", type(default))
        return cls(**values)

    def uvicorn_options(self) -> dict[str, Any]:
        """uvicorn.run/Config keywords but the protocol (http_guard.py): its keep-alive and
        shutdown waits."""
        return {
            "timeout_keep_alive": max(1, round(self.idle_timeout)),
            "timeout_graceful_shutdown": max(1, round(self.shutdown_timeout)),
        }


# (suffix of PREFIX_..., field, default, what it is), from HttpLimits' fields: the README lists them
HTTP_LIMITS: tuple[tuple[str, str, float | int, str], ...] = tuple(
    (
        limit.metadata["suffix"],
        limit.name,
        getattr(HttpLimits(), limit.name),
        limit.metadata["meaning"],
    )
    for limit in fields(HttpLimits)
)


def _positive(raw: str, name: str, kind: type) -> float | int:
    try:
        value = kind(raw)
    except ValueError:
        raise LimitError(f"{name} must be a positive {kind.__name__}, got {raw!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise LimitError(f"{name} must be a positive {kind.__name__}, got {raw!r}")
    return value  # type: ignore[no-any-return]


def open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (a busy server needs more
    than the usual 1024); the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft
