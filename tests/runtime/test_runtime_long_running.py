"""Long-running operations in the runtime (issue 30): a plain call follows its operation to the end
(Retry-After, progress), or answers its last status and how to look it up when PREFIX_TIMEOUT runs
out; the API's failures and cancellations are isError; Azure's headers and final-state-via; the
status words; and a call as a task through the SDK client on 2026-07-28 (the tasks extension),
its status, result and cancellation reaching the API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp
import mcp.types as types
import pytest
from module_files import import_file

from openapi2mcp_runtime.results.responses import Upstream as Answer
from openapi2mcp_runtime.upstream import long_running as lro

from .conftest import body, body_field, mcp_server, param, runtime, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
import_file("recording_upstream", "e2e/recording_upstream.py")  # what lro_upstream imports
lro_upstream = import_file("lro_upstream", "e2e/lro_upstream.py")
task_client = import_file("task_client", "e2e/task_client.py")
Tasks, CreatedTask = task_client.Tasks, task_client.CreatedTask
STR = {"type": "string"}
INT = {"type": "integer"}
LONG = {"source": "x-mcp", "finalStateVia": None, "cancel": None}


def data() -> dict[str, Any]:
    fields = (
        body_field("rows", INT),
        body_field("polls", INT),
        body_field("fail", {"type": "boolean"}),
        body_field("slow", {"type": "number"}),
    )
    made = tool_data(
        tool(
            "createReport", "POST", "/reports", request_body=body("application/json", "json", fields=fields)
        ),
        tool("getReportJob", "GET", "/reports/jobs/{jobId}", params=(param("jobId", "path", STR),)),
        tool(
            "cancelReportJob", "POST", "/reports/jobs/{jobId}/cancel", params=(param("jobId", "path", STR),)
        ),
    )
    made["routes"]["createReport"]["longRunning"] = LONG
    made["tools"][0]["execution"] = {"taskSupport": "optional"}  # as the generator writes it
    return made


@pytest.fixture
def service() -> Iterator[Any]:
    made = lro_upstream.LroService()
    with made.upstream() as upstream:
        made.url = upstream.url
        made.recorded = upstream
        yield made


@pytest.fixture
async def tools(service: Any) -> AsyncIterator[Any]:
    settings = runtime.Settings.from_env({"T_BASE_URL": service.url, "T_TIMEOUT": "5"}, prefix="T")
    made = runtime.ToolRuntime(data(), settings)
    yield made
    await made.aclose()


def sent(service: Any) -> list[str]:
    return [f"{r.method} {r.path}" for r in service.recorded.requests]


async def test_a_plain_call_follows_the_job_to_its_end(tools: Any, service: Any) -> None:
    params = types.CallToolRequestParams(name="createReport", arguments={"rows": 7, "polls": 3})
    result = await tools.on_call_tool(None, params)
    assert result.is_error is not True, text_of(result)
    assert result.structured_content == {"id": "j1", "status": "succeeded", "report": {"rows": 7}}
    assert sent(service) == ["POST /reports", *["GET /reports/jobs/j1"] * 3]


async def test_progress_is_reported_while_it_is_polled(tools: Any, service: Any) -> None:
    server = mcp_server(tools)
    heard: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, message))

    async with mcp.Client(server) as client:
        result = await client.call_tool("createReport", {"polls": 2}, progress_callback=on_progress)
    assert result.is_error is not True
    messages = [message for _, message in heard]
    assert messages[0] == "calling createReport" and messages[-1] == "createReport finished"
    assert "HTTP 200 OK; status: running, 50 %" in messages
    assert [p for p, _ in heard] == sorted({p for p, _ in heard})


async def test_when_the_timeout_runs_out_the_call_says_how_to_look_the_job_up(service: Any) -> None:
    settings = runtime.Settings.from_env({"T_BASE_URL": service.url, "T_TIMEOUT": "1.5"}, prefix="T")
    tools = runtime.ToolRuntime(data(), settings)
    try:
        params = types.CallToolRequestParams(name="createReport", arguments={"polls": -1})
        result = await tools.on_call_tool(None, params)
    finally:
        await tools.aclose()
    assert result.is_error is not True
    answer = result.structured_content
    assert answer["status"] == "working"
    assert answer["statusUrl"] == f"{service.url}/reports/jobs/j1"
    assert answer["lookUp"] == {"tool": "getReportJob", "arguments": {"jobId": "j1"}}
    assert answer["lastStatus"] == {"id": "j1", "status": "running", "percentComplete": 50}
    assert answer["howToFollow"] == (
        "The operation is still running after the 1.5 s this server waits (T_TIMEOUT). Call the tool"
        ' getReportJob with {"jobId": "j1"} to see its status later; do not call this tool again for'
        " the same operation."
    )
    assert 2 <= answer["polls"] <= 40
    assert service.jobs["j1"].status == "running"


async def test_a_poll_cut_by_the_deadline_ends_the_call_as_still_running(service: Any) -> None:
    settings = runtime.Settings.from_env({"T_BASE_URL": service.url, "T_TIMEOUT": "1"}, prefix="T")
    tools = runtime.ToolRuntime(data(), settings)
    try:
        params = types.CallToolRequestParams(name="createReport", arguments={"polls": -1, "slow": 0.6})
        result = await tools.on_call_tool(None, params)
    finally:
        await tools.aclose()
    assert result.is_error is not True, text_of(result)
    assert result.structured_content["status"] == "working"
    assert result.structured_content["polls"] == 1


async def test_a_failed_job_is_an_error_result(tools: Any, service: Any) -> None:
    params = types.CallToolRequestParams(name="createReport", arguments={"polls": 1, "fail": True})
    result = await tools.on_call_tool(None, params)
    assert result.is_error is True
    assert text_of(result).startswith(
        "The long-running operation failed (HTTP 200 OK; status: failed); its last status, from"
        f" {service.url}/reports/jobs/j1: "
    )
    assert '"message": "the report could not be made"' in text_of(result)


def answer(status: int, value: Any = None, **headers: str) -> Answer:
    body = b"" if value is None else json.dumps(value).encode()
    return Answer("GET", "http://h/x", status, "", {"content-type": "application/json", **headers}, body)


@pytest.mark.parametrize(
    ("status", "value", "state"),
    [
        (202, None, lro.WORKING),
        (202, {"status": "succeeded"}, lro.WORKING),
        (200, {"status": "Running"}, lro.WORKING),
        (200, {"status": "InProgress"}, lro.WORKING),
        (200, {"status": "Succeeded"}, lro.COMPLETED),
        (200, {"state": "DONE"}, lro.COMPLETED),
        (200, {"status": "Failed"}, lro.FAILED),
        (200, {"status": "canceled"}, lro.CANCELLED),
        (200, {"properties": {"provisioningState": "Creating"}}, lro.WORKING),
        (200, {"properties": {"provisioningState": "Migrating"}}, lro.WORKING),
        (200, {"properties": {"provisioningState": "Succeeded"}}, lro.COMPLETED),
        (200, {"done": False}, lro.WORKING),
        (200, {"done": True, "response": {}}, lro.COMPLETED),
        (200, {"done": True, "error": {"code": 3}}, lro.FAILED),
        (200, {"id": 1, "status": "available"}, lro.COMPLETED),  # a resource's own status
        (200, {"id": 1}, lro.COMPLETED),
        (503, None, lro.WORKING),
        (404, None, lro.FAILED),
    ],
)
def test_the_status_an_answer_says(status: int, value: Any, state: str) -> None:
    assert lro.classify(answer(status, value)).state == state


@pytest.mark.parametrize(
    ("method", "status", "headers", "via", "job"),
    [
        ("POST", 202, {"location": "jobs/1"}, None, lro.Job("http://h/v1/things/jobs/1")),
        ("POST", 200, {"location": "/jobs/1"}, None, None),
        ("POST", 202, {}, None, None),
        (
            "PUT",
            201,
            {"azure-asyncoperation": "op/1"},
            None,
            lro.Job("http://h/v1/things/op/1", "http://h/v1/things/a"),
        ),
        (
            "POST",
            202,
            {"operation-location": "/ops/1", "location": "/r/1"},
            None,
            lro.Job("http://h/ops/1", "http://h/r/1"),
        ),
        (
            "POST",
            202,
            {"operation-location": "/ops/1", "location": "/r/1"},
            "operation-location",
            lro.Job("http://h/ops/1"),
        ),
        ("PATCH", 202, {"azure-asyncoperation": "/ops/1"}, "location", lro.Job("http://h/ops/1")),
        (
            "POST",
            202,
            {"azure-asyncoperation": "/ops/1"},
            "original-uri",
            lro.Job("http://h/ops/1", "http://h/v1/things/a"),
        ),
    ],
)
def test_the_job_a_first_answer_starts(
    method: str, status: int, headers: dict[str, str], via: str | None, job: lro.Job | None
) -> None:
    first = answer(status, None, **headers)
    assert lro.started(first, method, "http://h/v1/things/a", lro.LongRunning(via)) == job


def test_a_put_whose_resource_is_still_being_made_polls_the_resource() -> None:
    creating = answer(201, {"properties": {"provisioningState": "Creating"}})
    assert lro.started(creating, "PUT", "http://h/r/1", lro.LongRunning()) == lro.Job("http://h/r/1")
    made = answer(201, {"properties": {"provisioningState": "Succeeded"}})
    assert lro.started(made, "PUT", "http://h/r/1", lro.LongRunning()) is None


# ---- as a task, on 2026-07-28 (the tasks extension) ---------------------------------------------


async def task_status(client: Any, task_id: str) -> dict[str, Any]:
    return await task_client.task_request(client.session, "tasks/get", task_id)


async def test_a_task_returns_at_once_and_its_status_ends_with_the_result(tools: Any, service: Any) -> None:
    server = mcp_server(tools)
    async with mcp.Client(server, extensions=[Tasks()]) as client:
        created = await client.session.call_tool("createReport", {"rows": 3, "polls": 4}, allow_claimed=True)
        assert isinstance(created, CreatedTask) and created.status == "working"
        assert created.ttl_ms == 3_600_000
        with anyio.fail_after(20):
            while (status := await task_status(client, created.task_id))["status"] == "working":
                await anyio.sleep(0.05)
        assert status["status"] == "completed"
        assert status["result"]["structuredContent"] == {
            "id": "j1",
            "status": "succeeded",
            "report": {"rows": 3},
        }
        plain = await client.call_tool("getReportJob", {"jobId": "j1"})  # not long-running: no task
        assert plain.structured_content["status"] == "succeeded"
        with pytest.raises(mcp.MCPError) as unknown:
            await task_status(client, "no-such-task")
        assert (unknown.value.error.code, unknown.value.error.message) == (
            -32602,
            "Failed to retrieve task: Task not found",
        )


async def test_cancelling_a_task_cancels_the_job_at_the_api(tools: Any, service: Any) -> None:
    server = mcp_server(tools)
    async with mcp.Client(server, extensions=[Tasks()]) as client:
        created = await client.session.call_tool("createReport", {"polls": -1}, allow_claimed=True)
        with anyio.fail_after(10):
            while "GET /reports/jobs/j1" not in sent(service):
                await anyio.sleep(0.02)
        ack = await task_client.task_request(client.session, "tasks/cancel", created.task_id)
        status = await task_status(client, created.task_id)
    assert {k: v for k, v in ack.items() if k != "_meta"} == {"resultType": "complete"}
    assert status["status"] == "cancelled"
    assert status["statusMessage"].startswith(
        "cancelled by the client; the API's cancel operation (cancelReportJob) answered:"
    )
    assert "POST /reports/jobs/j1/cancel" in sent(service)
    assert service.jobs["j1"].status == "cancelled"


# ---- as a task, on 2025-11-25 (tasks in the core protocol) -------------------------------------


@asynccontextmanager
async def legacy_session(server: Any) -> AsyncIterator[tuple[Any, Any]]:
    """A 2025-11-25 ClientSession over memory streams, and its dispatcher (tools/call with `task`
    is sent raw: the SDK client would refuse its CreateTaskResult as no CallToolResult)."""
    from mcp import ClientSession
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
    from mcp.shared.memory import create_client_server_memory_streams

    async with create_client_server_memory_streams() as (client, served), anyio.create_task_group() as group:
        group.start_soon(server.run, served[0], served[1], server.create_initialization_options())
        dispatcher = JSONRPCDispatcher(client[0], client[1])
        async with ClientSession(dispatcher=dispatcher) as session:
            assert (await session.initialize()).protocol_version == "2025-11-25"
            yield session, dispatcher
        group.cancel_scope.cancel()


async def test_a_legacy_task_its_status_and_its_result(tools: Any, service: Any) -> None:
    server = mcp_server(tools)
    async with legacy_session(server) as (session, dispatcher):
        assert session.server_capabilities.tasks.model_dump(exclude_none=True) == {
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        arguments = {"rows": 2, "polls": 3}
        created = await dispatcher.send_raw_request(
            "tools/call", {"name": "createReport", "arguments": arguments, "task": {"ttl": 120000}}, None
        )
        task = created["task"]
        assert (task["status"], task["ttl"]) == ("working", 120000)
        assert set(task) == {"taskId", "status", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"}
        result = await task_client.legacy_request(
            session, "tasks/result", task["taskId"]
        )  # waits for the end
        status = await task_client.legacy_request(session, "tasks/get", task["taskId"])
        with pytest.raises(mcp.MCPError) as again:
            await task_client.legacy_request(session, "tasks/cancel", task["taskId"])
        with pytest.raises(mcp.MCPError) as forbidden:
            await dispatcher.send_raw_request(
                "tools/call", {"name": "getReportJob", "arguments": {"jobId": "j1"}, "task": {}}, None
            )
    assert listed["createReport"].execution.task_support == "optional"
    assert listed["getReportJob"].execution is None
    assert result["structuredContent"] == {"id": "j1", "status": "succeeded", "report": {"rows": 2}}
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
    assert status["status"] == "completed"
    assert (again.value.error.code, again.value.error.message) == (
        -32602,
        "Cannot cancel task: it is completed",
    )
    assert forbidden.value.error.code == -32601
    assert sent(service) == ["POST /reports", *["GET /reports/jobs/j1"] * 3]


async def test_a_legacy_cancel_answers_the_cancelled_task_and_cancels_the_job(
    tools: Any, service: Any
) -> None:
    server = mcp_server(tools)
    async with legacy_session(server) as (session, dispatcher):
        call = {"name": "createReport", "arguments": {"polls": -1}, "task": {}}
        created = await dispatcher.send_raw_request("tools/call", call, None)
        with anyio.fail_after(10):
            while "GET /reports/jobs/j1" not in sent(service):
                await anyio.sleep(0.02)
        cancelled = await task_client.legacy_request(session, "tasks/cancel", created["task"]["taskId"])
        with pytest.raises(mcp.MCPError) as no_result:
            await task_client.legacy_request(session, "tasks/result", created["task"]["taskId"])
    assert cancelled["status"] == "cancelled"
    assert cancelled["statusMessage"].startswith("cancelled by the client; the API's cancel operation")
    assert service.jobs["j1"].status == "cancelled"
    assert no_result.value.error.message == "The task was cancelled: it has no result"


async def test_one_caller_may_run_only_so_many_tasks(
    tools: Any, service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openapi2mcp_runtime.serving import tasks as task_store

    monkeypatch.setattr(task_store, "MAX_RUNNING_EACH", 1)
    server = mcp_server(tools)
    async with mcp.Client(server, extensions=[Tasks()]) as client:
        first = await client.session.call_tool("createReport", {"polls": -1}, allow_claimed=True)
        second = await client.session.call_tool("createReport", {"polls": -1}, allow_claimed=True)
        await task_client.task_request(client.session, "tasks/cancel", first.task_id)
        third = await client.session.call_tool("createReport", {"polls": 1}, allow_claimed=True)
    assert isinstance(first, CreatedTask) and isinstance(third, CreatedTask)
    assert second.is_error is True
    assert text_of(second) == (
        "This client has 1 tasks running: wait for one to end (tasks/get) or cancel one (tasks/cancel)"
    )


class Request:
    def __init__(self, **headers: str) -> None:
        self.headers = {name.lower(): value for name, value in headers.items()}


class Ctx:
    def __init__(self, request: Request | None) -> None:
        self.request = request


def test_a_task_belongs_to_the_credentials_that_made_it() -> None:
    from openapi2mcp_runtime.serving.tasks import owner_of

    headers = ("authorization", "x-upstream-authorization")
    alice, bob = Request(Authorization="Bearer a"), Request(Authorization="Bearer b")
    forwarded = Request(**{"X-Upstream-Authorization": "token c"})
    owners = [owner_of(Ctx(r), headers) for r in (alice, bob, forwarded, Request())]
    assert len(set(owners)) == 4 and None not in owners
    assert owner_of(Ctx(Request(Authorization="Bearer a")), headers) == owners[0]
    assert owner_of(Ctx(None), headers) is None  # stdio: one client
    unnamed = owner_of(Ctx(forwarded), ("authorization",))  # a header not named is not read
    assert unnamed == owner_of(Ctx(Request()), ("authorization",))
