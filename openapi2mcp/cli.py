"""The command line: `openapi2mcp generate [SPEC] [-o OUT] [--name NAME] [options]`.

Each option can also come from the config file (see `config.py`); a flag given on the command line
wins. `resolve` checks the merged values, naming a bad one with where it was given."""

from __future__ import annotations

import gc
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn, get_args

import typer

from openapi2mcp.ci.check import check_package
from openapi2mcp.ci.diff import diff_command
from openapi2mcp.cli_errors import fail
from openapi2mcp.config import (
    CONFIG_FILE,
    PYPROJECT,
    PYPROJECT_TABLE,
    ConfigError,
    Setting,
    Settings,
    load_config,
    merge,
)
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.emit.output import OutputError, write_package
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import GeneratorOptions, NameStyle, OutputSchemas, SizeLimits
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.naming import env_token
from openapi2mcp.tools.overrides import OverrideError, validate_overrides
from openapi2mcp.tools.selectors import SELECTOR_FORMS, SelectorError, parse_all
from openapi2mcp.tools.servers import ServerVariableError
from openapi2mcp.tools.toolsets import default_problem, rule_problem

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate MCP tool servers from OpenAPI.",
)

EXIT_OK, EXIT_DRIFT, EXIT_INTERNAL = 0, 1, 3
DEBUG_VARIABLE = "OPENAPI2MCP_DEBUG"
REQUIRED = {"spec": "SPEC", "out": "-o/--out", "name": "--name"}  # config key → how the CLI names it
_FLAG_KEYS = {"server_var": "server-vars", "overlay": "overlays"}  # parameters not named like their key
_NOT_OPTIONS = ("config", "profile")


@dataclass(frozen=True)
class Resolved:
    """Everything one `generate` run needs, from the merged settings."""

    spec: str
    out: Path
    options: GeneratorOptions
    refs: RefOptions
    strict: bool


@app.callback()
def _root() -> None:
    """Generate MCP tool servers from OpenAPI descriptions."""


app.command("diff")(diff_command)


@app.command("generate")
def generate_command(
    ctx: typer.Context,
    spec: Annotated[
        str | None,
        typer.Argument(help="OpenAPI file (YAML or JSON) or http(s) URL (default: spec of the config file)"),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output directory of the package", show_default=False)
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Distribution name, e.g. petstore")] = None,
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
        bool, typer.Option(help="Fetch http(s) documents that the spec's $refs name")
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
    include: Annotated[
        list[str] | None,
        typer.Option(metavar="SELECTOR", help=f"Only operations matching one of these ({SELECTOR_FORMS})"),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SELECTOR", help="Leave out operations matching any of these (wins over --include)"
        ),
    ] = None,
    overlay: Annotated[
        list[str] | None,
        typer.Option(
            metavar="FILE", help="OpenAPI Overlay 1.0 document applied to the spec (repeatable, in order)"
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help=f"TOML file of options (default: {CONFIG_FILE}, else tool.{PYPROJECT_TABLE} of {PYPROJECT})",
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="Apply the config file's profiles.NAME table on top of its other options"
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Write nothing; exit 0 if OUT is up to date, 1 (with a diff and the tool changelog) if not",
        ),
    ] = False,
) -> None:
    """Generate an MCP server package from SPEC into OUT; options not given come from the config file."""
    try:
        config_file, from_file = load_config(config, profile)
        run = resolve(merge(from_file, _command_line(ctx)), config_file)
    except ConfigError as error:
        fail(str(error))
    if config_file is not None:
        typer.echo(
            f"info: {config_file}: options read" + (f" (profile {profile})" if profile else ""), err=True
        )
    try:
        generation = generate(run.spec, run.options, run.refs)
    except (LoadError, ServerVariableError) as error:  # selectors and overrides: checked by `resolve`
        fail(str(error))
    _print_diagnostics(generation.diagnostics)
    if run.strict:
        _fail_if_not_clean(generation.diagnostics)
    if check:
        _check(run.out, generation.files)
    try:
        write_package(run.out, generation.files, generation.starters)
    except (OutputError, OSError) as error:
        fail(str(error))
    skipped = generation.diagnostics.count(Level.ERROR)
    typer.echo(
        f"{run.out}: {len(generation.model.tools)} tools written ({skipped} errors reported)", err=True
    )


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


def _command_line(ctx: typer.Context) -> Settings:
    """The options given on the command line (not their defaults), as settings named by their flag."""
    given: Settings = {}
    for parameter, value in ctx.params.items():
        if parameter in _NOT_OPTIONS or not _on_command_line(ctx, parameter):
            continue
        flag = "SPEC" if parameter == "spec" else "--" + parameter.replace("_", "-")
        if parameter == "server_var":
            value = _server_variables(value)
        elif isinstance(value, list):
            value = tuple(value)
        given[_FLAG_KEYS.get(parameter, parameter.replace("_", "-"))] = Setting(value, flag)
    return given


def _on_command_line(ctx: typer.Context, parameter: str) -> bool:
    source = ctx.get_parameter_source(parameter)
    return source is not None and source.name == "COMMANDLINE"  # by name: typer may vendor its own click


def _server_variables(values: list[str]) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for value in values:
        name, sep, setting = value.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--server-var {value!r}: use NAME=VALUE, e.g. --server-var region=eu")
        chosen[name.strip()] = setting
    return chosen


def resolve(settings: Settings, config: Path | None = None) -> Resolved:
    """Check every value (a bad one is named with where it was given) and apply the defaults."""
    _require(settings, config)
    name = _dist_name(settings["name"])
    sizes = SizeLimits(
        input_schema=_bytes(settings, "input-schema-limit", SizeLimits.input_schema),
        output_schema=_bytes(settings, "output-schema-limit", SizeLimits.output_schema),
        tools_list=_bytes(settings, "tools-list-limit", SizeLimits.tools_list),
        output_schemas=_choice(
            settings, "output-schemas", get_args(OutputSchemas), SizeLimits.output_schemas
        ),
    )
    options = GeneratorOptions(
        dist_name=name,
        env_prefix=env_token(_get(settings, "env-prefix", "") or name),
        name_style=_choice(settings, "name-style", get_args(NameStyle), GeneratorOptions.name_style),
        server_variables=tuple(_get(settings, "server-vars", {}).items()),
        sizes=sizes,
        include=_selectors(settings, "include"),
        exclude=_selectors(settings, "exclude"),
        overrides=tuple(_get(settings, "overrides", {}).values()),
        overlays=tuple(_get(settings, "overlays", ())),
        toolsets=_toolset_rules(settings),
        default_toolsets=_default_toolsets(settings),
    )
    try:
        validate_overrides(options.overrides, options.name_style)
    except OverrideError as error:
        raise ConfigError(str(error)) from None
    refs = RefOptions(_get(settings, "allow-remote-refs", False), _ref_root(settings.get("ref-root")))
    return Resolved(
        str(settings["spec"].value),
        Path(settings["out"].value),
        options,
        refs,
        _get(settings, "strict", False),
    )


def _require(settings: Settings, config: Path | None) -> None:
    missing = [key for key in REQUIRED if key not in settings]
    if not missing:
        return
    if config is None:
        where = f"{CONFIG_FILE} or [tool.{PYPROJECT_TABLE}] of {PYPROJECT}"
    else:
        where = f"[tool.{PYPROJECT_TABLE}] of {config}" if config.name == PYPROJECT else str(config)
    them = "it" if len(missing) == 1 else "them"
    raise ConfigError(
        f"missing {', '.join(REQUIRED[key] for key in missing)}: give {them} on the command line "
        f"or as {', '.join(missing)} in {where}"
    )


def _get(settings: Settings, key: str, default: Any) -> Any:
    setting = settings.get(key)
    return default if setting is None else setting.value


def _dist_name(setting: Setting) -> str:
    if not re.fullmatch(r"[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?", setting.value):
        raise ConfigError(
            f"{setting.shown()}: use letters, digits, '-' and '_', "
            "starting with a letter and ending with a letter or digit"
        )
    return str(setting.value)


def _choice(settings: Settings, key: str, choices: tuple[str, ...], default: str) -> Any:
    setting = settings.get(key)
    if setting is None:
        return default
    if setting.value not in choices:
        listed = ", ".join(repr(choice) for choice in choices[:-1]) + f" or {choices[-1]!r}"
        raise ConfigError(f"{setting.shown()}: choose {listed}")
    return setting.value


def _bytes(settings: Settings, key: str, default: int) -> int:
    setting = settings.get(key)
    if setting is not None and setting.value < 0:
        raise ConfigError(f"{setting.origin} {setting.value}: give a number of bytes, or 0 for no limit")
    return default if setting is None else int(setting.value)


def _selectors(settings: Settings, key: str) -> tuple[str, ...]:
    setting = settings.get(key)
    if setting is None:
        return ()
    try:
        parse_all(setting.value)
    except SelectorError as error:
        raise ConfigError(f"{setting.origin}: {error}") from None
    return tuple(setting.value)


def _toolset_rules(settings: Settings) -> tuple[tuple[str, str], ...]:
    setting = settings.get("toolsets")
    if setting is None:
        return ()
    rules = tuple(setting.value.items())
    for selector, name in rules:
        if problem := rule_problem(selector, name):
            raise ConfigError(f"{setting.origin}: {problem}")
    return rules


def _default_toolsets(settings: Settings) -> tuple[str, ...]:
    setting = settings.get("default-toolsets")
    if setting is None:
        return ()
    if not setting.value:
        raise ConfigError(f"{setting.origin}: name at least one toolset, or leave the key out (all)")
    for name in setting.value:
        if problem := default_problem(name):
            raise ConfigError(f"{setting.origin}: {problem}")
    return tuple(setting.value)


def _ref_root(setting: Setting | None) -> Path | None:
    if setting is None:
        return None
    if not Path(setting.value).is_dir():
        raise ConfigError(f"{setting.shown()}: not a directory")
    return Path(setting.value)


def _fail_if_not_clean(diagnostics: Diagnostics) -> None:
    errors, warnings = diagnostics.count(Level.ERROR), diagnostics.count(Level.WARNING)
    if errors or warnings:
        fail(f"--strict: {errors} errors and {warnings} warnings (listed above); nothing was written")


def _print_diagnostics(diagnostics: Diagnostics) -> None:
    for diagnostic in diagnostics:
        typer.echo(diagnostic.render(), err=True)


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


if __name__ == "__main__":
    main()
