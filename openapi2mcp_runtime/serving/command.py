"""The generated server's command line: its flags, its settings from the environment, and serving
over stdio or streamable HTTP. A generated server.py holds only what is its own (name, version,
environment prefix, default base URL, where its tool data is) in a ServerCommand, and its main()
runs it, so a fix here reaches every server through the runtime."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import tool_runtime as runtime
from ..hooks import runner as hooks_runner
from . import http_serving, wiring

MODES = ("auto", "static", "dynamic")
NARROWING_FLAGS = (
    ("--toolsets", "comma-separated toolsets, `all`, `default`"),
    ("--tools", "comma-separated tools, added to the toolsets"),
    ("--exclude-tools", "comma-separated tools to leave out"),
)
# the flags that are settings too (Settings.from_env: a flag wins over its variable)
FLAG_SETTINGS = (
    "toolsets",
    "tools",
    "exclude_tools",
    "read_only",
    "mode",
    "dynamic_toolsets",
    "auth",
    "credentials",
)


@dataclass(frozen=True)
class ServerCommand:
    """One generated server: what its server.py says of it."""

    name: str  # the console script, the MCP server name and the prefix of its messages
    version: str
    title: str
    env_prefix: str
    default_base_url: str
    default_mode: str
    tool_data: Path
    package: str  # the generated import package, whose hooks.py is loaded
    module: str  # the server module: each --workers process runs its main() again
    description: str | None = None  # --help's text (the server module's docstring)
    relative_base: bool = False  # the spec's server is a path, joined to the --base-url origin

    def run(self, argv: Sequence[str] | None = None) -> int:
        """Parse the command line, load settings and tools, and serve; 2 on a bad configuration."""
        args = self.parser().parse_args(argv)
        flags = {key: getattr(args, key) for key in FLAG_SETTINGS}
        try:
            settings = self.settings(base_url=args.base_url, flags=flags)
            if problem := http_serving.start_problem(args, settings):
                raise runtime.ConfigError(problem)
            tools = self.load_tools(settings)
            if args.transport == "http" and args.workers > 1:
                tools.tasks = None  # a task lives in one process: each call follows its own job
        except runtime.ConfigError as error:
            print(f"{self.name}: {error}", file=sys.stderr)
            return 2
        gc.freeze()  # the tool data lives as long as the process: keep the collector from rescanning it
        server = self.build_server(tools)
        if args.transport == "http":
            http_serving.serve(
                server, tools, args, sys.argv[1:] if argv is None else argv, self.module
            )
        else:
            import anyio

            anyio.run(serve_stdio, server, backend_options=wiring.event_loop_options())
        return 0

    def settings(
        self,
        env: Mapping[str, str] | None = None,
        *,
        base_url: str | None = None,
        flags: Mapping[str, str | bool | None] | None = None,
    ) -> runtime.Settings:
        """The settings from `env` (default: os.environ), `base_url` and `flags` winning."""
        return runtime.Settings.from_env(
            env,
            prefix=self.env_prefix,
            default_base_url=self.default_base_url,
            base_url=base_url,
            flags=flags,
            default_mode=self.default_mode,
        )

    def load_tools(self, settings: runtime.Settings) -> runtime.ToolRuntime:
        """The tools of the tool data, with the package's hooks (its hooks.py, if the user kept it)."""
        return runtime.ToolRuntime.load(
            self.tool_data, settings, hooks_runner.load_hooks(self.package)
        )

    def build_server(self, tools: runtime.ToolRuntime) -> Any:
        """The SDK's low-level server, answered by `tools` (serve it, or hand it to `mcp.Client`)."""
        return wiring.build_server(tools, self.name, self.version, self.title)

    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog=self.name, description=self.description)
        parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
        parser.add_argument("--host", default="127.0.0.1", help="HTTP only (default: 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="HTTP only (default: 8000)")
        parser.add_argument("--base-url", default=None, help=self._base_url_help())
        self._add_narrowing(
            parser.add_argument_group("which tools to offer (a flag wins over its variable)")
        )
        self._add_listing(parser.add_argument_group("how to list them"))
        http_serving.add_arguments(parser, self.env_prefix)
        return parser

    def _base_url_help(self) -> str:
        variable = f"${self.env_prefix}_BASE_URL"
        if not self.relative_base:
            return f"API base URL (default: {variable})"
        path = (
            self.default_base_url.rstrip("/").replace("%", "%%") or "/"
        )  # argparse formats help with %
        joined = f"http://127.0.0.1:8888{path.rstrip('/')}/..."
        return (
            f"the service's origin, e.g. http://127.0.0.1:8888: the spec's server is the relative path"
            f" {path}, joined to it, so requests go to {joined} (a URL already ending in {path} is used"
            f" as it is; default: {variable})"
        )

    def _add_narrowing(self, group: argparse._ArgumentGroup) -> None:
        for flag, what in NARROWING_FLAGS:
            variable = f"{self.env_prefix}_{flag[2:].replace('-', '_').upper()}"
            group.add_argument(flag, metavar="NAMES", help=f"{what} (default: ${variable})")
        group.add_argument(
            "--read-only",
            action=argparse.BooleanOptionalAction,
            help="only the tools marked readOnlyHint; wins over the rest"
            f" (default: ${self.env_prefix}_READ_ONLY)",
        )

    def _add_listing(self, group: argparse._ArgumentGroup) -> None:
        prefix = self.env_prefix
        group.add_argument(
            "--mode",
            choices=MODES,
            help="static: every tool; dynamic: search_tools, describe_tools, call_tool; code:"
            " search_tools, describe_tools, run_code (programs in the pydantic-monty sandbox); auto:"
            f" dynamic when the list would pass ${prefix}_MAX_LIST_TOKENS"
            f" (default: ${prefix}_MODE, else {self.default_mode})",
        )
        group.add_argument(
            "--dynamic-toolsets",
            action=argparse.BooleanOptionalAction,
            help="list the chosen toolsets' tools and let the agent enable others"
            f" (default: ${prefix}_DYNAMIC_TOOLSETS)",
        )


async def serve_stdio(server: Any) -> None:
    """Over stdin/stdout, through the SDK's stdio transport."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
