"""Long-running operations: the operations whose answer starts work that goes on after it.

An operation is long-running when, the first that applies deciding:

- an override of the config file says `task = true`, `task = {cancel = "OPERATION"}` or, to turn
  detection off, `task = false` (source "config");
- its `x-mcp` says `task: true`, `task: {cancel: OPERATION}` or `task: false` (source "x-mcp");
- it has `x-ms-long-running-operation: true` (Azure's AutoRest extension);
- its `202` response declares a `Location`, `Operation-Location` or `Azure-AsyncOperation` header
  (any case; source "202 response header").

A long-running tool records `x-ms-long-running-operation-options.final-state-via` (one of
`model.FINAL_STATES`: where the result is when it ends) and the tool that cancels it: the cancel
reference (an operationId or `METHOD /path`) is resolved to a tool name after the tools are named
(`with_cancels`). A bad value is a `warning` and costs only itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import FINAL_STATES, METHOD_ORDER, LongRunning, LongRunningSource, TaskChoice, Tool
from openapi2mcp.tools.operations import OperationRef
from openapi2mcp.tools.overrides import route_of

EXTENSION: Final = "x-ms-long-running-operation"
OPTIONS = "x-ms-long-running-operation-options"
STATUS_HEADERS = ("location", "operation-location", "azure-asyncoperation")  # lower-cased
_TASK_FORMS = "true, false or {cancel: OPERATION} (an operationId or 'METHOD /path')"
_WITHOUT_CANCEL = "the tool is long-running without a cancel"


@dataclass(frozen=True)
class CancelReference:
    """The operation that cancels a long-running one, as given, until it is resolved to a tool."""

    reference: str  # an operationId or `METHOD /path`
    pointer: str  # where it was given (the operation itself for an override)
    given_by: str  # "x-mcp task cancel" or "override task cancel", for messages


@dataclass(frozen=True)
class Detected:
    long_running: LongRunning  # its `cancel` still None
    cancel: CancelReference | None


def detect(
    ref: OperationRef, x_mcp: Mapping[str, Any], resolver: Resolver, diagnostics: Diagnostics
) -> Detected | None:
    """Whether the operation is long-running, from its `x-mcp` merged with its overrides (`task`:
    an override's `TaskChoice`, or the spec's value) and the operation itself; None when it is not."""
    operation = ref.operation
    extension = _extension(operation, ref.pointer, diagnostics)
    task, source, cancel = _task(ref.pointer, x_mcp.get("task"), diagnostics)
    if task is not None and not task.enabled:
        return None
    if task is None:
        if extension:
            source = EXTENSION
        elif _has_status_header(operation.get("responses"), ref.pointer, resolver):
            source = "202 response header"
        else:
            return None
    final_state = _final_state(operation.get(OPTIONS), pointer_join(ref.pointer, OPTIONS), diagnostics)
    return Detected(LongRunning(source, final_state), cancel)


def _task(
    pointer: str, value: Any, diagnostics: Diagnostics
) -> tuple[TaskChoice | None, LongRunningSource, CancelReference | None]:
    """The `task` that decides (an override's, else the spec's x-mcp one), its source and its cancel."""
    if isinstance(value, TaskChoice):
        given = CancelReference(value.cancel, pointer, "override task cancel") if value.cancel else None
        return value, "config", given
    task_pointer = pointer_join(pointer, "x-mcp", "task")
    task = _spec_task(value, task_pointer, diagnostics)
    if task is None or task.cancel is None:
        return task, "x-mcp", None
    return (
        task,
        "x-mcp",
        CancelReference(task.cancel, pointer_join(task_pointer, "cancel"), "x-mcp task cancel"),
    )


def _extension(operation: Mapping[str, Any], pointer: str, diagnostics: Diagnostics) -> bool:
    value = operation.get(EXTENSION)
    if value is None or isinstance(value, bool):
        return value is True
    diagnostics.warning(pointer_join(pointer, EXTENSION), f"{EXTENSION} must be true or false; ignored")
    return False


def _spec_task(value: Any, pointer: str, diagnostics: Diagnostics) -> TaskChoice | None:
    """The spec's `x-mcp.task`: None when it has none or a bad one (a warning)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return TaskChoice(value)
    if not isinstance(value, dict):
        diagnostics.warning(pointer, f"x-mcp task must be {_TASK_FORMS}; ignored")
        return None
    for key in value:
        if key != "cancel":
            diagnostics.warning(
                pointer_join(pointer, key), "unknown key of x-mcp task (known: cancel); ignored"
            )
    cancel = value.get("cancel")
    if cancel is None or (isinstance(cancel, str) and cancel.strip()):
        return TaskChoice(True, cancel.strip() if cancel else None)
    diagnostics.warning(
        pointer_join(pointer, "cancel"),
        f"x-mcp task cancel must be an operationId or 'METHOD /path' (a non-empty string); {_WITHOUT_CANCEL}",
    )
    return TaskChoice(True)


def _has_status_header(responses: Any, pointer: str, resolver: Resolver) -> bool:
    """Whether the `202` response (itself or by `$ref`) declares a header that names a status URL."""
    if not isinstance(responses, dict) or "202" not in responses:
        return False
    try:
        response, _ = resolver.deref(responses["202"], pointer_join(pointer, "responses", "202"))
    except SpecError:  # a broken response is the output's to report (tools/outputs.py)
        return False
    headers = response.get("headers") if isinstance(response, dict) else None
    return isinstance(headers, dict) and any(
        isinstance(name, str) and name.lower() in STATUS_HEADERS for name in headers
    )


def _final_state(options: Any, pointer: str, diagnostics: Diagnostics) -> str | None:
    """`final-state-via` of `x-ms-long-running-operation-options`, when it is one of FINAL_STATES."""
    if options is None:
        return None
    if not isinstance(options, dict):
        diagnostics.warning(pointer, f"{OPTIONS} must be an object; ignored")
        return None
    value = options.get("final-state-via")
    if value is None or value in FINAL_STATES:
        return value if isinstance(value, str) else None
    diagnostics.warning(
        pointer_join(pointer, "final-state-via"),
        f"final-state-via {value!r} is not one of {', '.join(FINAL_STATES)}; ignored",
    )
    return None


def with_cancels(
    tools: tuple[Tool, ...],
    cancels: Mapping[str, CancelReference],
    document: Mapping[str, Any],
    resolver: Resolver,
    diagnostics: Diagnostics,
) -> tuple[Tool, ...]:
    """`tools` with each long-running one's cancel (by the tool's pointer in `cancels`) resolved to the
    name of the tool of the operation it names; a warning for one that names no operation, or one
    that has no tool (left out by `x-mcp: false`, the selectors or an error)."""
    if not cancels:
        return tools
    ids, routes = _operation_pointers(document, resolver)
    names = {tool.pointer: tool.name for tool in tools}
    resolved: list[Tool] = []
    for tool in tools:
        cancel = cancels.get(tool.pointer)
        if cancel is not None and tool.long_running is not None:
            route = route_of(cancel.reference)
            target = routes.get(route) if route else ids.get(cancel.reference)
            name = names.get(target) if target else None
            if name is not None:
                tool = dataclasses.replace(
                    tool, long_running=dataclasses.replace(tool.long_running, cancel=name)
                )
            else:
                diagnostics.warning(cancel.pointer, _unresolved(cancel, target))
        resolved.append(tool)
    return tuple(resolved)


def _unresolved(cancel: CancelReference, target: str | None) -> str:
    if target is None:
        return (
            f"{cancel.given_by} {cancel.reference!r} names no operation (give an operationId or "
            f"'METHOD /path' as the spec writes them); {_WITHOUT_CANCEL}"
        )
    return (
        f"{cancel.given_by} {cancel.reference!r} names an operation that has no tool (left out by "
        f"x-mcp: false, the selectors or an error); {_WITHOUT_CANCEL}"
    )


def _operation_pointers(
    document: Mapping[str, Any], resolver: Resolver
) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The pointer of every operation of the document, by operationId (the first with it) and by
    (method, path key); those left out too."""
    ids: dict[str, str] = {}
    routes: dict[tuple[str, str], str] = {}
    paths = document.get("paths")
    for path, raw_item in paths.items() if isinstance(paths, dict) else ():
        path_pointer = pointer_join("#/paths", path)
        try:
            item, _ = resolver.deref(raw_item, path_pointer)
        except SpecError:  # reported when the operations are walked (tools/operations.py)
            continue
        for method in METHOD_ORDER if isinstance(item, dict) else ():
            operation = item.get(method)
            if isinstance(operation, dict):
                pointer = pointer_join(path_pointer, method)
                routes[method, path] = pointer
                operation_id = operation.get("operationId")
                if isinstance(operation_id, str):
                    ids.setdefault(operation_id, pointer)
    return ids, routes
