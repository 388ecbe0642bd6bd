"""The config file: options in `openapi2mcp.toml` or the `[tool.openapi2mcp]` table of `pyproject.toml`.

The file is `--config FILE`, else `openapi2mcp.toml` in the current directory, else `pyproject.toml`
there if it has the table. Its keys are the long option names (`env-prefix`, `server-vars`, `overlays`,
...); `[profiles.NAME]` tables hold any of them and apply on top of the base table with `--profile NAME`;
`[overrides."ID or METHOD /path"]` tables change one operation's tool (`config_overrides.py`);
`toolsets` (selector → toolset name, in order) and `default-toolsets` group the tools
(tools/toolsets.py). Layers merge in the order base < profile < command line (`merge`): scalars,
lists and the ordered `toolsets` table replace, the tables `server-vars` and `overrides` merge by
key. Relative paths are relative to the file's directory. Every value keeps where it was given
(`openapi2mcp.toml: profiles.staging.name`, `--name`), so a bad one can be named; unknown keys and
wrongly typed values are errors, never ignored. `cli/resolve.py` checks the merged values.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openapi2mcp.config_messages import ConfigError as ConfigError  # raised by every reader of the file
from openapi2mcp.config_messages import shown, suggestion, toml_key
from openapi2mcp.config_overrides import merge_overrides, read_overrides
from openapi2mcp.load.source import is_url
from openapi2mcp.model import Icon

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
        raise ConfigError(f"{path}: tool.{PYPROJECT_TABLE}: expected a table, got {shown(table)}")
    return table, f"tool.{PYPROJECT_TABLE}."


def _profiles(value: object, path: Path, prefix: str) -> dict[str, Settings]:
    """Every profile, checked (a typo in one not selected is an error too)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {prefix}profiles: expected a table of profiles, got {shown(value)}")
    profiles: dict[str, Settings] = {}
    for name, table in value.items():
        where = f"{prefix}profiles.{toml_key(name)}"
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {where}: expected a table of options, got {shown(table)}")
        profiles[name] = _settings(table, path, f"{where}.", in_profile=True)
    return profiles


def _settings(table: dict[str, Any], path: Path, prefix: str, *, in_profile: bool) -> Settings:
    settings: Settings = {}
    for key, value in table.items():
        origin = f"{path}: {prefix}{toml_key(key)}"
        if key == "overrides":
            settings[key] = Setting(read_overrides(value, origin), origin)
        elif key == "icons":
            settings[key] = Setting(_icons(value, origin), origin)
        elif key in KINDS:
            settings[key] = Setting(_value(KINDS[key], value, origin, path.parent), origin)
        elif key != "profiles" or in_profile:
            known = [*KINDS, "overrides", "icons", *(() if in_profile else ("profiles",))]
            raise ConfigError(f"{origin}: unknown key{suggestion(key, known)}")
    return settings


def _value(kind: Kind, value: object, origin: str, directory: Path) -> object:
    if not _fits(kind, value):
        raise ConfigError(f"{origin}: expected {EXPECTED[kind]}, got {shown(value)}")
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
            f'{origin}: expected an array of tables ([[icons]] src = "https://..."), got {shown(value)}'
        )
    icons = []
    for index, fields in enumerate(value):
        where = f"{origin}[{index}]"
        for key, item in fields.items():
            expected = _ICON_FIELDS.get(key)
            if expected is None:
                raise ConfigError(
                    f"{where}.{toml_key(key)}: unknown key{suggestion(key, list(_ICON_FIELDS))}"
                )
            fits = (
                isinstance(item, list) and all(isinstance(size, str) for size in item)
                if key == "sizes"
                else item in ("light", "dark") if key == "theme" else isinstance(item, str)
            )
            if not fits:
                raise ConfigError(f"{where}.{key}: expected {expected}, got {shown(item)}")
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
            setting = Setting(merge_overrides(below.value, setting.value), setting.origin)
        merged[key] = setting
    return merged
