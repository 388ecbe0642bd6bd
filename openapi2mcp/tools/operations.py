"""Walk a loaded OAS 3.x document's operations, in document order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import METHOD_ORDER


@dataclass(frozen=True)
class OperationRef:
    """Where one operation sits in the document."""

    path: str
    method: str
    pointer: str
    path_item: dict[str, Any]
    operation: dict[str, Any]


def iter_operations(
    document: dict[str, Any], resolver: Resolver, diagnostics: Diagnostics
) -> Iterator[OperationRef]:
    """Operations in document order, methods in a fixed order; `x-mcp: false` ones left out."""
    if document.get("x-mcp") is False:
        diagnostics.info("#", "x-mcp: false at the root: no tools")
        return
    paths = document.get("paths")
    if not isinstance(paths, dict):
        diagnostics.warning("#/paths", "the spec has no `paths`: no tools")
        return
    for path, raw_item in paths.items():
        path_pointer = pointer_join("#/paths", path)
        try:
            item, _ = resolver.deref(raw_item, path_pointer)
        except SpecError as error:
            diagnostics.error(error.pointer, f"{error.message}; path skipped")
            continue
        if not isinstance(item, dict):
            diagnostics.error(path_pointer, "a path item must be an object; path skipped")
            continue
        if item.get("x-mcp") is False:
            diagnostics.info(path_pointer, "x-mcp: false: every operation of this path is left out")
            continue
        for method in METHOD_ORDER:
            operation = item.get(method)
            if operation is None:
                continue
            pointer = pointer_join(path_pointer, method)
            if not isinstance(operation, dict):
                diagnostics.error(pointer, "an operation must be an object; operation skipped")
            elif operation.get("x-mcp") is False:
                diagnostics.info(pointer, "x-mcp: false: left out")
            else:
                yield OperationRef(path, method, pointer, item, operation)
