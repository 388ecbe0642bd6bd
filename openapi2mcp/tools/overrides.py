"""Per-operation overrides from the config file: `x-mcp` for specs the user does not own.

An override names its operation by operationId or by `METHOD /path` (the method in any case, the
path key exactly as the spec writes it). It acts like an `x-mcp` object on that operation and wins
over one the spec has: `name`, `title` and `description` replace, `annotations` are merged over the
spec's `x-mcp.annotations` (and both over what the verb implies); `toolset` puts the tool in that
toolset (tools/toolsets.py); `task` replaces the spec's `x-mcp.task` (tools/long_running.py). The
description replaces the summary and description; the `HTTP: METHOD /path` footer stays. The name
is used as given, so it must already be a valid tool name of the chosen name style
(`validate_overrides` says so). Several overrides of one operation apply in order. An override
that matches no operation is a `warning`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import METHOD_ORDER, NameStyle, ToolOverride
from openapi2mcp.tools.hints import HINT_NAMES
from openapi2mcp.tools.naming import tool_name
from openapi2mcp.tools.selectors import Operation
from openapi2mcp.tools.toolsets import NAME_RULE as TOOLSET_NAME_RULE
from openapi2mcp.tools.toolsets import is_toolset_name

POINTER = "#/paths"
TEXT_FIELDS = ("name", "title", "description", "toolset")  # the ToolOverride fields that replace x-mcp's
_NAME_RULE = {
    "portable": "[A-Za-z0-9_-], at most 64 characters",
    "mcp": "[A-Za-z0-9_.-], at most 128 characters",
}


class OverrideError(ValueError):
    """An override that cannot be applied; the message names its operation and the problem."""


def validate_overrides(overrides: Iterable[ToolOverride], name_style: NameStyle) -> None:
    """Raise OverrideError for the first override with a blank operation, a name that is not a
    valid tool name of `name_style`, a blank title or description, an invalid toolset name or an
    unknown hint."""
    for override in overrides:
        where = f"override {override.operation!r}"
        if not override.operation.strip():
            raise OverrideError("override: give the operation as an operationId or 'METHOD /path'")
        if override.name is not None and (
            not override.name or tool_name(override.name, name_style) != override.name
        ):
            raise OverrideError(
                f"{where}: name {override.name!r} is not a valid tool name "
                f"(--name-style {name_style}: {_NAME_RULE[name_style]})"
            )
        if override.toolset is not None and not is_toolset_name(override.toolset):
            raise OverrideError(
                f"{where}: toolset {override.toolset!r} is not a toolset name ({TOOLSET_NAME_RULE})"
            )
        for field, text in (("title", override.title), ("description", override.description)):
            if text is not None and not text.strip():
                raise OverrideError(f"{where}: the {field} is blank")
        for hint, value in override.annotations:
            if hint not in HINT_NAMES:
                raise OverrideError(
                    f"{where}: unknown annotation {hint!r}; choose from {', '.join(HINT_NAMES)}"
                )
            if not isinstance(value, bool):
                raise OverrideError(f"{where}: annotation {hint!r} must be true or false, not {value!r}")


def route_of(operation: str) -> tuple[str, str] | None:
    """(method, path) of a `METHOD /path` reference; None for an operationId."""
    method, _, path = operation.strip().partition(" ")
    if method.lower() in METHOD_ORDER and path.strip():
        return method.lower(), path.strip()
    return None


class OverrideIndex:
    """The overrides, looked up per operation."""

    def __init__(self, overrides: Sequence[ToolOverride]) -> None:
        self.overrides = tuple(overrides)
        self.routes = [route_of(override.operation) for override in self.overrides]
        self.used: set[int] = set()  # indexes of the overrides that matched an operation

    def matching(self, operation: Operation) -> tuple[ToolOverride, ...]:
        """The overrides of one operation, in the given order (remembered for `warn_unmatched`)."""
        operation_id = operation.operation.get("operationId")
        route = (operation.method.lower(), operation.path)
        found = [
            index
            for index, (override, its_route) in enumerate(zip(self.overrides, self.routes, strict=True))
            if override.operation == operation_id or its_route == route
        ]
        self.used.update(found)
        return tuple(self.overrides[index] for index in found)

    def warn_unmatched(self, diagnostics: Diagnostics) -> None:
        """A warning for each override that matched no operation so far (a typo, or a spec that changed)."""
        for index, override in enumerate(self.overrides):
            if index not in self.used:
                diagnostics.warning(
                    POINTER,
                    f"override {override.operation!r} matches no operation "
                    "(give an operationId or 'METHOD /path' as the spec writes them)",
                )


def merged_x_mcp(x_mcp: dict[str, Any], overrides: Iterable[ToolOverride]) -> dict[str, Any]:
    """The operation's `x-mcp` object with the overrides' fields on top (an override's `task` as its
    `TaskChoice`, which tells it from the spec's)."""
    merged = dict(x_mcp)
    for override in overrides:
        for field in TEXT_FIELDS:
            value = getattr(override, field)
            if value is not None:
                merged[field] = value
        if override.annotations:
            base = merged.get("annotations")
            merged["annotations"] = {**(base if isinstance(base, dict) else {}), **dict(override.annotations)}
        if override.task is not None:
            merged["task"] = override.task
    return merged
