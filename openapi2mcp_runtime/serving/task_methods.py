"""MCP's task methods for the long-running tools (tasks.py holds the tasks):

- 2025-11-25: `capabilities.tasks` (cancel, and task-augmented tools/call), tools/call with a
  `task` answered by a CreateTaskResult (LegacyTaskCalls sends it past the SDK's result check,
  which knows no tasks), tasks/get, tasks/result (waits for the end) and tasks/cancel;
- 2026-07-28: the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`): a long-running
  tool called by a client whose request declares the extension answers `resultType: "task"`,
  tasks/get inlines the result (or the error), tasks/update and tasks/cancel are acknowledged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp.types as types
from mcp import MCPError
from mcp.types.methods import serialize_server_result
from pydantic import ValidationError

from ..upstream import request_credentials as rc
from . import request_meta
from .tasks import TERMINAL, TaskRecord, Tasks

EXTENSION = "io.modelcontextprotocol/tasks"
RELATED = "io.modelcontextprotocol/related-task"


CallTool = Callable[[Any, types.CallToolRequestParams], Awaitable[Any]]


class TaskIdParams(types.RequestParams):
    task_id: str


def wanted(ctx: Any, params: types.CallToolRequestParams, route: Mapping[str, Any] | None) -> bool:
    """Whether this tools/call runs as a task: on 2025-11-25 the client asks (`task`; MCPError
    -32601 for a tool that is not long-running), on 2026-07-28 the server decides: a long-running
    tool, for a request that declares the tasks extension."""
    long_running = bool(route and route.get("longRunning"))
    if not request_meta.modern(ctx):
        if params.task is not None and not long_running:
            raise MCPError(
                code=types.METHOD_NOT_FOUND,
                message=f"Tool {params.name[:200]} does not support task-augmented execution"
                " (its execution.taskSupport is forbidden)",
            )
        return params.task is not None
    capabilities = ctx.session.client_capabilities
    extensions = (capabilities.extensions if capabilities is not None else None) or {}
    return long_running and EXTENSION in extensions


def created(task: TaskRecord, ctx: Any) -> dict[str, Any]:
    """tools/call's answer for a task just created."""
    if request_meta.modern(ctx):
        return {"resultType": "task", **task.fields(modern=True)}
    return {"task": task.fields(modern=False)}


def register(server: Any, call_tool: CallTool, tasks: Tasks) -> None:
    """The task methods on the SDK's low-level server (`call_tool` answers its tools/call), its
    2026-07-28 extension advertised."""

    async def get(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        task = tasks.find(ctx, params.task_id)
        if not request_meta.modern(ctx):
            return task.fields(modern=False)
        found = task.fields(modern=True)
        if task.result is not None:  # a tool's isError result is completed, not failed, here
            found["status"] = "completed"
            found["result"] = _dumped(task.result, ctx.protocol_version)
        elif task.error is not None:
            found["error"] = task.error.model_dump(mode="json", exclude_none=True)
        return found

    async def result(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        if request_meta.modern(ctx):
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")
        task = tasks.find(ctx, params.task_id)
        await task.done.wait()
        if task.result is None:
            raise MCPError.from_error_data(
                task.error
                or types.ErrorData(
                    code=types.INVALID_PARAMS, message="The task was cancelled: it has no result"
                )
            )
        answer = _dumped(task.result, ctx.protocol_version)
        answer["_meta"] = {**(answer.get("_meta") or {}), RELATED: {"taskId": task.task_id}}
        return answer

    async def cancel(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        task = tasks.find(ctx, params.task_id)
        modern = request_meta.modern(ctx)
        if task.status in TERMINAL and not modern:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Cannot cancel task: it is {task.status}"
            )
        with rc.bound(ctx):  # --credentials from-request: the API's cancel call uses its own
            await tasks.cancel(task)
        return {} if modern else task.fields(modern=False)

    async def update(ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        if not request_meta.modern(ctx):
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")
        tasks.find(ctx, params.task_id)
        return {}  # no task of ours waits for input

    for method, handler in (
        ("tasks/get", get),
        ("tasks/result", result),
        ("tasks/cancel", cancel),
        ("tasks/update", update),
    ):
        server.add_request_handler(method, TaskIdParams, handler)
    server.extensions[EXTENSION] = {}
    server.middleware.append(LegacyTaskCalls(call_tool))


def capability() -> types.ServerTasksCapability:
    """2025-11-25's `capabilities.tasks`: cancel, and tools/call as a task (no tasks/list)."""
    call = types.TasksToolsCapability(call=types.TasksCallCapability())
    return types.ServerTasksCapability(
        cancel=types.TasksCancelCapability(),
        requests=types.ServerTasksRequestsCapability(tools=call),
    )


class LegacyTaskCalls:
    """Middleware: a 2025-11-25 tools/call with `task` answered by the runtime directly, so that
    its CreateTaskResult reaches the client (the SDK's check of tools/call results would refuse
    it); every other answer shaped as the SDK shapes a tools/call result."""

    def __init__(self, call: CallTool) -> None:
        self.call = call

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        raw = ctx.params
        if (
            ctx.method != "tools/call"
            or ctx.request_id is None
            or request_meta.modern(ctx)
            or not isinstance(raw, Mapping)
            or raw.get("task") is None
        ):
            return await call_next(ctx)
        try:
            params = types.CallToolRequestParams.model_validate(raw, by_name=False)
        except ValidationError:
            raise MCPError(
                code=types.INVALID_PARAMS, message="Invalid request parameters"
            ) from None
        answer = await self.call(ctx, params)
        if isinstance(answer, dict):
            return answer
        return _dumped(answer, ctx.protocol_version)


def _dumped(result: types.CallToolResult, version: str) -> dict[str, Any]:
    """A tool result as the protocol `version` has it on the wire."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return serialize_server_result("tools/call", version, dumped)
