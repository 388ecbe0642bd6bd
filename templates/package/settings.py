"""Settings of a generated MCP server, read from its environment (the package README lists them)."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
else:
    from . import serialize as ser

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 1_000_000
TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 token: header names, methods


class ConfigError(Exception):
    """A bad setting or data file; server.py prints the message and exits with status 2."""


@dataclass(frozen=True)
class Settings:
    base_url: str
    prefix: str = "API"
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # credentials come from here
    redirected: bool = False  # base_url is not the spec's own: it replaces every server
    ca_bundle: str | None = None  # PEM file of the CA certificates to trust instead
    client_cert: str | None = None  # mutual TLS: PEM certificate chain (with the key, or see below)
    client_key: str | None = None

    def base_url_for(self, own_base_url: str | None) -> str:
        """A tool's base URL: its own server, unless PREFIX_BASE_URL redirects the whole API."""
        return own_base_url if own_base_url and not self.redirected else self.base_url

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        prefix: str,
        default_base_url: str | None = None,
        base_url: str | None = None,
    ) -> Settings:
        """From `env` (default: os.environ); `base_url` (--base-url) wins."""
        env = dict(os.environ if env is None else env)

        def get(suffix: str) -> str | None:
            return env.get(f"{prefix}_{suffix}", "").strip() or None

        url = _check_base_url(base_url or get("BASE_URL") or default_base_url, prefix)
        cap = _number(get("MAX_RESPONSE_BYTES"), f"{prefix}_MAX_RESPONSE_BYTES", int)
        return cls(
            base_url=url,
            prefix=prefix,
            timeout=_number(get("TIMEOUT"), f"{prefix}_TIMEOUT", float) or DEFAULT_TIMEOUT,
            max_response_bytes=int(cap or DEFAULT_MAX_RESPONSE_BYTES),
            headers=_static_headers(get("HEADERS"), f"{prefix}_HEADERS"),
            env=env,
            redirected=url != (default_base_url or "").rstrip("/"),
            ca_bundle=get("CA_BUNDLE"),
            client_cert=get("CLIENT_CERT"),
            client_key=get("CLIENT_KEY"),
        )


def _check_base_url(url: str | None, prefix: str) -> str:
    if not url:
        raise ConfigError(f"no API base URL: set {prefix}_BASE_URL (or pass --base-url)")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{prefix}_BASE_URL must be an absolute http(s) URL like https://h/v1")
    if parts.query or parts.fragment or "{" in url:
        raise ConfigError(f"{prefix}_BASE_URL must not have a query, a fragment or a {{variable}}")
    return url.rstrip("/")


def _number(raw: str | None, name: str, kind: type[float] | type[int]) -> float | None:
    if raw is None:
        return None
    try:
        value: float = kind(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        unit = "a whole number of bytes" if kind is int else "a number of seconds"
        raise ConfigError(f"{name} must be {unit} greater than 0, got {raw!r}")
    return value


def _static_headers(raw: str | None, name: str) -> dict[str, str]:
    if raw is None:
        return {}
    example = 'a JSON object such as {"X-Tenant": "acme"}'
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{name} is not valid JSON ({error}); expected {example}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name} must be {example}")
    headers: dict[str, str] = {}
    for key, value in data.items():
        if not TOKEN.fullmatch(key) or not isinstance(value, str | int | float):
            raise ConfigError(f"{name}: {key!r} must be a header name with a string value")
        try:
            headers[key] = ser.checked_header(f"{name}[{key!r}]", ser.scalar(value))
        except ser.ArgumentError as error:
            raise ConfigError(str(error)) from None
    return headers
