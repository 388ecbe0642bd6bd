"""The options of a command resolved: those given on the command line (`options.py` declares
them) merged with the config file's (`config.py`) into the pipeline's options. A flag given on the
command line wins; `resolve` checks the merged values, naming a bad one with where it was given."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import typer

from openapi2mcp.config import CONFIG_FILE, PYPROJECT, PYPROJECT_TABLE, ConfigError, Setting, Settings
from openapi2mcp.emit.models import ModelsUnavailable, require_generator
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.model import GeneratorOptions, NameStyle, OutputSchemas, SizeLimits
from openapi2mcp.tools.naming import env_token
from openapi2mcp.tools.overrides import OverrideError, validate_overrides
from openapi2mcp.tools.selectors import SelectorError, parse_all
from openapi2mcp.tools.toolsets import default_problem, rule_problem

REQUIRED = {"spec": "SPEC", "out": "-o/--out", "name": "--name"}  # config key → how the CLI names it
_FLAG_KEYS = {"server_var": "server-vars", "overlay": "overlays"}  # parameters not named like their key
# parameters that are no setting of the config file
_NOT_OPTIONS = ("config", "profile", "output_format", "stubs", "quiet", "verbose", "diagnostics_format")


@dataclass(frozen=True)
class Resolved:
    """Everything one `generate` run needs, from the merged settings."""

    spec: str
    out: Path
    options: GeneratorOptions
    refs: RefOptions
    strict: bool


def command_line(ctx: typer.Context) -> Settings:
    """The options given on the command line (not their defaults), as settings named by their flag."""
    given: Settings = {}
    for parameter, value in ctx.params.items():
        if parameter in _NOT_OPTIONS or not on_command_line(ctx, parameter):
            continue
        flag = "SPEC" if parameter == "spec" else "--" + parameter.replace("_", "-")
        if parameter == "server_var":
            value = _server_variables(value)
        elif isinstance(value, list):
            value = tuple(value)
        given[_FLAG_KEYS.get(parameter, parameter.replace("_", "-"))] = Setting(value, flag)
    return given


def on_command_line(ctx: typer.Context, parameter: str) -> bool:
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
    require(settings, config, REQUIRED)
    options, refs = resolve_options(settings, dist_name(settings["name"]))
    if options.models:
        _require_models_generator(settings["models"])
    return Resolved(
        str(settings["spec"].value),
        Path(settings["out"].value),
        options,
        refs,
        _get(settings, "strict", False),
    )


SERVER_MODES = ("auto", "static", "dynamic", "code")  # the generated server's --mode
RUNTIMES = ("vendored", "package")  # --runtime (emit/runtime_forms.py)


def resolve_options(settings: Settings, dist_name: str) -> tuple[GeneratorOptions, RefOptions]:
    """The generator's options and the reach of `$ref`s from checked settings (what `generate` runs
    the pipeline with; `inspect` too)."""
    sizes = SizeLimits(
        input_schema=_bytes(settings, "input-schema-limit", SizeLimits.input_schema),
        output_schema=_bytes(settings, "output-schema-limit", SizeLimits.output_schema),
        tools_list=_bytes(settings, "tools-list-limit", SizeLimits.tools_list),
        output_schemas=_choice(
            settings, "output-schemas", get_args(OutputSchemas), SizeLimits.output_schemas
        ),
    )
    options = GeneratorOptions(
        dist_name=dist_name,
        env_prefix=env_token(_get(settings, "env-prefix", "") or dist_name),
        name_style=_choice(settings, "name-style", get_args(NameStyle), GeneratorOptions.name_style),
        server_variables=tuple(_get(settings, "server-vars", {}).items()),
        sizes=sizes,
        include=_selectors(settings, "include"),
        exclude=_selectors(settings, "exclude"),
        overrides=tuple(_get(settings, "overrides", {}).values()),
        overlays=tuple(_get(settings, "overlays", ())),
        toolsets=_toolset_rules(settings),
        default_toolsets=_default_toolsets(settings),
        default_mode=_choice(settings, "mode", SERVER_MODES, GeneratorOptions.default_mode),
        bundle=_get(settings, "bundle", False),
        icons=_get(settings, "icons", None),
        models=_get(settings, "models", False),
        runtime=_choice(settings, "runtime", RUNTIMES, GeneratorOptions.runtime),
    )
    try:
        validate_overrides(options.overrides, options.name_style)
    except OverrideError as error:
        raise ConfigError(str(error)) from None
    refs = RefOptions(_get(settings, "allow-remote-refs", False), _ref_root(settings.get("ref-root")))
    return options, refs


def _require_models_generator(setting: Setting) -> None:
    try:
        require_generator()
    except ModelsUnavailable as error:
        raise ConfigError(f"{setting.origin}: {error}") from None


def require(settings: Settings, config: Path | None, required: dict[str, str]) -> None:
    """A ConfigError naming the `required` settings (config key → how the CLI names it) not given."""
    missing = [key for key in required if key not in settings]
    if not missing:
        return
    if config is None:
        where = f"{CONFIG_FILE} or [tool.{PYPROJECT_TABLE}] of {PYPROJECT}"
    else:
        where = f"[tool.{PYPROJECT_TABLE}] of {config}" if config.name == PYPROJECT else str(config)
    them = "it" if len(missing) == 1 else "them"
    raise ConfigError(
        f"missing {', '.join(required[key] for key in missing)}: give {them} on the command line "
        f"or as {', '.join(missing)} in {where}"
    )


def _get(settings: Settings, key: str, default: Any) -> Any:
    setting = settings.get(key)
    return default if setting is None else setting.value


# The top-level modules the generated server's dependencies install (tests/e2e/test_e2e_package.py
# checks the list against both ends of the pins): a package named like one of them shadows it.
SERVER_IMPORTS = frozenset(
    """annotated_types anyio attr attrs certifi cffi click cryptography dotenv h11 httpcore httpcore2
    httpx httpx2 httpx_sse idna ijson jsonschema jsonschema_specifications jwt mcp mcp_types multipart
    opentelemetry pycparser pydantic pydantic_core pydantic_monty pydantic_settings python_multipart
    referencing rpds sniffio snowballstemmer sse_starlette starlette truststore typing_extensions
    typing_inspection uvicorn uvloop""".split()  # noqa: SIM905 (a paragraph reads better than 40 quoted names)
)


def dist_name(setting: Setting) -> str:
    if not re.fullmatch(r"[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?", setting.value):
        raise ConfigError(
            f"{setting.shown()}: use letters, digits, '-' and '_', "
            "starting with a letter and ending with a letter or digit"
        )
    if clash := import_clash(setting.value.replace("-", "_")):
        raise ConfigError(
            f"{setting.shown()}: its package would be named like {clash}, so the server could not"
            f" start; choose another name, such as {setting.value}-mcp"
        )
    return str(setting.value)


def import_clash(package: str) -> str | None:
    """What a generated package named `package` would collide with (in any case: file systems that
    ignore case import `Logging` as `logging`), or None."""
    folded = package.casefold()
    if any(folded == name.casefold() for name in sys.stdlib_module_names):
        return f"Python's own `{folded}` module"
    if folded in SERVER_IMPORTS:
        return f"`{folded}`, a module the server imports"
    return None


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
