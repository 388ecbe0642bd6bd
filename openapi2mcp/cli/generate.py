"""`openapi2mcp generate [SPEC] [-o OUT] [--name NAME] [options]`: a package from a spec.

Each option can also come from the config file (see `config.py`); a flag given on the command line
wins. The options are declared in `options.py` and resolved in `resolve.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from openapi2mcp.ci.check import check_package
from openapi2mcp.cli.diagnostics import display_options, print_diagnostics
from openapi2mcp.cli.errors import fail
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
    RuntimeOption,
    ServerVarOption,
    StrictOption,
    ToolsListLimitOption,
    VerboseOption,
)
from openapi2mcp.cli.progress import on_terminal, progress
from openapi2mcp.cli.resolve import Resolved, command_line, resolve
from openapi2mcp.config import ConfigError, load_config, merge
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.emit.client_setup import client_setup, summary_lines
from openapi2mcp.emit.mcpb import PackError, pack_bundle
from openapi2mcp.emit.output import OutputError, write_package
from openapi2mcp.emit.variables import variables
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import ApiModel, GeneratorOptions, SizeLimits
from openapi2mcp.pipeline import Generation, generate
from openapi2mcp.report.document import summary
from openapi2mcp.report.inventory import from_model
from openapi2mcp.report.measure import measure
from openapi2mcp.tools.servers import ServerVariableError

EXIT_OK, EXIT_DRIFT = 0, 1


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
    runtime: RuntimeOption = "vendored",
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
    run = _resolve(ctx, config, profile, quiet)
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
    _write(run.out, generation, terminal)
    if not quiet:
        _print_written(run.out, generation)
        _print_setup(run.out, generation.model, run.options)
    if run.options.bundle:
        _pack(run.out, run.options.dist_name, quiet)


def _resolve(ctx: typer.Context, config: Path | None, profile: str | None, quiet: bool) -> Resolved:
    """The run's settings: the command line's over the config file's, checked (exit 2 if not)."""
    try:
        config_file, from_file = load_config(config, profile)
        run = resolve(merge(from_file, command_line(ctx)), config_file)
    except ConfigError as error:
        fail(str(error))
    if config_file is not None and not quiet:
        typer.echo(
            f"info: {config_file}: options read" + (f" (profile {profile})" if profile else ""), err=True
        )
    return run


def _write(out: Path, generation: Generation, terminal: bool) -> None:
    try:
        with progress(terminal) as stages:
            stages.stage("write")
            write_package(out, generation.files, generation.starters)
    except (OutputError, OSError) as error:
        fail(str(error))


def _print_written(out: Path, generation: Generation) -> None:
    """How many tools were written (and errors reported), and what their tools/list costs."""
    skipped = generation.diagnostics.count(Level.ERROR)
    typer.echo(f"{out}: {len(generation.model.tools)} tools written ({skipped} errors reported)", err=True)
    sizes = summary(measure(from_model(generation.model)))
    typer.echo(f"{out}: {sizes} (details: openapi2mcp inspect {out})", err=True)


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
