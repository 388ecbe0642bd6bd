"""The config file's `[overrides."ID or METHOD /path"]` tables: one operation's tool changed, read
into `ToolOverride`s (tools/overrides.py applies them) and merged layer over layer."""

from __future__ import annotations

import dataclasses
import re

from openapi2mcp.config_messages import ConfigError, shown, suggestion, toml_key
from openapi2mcp.model import METHOD_ORDER, TaskChoice, ToolOverride
from openapi2mcp.tools.hints import HINT_NAMES
from openapi2mcp.tools.overrides import TEXT_FIELDS

KEYS = (*TEXT_FIELDS, "annotations", "task")
_METHOD_PATH = re.compile(r"(\S+) (/.*)")


def read_overrides(value: object, origin: str) -> dict[str, ToolOverride]:
    if not isinstance(value, dict):
        raise ConfigError(
            f'{origin}: expected a table of operations ([overrides."GET /pets"]), got {shown(value)}'
        )
    return {
        operation: _override(operation, fields, f"{origin}.{toml_key(operation)}")
        for operation, fields in value.items()
    }


def _override(operation: str, fields: object, origin: str) -> ToolOverride:
    if not isinstance(fields, dict):
        raise ConfigError(f"{origin}: expected a table ({', '.join(KEYS)}), got {shown(fields)}")
    method = _METHOD_PATH.fullmatch(operation)
    if not operation.strip() or (method and method[1].lower() not in METHOD_ORDER):
        raise ConfigError(f'{origin}: not an operationId or METHOD /path (e.g. "GET /pets")')
    texts: dict[str, str] = {}
    for key, value in fields.items():
        where = f"{origin}.{toml_key(key)}"
        if key in ("annotations", "task"):
            continue
        if key not in TEXT_FIELDS:
            raise ConfigError(f"{where}: unknown key{suggestion(key, KEYS)}")
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {shown(value)}")
        texts[key] = value
    annotations = _annotations(fields.get("annotations", {}), f"{origin}.annotations")
    return ToolOverride(
        operation,
        texts.get("name"),
        texts.get("title"),
        texts.get("description"),
        annotations,
        texts.get("toolset"),
        _task(fields["task"], f"{origin}.task") if "task" in fields else None,
    )


def _annotations(value: object, origin: str) -> tuple[tuple[str, bool], ...]:
    """The hints in the file's order."""
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: expected a table (readOnlyHint = true, ...), got {shown(value)}")
    for hint, flag in value.items():
        if hint not in HINT_NAMES:
            raise ConfigError(f"{origin}.{toml_key(hint)}: unknown hint{suggestion(hint, HINT_NAMES)}")
        if not isinstance(flag, bool):
            raise ConfigError(f"{origin}.{toml_key(hint)}: expected true or false, got {shown(flag)}")
    return tuple(value.items())


def _task(value: object, origin: str) -> TaskChoice:
    """`task = true` (long-running), `false` (not, whatever the spec says) or `{cancel = "ID or
    METHOD /path"}` (long-running, cancelled by that operation's tool)."""
    if isinstance(value, bool):
        return TaskChoice(value)
    if not isinstance(value, dict):
        raise ConfigError(
            f'{origin}: expected true, false or a table (cancel = "ID or METHOD /path"), got {shown(value)}'
        )
    for key, cancel in value.items():
        if key != "cancel":
            raise ConfigError(f"{origin}.{toml_key(key)}: unknown key{suggestion(key, ['cancel'])}")
        if not isinstance(cancel, str) or not cancel.strip():
            raise ConfigError(
                f"{origin}.cancel: expected an operationId or METHOD /path (a non-empty string), "
                f"got {shown(cancel)}"
            )
    cancel = value.get("cancel")
    return TaskChoice(True, cancel.strip() if isinstance(cancel, str) else None)


def merge_overrides(
    lower: dict[str, ToolOverride], upper: dict[str, ToolOverride]
) -> dict[str, ToolOverride]:
    """By operation; within one, the fields, annotations and task `upper` sets replace those of `lower`."""
    merged = dict(lower)
    for operation, override in upper.items():
        below = merged.get(operation)
        if below is not None:
            fields = {
                name: getattr(override, name) for name in TEXT_FIELDS if getattr(override, name) is not None
            }
            annotations = tuple({**dict(below.annotations), **dict(override.annotations)}.items())
            task = below.task if override.task is None else override.task
            override = dataclasses.replace(below, **fields, annotations=annotations, task=task)
        merged[operation] = override
    return merged
