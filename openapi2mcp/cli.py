"""The command line: `openapi2mcp generate SPEC -o OUT --name NAME`."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Annotated, NoReturn, cast

import typer

from openapi2mcp.bundle import RefOptions
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.loader import LoadError
from openapi2mcp.model import GeneratorOptions, NameStyle, OutputSchemas, SizeLimits
from openapi2mcp.naming import env_token
from openapi2mcp.output import OutputError, write_package
from openapi2mcp.pipeline import generate
from openapi2mcp.servers import ServerVariableError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate MCP tool servers from OpenAPI.",
)

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 2, 3
DEBUG_VARIABLE = "OPENAPI2MCP_DEBUG"
_DIST_NAME = re.compile(r"[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?")


@app.callback()
def _root() -> None:
    """Generate MCP tool servers from OpenAPI descriptions."""


@app.command("generate")
def generate_command(
    spec: Annotated[str, typer.Argument(help="OpenAPI file (YAML or JSON) or http(s) URL")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory of the package")],
    name: Annotated[str, typer.Option("--name", help="Distribution name, e.g. petstore")],
    env_prefix: Annotated[
        str | None, typer.Option(help="Prefix of environment variables (default: NAME)")
    ] = None,
    name_style: Annotated[
        str, typer.Option(help="Tool names: 'portable' [A-Za-z0-9_-]{1,64} or 'mcp' [A-Za-z0-9_.-]{1,128}")
    ] = "portable",
    server_var: Annotated[
        list[str] | None,
        typer.Option(help="NAME=VALUE: a server URL variable's value instead of its default (repeatable)"),
    ] = None,
    strict: Annotated[
        bool, typer.Option(help="Fail (exit 2, nothing written) on any error or warning diagnostic")
    ] = False,
    allow_remote_refs: Annotated[
        bool, typer.Option("--allow-remote-refs", help="Fetch http(s) documents that the spec's $refs name")
    ] = False,
    ref_root: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Let $refs read files under DIR too, not only the spec's directory"),
    ] = None,
    input_schema_limit: Annotated[
        int,
        typer.Option(metavar="BYTES", help="Compact any inputSchema larger than this (0: no limit)"),
    ] = SizeLimits.input_schema,
    output_schemas: Annotated[
        str, typer.Option(help="'compact' (at most --output-schema-limit bytes each), 'full' or 'none'")
    ] = SizeLimits.output_schemas,
    output_schema_limit: Annotated[
        int,
        typer.Option(metavar="BYTES", help="Compact any outputSchema larger than this (0: no limit)"),
    ] = SizeLimits.output_schema,
    tools_list_limit: Annotated[
        int,
        typer.Option(
            metavar="BYTES", help="Compact schemas further until tools/list fits in this (0: no limit)"
        ),
    ] = SizeLimits.tools_list,
) -> None:
    """Generate an MCP server package from SPEC into OUT."""
    if output_schemas not in ("compact", "full", "none"):
        _fail(f"--output-schemas {output_schemas!r}: choose 'compact', 'full' or 'none'")
    for flag, limit in (
        ("--input-schema-limit", input_schema_limit),
        ("--output-schema-limit", output_schema_limit),
        ("--tools-list-limit", tools_list_limit),
    ):
        if limit < 0:
            _fail(f"{flag} {limit}: give a number of bytes, or 0 for no limit")
    sizes = SizeLimits(
        input_schema=input_schema_limit,
        output_schema=output_schema_limit,
        tools_list=tools_list_limit,
        output_schemas=cast(OutputSchemas, output_schemas),
    )
    options = dataclasses.replace(_options(name, env_prefix, name_style, server_var or []), sizes=sizes)
    try:
        generation = generate(spec, options, RefOptions(allow_remote_refs, _ref_root(ref_root)))
    except (LoadError, ServerVariableError) as error:
        _fail(str(error))
    _print_diagnostics(generation.diagnostics)
    if strict:
        _fail_if_not_clean(generation.diagnostics)
    try:
        write_package(out, generation.files)
    except (OutputError, OSError) as error:
        _fail(str(error))
    skipped = generation.diagnostics.count(Level.ERROR)
    typer.echo(f"{out}: {len(generation.model.tools)} tools written ({skipped} errors reported)", err=True)


def _options(name: str, env_prefix: str | None, name_style: str, server_vars: list[str]) -> GeneratorOptions:
    if not _DIST_NAME.fullmatch(name):
        _fail(
            f"--name {name!r}: use letters, digits, '-' and '_', "
            "starting with a letter and ending with a letter or digit"
        )
    if name_style not in ("portable", "mcp"):
        _fail(f"--name-style {name_style!r}: choose 'portable' or 'mcp'")
    prefix = env_token(env_prefix or name)
    style: NameStyle = "portable" if name_style == "portable" else "mcp"
    return GeneratorOptions(
        dist_name=name, env_prefix=prefix, name_style=style, server_variables=_server_variables(server_vars)
    )


def _server_variables(values: list[str]) -> tuple[tuple[str, str], ...]:
    chosen: dict[str, str] = {}
    for value in values:
        name, sep, setting = value.partition("=")
        if not sep or not name.strip():
            _fail(f"--server-var {value!r}: use NAME=VALUE, e.g. --server-var region=eu")
        chosen[name.strip()] = setting
    return tuple(chosen.items())


def _ref_root(directory: Path | None) -> Path | None:
    if directory is not None and not directory.is_dir():
        _fail(f"--ref-root {str(directory)!r}: not a directory")
    return directory


def _fail_if_not_clean(diagnostics: Diagnostics) -> None:
    errors, warnings = diagnostics.count(Level.ERROR), diagnostics.count(Level.WARNING)
    if errors or warnings:
        _fail(f"--strict: {errors} errors and {warnings} warnings (listed above); nothing was written")


def _print_diagnostics(diagnostics: Diagnostics) -> None:
    for diagnostic in diagnostics:
        typer.echo(diagnostic.render(), err=True)


def _fail(message: str) -> NoReturn:
    typer.echo(f"openapi2mcp: error: {message}", err=True)
    raise typer.Exit(EXIT_INPUT)


def main() -> None:
    """The console script: a generator bug is one clear line (the traceback with OPENAPI2MCP_DEBUG=1)."""
    try:
        app()
    except Exception as error:  # a bug in openapi2mcp itself, not in the user's input
        if os.environ.get(DEBUG_VARIABLE):
            raise
        typer.echo(
            f"openapi2mcp: internal error: {type(error).__name__}: {error}\n"
            f"This is a bug in openapi2mcp; nothing was written. Rerun with {DEBUG_VARIABLE}=1 "
            "for the traceback and report it with the spec.",
            err=True,
        )
        raise SystemExit(EXIT_INTERNAL) from None
