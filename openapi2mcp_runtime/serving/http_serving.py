"""The streamable-HTTP side of a server's `command`: its command-line options, the start-up checks,
and the ASGI app served: endpoint_auth.Guard (tokens, the credential header, oauth's metadata,
/healthz) in front of views.NarrowedPaths in front of the SDK's app (with its OAuth resource server
under --auth oauth).
`--stateless` serves each request on its own (the SDK's stateless mode): any instance can answer
any request; `--workers N` runs N such processes on one port (uvicorn's own workers).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import socket
import sys
from collections.abc import Sequence
from typing import Any

from .. import tool_runtime as runtime
from ..discovery.views import NarrowedPaths
from . import endpoint_auth as ea
from . import http_limits as hl
from . import http_sessions, oauth, wiring

HEALTH_PATH = "/healthz"
WORKER_ARGV = "OPENAPI2MCP_WORKER_ARGV"  # the command line each --workers process starts from
WORKER_MAIN = "OPENAPI2MCP_WORKER_MAIN"  # and the module whose main() it runs (server.py)
_WORKER_APPS: list[ea.App] | None = None  # set in a worker process while worker_app builds


def add_arguments(parser: argparse.ArgumentParser, prefix: str) -> None:
    """--auth, --allow-unauthenticated, --credentials (a flag wins over its variable); --sse;
    --stateless, --workers."""
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
    parser.add_argument(
        "--sse",
        action="store_true",
        help="answer each HTTP request as an SSE stream, so that progress and log notifications"
        " reach the client (default: one JSON body, about a third more calls a second)",
    )
    scale = parser.add_argument_group("scaling out (HTTP only)")
    scale.add_argument(
        "--stateless",
        action="store_true",
        help="keep no session between requests, so that any instance behind a load balancer can"
        " answer any request (enable_toolsets and logging/setLevel are then refused)",
    )
    scale.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="N processes serving the same port (needs --stateless; default: 1)",
    )


def start_problem(args: argparse.Namespace, settings: runtime.Settings) -> str | None:
    """Why the server must not start with these options, or None."""
    if args.transport != "http":
        if settings.credential_source.mode == "from-request":
            return "--credentials from-request takes each HTTP request's credential: use --transport http"
        if args.stateless or args.workers != 1 or args.sse:
            return "--sse, --stateless and --workers serve HTTP: use --transport http"
        return None
    if args.workers < 1:
        return f"--workers must be 1 or more, got {args.workers}"
    if args.workers > 1 and not args.stateless:
        return (
            f"--workers {args.workers} needs --stateless: a session lives in one process, and the"
            " next request of that session may reach another"
        )
    try:
        hl.HttpLimits.from_env(settings.env, settings.prefix)
    except hl.LimitError as error:
        return str(error)
    return ea.bind_problem(args.host, settings.endpoint_auth, args.allow_unauthenticated)


def app(
    server: Any,
    tools: runtime.ToolRuntime,
    host: str,
    port: int,
    stateless: bool = False,
    sse: bool = False,
) -> ea.App:
    """The ASGI app: one JSON body per answer (request-scoped notifications, progress and log
    messages, are dropped), or with `sse` (or PREFIX_CONFIRM) an SSE stream per answer;
    DNS-rebinding protection on loopback; /mcp/x/TOOLSETS, /mcp/readonly and the X-MCP-* headers
    narrow a request's tools; GET /healthz answers 200 without authentication."""
    auth, source = tools.settings.endpoint_auth, tools.settings.credential_source
    options: dict[str, Any] = {}
    routes: dict[str, ea.App] = {HEALTH_PATH: healthz}
    if auth.mode == "oauth":
        resource = auth.resource_url or f"http://{_url_host(host)}:{port}/mcp"
        options, routes = oauth.resource_server(auth, resource)
        routes[HEALTH_PATH] = healthz
    limits = limits_of(tools.settings)
    # confirmation.py's question (2025-11-25) rides the call's own SSE stream
    streamed = sse or tools.settings.confirmation.scope != "none"
    inner = server.streamable_http_app(
        host=host,
        json_response=not streamed,
        stateless_http=stateless,
        max_sessions=limits.max_sessions,
        session_idle_timeout=limits.session_idle_timeout,
        **options,
    )
    if auth.mode == "oauth":
        inner = oauth.OutageAnswers(inner)  # 503 while the issuer's keys are unavailable
    narrowed: ea.App = NarrowedPaths(inner, tools.resolve)
    if stateless:
        narrowed = Sessionless(narrowed)
    else:
        per_client, idle = limits.sessions_per_client, limits.session_idle_timeout
        narrowed = http_sessions.SessionGuard(narrowed, per_client, idle)
    tokens = auth.tokens if auth.mode == "token" else ()
    header = source.header if source.mode == "from-request" else None
    return ea.Guard(narrowed, tokens, header, routes)


def serve(
    server: Any,
    tools: runtime.ToolRuntime,
    args: argparse.Namespace,
    argv: Sequence[str],
    main_module: str,
) -> None:
    """Serve on args.host:args.port; with --workers N, uvicorn starts N processes that each build
    the app again from the same command line (`argv`), environment and `main_module`'s main()
    (`worker_app`)."""
    import uvicorn

    from .http_guard import GuardedH11

    GuardedH11.limits = limits_of(tools.settings)  # each --workers process sets its own
    options = {"http": GuardedH11, **GuardedH11.limits.uvicorn_options()}
    served = app(server, tools, args.host, args.port, args.stateless, args.sse)
    if _WORKER_APPS is not None:  # in a worker process: worker_app serves it
        _WORKER_APPS.append(served)
        return
    hl.open_file_limit()
    if args.workers == 1:
        uvicorn.run(served, host=args.host, port=args.port, log_level="warning", **options)
        return
    os.environ[WORKER_ARGV], os.environ[WORKER_MAIN] = json.dumps(list(argv)), main_module
    os.environ[wiring.STATE_KEY] = secrets.token_hex(
        32
    )  # any worker opens the state another sealed
    factory = f"{__package__}.http_serving:worker_app"
    config = uvicorn.Config(
        factory,
        factory=True,
        workers=args.workers,
        host=args.host,
        port=args.port,
        log_level="warning",
        **options,
    )
    from uvicorn.supervisors import Multiprocess

    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(config, sockets=[tcp_socket(args.host, args.port)]).run()


def limits_of(settings: runtime.Settings) -> hl.HttpLimits:
    """The HTTP limits of PREFIX_HTTP_* (start_problem has checked them)."""
    return hl.HttpLimits.from_env(settings.env, settings.prefix)


def tcp_socket(host: str, port: int) -> socket.socket:
    """The listening socket of --workers, as uvicorn.Config.bind_socket makes it but with the
    protocol set: with proto 0, asyncio never sets TCP_NODELAY on the accepted connections, and each
    keep-alive request after the first waits ~40 ms for a delayed ACK (uvicorn issue #3149)."""
    flags = socket.AI_PASSIVE
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=flags
        )[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as error:
        print(f"cannot listen on {_url_host(host)}:{port}: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    sock.set_inheritable(True)
    return sock


def worker_app() -> ea.App:
    """uvicorn's app factory in each --workers process: the server's main() run again on the same
    command line (its checks, its settings, its tool data), handing its app over instead of serving.
    """
    import importlib

    global _WORKER_APPS
    _WORKER_APPS = []
    main = importlib.import_module(os.environ[WORKER_MAIN]).main
    if main(json.loads(os.environ[WORKER_ARGV])) != 0 or not _WORKER_APPS:
        raise SystemExit(2)  # main() printed why
    return _WORKER_APPS[0]


async def healthz(scope: ea.Scope, receive: Any, send: Any) -> None:
    """GET /healthz: 200 {"status": "ok"} once the server serves; nothing about the API."""
    get = scope["method"] in ("GET", "HEAD")
    body = b'{"status":"ok"}' if get else b'{"error":"method not allowed"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    headers += [] if get else [(b"allow", b"GET, HEAD")]
    await send({"type": "http.response.start", "status": 200 if get else 405, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


class Sessionless:
    """ASGI middleware of --stateless: drops a request's Mcp-Session-Id, which the SDK ignores in
    that mode, so that the runtime remembers nothing under an ID the client made up."""

    def __init__(self, app: ea.App) -> None:
        self.app = app

    async def __call__(self, scope: ea.Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"mcp-session-id"]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
