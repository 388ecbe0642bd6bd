"""The command line: `openapi2mcp generate [SPEC] [-o OUT] [--name NAME] [options]`.

Each option can also come from the config file (see `config.py`); a flag given on the command line
wins. The options and their resolution are in `options.py`."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from openapi2mcp.ci.check import check_package
from openapi2mcp.ci.diff import diff_command
from openapi2mcp.cli.diagnostics import display_options, print_diagnostics
from openapi2mcp.cli.errors import fail
from openapi2mcp.cli.inspect import inspect_command
from openapi2mcp.cli.options import (
    AllowRemoteRefsOption,
    BundleOption,
    ConfigOption,
    DiagnosticsFormatOption,
    EnvPrefixOption,
    ExcludeOption,
    IncludeOption,
    InputSchemaLimitOption,
    ModelsOption,
    NameOption,
    NameStyleOption,
    OutOption,
    OutputSchemaLimitOption,
    OutputSchemasOption,
    OverlayOption,
    ProfileOption,
    QuietOption,
    RefRootOption,
    ServerVarOption,
    StrictOption,
    ToolsListLimitOption,
    VerboseOption,
    command_line,
    resolve,
)
from openapi2mcp.cli.progress import on_terminal, progress
from openapi2mcp.config import ConfigError, load_config, merge
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.emit.client_setup import client_setup, summary_lines
from openapi2mcp.emit.mcpb import PackError, pack_bundle
from openapi2mcp.emit.output import OutputError, write_package
from openapi2mcp.emit.render import variables
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import ApiModel, GeneratorOptions, SizeLimits
from openapi2mcp.pipeline import generate
from openapi2mcp.report.document import summary
from openapi2mcp.report.inventory import from_model
from openapi2mcp.report.measure import measure
from openapi2mcp.tools.servers import ServerVariableError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate MCP tool servers from OpenAPI.",
)

EXIT_OK, EXIT_DRIFT, EXIT_INTERNAL = 0, 1, 3
DEBUG_VARIABLE = "OPENAPI2MCP_DEBUG"


@app.callback()
def _root() -> None:
    """Generate MCP tool servers from OpenAPI descriptions."""


app.command("diff")(diff_command)
app.command("inspect")(inspect_command)


@app.command("generate")
def generate_command(
    ctx: typer.Context,
    spec: Annotated[
        str | None,
        typer.Argument(help="OpenAPI file (YAML or JSON) or http(s) URL (default: spec of the config file)"),
    ] = None,
    out: OutOption = None,
    name: NameOption = None,
    env_prefix: EnvPrefixOption = None,
    name_style: NameStyleOption = "portable",
    server_var: ServerVarOption = None,
    strict: StrictOption = False,
    allow_remote_refs: AllowRemoteRefsOption = False,
    ref_root: RefRootOption = None,
    input_schema_limit: InputSchemaLimitOption = SizeLimits.input_schema,
    output_schemas: OutputSchemasOption = SizeLimits.output_schemas,
    output_schema_limit: OutputSchemaLimitOption = SizeLimits.output_schema,
    tools_list_limit: ToolsListLimitOption = SizeLimits.tools_list,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    overlay: OverlayOption = None,
    models: ModelsOption = False,
    config: ConfigOption = None,
    profile: ProfileOption = None,
    bundle: BundleOption = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Write nothing; exit 0 if OUT is up to date, 1 (with a diff and the tool changelog) if not",
        ),
    ] = False,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    diagnostics_format: DiagnosticsFormatOption = "text",
) -> None:
    """Generate an MCP server package from SPEC into OUT; options not given come from the config file."""
    display = display_options(diagnostics_format, quiet, verbose)
    terminal = on_terminal(quiet=quiet)
    try:
        config_file, from_file = load_config(config, profile)
        run = resolve(merge(from_file, command_line(ctx)), config_file)
    except ConfigError as error:
        fail(str(error))
    if config_file is not None and not quiet:
        typer.echo(
            f"info: {config_file}: options read" + (f" (profile {profile})" if profile else ""), err=True
        )
    try:
        with progress(terminal) as stages:
            generation = generate(run.spec, run.options, run.refs, stages)
    except (LoadError, ServerVariableError) as error:  # selectors and overrides: checked by `resolve`
        fail(str(error))
    print_diagnostics(generation.diagnostics, run.spec, display, run.refs, terminal, run.strict)
    if run.strict:
        _fail_if_not_clean(generation.diagnostics)
    if check:
        _check(run.out, generation.files)
    try:
        with progress(terminal) as stages:
            stages.stage("write")
            write_package(run.out, generation.files, generation.starters)
    except (OutputError, OSError) as error:
        fail(str(error))
    if not quiet:
        skipped = generation.diagnostics.count(Level.ERROR)
        typer.echo(
            f"{run.out}: {len(generation.model.tools)} tools written ({skipped} errors reported)", err=True
        )
        sizes = summary(measure(from_model(generation.model)))
        typer.echo(f"{run.out}: {sizes} (details: openapi2mcp inspect {run.out})", err=True)
        _print_setup(run.out, generation.model, run.options)
    if run.options.bundle:
        _pack(run.out, run.options.dist_name, quiet)


def _print_setup(out: Path, model: ApiModel, options: GeneratorOptions) -> None:
    """The variables the server needs and how to add it to a client."""
    setup = client_setup(model, options, variables(model, options.env_prefix))
    for line in summary_lines(setup, str(out)):
        typer.echo(line, err=True)


def _pack(out: Path, dist_name: str, quiet: bool) -> None:
    """--bundle: OUT packed into OUT/NAME.mcpb (a failure is exit 2 even with --quiet)."""
    try:
        packed = pack_bundle(out, dist_name)
    except PackError as error:
        fail(f"--bundle: {error}")
    if not quiet:
        typer.echo(f"{out}: {packed.message}", err=True)


def _check(out: Path, files: dict[str, str]) -> NoReturn:
    """`--check`: the unified diff on stdout, one summary line on stderr; exit 0 or 1."""
    try:
        drift = check_package(out, files)
    except OutputError as error:
        fail(str(error))
    for diff in drift.diffs:
        typer.echo(diff, nl=False)
    typer.echo(drift.summary(out) + ("" if drift.clean else ": regenerate to update it"), err=True)
    raise typer.Exit(EXIT_OK if drift.clean else EXIT_DRIFT)


def _fail_if_not_clean(diagnostics: Diagnostics) -> None:
    errors, warnings = diagnostics.count(Level.ERROR), diagnostics.count(Level.WARNING)
    if errors or warnings:
        fail(f"--strict: {errors} errors and {warnings} warnings (listed above); nothing was written")


def main() -> None:
    """The console script: a generator bug is one clear line (the traceback with OPENAPI2MCP_DEBUG=1)."""
    # No cycle collection in this short process: generation pauses the collector anyway, and resuming
    # it afterwards would make its first collection walk every object of the run (a tenth of a second
    # after a large spec) for the little cyclic garbage there is.
    collecting = gc.isenabled()
    gc.disable()
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
    finally:
        # The process ends next: its last cycle collection need not walk every live object (a tenth
        # of a second after a large spec); what is left is freed with the process.
        gc.freeze()
        if collecting:  # as it was for a caller in the same process (tests)
            gc.enable()

