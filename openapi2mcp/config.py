"""The config file: options in `openapi2mcp.toml` or the `[tool.openapi2mcp]` table of `pyproject.toml`.

The file is `--config FILE`, else `openapi2mcp.toml` in the current directory, else `pyproject.toml`
there if it has the table. Its keys are the long option names (`env-prefix`, `server-vars`, `overlays`,
...); `[profiles.NAME]` tables hold any of them and apply on top of the base table with `--profile NAME`;
`[overrides."ID or METHOD /path"]` tables change one operation's tool; `toolsets` (selector → toolset
name, in order) and `default-toolsets` group the tools (tools/toolsets.py). Layers merge in the order
base < profile < command line (`merge`): scalars, lists and the ordered `toolsets` table replace, the
tables `server-vars` and `overrides` merge by key. Relative paths are relative to the file's
directory. Every value keeps where it was given (`openapi2mcp.toml: profiles.staging.name`,
`--name`), so a bad one can be named; unknown keys and wrongly typed values are errors, never
ignored. `cli/resolve.py` checks the merged values.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openapi2mcp.load.source import is_url
from openapi2mcp.model import METHOD_ORDER, Icon, ToolOverride
from openapi2mcp.tools.hints import HINT_NAMES
from openapi2mcp.tools.overrides import TEXT_FIELDS

CONFIG_FILE = "openapi2mcp.toml"
PYPROJECT = "pyproject.toml"
PYPROJECT_TABLE = "openapi2mcp"  # [tool.openapi2mcp]

Kind = Literal["text", "source", "path", "flag", "bytes", "texts", "sources", "text-table"]
KINDS: dict[str, Kind] = {
    "spec": "source",
    "out": "path",
    "name": "text",
    "env-prefix": "text",
    "name-style": "text",
    "server-vars": "text-table",
    "strict": "flag",
    "ref-root": "path",
    "allow-remote-refs": "flag",
    "input-schema-limit": "bytes",
    "output-schemas": "text",
    "output-schema-limit": "bytes",
    "tools-list-limit": "bytes",
    "include": "texts",
    "exclude": "texts",
    "overlays": "sources",
    "toolsets": "text-table",
    "default-toolsets": "texts",
    "bundle": "flag",
    "mode": "text",  # config only: the generated server's default --mode
    "models": "flag",
    "runtime": "text",
}
EXPECTED: dict[Kind, str] = {
    "text": "a string",
    "source": "a path or URL (a non-empty string)",
    "path": "a path (a non-empty string)",
    "flag": "true or false",
    "bytes": "an integer (bytes)",
    "texts": "an array of strings",
    "sources": "an array of paths or URLs (non-empty strings)",
    "text-table": 'a table of strings (NAME = "VALUE")',
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_METHOD_PATH = re.compile(r"(\S+) (/.*)")


class ConfigError(Exception):
    """An option (flag or config key) or config file that cannot be used; the message names it."""


@dataclass(frozen=True)
class Setting:
    """One option's value (already type-checked) and where it was given, for messages."""

    value: Any
    origin: str  # `SPEC`, `--name`, or `openapi2mcp.toml: profiles.staging.name`

    def shown(self, value: object = None) -> str:
        """`--name 'x'`: the origin and the value (or one item of it)."""
        value = self.value if value is None else value
        return f"{self.origin} {str(value) if isinstance(value, Path) else value!r}"


Settings = dict[str, Setting]  # config key → setting


# ---------------------------------------------------------------------------------------------
# Finding and reading the config file


def load_config(
    explicit: Path | None, profile: str | None, directory: Path = Path()
) -> tuple[Path | None, Settings]:
    """The config file in use (None: there is none) and its settings with `profile` applied."""
    path, document = _find(explicit, directory)
    if path is None:
        if profile is not None:
            raise ConfigError(
                f"--profile {profile!r}: there is no config file (give --config FILE, or write "
                f"{CONFIG_FILE} or a [tool.{PYPROJECT_TABLE}] table of {PYPROJECT} in the current directory)"
            )
        return None, {}
    return path, read_config(path, profile, document)


def find_config(explicit: Path | None, directory: Path = Path()) -> Path | None:
    """The config file that applies: `explicit`, else the one found in `directory` (None: none)."""
    return _find(explicit, directory)[0]


def _find(explicit: Path | None, directory: Path) -> tuple[Path | None, dict[str, Any] | None]:
    """The config file, and its parsed document when finding it took parsing (a pyproject.toml)."""
    if explicit is not None:
        return explicit, None
    if (directory / CONFIG_FILE).is_file():
        return directory / CONFIG_FILE, None
    pyproject = directory / PYPROJECT
    if pyproject.is_file():
        document = _read_toml(pyproject)
        tool = document.get("tool")
        if isinstance(tool, dict) and PYPROJECT_TABLE in tool:
            return pyproject, document
    return None, None


def read_config(path: Path, profile: str | None, document: dict[str, Any] | None = None) -> Settings:
    """The file's settings: its base table, with `[profiles.<profile>]` merged on top (`document`:
    the file already parsed, if it was)."""
    table, prefix = _config_table(path, _read_toml(path) if document is None else document)
    base = _settings(table, path, prefix, in_profile=False)
    profiles = _profiles(table.get("profiles", {}), path, prefix)
    if profile is None:
        return base
    if profile not in profiles:
        known = f"profiles: {', '.join(profiles)}" if profiles else "it has no [profiles.NAME] tables"
        raise ConfigError(f"{path}: --profile {profile!r}: no such profile ({known})")
    return merge(base, profiles[profile])


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None


def _config_table(path: Path, document: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The options table of the file's parsed `document` and the key prefix that names it in messages."""
    if path.name != PYPROJECT:
        return document, ""
    tool = document.get("tool")
    table = tool.get(PYPROJECT_TABLE) if isinstance(tool, dict) else None
    if table is None:
        raise ConfigError(f"{path}: no [tool.{PYPROJECT_TABLE}] table")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.{PYPROJECT_TABLE}: expected a table, got {_shown(table)}")
    return table, f"tool.{PYPROJECT_TABLE}."


def _profiles(value: object, path: Path, prefix: str) -> dict[str, Settings]:
    """Every profile, checked (a typo in one not selected is an error too)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {prefix}profiles: expected a table of profiles, got {_shown(value)}")
    profiles: dict[str, Settings] = {}
    for name, table in value.items():
        where = f"{prefix}profiles.{_key(name)}"
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {where}: expected a table of options, got {_shown(table)}")
        profiles[name] = _settings(table, path, f"{where}.", in_profile=True)
    return profiles


def _settings(table: dict[str, Any], path: Path, prefix: str, *, in_profile: bool) -> Settings:
    settings: Settings = {}
    for key, value in table.items():
        origin = f"{path}: {prefix}{_key(key)}"
        if key == "overrides":
            settings[key] = Setting(_overrides(value, origin), origin)
        elif key == "icons":
            settings[key] = Setting(_icons(value, origin), origin)
        elif key in KINDS:
            settings[key] = Setting(_value(KINDS[key], value, origin, path.parent), origin)
        elif key != "profiles" or in_profile:
            known = [*KINDS, "overrides", "icons", *(() if in_profile else ("profiles",))]
            raise ConfigError(f"{origin}: unknown key{_suggestion(key, known)}")
    return settings


def _value(kind: Kind, value: object, origin: str, directory: Path) -> object:
    if not _fits(kind, value):
        raise ConfigError(f"{origin}: expected {EXPECTED[kind]}, got {_shown(value)}")
    if kind == "path":
        return directory / str(value)
    if kind == "source":
        return _source(directory, str(value))
    if kind in ("texts", "sources") and isinstance(value, list):
        return tuple(_source(directory, item) if kind == "sources" else item for item in value)
    if isinstance(value, dict):
        return dict(value)
    return value


def _fits(kind: Kind, value: object) -> bool:
    if kind in ("source", "path"):
        return isinstance(value, str) and value != ""
    if kind in ("texts", "sources"):
        return isinstance(value, list) and all(
            _fits("source" if kind == "sources" else "text", item) for item in value
        )
    if kind == "text-table":
        return isinstance(value, dict) and all(isinstance(item, str) for item in value.values())
    if kind == "bytes":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, bool if kind == "flag" else str)


def _source(directory: Path, value: str) -> str:
    """A path relative to the config file's directory; a URL as it is."""
    return value if is_url(value) else str(directory / value)


# ---------------------------------------------------------------------------------------------
# Per-operation overrides


def _overrides(value: object, origin: str) -> dict[str, ToolOverride]:
    if not isinstance(value, dict):
        raise ConfigError(
            f'{origin}: expected a table of operations ([overrides."GET /pets"]), got {_shown(value)}'
        )
    return {
        operation: _override(operation, fields, f"{origin}.{_key(operation)}")
        for operation, fields in value.items()
    }


def _override(operation: str, fields: object, origin: str) -> ToolOverride:
    if not isinstance(fields, dict):
        raise ConfigError(
            f"{origin}: expected a table (name, title, description, toolset, annotations), "
            f"got {_shown(fields)}"
        )
    method = _METHOD_PATH.fullmatch(operation)
    if not operation.strip() or (method and method[1].lower() not in METHOD_ORDER):
        raise ConfigError(f'{origin}: not an operationId or METHOD /path (e.g. "GET /pets")')
    texts: dict[str, str] = {}
    for key, value in fields.items():
        where = f"{origin}.{_key(key)}"
        if key == "annotations":
            continue
        if key not in TEXT_FIELDS:
            raise ConfigError(f"{where}: unknown key{_suggestion(key, [*TEXT_FIELDS, 'annotations'])}")
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {_shown(value)}")
        texts[key] = value
    annotations = _annotations(fields.get("annotations", {}), f"{origin}.annotations")
    return ToolOverride(
        operation,
        texts.get("name"),
        texts.get("title"),
        texts.get("description"),
        annotations,
        texts.get("toolset"),
    )


def _annotations(value: object, origin: str) -> tuple[tuple[str, bool], ...]:
    """The hints in the file's order."""
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: expected a table (readOnlyHint = true, ...), got {_shown(value)}")
    for hint, flag in value.items():
        if hint not in HINT_NAMES:
            raise ConfigError(f"{origin}.{_key(hint)}: unknown hint{_suggestion(hint, HINT_NAMES)}")
        if not isinstance(flag, bool):
            raise ConfigError(f"{origin}.{_key(hint)}: expected true or false, got {_shown(flag)}")
    return tuple(value.items())


# ---------------------------------------------------------------------------------------------
# Icons

_ICON_FIELDS = {
    "src": "a string",
    "mimeType": "a string",
    "sizes": "an array of strings",
    "theme": '"light" or "dark"',
}


def _icons(value: object, origin: str) -> tuple[Icon, ...]:
    """`[[icons]]` tables: src (an http(s) or data: URL), mimeType, sizes, theme; [] for none."""
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ConfigError(
            f'{origin}: expected an array of tables ([[icons]] src = "https://..."), got {_shown(value)}'
        )
    icons = []
    for index, fields in enumerate(value):
        where = f"{origin}[{index}]"
        for key, item in fields.items():
            expected = _ICON_FIELDS.get(key)
            if expected is None:
                raise ConfigError(f"{where}.{_key(key)}: unknown key{_suggestion(key, list(_ICON_FIELDS))}")
            fits = (
                isinstance(item, list) and all(isinstance(size, str) for size in item)
                if key == "sizes"
                else item in ("light", "dark") if key == "theme" else isinstance(item, str)
            )
            if not fits:
                raise ConfigError(f"{where}.{key}: expected {expected}, got {_shown(item)}")
        if "src" not in fields:
            raise ConfigError(f"{where}: no src (the icon's http(s) or data: URL)")
        sizes = tuple(fields.get("sizes", ()))
        icons.append(Icon(fields["src"], fields.get("mimeType"), sizes, fields.get("theme")))
    return tuple(icons)


# ---------------------------------------------------------------------------------------------
# Merging layers


def merge(lower: Settings, upper: Settings) -> Settings:
    """`upper` on top of `lower`: values replace, except `server-vars` and `overrides` merge by key."""
    merged = dict(lower)
    for key, setting in upper.items():
        below = merged.get(key)
        if below is not None and key == "server-vars":
            setting = Setting({**below.value, **setting.value}, setting.origin)
        elif below is not None and key == "overrides":
            setting = Setting(_merge_overrides(below.value, setting.value), setting.origin)
        merged[key] = setting
    return merged


def _merge_overrides(
    lower: dict[str, ToolOverride], upper: dict[str, ToolOverride]
) -> dict[str, ToolOverride]:
    """By operation; within one, the fields and annotations `upper` sets replace those of `lower`."""
    merged = dict(lower)
    for operation, override in upper.items():
        below = merged.get(operation)
        if below is not None:
            fields = {
                name: getattr(override, name) for name in TEXT_FIELDS if getattr(override, name) is not None
            }
            annotations = tuple({**dict(below.annotations), **dict(override.annotations)}.items())
            override = dataclasses.replace(below, **fields, annotations=annotations)
        merged[operation] = override
    return merged


# ---------------------------------------------------------------------------------------------
# Message helpers


def _key(key: str) -> str:
    """A key as TOML writes it in a dotted path: bare, or quoted."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suggestion(key: str, known: Iterable[str]) -> str:
    names = list(known)
    close = difflib.get_close_matches(key, names, n=1)
    return f" (did you mean {close[0]}?)" if close else f" (known: {', '.join(names)})"
