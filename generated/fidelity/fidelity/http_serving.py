"""The streamable-HTTP side of server.py: its command-line options, the start-up checks, and the ASGI
app served: endpoint_auth.Guard (tokens, the credential header, oauth's metadata) in front of
views.NarrowedPaths in front of the SDK's app (with its OAuth resource server under --auth oauth).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import endpoint_auth as ea  # type: ignore[import-not-found,unused-ignore]
    import oauth  # type: ignore[import-not-found,unused-ignore]
    import runtime  # type: ignore[import-not-found,unused-ignore]
    from views import NarrowedPaths  # type: ignore[import-not-found,unused-ignore]
else:
    from . import endpoint_auth as ea
    from . import oauth, runtime
    from .views import NarrowedPaths


def add_arguments(parser: argparse.ArgumentParser, prefix: str) -> None:
    """--auth, --allow-unauthenticated, --credentials (a flag wins over its variable)."""
    group = parser.add_argument_group("who may call the HTTP endpoint, with whose API credentials")
    group.add_argument(
        "--auth",
        choices=ea.AUTH_MODES,
        help=f"token: a bearer token of ${prefix}_MCP_TOKENS; oauth: JWT access tokens of"
        f" ${prefix}_OAUTH_ISSUER (default: ${prefix}_AUTH, else none)",
    )
    group.add_argument(
        "--allow-unauthenticated",
        action="store_true",
        help="serve a non-loopback --host with --auth none (something in front authenticates)",
    )
    group.add_argument(
        "--credentials",
        choices=ea.CREDENTIAL_MODES,
        help="env: the API credentials of this server's environment; from-request: each MCP"
        f" request's ${prefix}_CREDENTIALS_HEADER (default: ${prefix}_CREDENTIALS, else env)",
    )


def start_problem(args: argparse.Namespace, settings: runtime.Settings) -> str | None:
    """Why the server must not start with these options, or None."""
    if args.transport != "http":
        if settings.credential_source.mode == "from-request":
            return "--credentials from-request takes each HTTP request's credential: use --transport http"
        return None
    return ea.bind_problem(args.host, settings.endpoint_auth, args.allow_unauthenticated)


def app(server: Any, tools: runtime.ToolRuntime, host: str, port: int) -> ea.App:
    """The ASGI app: one JSON body per answer (the tools stream nothing); DNS-rebinding protection
    on loopback; /mcp/x/TOOLSETS, /mcp/readonly and the X-MCP-* headers narrow a request's tools."""
    auth, source = tools.settings.endpoint_auth, tools.settings.credential_source
    options: dict[str, Any] = {}
    routes: dict[str, ea.App] = {}
    if auth.mode == "oauth":
        resource = auth.resource_url or f"http://{_url_host(host)}:{port}/mcp"
        options, routes = oauth.resource_server(auth, resource)
    inner = server.streamable_http_app(host=host, json_response=True, **options)
    narrowed = NarrowedPaths(inner, tools.resolve)
    tokens = auth.tokens if auth.mode == "token" else ()
    header = source.header if source.mode == "from-request" else None
    return ea.Guard(narrowed, tokens, header, routes)


def serve(server: Any, tools: runtime.ToolRuntime, host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(app(server, tools, host, port), host=host, port=port, log_level="warning")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
