"""Settings and credentials of a generated MCP server, from its environment (the package README
lists the variables). Of an operation's `security` alternatives, the first whose variables are all
set is used; else anonymous access, if it is one; else the call fails naming what to set."""

from __future__ import annotations

import base64
import json
import math
import os
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, unquote, urlencode, urljoin, urlsplit

import anyio

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import responses as res  # type: ignore[import-not-found,unused-ignore]
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
    from endpoint_auth import CredentialSource, EndpointAuth  # type: ignore[import-not-found,unused-ignore]
else:
    from . import responses as res
    from . import serialize as ser
    from .endpoint_auth import CredentialSource, EndpointAuth

TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 token: header names, methods


class ToolError(Exception):
    """A failed call, reported to the model as an isError result with this (safe) message."""


class ConfigError(Exception):
    """A bad setting or data file; server.py prints the message and exits with status 2."""


@dataclass(frozen=True)
class Settings:
    base_url: str
    prefix: str = "API"
    timeout: float = 30.0
    max_response_bytes: int = 1_000_000
    max_result_chars: int = 100_000  # JSON or text characters of a result (trimming.py)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # credentials come from here
    redirected: bool = False  # base_url is not the spec's own: it replaces every server
    ca_bundle: str | None = None  # PEM file of the CA certificates to trust instead
    client_cert: str | None = None  # mutual TLS: PEM certificate chain (with the key, or see below)
    client_key: str | None = None
    narrowing: Narrowing = field(default_factory=lambda: Narrowing())
    discovery: Discovery = field(default_factory=lambda: Discovery())
    endpoint_auth: EndpointAuth = field(default_factory=lambda: EndpointAuth())  # --auth
    credential_source: CredentialSource = field(default_factory=lambda: CredentialSource())

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
        flags: Mapping[str, str | bool | None] | None = None,
        default_mode: str = "auto",
    ) -> Settings:
        """From `env` (default: os.environ); `base_url` (--base-url) and `flags` (the narrowing
        options: toolsets, tools, exclude_tools, read_only; mode, dynamic_toolsets; None when not
        given) win. `default_mode` is the package's (chosen at generation)."""
        env = dict(os.environ if env is None else env)

        def get(suffix: str) -> str | None:
            return env.get(f"{prefix}_{suffix}", "").strip() or None

        try:
            auth = EndpointAuth.from_env(get, prefix, flags or {})
            source = CredentialSource.from_env(get, prefix, flags or {})
        except ValueError as error:
            raise ConfigError(str(error)) from None
        url = _check_base_url(base_url or get("BASE_URL") or default_base_url, prefix)
        cap = _number(get("MAX_RESPONSE_BYTES"), f"{prefix}_MAX_RESPONSE_BYTES", int)
        chars = _number(get("MAX_RESULT_CHARS"), f"{prefix}_MAX_RESULT_CHARS", int, "characters")
        return cls(
            base_url=url,
            prefix=prefix,
            timeout=_number(get("TIMEOUT"), f"{prefix}_TIMEOUT", float) or cls.timeout,
            max_response_bytes=int(cap or cls.max_response_bytes),
            max_result_chars=int(chars or cls.max_result_chars),
            headers=_static_headers(get("HEADERS"), f"{prefix}_HEADERS"),
            env=env,
            redirected=url != (default_base_url or "").rstrip("/"),
            ca_bundle=get("CA_BUNDLE"),
            client_cert=get("CLIENT_CERT"),
            client_key=get("CLIENT_KEY"),
            narrowing=Narrowing.from_env(get, prefix, flags or {}),
            discovery=Discovery.from_env(get, prefix, flags or {}, default_mode),
            endpoint_auth=auth,
            credential_source=source,
        )


@dataclass(frozen=True)
class Narrowing:
    """Which tools the server offers (the package README explains the rules; runtime.py applies
    them). `toolsets` is None when neither the flag nor the variable gave one; `where` names the
    flag or variable each list came from, for messages."""

    toolsets: tuple[str, ...] | None = None
    tools: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()
    read_only: bool = False
    where: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(
        cls, get: Callable[[str], str | None], prefix: str, flags: Mapping[str, str | bool | None]
    ) -> Narrowing:
        """A command-line flag wins over its variable; comma-separated, blank items ignored."""
        lists: dict[str, tuple[str, ...] | None] = {}
        where: dict[str, str] = {}
        for key in ("toolsets", "tools", "exclude_tools"):
            flag, variable = flags.get(key), f"{prefix}_{key.upper()}"
            raw = flag if isinstance(flag, str) else get(key.upper())
            items = tuple(dict.fromkeys(i.strip() for i in (raw or "").split(",") if i.strip()))
            lists[key] = items if raw is not None else None
            where[key] = "--" + key.replace("_", "-") if isinstance(flag, str) else variable
        read_only = flags.get("read_only")
        if not isinstance(read_only, bool):
            read_only = parse_flag(get("READ_ONLY"), f"{prefix}_READ_ONLY")
        return cls(
            toolsets=lists["toolsets"],
            tools=lists["tools"] or (),
            exclude_tools=lists["exclude_tools"] or (),
            read_only=read_only,
            where=where,
        )


MODES = ("auto", "static", "dynamic")


@dataclass(frozen=True)
class Discovery:
    """How the offered tools are listed: `static` (each tool), `dynamic` (search_tools,
    describe_tools, call_tool), `auto` (dynamic when the static list would pass `max_list_tokens`);
    `dynamic_toolsets`: the default toolsets first, the others enabled on request."""

    mode: str = "auto"
    max_list_tokens: int = 20_000
    dynamic_toolsets: bool = False

    @classmethod
    def from_env(
        cls,
        get: Callable[[str], str | None],
        prefix: str,
        flags: Mapping[str, str | bool | None],
        default_mode: str,
    ) -> Discovery:
        given = flags.get("mode")
        mode = given if isinstance(given, str) else (get("MODE") or default_mode).lower()
        if mode not in MODES:
            where = "--mode" if isinstance(given, str) else f"{prefix}_MODE"
            raise ConfigError(f"{where} must be one of {', '.join(MODES)}, got {mode!r}")
        on_demand = flags.get("dynamic_toolsets")
        if not isinstance(on_demand, bool):
            on_demand = parse_flag(get("DYNAMIC_TOOLSETS"), f"{prefix}_DYNAMIC_TOOLSETS")
        if on_demand and mode == "dynamic":
            raise ConfigError(
                "--dynamic-toolsets lists the enabled toolsets' tools: it cannot be combined with"
                " --mode dynamic (which lists only search_tools, describe_tools and call_tool)"
            )
        tokens = _number(get("MAX_LIST_TOKENS"), f"{prefix}_MAX_LIST_TOKENS", int, "tokens")
        return cls(mode, int(tokens or cls.max_list_tokens), on_demand)


def parse_flag(raw: str | None, name: str) -> bool:
    """A true/false setting (unset: false); ConfigError naming `name` for anything else."""
    value = (raw or "false").lower()
    if value not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise ConfigError(f"{name} must be true or false (1/0, yes/no, on/off), got {raw!r}")
    return value in ("1", "true", "yes", "on")


def _check_base_url(url: str | None, prefix: str) -> str:
    if not url:
        raise ConfigError(f"no API base URL: set {prefix}_BASE_URL (or pass --base-url)")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{prefix}_BASE_URL must be an absolute http(s) URL like https://h/v1")
    if parts.query or parts.fragment or "{" in url:
        raise ConfigError(f"{prefix}_BASE_URL must not have a query, a fragment or a {{variable}}")
    return url.rstrip("/")


def _number(
    raw: str | None, name: str, kind: type[float] | type[int], what: str = "bytes"
) -> float | None:
    if raw is None:
        return None
    try:
        value: float = kind(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        unit = f"a whole number of {what}" if kind is int else "a number of seconds"
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


# ---- credentials ------------------------------------------------------------------------------

Chosen = Sequence[tuple[str, Mapping[str, Any], tuple[str, ...]]]  # (scheme key, scheme, scopes)
Key = tuple[str, str]  # a client-credentials token's cache key: (scheme key, scopes)
_SECRET_ROLES = ("key", "token", "password", "client_secret")
_FORM = "application/x-www-form-urlencoded"
Post = Callable[[str, Mapping[str, str], bytes], Awaitable[res.Upstream]]  # a token request


def secret_forms(*values: str | None) -> set[str]:
    """The forms a secret may take in a result (as is, URL-encoded, inside a JSON string)."""
    forms: set[str] = set()
    for value in values:
        if value and len(value) >= 6:
            inside_json = json.dumps(value, ensure_ascii=False)[1:-1]
            forms.update({value, quote_plus(value), ser.pct(value), inside_json})
    return forms


def put_key(request: ser.PreparedRequest, scheme: Mapping[str, Any], what: str, key: str) -> None:
    """An apiKey scheme's key in its header, query parameter or cookie (`what`: for messages)."""
    wire = str(scheme.get("name"))
    if scheme.get("in") == "header":
        request.headers[wire] = ser.checked_header(what, key)
    elif scheme.get("in") == "query":
        request.query.append(f"{ser.pct(wire)}={ser.pct(key)}")
    else:
        request.cookies.append(f"{ser.pct(wire)}={ser.pct(key)}")


class Credentials:
    """The schemes of one server with the values set for them, and the tokens fetched."""

    def __init__(self, schemes: Mapping[str, Any], env: Mapping[str, str], base_url: str) -> None:
        self.schemes, self.env, self.base_url = schemes, env, base_url
        self.secrets: set[str] = set()
        self.query_keys = {s.get("name") for s in schemes.values() if s.get("in") == "query"}
        self._tokens: dict[Key, tuple[str, float]] = {}
        self._lock = anyio.Lock()
        for scheme in schemes.values():
            names = scheme.get("env") or {}
            self.add_secrets(*(self.get(names.get(role)) for role in _SECRET_ROLES))
            if user := self.get(names.get("username")):
                pair = f"{user}:{self.get(names.get('password')) or ''}"
                self.add_secrets(base64.b64encode(pair.encode()).decode())

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

    def choose(self, security: Sequence[Sequence[tuple[str, tuple[str, ...]]]]) -> Chosen:
        """The alternative to use (see the module doc); raises ToolError naming what to set."""
        anonymous, missing = not security, []
        for alternative in security:
            lacking = [m for m in (self.missing(name) for name, _ in alternative) if m]
            if alternative and not lacking:
                return [(name, self.schemes[name], scopes) for name, scopes in alternative]
            anonymous = anonymous or not alternative
            missing += [" and ".join(lacking)] if lacking else []
        if anonymous:
            return []
        raise ToolError(
            f"This operation needs credentials that are not configured. Set {'; or set '.join(missing)}"
            " in the MCP server's environment and restart it. Nothing was sent to the API."
        )

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
                basic = base64.b64encode(pair.encode()).decode()
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
