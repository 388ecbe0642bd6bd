"""Settings of a generated MCP server, from its environment (the package README lists the
variables); credentials.py holds the API credentials."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .serving.confirmation import Confirmation
from .serving.endpoint_auth import CredentialSource, EndpointAuth
from .upstream import serialize as ser

TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 token: header names, methods


class ToolError(Exception):
    """A failed call, reported to the model as an isError result with this (safe) message."""


class ConfigError(Exception):
    """A bad setting or data file; server.py prints the message and exits with status 2."""


@dataclass(frozen=True)
class Settings:
    base_url: str | None  # None: not configured yet (tools are listed; calls say what to set)
    prefix: str = "API"
    timeout: float = 30.0
    max_response_bytes: int = 1_000_000
    max_result_chars: int = 100_000  # JSON or text characters of a result (trimming.py)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # credentials come from here
    redirected: bool = False  # base_url is not the spec's own: it replaces every server
    base_path: str | None = None  # the spec's server is this relative path ("" for "/"): joined()
    root_url: str | None = None  # with a base_path: the URL set, to which relative servers join
    ca_bundle: str | None = None  # PEM file of the CA certificates to trust instead
    client_cert: str | None = None  # mutual TLS: PEM certificate chain (with the key, or see below)
    client_key: str | None = None
    narrowing: Narrowing = field(default_factory=lambda: Narrowing())
    discovery: Discovery = field(default_factory=lambda: Discovery())
    endpoint_auth: EndpointAuth = field(default_factory=lambda: EndpointAuth())  # --auth
    credential_source: CredentialSource = field(default_factory=lambda: CredentialSource())
    confirmation: Confirmation = field(default_factory=lambda: Confirmation())  # PREFIX_CONFIRM
    code: CodeLimits = field(default_factory=lambda: CodeLimits())  # --mode code's programs

    def base_url_for(self, own_base_url: str | None) -> str | None:
        """A tool's base URL: its own server, unless PREFIX_BASE_URL redirects the whole API;
        None when neither the spec nor the settings give one."""
        if own_base_url and own_base_url.startswith("/"):  # relative, as the API's own server is
            return self.base_url if self.root_url is None else self.root_url + own_base_url
        return own_base_url if own_base_url and not self.redirected else self.base_url

    def unconfigured(self, credentials: str | None) -> str:
        """A call's message when no base URL is set: it and the `credentials` still to set."""
        also = f", and {credentials}," if credentials else ""
        what = "the API's base URL, such as https://api.example.com/v1"
        if self.base_path is not None:
            what = (
                "the service's origin, such as https://api.example.com; the spec's server is"
                f" relative, so requests go to https://api.example.com{self.base_path}/..."
            )
        return (
            f"This MCP server is not configured yet. Set {self.prefix}_BASE_URL ({what};"
            f" or start the server with --base-url){also} in the MCP server's environment and"
            " restart it. Nothing was sent to the API."
        )

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
            confirmation = Confirmation.from_env(get, prefix)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        given = base_url or get("BASE_URL")
        base_path = relative_path(default_base_url)
        url, root = joined(_check_base_url(given, prefix), base_path) if given else (None, None)
        url = url or _usable(default_base_url)
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
            redirected=base_path is None
            and url not in (None, (default_base_url or "").rstrip("/")),
            base_path=base_path,
            root_url=root,
            ca_bundle=get("CA_BUNDLE"),
            client_cert=get("CLIENT_CERT"),
            client_key=get("CLIENT_KEY"),
            narrowing=Narrowing.from_env(get, prefix, flags or {}),
            discovery=Discovery.from_env(get, prefix, flags or {}, default_mode),
            endpoint_auth=auth,
            credential_source=source,
            confirmation=confirmation,
            code=CodeLimits.from_env(get, prefix),
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


MODES = ("auto", "static", "dynamic", "code")
# How inputSchemas are listed: `portable` leaves `additionalProperties: false` out (google-genai
# cannot read a boolean subschema; the runtime still refuses unknown arguments), `exact` lists it
# where the runtime enforces it (OpenAI's strict mode then takes tools without arguments too).
LISTED_SCHEMAS = ("portable", "exact")


@dataclass(frozen=True)
class Discovery:
    """How the offered tools are listed: `static` (each tool), `dynamic` (search_tools,
    describe_tools, call_tool), `code` (search_tools, describe_tools, run_code: code_mode/), `auto`
    (dynamic when the static list would pass `max_list_tokens`);
    `dynamic_toolsets`: the default toolsets first, the others enabled on request;
    `listed_schemas`: one of LISTED_SCHEMAS; `list_page_size`: tools per tools/list page (None:
    one page)."""

    mode: str = "auto"
    max_list_tokens: int = 20_000
    dynamic_toolsets: bool = False
    listed_schemas: str = "portable"
    list_page_size: int | None = None

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
        if on_demand and mode in ("dynamic", "code"):
            listed = "call_tool" if mode == "dynamic" else "run_code"
            raise ConfigError(
                "--dynamic-toolsets lists the enabled toolsets' tools: it cannot be combined with"
                f" --mode {mode} (which lists only search_tools, describe_tools and {listed})"
            )
        tokens = _number(get("MAX_LIST_TOKENS"), f"{prefix}_MAX_LIST_TOKENS", int, "tokens")
        raw = get("LISTED_SCHEMAS")
        listed = (raw or cls.listed_schemas).lower()
        if listed not in LISTED_SCHEMAS:
            choices = " or ".join(LISTED_SCHEMAS)
            raise ConfigError(f"{prefix}_LISTED_SCHEMAS must be {choices}, got {raw!r}")
        page = _number(get("LIST_PAGE_SIZE"), f"{prefix}_LIST_PAGE_SIZE", int, "tools")
        page_size = None if page is None else int(page)
        return cls(mode, int(tokens or cls.max_list_tokens), on_demand, listed, page_size)


@dataclass(frozen=True)
class CodeLimits:
    """The limits of one `run_code` program (code_mode/): its wall time, API calls, sandbox memory,
    and how many programs run at once (each in a worker process of the sandbox)."""

    timeout: float = 30.0  # seconds, API calls included
    max_calls: int = 50
    max_memory_mb: int = 256
    workers: int = 4
    prefix: str = "API"

    @classmethod
    def from_env(cls, get: Callable[[str], str | None], prefix: str) -> CodeLimits:
        def read(name: str, kind: type[float] | type[int], what: str = "") -> float | None:
            return _number(get(name), f"{prefix}_{name}", kind, what)

        return cls(
            timeout=read("CODE_TIMEOUT", float) or cls.timeout,
            max_calls=int(read("CODE_MAX_CALLS", int, "calls") or cls.max_calls),
            max_memory_mb=int(read("CODE_MAX_MEMORY_MB", int, "megabytes") or cls.max_memory_mb),
            workers=int(read("CODE_WORKERS", int, "programs") or cls.workers),
            prefix=prefix,
        )


def parse_flag(raw: str | None, name: str) -> bool:
    """A true/false setting (None, unset: false); ConfigError naming `name` for anything else, an
    empty value included (a variable set empty reaches here as None; a header's empty value not)."""
    value = "false" if raw is None else raw.strip().lower()
    if value not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise ConfigError(f"{name} must be true or false (1/0, yes/no, on/off), got {raw!r}")
    return value in ("1", "true", "yes", "on")


def relative_path(default: str | None) -> str | None:
    """The path of a relative default server ("/api/v2/" → "/api/v2", "/" → ""); else None."""
    return default.rstrip("/") if default and default.startswith("/") else None


def joined(url: str, base_path: str | None) -> tuple[str, str | None]:
    """The API's base URL and the URL relative servers join, from the base URL set: the spec's
    relative path is appended unless the URL's path already ends with it (origin, origin + path,
    and a proxy's prefix all work); with no relative path, the URL itself and no root."""
    if base_path is None:
        return url, None
    if base_path and urlsplit(url).path.endswith(base_path):
        return url, url[: -len(base_path)]
    return url + base_path, url


def _usable(default: str | None) -> str | None:
    """The spec's base URL when it is absolute; else None (PREFIX_BASE_URL is still to be set)."""
    try:
        return _check_base_url(default, "") if default else None
    except ConfigError:
        return None


def _check_base_url(url: str, prefix: str) -> str:
    """A base URL the user set: a bad one is a ConfigError (exit 2), never silently ignored."""
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
