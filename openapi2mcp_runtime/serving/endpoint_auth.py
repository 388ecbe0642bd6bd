"""Who may use the streamable-HTTP endpoint, and where upstream credentials come from: the settings
(`EndpointAuth`, `CredentialSource`, read from the environment; a flag wins over its variable), the
start-up check that refuses an unauthenticated non-loopback bind, and `Guard`, the ASGI middleware
in front of the server (`--auth token`; the per-request credential header; oauth's metadata)."""

from __future__ import annotations

import hmac
import ipaddress
import json
import math
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

AUTH_MODES = ("none", "token", "oauth")
CREDENTIAL_MODES = ("env", "from-request")
CREDENTIAL_KEY = "openapi2mcp.credential"  # where Guard leaves the request's credential, in state

Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


@dataclass(frozen=True)
class EndpointAuth:
    """`--auth`: none, token (a bearer token of `tokens`) or oauth (JWTs of `issuer`)."""

    mode: str = "none"
    tokens: tuple[str, ...] = field(default=(), repr=False)
    issuer: str | None = None  # as configured: `iss` must be exactly this (a trailing slash too)
    jwks_url: str | None = None  # None: the issuer's metadata says (oauth.py)
    resource_url: str | None = None  # None: http://HOST:PORT/mcp
    audience: str | None = None  # None: the resource URL
    read_scope: str = "mcp:read"
    write_scope: str = "mcp:write"
    jwks_max_age: float = 300.0  # seconds a fetched JWKS is used (oauth.IssuerKeys)
    prefix: str = "PREFIX"  # of the variables, for messages

    @classmethod
    def from_env(
        cls, get: Callable[[str], str | None], prefix: str, flags: Mapping[str, Any]
    ) -> EndpointAuth:
        """ValueError (a ConfigError for settings.py) naming the flag or variable at fault."""
        mode = _choice(flags.get("auth"), get("AUTH"), "--auth", f"{prefix}_AUTH", AUTH_MODES)
        tokens = tuple(t.strip() for t in (get("MCP_TOKENS") or "").split(",") if t.strip())
        if mode == "token" and not tokens:
            raise ValueError(
                f"--auth token needs {prefix}_MCP_TOKENS: the accepted bearer tokens, comma-separated"
            )
        issuer = get("OAUTH_ISSUER")
        if mode == "oauth" and not issuer:
            raise ValueError(
                f"--auth oauth needs {prefix}_OAUTH_ISSUER: the URL of the authorization server"
            )
        for name in ("OAUTH_ISSUER", "OAUTH_JWKS_URL", "RESOURCE_URL"):
            if (url := get(name)) and not url.startswith(("https://", "http://")):
                raise ValueError(f"{prefix}_{name} must be an absolute http(s) URL, got {url!r}")
        return cls(
            mode=mode,
            tokens=tokens,
            issuer=issuer or None,
            jwks_url=get("OAUTH_JWKS_URL"),
            resource_url=get("RESOURCE_URL"),
            audience=get("OAUTH_AUDIENCE"),
            read_scope=get("OAUTH_READ_SCOPE") or cls.read_scope,
            write_scope=get("OAUTH_WRITE_SCOPE") or cls.write_scope,
            jwks_max_age=_seconds(get("OAUTH_JWKS_MAX_AGE"), f"{prefix}_OAUTH_JWKS_MAX_AGE")
            or cls.jwks_max_age,
            prefix=prefix,
        )


@dataclass(frozen=True)
class CredentialSource:
    """`--credentials`: env (the server's variables) or from-request (each MCP request's `header`)."""

    mode: str = "env"
    header: str = "X-Upstream-Authorization"

    @classmethod
    def from_env(
        cls, get: Callable[[str], str | None], prefix: str, flags: Mapping[str, Any]
    ) -> CredentialSource:
        where = (f"{prefix}_CREDENTIALS", "--credentials")
        mode = _choice(
            flags.get("credentials"), get("CREDENTIALS"), where[1], where[0], CREDENTIAL_MODES
        )
        return cls(mode, get("CREDENTIALS_HEADER") or cls.header)


def _choice(
    flag: Any, variable: str | None, flag_name: str, name: str, valid: tuple[str, ...]
) -> str:
    value = flag if isinstance(flag, str) else (variable or valid[0]).lower()
    if value not in valid:
        where = flag_name if isinstance(flag, str) else name
        raise ValueError(f"{where} must be one of {', '.join(valid)}, got {value!r}")
    return value


def _seconds(raw: str | None, name: str) -> float | None:
    """A positive, finite number of seconds, None when not set."""
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a number of seconds greater than 0, got {raw!r}")
    return value


def is_loopback(host: str) -> bool:
    """`localhost` and the loopback addresses; `0.0.0.0`, `::`, a LAN address or a name are not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_problem(host: str, auth: EndpointAuth, allow_unauthenticated: bool) -> str | None:
    """Why the server must not start on `host`, or None."""
    if auth.mode != "none" or allow_unauthenticated or is_loopback(host):
        return None
    return (
        f"--host {host} serves every machine that can reach it, and --auth is none: anyone could"
        " call the API with this server's credentials. Choose --auth token or --auth oauth, or pass"
        " --allow-unauthenticated if something in front of the server authenticates its callers"
    )


class Guard:
    """ASGI middleware in front of the whole app. `--auth token`: every HTTP request needs
    `Authorization: Bearer T`, T one of the tokens (compared in constant time), else 401.
    `credential_header`: its value moves from the request's headers into `scope["state"]`
    (runtime.py reads it there for that request's calls; nothing else sees it). `routes`: served
    before the app (oauth's protected resource metadata)."""

    def __init__(
        self,
        app: App,
        tokens: tuple[str, ...] = (),
        credential_header: str | None = None,
        routes: Mapping[str, App] | None = None,
    ) -> None:
        self.app, self.routes = app, dict(routes or {})
        self._tokens = [token.encode() for token in tokens]
        self._header = credential_header.lower().encode() if credential_header else None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if (route := self.routes.get(scope["path"])) is not None:
            return await route(scope, receive, send)
        if self._tokens and (problem := self._token_problem(scope["headers"])) is not None:
            return await _unauthorized(send, problem)
        if self._header is not None:
            scope = self._moved_credential(scope)
        await self.app(scope, receive, send)

    def _token_problem(self, headers: list[tuple[bytes, bytes]]) -> str | None:
        """None when the request carries an accepted token; else the WWW-Authenticate error."""
        given = [v for k, v in headers if k.lower() == b"authorization"]
        scheme, _, token = (given[0] if len(given) == 1 else b"").partition(b" ")
        if scheme.lower() != b"bearer" or not token.strip():
            return "" if not given else "invalid_request"
        token = token.strip()
        matched = False
        for accepted in self._tokens:  # every one compared: the time says nothing of which
            matched |= hmac.compare_digest(token, accepted)
        return None if matched else "invalid_token"

    def _moved_credential(self, scope: Scope) -> Scope:
        values = [v for k, v in scope["headers"] if k.lower() == self._header]
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != self._header]
        state = {**scope.get("state", {})}
        state.pop(CREDENTIAL_KEY, None)
        if len(values) == 1 and values[0].strip():
            # sent on exactly as given: UTF-8 text, any other byte kept as a surrogate escape
            state[CREDENTIAL_KEY] = values[0].decode("utf-8", "surrogateescape").strip()
        return {**scope, "headers": headers, "state": state}


async def _unauthorized(send: Any, error: str) -> None:
    challenge = f'Bearer error="{error}"' if error else "Bearer"
    message = "A bearer token is required" if not error else "The bearer token is not accepted"
    body = json.dumps({"error": error or "unauthorized", "error_description": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", challenge.encode()),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
