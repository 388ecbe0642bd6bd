"""`openapi2mcp inspect SPEC|PACKAGE`: what a server's tools/list costs and what clients do with it.

A spec runs through the pipeline in memory with the options of `generate` that change the tools
(flags, else the config file's); nothing is written. A package (its directory, its inner folder or
its `tool_data.json`) is read as it is. The report itself is `openapi2mcp/report/`."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer

from openapi2mcp.cli.errors import fail
from openapi2mcp.cli.options import (
    AllowRemoteRefsOption,
    ConfigOption,
    ExcludeOption,
    IncludeOption,
    InputSchemaLimitOption,
    NameStyleOption,
    OutputSchemaLimitOption,
    OutputSchemasOption,
    OverlayOption,
    ProfileOption,
    QuietOption,
    RefRootOption,
    ToolsListLimitOption,
)
from openapi2mcp.cli.progress import on_terminal, progress
from openapi2mcp.cli.resolve import command_line, dist_name, require, resolve_options
from openapi2mcp.config import ConfigError, Settings, load_config, merge
from openapi2mcp.diagnostics import Level
from openapi2mcp.emit.render import TOOL_DATA_FILE
from openapi2mcp.load.source import LoadError, is_url
from openapi2mcp.model import SizeLimits
from openapi2mcp.pipeline import Generation, generate
from openapi2mcp.report.document import report, to_json
from openapi2mcp.report.inventory import Inventory, from_model, read_package
from openapi2mcp.report.measure import measure
from openapi2mcp.report.stubs import DETAILS_FILE, api_stub, package_stub
from openapi2mcp.report.text import to_text
from openapi2mcp.tools.servers import ServerVariableError

FORMATS = ("text", "json")
DEFAULT_NAME = "api"  # the distribution name when neither --name nor the config file gives one


def inspect_command(
    ctx: typer.Context,
    spec: Annotated[
        str | None,
        typer.Argument(
            metavar="SPEC|PACKAGE",
            help="OpenAPI file or URL (default: spec of the config file), or a generated package "
            f"directory or its {TOOL_DATA_FILE}",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[str, typer.Option("--format", help="'text' or 'json'")] = "text",
    stubs: Annotated[
        bool,
        typer.Option(
            "--stubs",
            help="print instead the Python stub (api.pyi) that code mode's programs import",
        ),
    ] = False,
    name_style: NameStyleOption = "portable",
    allow_remote_refs: AllowRemoteRefsOption = False,
    ref_root: RefRootOption = None,
    input_schema_limit: InputSchemaLimitOption = SizeLimits.input_schema,
    output_schemas: OutputSchemasOption = SizeLimits.output_schemas,
    output_schema_limit: OutputSchemaLimitOption = SizeLimits.output_schema,
    tools_list_limit: ToolsListLimitOption = SizeLimits.tools_list,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    overlay: OverlayOption = None,
    config: ConfigOption = None,
    profile: ProfileOption = None,
    quiet: QuietOption = False,
) -> None:
    """Show what a server's tools/list costs, what clients do with it, and the mode to use.

    The tools/list size in bytes and estimated tokens (total, per toolset, the largest tools), what
    VS Code, the OpenAI API, Cursor, claude.ai and Claude Code do with it, and the recommended mode
    and toolsets. Options other than --format and --stubs apply to a spec only. Exit 2 when
    SPEC|PACKAGE cannot be read."""
    if output_format not in FORMATS:
        fail(f"--format {output_format!r}: choose 'text' or 'json'")
    given = command_line(ctx)
    if spec is not None and _is_package(spec):
        _refuse_spec_options(given, config, profile)
        if stubs:
            typer.echo(_package_stub(Path(spec)), nl=False)
            return
        source, kind, inventory = spec, "package", _read_package(Path(spec))
    else:
        generation, source = _generate(given, config, profile, quiet)
        if stubs:
            typer.echo(_generated_stub(generation), nl=False)
            return
        inventory, kind = from_model(generation.model), "spec"
    result = report(source, kind, measure(inventory))
    if output_format == "json":
        typer.echo(json.dumps(to_json(result), indent=2, ensure_ascii=False))
    else:
        typer.echo(to_text(result))


def _is_package(source: str) -> bool:
    path = Path(source)
    return not is_url(source) and (path.is_dir() or path.name == TOOL_DATA_FILE)


def _refuse_spec_options(given: Settings, config: Path | None, profile: str | None) -> None:
    flags = [setting.origin for key, setting in given.items() if key != "spec"]
    flags += [flag for flag, value in (("--config", config), ("--profile", profile)) if value is not None]
    if flags:
        fail(f"{', '.join(flags)}: for a spec only; a package's tools are already generated")


def _package_stub(path: Path) -> str:
    try:
        return package_stub(path)
    except LoadError as error:
        fail(str(error))


def _generated_stub(generation: Generation) -> str:
    """The stub of a spec's package, from the files its generation would write."""
    files = {PurePosixPath(path): text for path, text in generation.files.items()}
    data_path = next(path for path in files if path.name == TOOL_DATA_FILE)
    details = files.get(data_path.with_name(DETAILS_FILE))
    return api_stub(json.loads(files[data_path]), json.loads(details) if details else {})


def _read_package(path: Path) -> Inventory:
    try:
        return read_package(path)
    except LoadError as error:
        fail(str(error))


def _generate(
    given: Settings, config: Path | None, profile: str | None, quiet: bool
) -> tuple[Generation, str]:
    """The spec generated in memory as `generate` would (a progress line on a terminal; `quiet`: no
    notes on stderr), and its source."""
    try:
        config_file, from_file = load_config(config, profile)
        settings = merge(from_file, given)
        require(settings, config_file, {"spec": "SPEC|PACKAGE"})
        name = dist_name(settings["name"]) if "name" in settings else DEFAULT_NAME
        options, refs = resolve_options(settings, name)
    except ConfigError as error:
        fail(str(error))
    if config_file is not None and not quiet:
        typer.echo(
            f"info: {config_file}: options read" + (f" (profile {profile})" if profile else ""), err=True
        )
    source = str(settings["spec"].value)
    try:
        with progress(on_terminal(quiet=quiet)) as stages:
            generation = generate(source, options, refs, stages)
    except (LoadError, ServerVariableError) as error:
        fail(str(error))
    if (skipped := generation.diagnostics.count(Level.ERROR)) and not quiet:
        noun = "operation" if skipped == 1 else "operations"
        typer.echo(
            f"openapi2mcp: {source}: {skipped} {noun} skipped with errors "
            "(`openapi2mcp generate` lists them)",
            err=True,
        )
    return generation, source
