"""A test client's side of MCP tasks (issue 30), which the SDK's client does not implement:

- 2026-07-28 (the tasks extension, SEP-2663): `Tasks()` is a ClientExtension whose claim takes a
  tools/call's `resultType: "task"` (read it with `session.call_tool(..., allow_claimed=True)`);
  `task_request(session, "tasks/get" | "tasks/cancel", id)` sends the methods;
- 2025-11-25 (tasks in the core protocol): tools/call with `task` goes through a dispatcher's
  `send_raw_request` (the SDK's client would refuse a CreateTaskResult as no CallToolResult),
  `legacy_request(session, "tasks/get" | "tasks/result" | "tasks/cancel", id)` the rest."""

from __future__ import annotations

from typing import Any, Literal

import mcp.types as types
from mcp.client.extension import ClientExtension, ResultClaim
from pydantic import TypeAdapter

EXTENSION = "io.modelcontextprotocol/tasks"
RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
TERMINAL = ("completed", "failed", "cancelled")


class TaskIdParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"  # Mcp-Name over HTTP, as SEP-2663 asks


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


class CreatedTask(types.Result):
    result_type: Literal["task"]
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


async def _unresolved(created: Any, context: Any) -> Any:
    raise AssertionError("the test reads its tasks itself (allow_claimed=True)")


class Tasks(ClientExtension):
    identifier = EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_unresolved)]


async def task_request(session: Any, method: str, task_id: str) -> dict[str, Any]:
    """tasks/get or tasks/cancel on 2026-07-28."""
    kind = GetTask if method == "tasks/get" else CancelTask
    return await session.send_request(kind(params=TaskIdParams(task_id=task_id)), RAW)


async def legacy_request(session: Any, method: str, task_id: str) -> dict[str, Any]:
    """tasks/get, tasks/result or tasks/cancel on 2025-11-25."""
    kinds: dict[str, tuple[Any, Any]] = {
        "tasks/get": (types.GetTaskRequest, types.GetTaskRequestParams),
        "tasks/result": (types.GetTaskPayloadRequest, types.GetTaskPayloadRequestParams),
        "tasks/cancel": (types.CancelTaskRequest, types.CancelTaskRequestParams),
    }
    request, params = kinds[method]
    return await session.send_request(request(params=params(task_id=task_id)), RAW)
