"""The API credentials of a generated MCP server, from its environment (the package README lists
the variables), and the scrubbing of every known secret. Of an operation's `security`
alternatives, the first whose variables are all set is used; else anonymous access, if it is one;
else the call fails naming what to set."""

from __future__ import annotations

import base64
import json
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote_plus, unquote, urlencode, urljoin

import anyio
from mcp.types import CallToolResult, TextContent

from ..results import responses as res
from ..settings import ToolError
from . import serialize as ser

Chosen = Sequence[tuple[str, Mapping[str, Any], tuple[str, ...]]]  # (scheme key, scheme, scopes)
Security = Sequence[Sequence[tuple[str, tuple[str, ...]]]]  # alternatives of (scheme key, scopes)
Key = tuple[str, str]  # a client-credentials token's cache key: (scheme key, scopes)
_SECRET_ROLES = ("key", "token", "password", "client_secret")
_FORM = "application/x-www-form-urlencoded"
Post = Callable[[str, Mapping[str, str], bytes], Awaitable[res.Upstream]]  # a token request


def secret_forms(*values: str | None) -> set[str]:
    """The forms a secret may take in a result (as is, URL-encoded, inside a JSON string, escaped
    or not), each also as its UTF-8 bytes read as latin-1: the body scrubbed before it is decoded
    is read that way. A value's bytes are ser.wire_bytes (its UTF-8, surrogate escapes raw)."""
    forms: set[str] = set()
    for value in values:
        if value and len(value) >= 6:
            raw = ser.wire_bytes(value)
            texts = {value, raw.decode("utf-8", "replace")}  # invalid UTF-8 reaches text replaced
            found = {quote_plus(raw), ser.pct(value)}
            for text in texts:
                found |= {text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]}
            forms |= found | {ser.wire_bytes(form).decode("latin-1") for form in found}
    return forms


def put_key(request: ser.PreparedRequest, scheme: Mapping[str, Any], what: str, key: str) -> None:
    """An apiKey scheme's key in its header, query parameter or cookie (`what`: for messages), in
    place of any value an argument put there: the API gets the key once, the configured one."""
    wire = str(scheme.get("name"))
    if scheme.get("in") == "header":
        for name in [name for name in request.headers if name.lower() == wire.lower()]:
            del request.headers[name]
        request.headers[wire] = ser.checked_header(what, key)
    else:
        pairs = request.query if scheme.get("in") == "query" else request.cookies
        named = f"{ser.pct(wire)}="
        pairs[:] = [pair for pair in pairs if not pair.startswith(named)]
        pairs.append(named + ser.pct(key))


class Credentials:
    """The schemes of one server with the values set for them, and the tokens fetched."""

    def __init__(
        self, schemes: Mapping[str, Any], env: Mapping[str, str], base_url: str | None
    ) -> None:
        self.schemes, self.env, self.base_url = schemes, env, base_url or ""
        self.secrets: set[str] = set()
        self.query_keys = {s.get("name") for s in schemes.values() if s.get("in") == "query"}
        self._tokens: dict[Key, tuple[str, float]] = {}
        self._lock = anyio.Lock()
        for scheme in schemes.values():
            names = scheme.get("env") or {}
            self.add_secrets(*(self.get(names.get(role)) for role in _SECRET_ROLES))
            if user := self.get(names.get("username")):
                pair = f"{user}:{self.get(names.get('password')) or ''}"
                self.add_secrets(base64.b64encode(ser.wire_bytes(pair)).decode())

    def get(self, variable: Any) -> str | None:
        """The variable's value; unset and blank are the same."""
        value = self.env.get(variable) if isinstance(variable, str) else None
        return (value or "").strip() or None

    def add_secrets(self, *values: str | None) -> None:
        self.secrets.update(secret_forms(*values))

    def scrub(self, text: str) -> str:
        """`text` with every known secret replaced by [REDACTED]."""
        for secret in sorted(self.secrets, key=len, reverse=True):  # a longer one before its parts
            text = text.replace(secret, "[REDACTED]")
        return text

    def scrub_result(self, result: CallToolResult) -> CallToolResult:
        """The result with every known secret replaced (the same object when there is none)."""
        if not self.secrets:
            return result
        content = [
            c.model_copy(update={"text": self.scrub(c.text)}) if isinstance(c, TextContent) else c
            for c in result.content
        ]
        structured = self.scrub_json(result.structured_content)
        if content == result.content and structured == result.structured_content:
            return result
        return result.model_copy(update={"content": content, "structured_content": structured})

    def scrub_json(self, value: Any) -> Any:
        """Secrets out of decoded JSON too: an escaped (`\\/`, `\\u00e4`) secret is plain there."""
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {self.scrub(key): self.scrub_json(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.scrub_json(item) for item in value]
        return value

    def shown_url(self, url: str) -> str:
        """`url` for messages and logs: API keys in the query become [REDACTED]."""
        base, _, query = url.partition("?")
        pairs = [
            f"{p.split('=')[0]}=[REDACTED]" if unquote(p.split("=")[0]) in self.query_keys else p
            for p in query.split("&")
        ]
        return self.scrub(base + ("?" + "&".join(pairs) if query else ""))

    def choose(self, security: Security) -> Chosen:
        """The alternative to use (see the module doc); raises ToolError naming what to set."""
        if (missing := self.needed(security)) is None:
            for alternative in security:
                if alternative and not any(self.missing(name) for name, _ in alternative):
                    return [(name, self.schemes[name], scopes) for name, scopes in alternative]
            return []
        raise ToolError(
            f"This operation needs credentials that are not configured. Set {missing}"
            " in the MCP server's environment and restart it. Nothing was sent to the API."
        )

    def needed(self, security: Security) -> str | None:
        """What to set for an operation with these alternatives ("A; or set B"), None: nothing."""
        anonymous, missing = not security, []
        for alternative in security:
            lacking = [m for m in (self.missing(name) for name, _ in alternative) if m]
            if alternative and not lacking:
                return None
            anonymous = anonymous or not alternative
            missing += [" and ".join(lacking)] if lacking else []
        return None if anonymous else "; or set ".join(missing)

    def missing(self, name: str) -> str | None:
        """None when scheme `name` can be used, else the variable(s) to set."""
        scheme = self.schemes.get(name) or {}
        env, kind, http = scheme.get("env") or {}, scheme.get("type"), scheme.get("scheme")
        if kind == "mutualTLS":
            return None  # the client certificate is configured outside this server
        if kind == "http" and str(http).lower() == "basic":
            user, password = env.get("username"), env.get("password")
            return None if self.get(user) else f"{user} and {password}"
        if kind not in ("apiKey", "http", "oauth2", "openIdConnect"):
            return f"(a credential for the unsupported security scheme {name!r})"
        role = "key" if kind == "apiKey" else "token"
        if self.get(env.get(role)):
            return None
        if kind != "oauth2" or "client_id" not in env:
            return str(env.get(role))
        token_url = self.token_url(scheme)
        if self.get(env["client_id"]) and self.get(env.get("client_secret")) and token_url:
            return None
        also = "" if token_url else f" and {env.get('token_url')}"
        return f"{env.get('token')} (or {env['client_id']} and {env.get('client_secret')}{also})"

    def token_url(self, scheme: Mapping[str, Any]) -> str | None:
        url = self.get((scheme.get("env") or {}).get("token_url")) or scheme.get("tokenUrl")
        return urljoin(self.base_url + "/", url) if url else None

    async def apply(
        self, request: ser.PreparedRequest, chosen: Chosen, stale: Mapping[Key, str], post: Post
    ) -> dict[Key, str]:
        """Add the chosen credentials; returns the client-credentials tokens used, by cache key."""
        fetched: dict[Key, str] = {}
        for name, scheme, scopes in chosen:
            env, kind, http = scheme.get("env") or {}, scheme.get("type"), str(scheme.get("scheme"))
            if kind == "apiKey":
                put_key(request, scheme, env["key"], self.get(env["key"]) or "")
            elif kind == "http" and http.lower() == "basic":
                pair = f"{self.get(env.get('username'))}:{self.get(env.get('password')) or ''}"
                basic = base64.b64encode(ser.wire_bytes(pair)).decode()
                request.headers["Authorization"] = f"Basic {basic}"
            elif kind in ("http", "oauth2", "openIdConnect"):
                token = self.get(env.get("token"))
                if token is None:  # oauth2 client credentials (`missing` checked the variables)
                    wanted = self.get(env.get("scopes")) or " ".join(scopes)
                    key_ = (name, " ".join(wanted.replace(",", " ").split()))
                    token = await self._client_token(scheme, key_, stale.get(key_), post)
                    fetched[key_] = token
                bearer = kind != "http" or http.lower() == "bearer"
                label = "Bearer" if bearer else http.capitalize()
                value = ser.checked_header(str(env.get("token")), f"{label} {token}")
                request.headers["Authorization"] = value
        return fetched

    async def _client_token(
        self, scheme: Mapping[str, Any], key: Key, stale: str | None, post: Post
    ) -> str:
        """OAuth2 client credentials: cached until shortly before expiry; `stale` got a 401."""
        async with self._lock:
            cached = self._tokens.get(key)
            if cached and cached[0] != stale and time.monotonic() < cached[1]:
                return cached[0]
            env, url = scheme["env"], self.token_url(scheme) or ""
            client, secret = self.get(env["client_id"]) or "", self.get(env["client_secret"]) or ""
            form = {"grant_type": "client_credentials"} | ({"scope": key[1]} if key[1] else {})
            basic = base64.b64encode(f"{quote_plus(client)}:{quote_plus(secret)}".encode()).decode()
            headers = {"Authorization": f"Basic {basic}", "Content-Type": _FORM}
            answer = await post(url, headers, urlencode(form).encode())
            if answer.status in (400, 401):  # RFC 6749 2.3.1: client_secret_basic, then _post
                form |= {"client_id": client, "client_secret": secret}
                answer = await post(url, {"Content-Type": _FORM}, urlencode(form).encode())
            try:
                data = json.loads(answer.body) if answer.status < 300 else {}
                token = str(data["access_token"])
                lifetime = float(data.get("expires_in") or math.inf)
            except (ValueError, KeyError, TypeError, AttributeError):
                got = f"HTTP {answer.status}: {answer.text()[:300]}"
                raise ToolError(
                    f"Could not get an OAuth2 access token from {answer.url} ({got}). Check"
                    f" {env['client_id']}, {env['client_secret']} and {env.get('scopes')}."
                    " Nothing was sent to the API."
                ) from None
            self.add_secrets(token)
            self._tokens[key] = (token, time.monotonic() + lifetime - min(60.0, lifetime / 10))
            return token
