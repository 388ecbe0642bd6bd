"""Retries, limits and the audit log's settings: `Resilience.from_env` reads them (the package
README lists the variables) and decide which calls are retried; `Limits` holds the in-flight
slots and the request rate; `backoff` and `retry_after` say how long to wait before the next
attempt (http_client.py's retry loop keeps within the deadline)."""

from __future__ import annotations

import asyncio
import math
import random
import uuid
from collections.abc import AsyncIterator, Mapping, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from ..settings import TOKEN, ConfigError

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})  # without annotations
BACKOFF_FIRST = 0.5  # seconds: the first wait's upper bound (full jitter: uniform from 0)
BACKOFF_MAX = 8.0


@dataclass(frozen=True)
class Resilience:
    """`retries`: further attempts of an idempotent call (0: none); `max_concurrency`: upstream
    requests in flight; `rate_limit`: requests a second (None: unlimited); `idempotency_key`: a
    header sent with a fresh UUID on each call of a non-idempotent operation, which makes it
    retried; `audit_log`: "stderr", a file path, or None."""

    retries: int = 2
    max_concurrency: int = 32
    per_session: int | None = None  # None: a quarter of max_concurrency (at least 1)
    rate_limit: float | None = None
    idempotency_key: str | None = None
    audit_log: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str], prefix: str) -> Resilience:
        """A bad value is a ConfigError naming its variable."""

        def get(suffix: str) -> str | None:
            return env.get(f"{prefix}_{suffix}", "").strip() or None

        retries = _whole(get("RETRIES"), f"{prefix}_RETRIES", 0, 10)
        concurrency = _whole(get("MAX_CONCURRENCY"), f"{prefix}_MAX_CONCURRENCY", 1, 10_000)
        per_session = _whole(
            get("MAX_CONCURRENCY_PER_SESSION"), f"{prefix}_MAX_CONCURRENCY_PER_SESSION", 1, 10_000
        )
        key = get("IDEMPOTENCY_KEY")
        if key is not None and not TOKEN.fullmatch(key):
            raise ConfigError(
                f"{prefix}_IDEMPOTENCY_KEY must be a header name such as Idempotency-Key, got {key!r}"
            )
        return cls(
            retries=cls.retries if retries is None else retries,
            max_concurrency=concurrency or cls.max_concurrency,
            per_session=per_session,
            rate_limit=_rate(get("RATE_LIMIT"), f"{prefix}_RATE_LIMIT"),
            idempotency_key=key,
            audit_log=get("AUDIT_LOG"),
        )

    @property
    def share(self) -> int:
        """Upstream requests one HTTP session (or sessionless caller) may have in flight."""
        return self.per_session or max(1, self.max_concurrency // 4)

    def retried(self, idempotent: bool) -> bool:
        """Whether a call is retried: an idempotent operation (the tool's idempotentHint: GET,
        HEAD, OPTIONS, PUT, DELETE unless the spec says otherwise), or any with an Idempotency-Key.
        """
        return self.retries > 0 and (idempotent or self.idempotency_key is not None)

    def prepare(
        self, method: str, headers: MutableMapping[str, str], annotations: Mapping[str, Any]
    ) -> bool:
        """Whether the call may be sent again; a non-idempotent one gets a fresh
        PREFIX_IDEMPOTENCY_KEY header (the same on each attempt), unless an argument set it."""
        idempotent = annotations.get("idempotentHint", method in IDEMPOTENT) is True
        key = self.idempotency_key
        if key and not idempotent and key.lower() not in map(str.lower, headers):
            headers[key] = str(uuid.uuid4())
        return self.retried(idempotent)


def _whole(raw: str | None, name: str, low: int, high: int) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
    return value


def _rate(raw: str | None, name: str) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(
            f"{name} must be a number of requests a second greater than 0, got {raw!r}"
        )
    return value


class LimitWait(Exception):
    """The server's own limits would keep a request waiting past its deadline: nothing was sent."""


class Limits:
    """Upstream requests in flight (a semaphore; callers wait), at most `share` of them for one
    share (an HTTP session or caller: one client's slow calls cannot take every slot from the
    others), and their rate (a token bucket with bursts of max(1, rate) requests; callers wait
    their turn, first come first served)."""

    def __init__(self, resilience: Resilience) -> None:
        self._slots = asyncio.Semaphore(resilience.max_concurrency)
        self._share = resilience.share
        self._shares: dict[str, tuple[asyncio.Semaphore, int]] = {}  # share: (slots, users)
        self._rate = resilience.rate_limit
        self._capacity = max(1.0, self._rate or 1.0)
        self._tokens, self._stamp = self._capacity, -math.inf

    @asynccontextmanager
    async def slot(self, deadline: float, share: str | None = None) -> AsyncIterator[None]:
        """Hold a slot of the share, a slot and a token; LimitWait when the token's turn would come
        after `deadline` (the caller's asyncio.timeout_at bounds the wait for a slot)."""
        async with self._of_share(share), self._slots:
            if self._rate is not None:
                await self._take(deadline)
            yield

    @asynccontextmanager
    async def _of_share(self, share: str | None) -> AsyncIterator[None]:
        if share is None:  # stdio: one client
            yield
            return
        slots, users = self._shares.get(share) or (asyncio.Semaphore(self._share), 0)
        self._shares[share] = (slots, users + 1)
        try:
            async with slots:
                yield
        finally:
            slots, users = self._shares[share]
            if users > 1:
                self._shares[share] = (slots, users - 1)
            else:
                del self._shares[share]

    async def _take(self, deadline: float) -> None:
        assert self._rate is not None
        now = asyncio.get_running_loop().time()
        tokens = min(self._capacity, self._tokens + (now - self._stamp) * self._rate)
        wait = max(0.0, (1.0 - tokens) / self._rate)
        if now + wait > deadline:
            raise LimitWait(f"{self._rate:g} requests a second")
        self._tokens, self._stamp = tokens - 1.0, now  # reserved: later callers wait behind it
        if wait:
            await asyncio.sleep(wait)


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or an HTTP-date; `now` is
    time.time()), None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    import email.utils  # only for an HTTP-date

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - now) if when.tzinfo else None


def backoff(attempt: int) -> float:
    """Full jitter: uniform in [0, min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (attempt - 1))]."""
    return random.uniform(0.0, min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (attempt - 1)))
