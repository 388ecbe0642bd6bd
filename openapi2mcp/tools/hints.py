"""Tool annotations inferred from the HTTP method, overridable per operation with `x-mcp`."""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import Annotations

# method → (readOnlyHint, destructiveHint, idempotentHint)
_BY_METHOD: dict[str, tuple[bool, bool, bool]] = {
    "get": (True, False, True),
    "head": (True, False, True),
    "options": (True, False, True),
    "trace": (True, False, True),
    "post": (False, False, False),
    "put": (False, True, True),
    "patch": (False, True, False),
    "delete": (False, True, True),
}
_OVERRIDE_KEYS = {
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}
HINT_NAMES = tuple(_OVERRIDE_KEYS)  # the MCP annotation hints `x-mcp` and config overrides may set


def annotations_for(
    method: str, title: str, override: Any, pointer: str, diagnostics: Diagnostics
) -> Annotations:
    """The verb's defaults, then any `x-mcp.annotations` booleans on top."""
    read_only, destructive, idempotent = _BY_METHOD[method]
    values: dict[str, bool] = {
        "read_only": read_only,
        "destructive": destructive,
        "idempotent": idempotent,
        "open_world": True,
    }
    if isinstance(override, dict):
        for key, value in override.items():
            field = _OVERRIDE_KEYS.get(key)
            if field is None or not isinstance(value, bool):
                diagnostics.warning(pointer, f"x-mcp annotation {key!r}: {value!r} is ignored")
                continue
            values[field] = value
    elif override is not None:
        diagnostics.warning(pointer, "x-mcp.annotations must be an object; ignored")
    return Annotations(title=title, **values)
