"""The generated server's environment variables, as its README, `.env.example`, client set-ups and
bundle list them (`variables`), with the runtime's own defaults."""

from __future__ import annotations

from dataclasses import dataclass, replace

from openapi2mcp.model import ApiModel, SecurityScheme
from openapi2mcp.tools.servers import relative_base_path
from openapi2mcp_runtime.serving import endpoint_auth, http_limits


@dataclass(frozen=True)
class Variable:
    """One environment variable of the generated server, for its README and .env.example."""

    name: str
    meaning: str
    example: str = ""
    http_only: bool = False  # read only by the HTTP transport (no client set-up or bundle asks for it)



def _resilience_variables(prefix: str) -> list[Variable]:
    """The runtime's resilience.py and audit.py settings."""
    return [
        Variable(
            f"{prefix}_RETRIES",
            "Further attempts of an idempotent call after a broken connection, 429, 502, 503 or 504"
            " (default 2; 0: none), with backoff or the Retry-After asked for, within the timeout",
        ),
        Variable(
            f"{prefix}_IDEMPOTENCY_KEY",
            "A header name (e.g. Idempotency-Key): each call of a non-idempotent operation sends it with"
            " a fresh UUID, the same on every attempt, and is retried like the idempotent ones",
        ),
        Variable(f"{prefix}_MAX_CONCURRENCY", "Most API requests in flight at once (default 32); more wait"),
        Variable(
            f"{prefix}_MAX_CONCURRENCY_PER_SESSION",
            "HTTP: most of them one session (or caller without one) may hold (default: a quarter"
            " of MAX_CONCURRENCY), so one client's slow calls leave slots to the others",
            http_only=True,
        ),
        Variable(
            f"{prefix}_RATE_LIMIT", "Most API requests a second (default: no limit); more wait their turn"
        ),
        Variable(
            f"{prefix}_AUDIT_LOG",
            "stderr or a file: one JSON line per tool call (time, session, tool, status, attempts,"
            " duration, outcome; never arguments or credentials)",
        ),
    ]


def base_url_meaning(model: ApiModel) -> str:
    """What PREFIX_BASE_URL is: the API's base URL, or the origin its relative server joins."""
    path = relative_base_path(model.default_base_url)
    own = sorted({tool.base_url for tool in model.tools if tool.base_url})
    if path is None:
        base = model.default_base_url or "(none: set it before calling a tool; tools are listed without it)"
        servers = (
            f". {len(own)} other server(s) of the spec ({', '.join(own)}) serve some tools; "
            "a URL other than the default sends those tools here too"
            if own
            else ""
        )
        return f"API base URL; --base-url overrides it. Default: {base}{servers}"
    relative = [url for url in own if url.startswith("/")]
    others = f" (and {', '.join(relative)}, the servers of some tools)" if relative else ""
    return (
        f"The service's origin, e.g. http://127.0.0.1:8888 (--base-url overrides it): the"
        f" spec's server is the relative path {path or '/'}{others}, joined to it, so requests go to"
        f" http://127.0.0.1:8888{path}/...; a URL already ending in {path or '/'} is used as it is,"
        " one with a prefix in front (a proxy's) keeps it"
    )


def variables(model: ApiModel, prefix: str) -> list[Variable]:
    absolute = relative_base_path(model.default_base_url) is None
    found = [
        Variable(
            f"{prefix}_BASE_URL",
            base_url_meaning(model),
            model.default_base_url if absolute else "",
        ),
        Variable(f"{prefix}_TIMEOUT", "Seconds to wait for the API (default 30), retries included", "30"),
        *_resilience_variables(prefix),
        Variable(f"{prefix}_HEADERS", 'Extra HTTP headers as a JSON object, e.g. {"X-Team": "a"}'),
        Variable(
            f"{prefix}_MAX_RESPONSE_BYTES",
            "Largest response body passed back to the client (default 1000000)",
        ),
        Variable(
            f"{prefix}_MAX_RESULT_CHARS",
            "Longest result for the model, in characters (default 100000): longer JSON is trimmed"
            " (arrays from the end, long strings cut), text cut, with a note on how to page",
        ),
        Variable(f"{prefix}_CA_BUNDLE", "PEM file of the CAs to trust for the API (default: the system's)"),
        Variable(f"{prefix}_CLIENT_CERT", "Mutual TLS: PEM client certificate (and key, unless the next)"),
        Variable(f"{prefix}_CLIENT_KEY", "Mutual TLS: PEM private key (unencrypted) of that certificate"),
        Variable(
            f"{prefix}_TOOLSETS",
            "Toolsets to offer, comma-separated; all, default (the default) may be combined with"
            " names; --toolsets overrides it",
        ),
        Variable(
            f"{prefix}_TOOLS", "Tools to offer besides the toolsets', comma-separated; --tools overrides it"
        ),
        Variable(
            f"{prefix}_EXCLUDE_TOOLS", "Tools to leave out, comma-separated; --exclude-tools overrides it"
        ),
        Variable(
            f"{prefix}_READ_ONLY",
            "true: only the tools marked readOnlyHint, whatever else is chosen; --read-only overrides it",
        ),
        Variable(
            f"{prefix}_MODE",
            "static, dynamic (search_tools, describe_tools, call_tool), code (search_tools,"
            " describe_tools, run_code) or auto (dynamic when the list would pass MAX_LIST_TOKENS);"
            " --mode overrides it",
        ),
        Variable(
            f"{prefix}_MAX_LIST_TOKENS", "auto mode: the largest static tools/list, in tokens (default 20000)"
        ),
        Variable(
            f"{prefix}_LISTED_SCHEMAS",
            "portable (the default: no additionalProperties: false in listed inputSchemas, which"
            " google-genai cannot read) or exact (listed where enforced, for OpenAI's strict mode)",
        ),
        Variable(
            f"{prefix}_DYNAMIC_TOOLSETS",
            "true: list the chosen toolsets' tools plus list_toolsets and enable_toolsets;"
            " --dynamic-toolsets overrides it",
        ),
        Variable(
            f"{prefix}_LIST_PAGE_SIZE",
            "Tools per tools/list page, with a cursor to the next (default: every tool in one answer)",
        ),
        Variable(
            f"{prefix}_CONFIRM",
            "none (the default), destructive or writes: the user confirms such calls (elicitation)"
            " before they reach the API",
        ),
        Variable(
            f"{prefix}_CONFIRM_FALLBACK",
            "refuse (the default) or allow: calls to confirm when the client cannot ask the user",
        ),
        Variable(
            f"{prefix}_CODE_TIMEOUT",
            "--mode code: seconds a program may run, its API calls included (default 30)",
        ),
        Variable(f"{prefix}_CODE_MAX_CALLS", "--mode code: most API calls of one program (default 50)"),
        Variable(
            f"{prefix}_CODE_MAX_MEMORY_MB", "--mode code: most memory of one program, in MB (default 256)"
        ),
        Variable(
            f"{prefix}_CODE_WORKERS",
            "--mode code: programs run at once, each in a sandbox process (default 4); more wait",
        ),
        *(replace(variable, http_only=True) for variable in _access_variables(prefix)),
        *_http_limit_variables(prefix),
    ]
    for scheme in model.security_schemes:
        found.extend(_scheme_variables(scheme))
    return found


def _http_limit_variables(prefix: str) -> list[Variable]:
    """What one HTTP peer may hold of the server (the runtime's http_limits.py, with its defaults)."""
    limits = http_limits.HTTP_LIMITS
    return [
        Variable(f"{prefix}_{suffix}", f"HTTP: {meaning} (default {default:g})", http_only=True)
        for suffix, _field, default, meaning in limits
    ]


def _jwks_max_age() -> float:
    """The runtime's default (endpoint_auth.py)."""
    return float(endpoint_auth.EndpointAuth.jwks_max_age)


def _access_variables(prefix: str) -> list[Variable]:
    """Who may call the HTTP endpoint, and whose API credentials it uses (endpoint_auth.py)."""
    return [
        Variable(
            f"{prefix}_AUTH",
            "HTTP endpoint authentication: none (the default; only on a loopback --host unless"
            " --allow-unauthenticated), token or oauth; --auth overrides it",
        ),
        Variable(f"{prefix}_MCP_TOKENS", "--auth token: the accepted bearer tokens, comma-separated"),
        Variable(f"{prefix}_OAUTH_ISSUER", "--auth oauth: the authorization server's issuer URL (required)"),
        Variable(
            f"{prefix}_OAUTH_JWKS_URL",
            "--auth oauth: its JWKS URL (default: jwks_uri of the issuer's RFC 8414, then OpenID metadata)",
        ),
        Variable(
            f"{prefix}_OAUTH_JWKS_MAX_AGE",
            "--auth oauth: seconds a fetched JWKS is used before it is fetched again (never longer,"
            f" even while the issuer is down; default {_jwks_max_age():g})",
        ),
        Variable(
            f"{prefix}_RESOURCE_URL",
            "--auth oauth: the public URL of /mcp (default http://HOST:PORT/mcp); the tokens' audience",
        ),
        Variable(
            f"{prefix}_OAUTH_AUDIENCE",
            "--auth oauth: the audience tokens must have (default: the resource URL)",
        ),
        Variable(
            f"{prefix}_OAUTH_READ_SCOPE",
            "--auth oauth: the scope that allows the read-only tools (default mcp:read)",
        ),
        Variable(
            f"{prefix}_OAUTH_WRITE_SCOPE",
            "--auth oauth: the scope that allows every tool (default mcp:write; it includes reading)",
        ),
        Variable(
            f"{prefix}_CREDENTIALS",
            "env (the default: the credential variables below) or from-request (HTTP only: each MCP"
            " request's own API credential, in the header below); --credentials overrides it",
        ),
        Variable(
            f"{prefix}_CREDENTIALS_HEADER",
            "from-request: the header carrying the caller's API credential"
            " (default X-Upstream-Authorization)",
        ),
    ]


_ROLE_MEANING = {
    "key": "API key",
    "token": "bearer/access token",
    "username": "user name (HTTP basic)",
    "password": "password (HTTP basic)",
    "client_id": "OAuth2 client ID (client credentials)",
    "client_secret": "OAuth2 client secret (client credentials)",
    "scopes": "OAuth2 scopes, space-separated (optional)",
    "token_url": "OAuth2 token URL override (optional)",
}


def _scheme_variables(scheme: SecurityScheme) -> list[Variable]:
    where = f" ({scheme.location} {scheme.parameter_name!r})" if scheme.kind == "apiKey" else ""
    return [
        Variable(name, f"{_ROLE_MEANING.get(role, role)} for security scheme {scheme.key!r}{where}")
        for role, name in scheme.env.items()
    ]
