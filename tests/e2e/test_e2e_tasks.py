"""Long-running operations end to end (issue 30), generated servers as processes against an upstream
that runs jobs (lro_upstream.py): a report API of our own (202 + Location, cancelled by a POST on
the job's path + /cancel) and the corpus's azure-lro.json (AutoRest's LRO test service).

- a plain call is followed to its end (or, out of time, says how to look the job up), over stdio
  and streamable HTTP, in both protocol eras;
- a call as a task answers at once, its status is polled, its result read: 2025-11-25's
  `task` param, tasks/get and tasks/result; 2026-07-28's tasks extension and tasks/get;
- cancelling a task cancels the job at the API, as the API's own GET shows;
- Azure's patterns: a PUT still provisioning, Azure-AsyncOperation, Location, final-state-via,
  and the API's failed and cancelled operations as isError."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from corpus_specs import CORPUS_MISSING, corpus_specs
from e2e_support import Generated, generate_and_install, generate_document
from http_support import ACCEPT, HttpServer
from lro_upstream import LroService
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, run_async, session_over, text_of
from task_client import TERMINAL, CreatedTask, Tasks, legacy_request, task_request
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e
ERAS = pytest.mark.parametrize("era", sorted(CLIENT_MODES))
TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])
# `representative`: the one combination CI's second pass runs (tests/conftest.py); between them
# (and the tests of one combination) each era meets each transport there.
JOB = {"type": "object", "properties": {"id": {"type": "string"}, "status": {"type": "string"}}}
JOB_ID = {"name": "jobId", "in": "path", "required": True, "schema": {"type": "string"}}
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Reports API", "version": "1.0.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/reports": {
            "post": {
                "operationId": "createReport",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "rows": {"type": "integer"},
                                    "polls": {"type": "integer"},
                                    "fail": {"type": "boolean"},
                                },
                            }
                        }
                    }
                },
                "responses": {
                    "202": {
                        "description": "started",
                        "headers": {"Location": {"schema": {"type": "string"}}},
                        "content": {"application/json": {"schema": JOB}},
                    }
                },
            }
        },
        "/reports/jobs/{jobId}": {
            "get": {
                "operationId": "getReportJob",
                "parameters": [JOB_ID],
                "responses": {
                    "200": {"description": "the job", "content": {"application/json": {"schema": JOB}}}
                },
            }
        },
        "/reports/jobs/{jobId}/cancel": {
            "post": {
                "operationId": "cancelReportJob",
                "parameters": [JOB_ID],
                "responses": {"202": {"description": "ok"}},
            }
        },
    },
}
DONE = {"id": "j1", "status": "succeeded", "report": {"rows": 5}}


@pytest.fixture(scope="module")
def reports(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_document(SPEC, "reports", server_venv, tmp_path_factory)


@pytest.fixture
def service() -> Iterator[Any]:
    made = LroService()
    with made.upstream() as upstream:
        made.url, made.recorded = upstream.url, upstream
        yield made


def job_at_the_api(service: Any, job_id: str) -> dict[str, Any]:
    """The job's state, read through the service's own API."""
    answer = httpx2.get(f"{service.url}/reports/jobs/{job_id}", timeout=CALL_TIMEOUT)
    return dict(answer.json())


@asynccontextmanager
async def served(
    package: Generated, service: Any, transport: str, era: str, tmp_path: Path, **options: Any
) -> AsyncIterator[Any]:
    """mcp.Client of `package` (served against `service`) over `transport` in the protocol `era`,
    with more Client `options` (extensions=[Tasks()]: it declares the tasks extension)."""
    env = {"PATH": os.environ["PATH"], **package.env(service.url, TIMEOUT="10")}
    server = HttpServer(package, env, tmp_path / "server.log").start() if transport == "http" else None
    target = server.url if server is not None else package.command
    try:
        mode = CLIENT_MODES[era][0]
        async with session_over(transport, target, env, mode, tmp_path / "err.log", **options) as client:
            yield client
    finally:
        if server is not None:
            server.stop()


def sent(service: Any) -> list[str]:
    return [f"{r.method} {r.path}" for r in service.recorded.requests]


def test_only_the_long_running_tool_declares_task_support(reports: Generated, tmp_path: Path) -> None:
    async def body() -> dict[str, Any]:
        async with session_over(
            "stdio", reports.command, reports.env("http://127.0.0.1:9"), "legacy"
        ) as client:
            return {tool.name: tool.execution for tool in (await client.list_tools()).tools}

    listed = run_async(body)
    assert {name: e and e.task_support for name, e in listed.items()} == {
        "createReport": "optional",
        "getReportJob": None,
        "cancelReportJob": None,
    }


@TRANSPORTS
@ERAS
@pytest.mark.representative(era="modern", transport="stdio")  # (stdio: the progress it reports)
def test_a_plain_call_is_followed_to_its_end(
    reports: Generated, service: Any, transport: str, era: str, tmp_path: Path
) -> None:
    """Without `task` (2025-11-25) or the tasks extension (2026-07-28) the call waits for the end."""
    heard: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    async def body() -> Any:
        async with served(reports, service, transport, era, tmp_path) as client:
            return await client.call_tool(
                "createReport", {"rows": 5, "polls": 3}, progress_callback=on_progress
            )

    result = run_async(body)
    assert result.is_error is not True, text_of(result)
    assert result.structured_content == DONE
    assert sent(service) == ["POST /reports", *["GET /reports/jobs/j1"] * 3]
    assert job_at_the_api(service, "j1")["status"] == "succeeded"
    if transport == "stdio":  # (over HTTP, answers are one JSON body: no progress)
        assert "HTTP 200 OK; status: running, 50 %" in heard


def test_out_of_time_a_call_says_how_to_look_the_job_up(
    reports: Generated, service: Any, tmp_path: Path
) -> None:
    env = {"PATH": os.environ["PATH"], **reports.env(service.url, TIMEOUT="2")}

    async def body() -> tuple[Any, Any]:
        async with session_over("stdio", reports.command, env, "legacy", tmp_path / "err.log") as client:
            pending = await client.call_tool("createReport", {"polls": -1})
            look_up = pending.structured_content["lookUp"]
            return pending, await client.call_tool(look_up["tool"], look_up["arguments"])

    pending, looked_up = run_async(body)
    assert pending.is_error is not True
    assert pending.structured_content["status"] == "working"
    assert pending.structured_content["lookUp"] == {"tool": "getReportJob", "arguments": {"jobId": "j1"}}
    assert looked_up.structured_content == {"id": "j1", "status": "running", "percentComplete": 50}


@TRANSPORTS
@pytest.mark.representative(transport="http")
def test_a_task_on_2026_07_28_answers_at_once_and_ends_with_its_result(
    reports: Generated, service: Any, transport: str, tmp_path: Path
) -> None:
    async def body() -> tuple[Any, dict[str, Any]]:
        async with served(reports, service, transport, "modern", tmp_path, extensions=[Tasks()]) as client:
            created = await client.session.call_tool(
                "createReport", {"rows": 5, "polls": 3}, allow_claimed=True
            )
            with anyio.fail_after(20):
                while (status := await task_request(client.session, "tasks/get", created.task_id))[
                    "status"
                ] not in TERMINAL:
                    await anyio.sleep(0.05)
            return created, status

    created, status = run_async(body)
    assert isinstance(created, CreatedTask) and created.status == "working"
    assert status["status"] == "completed"
    assert status["result"]["structuredContent"] == DONE
    assert job_at_the_api(service, "j1")["status"] == "succeeded"


def test_a_task_on_2025_11_25_over_stdio(reports: Generated, service: Any, tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    env = {"PATH": os.environ["PATH"], **reports.env(service.url)}

    async def body() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        params = StdioServerParameters(command=str(reports.command), env=env)
        async with stdio_client(params) as (read, write):
            dispatcher = JSONRPCDispatcher(read, write)
            async with ClientSession(dispatcher=dispatcher) as session:
                await session.initialize()
                call = {"name": "createReport", "arguments": {"rows": 5, "polls": 3}, "task": {}}
                created = await dispatcher.send_raw_request("tools/call", call, {"timeout": CALL_TIMEOUT})
                task_id = created["task"]["taskId"]
                result = await legacy_request(session, "tasks/result", task_id)
                return created, result, await legacy_request(session, "tasks/get", task_id)

    created, result, status = run_async(body)
    assert created["task"]["status"] == "working" and created["task"]["ttl"] == 3_600_000
    assert result["structuredContent"] == DONE
    assert status["status"] == "completed"


def test_a_task_on_2025_11_25_over_http(reports: Generated, service: Any, tmp_path: Path) -> None:
    """A raw JSON-RPC client: initialize, tools/call with `task`, tasks/get, tasks/result."""
    env = {"PATH": os.environ["PATH"], **reports.env(service.url)}
    server = HttpServer(reports, env, tmp_path / "server.log").start()
    try:
        created, result = legacy_over_http(server.url)
    finally:
        server.stop()
    assert created["task"]["status"] == "working"
    assert result["structuredContent"] == DONE
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": created["task"]["taskId"]}


def legacy_over_http(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    headers = {**ACCEPT, "MCP-Protocol-Version": "2025-11-25"}
    with httpx2.Client(timeout=CALL_TIMEOUT, headers=headers) as http:
        capabilities = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        opened = http.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": capabilities}
        )
        http.headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

        def rpc(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            answer = http.post(url, json={"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
            return dict(answer.json()["result"])

        call = {"name": "createReport", "arguments": {"rows": 5, "polls": 3}, "task": {"ttl": 60000}}
        created = rpc(2, "tools/call", call)
        return created, rpc(3, "tasks/result", {"taskId": created["task"]["taskId"]})


@TRANSPORTS
@pytest.mark.representative(transport="stdio")
def test_cancelling_a_task_cancels_the_job_at_the_api(
    reports: Generated, service: Any, transport: str, tmp_path: Path
) -> None:
    async def body() -> dict[str, Any]:
        async with served(reports, service, transport, "modern", tmp_path, extensions=[Tasks()]) as client:
            created = await client.session.call_tool("createReport", {"polls": -1}, allow_claimed=True)
            with anyio.fail_after(10):
                while "GET /reports/jobs/j1" not in sent(service):
                    await anyio.sleep(0.02)
            await task_request(client.session, "tasks/cancel", created.task_id)
            return await task_request(client.session, "tasks/get", created.task_id)

    status = run_async(body)
    assert status["status"] == "cancelled"
    assert status["statusMessage"].startswith(
        "cancelled by the client; the API's cancel operation (cancelReportJob)"
    )
    assert "POST /reports/jobs/j1/cancel" in sent(service)
    assert job_at_the_api(service, "j1")["status"] == "cancelled"


# ---- the corpus's azure-lro.json ------------------------------------------------------------------

AZURE = {spec.name: spec for spec in corpus_specs()}.get("azure-lro")
RESOURCE = {"id": "100", "name": "foo"}
SUCCEEDED = {**RESOURCE, "properties": {"provisioningState": "Succeeded"}}
# each operation: its tool, and what its call ends with (a structuredContent, or an error's start)
AZURE_CALLS: list[tuple[str, Any]] = [
    ("LROs_put201CreatingSucceeded200", SUCCEEDED),
    ("LROs_putAsyncRetrySucceeded", SUCCEEDED),
    ("LROs_postDoubleHeadersFinalLocationGet", RESOURCE),
    ("LROs_delete202Retry200", SUCCEEDED),
    ("LROs_putAsyncRetryFailed", "The long-running operation failed (HTTP 200 OK; status: Failed)"),
    (
        "LROs_putAsyncNoRetrycanceled",
        "The long-running operation was cancelled by the API (HTTP 200 OK; status: Canceled)",
    ),
]


@pytest.fixture(scope="module")
def azure(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    if AZURE is None:
        pytest.skip(CORPUS_MISSING)
    workdir = tmp_path_factory.mktemp("gen-azure-lro")
    return generate_and_install(AZURE.root, workdir, server_venv, "azure-lro")


@ERAS
@pytest.mark.representative(era="legacy")
def test_the_azure_lro_patterns_are_followed_to_their_end(
    azure: Generated, service: Any, era: str, tmp_path: Path
) -> None:
    async def body() -> list[Any]:
        async with served(azure, service, "stdio", era, tmp_path) as client:
            return [await client.call_tool(name, {}) for name, _ in AZURE_CALLS]

    for (name, expected), result in zip(AZURE_CALLS, run_async(body), strict=True):
        if isinstance(expected, str):
            assert (name, result.is_error) == (name, True)
            assert text_of(result).startswith(expected), (name, text_of(result))
        else:
            assert (name, result.is_error is True) == (name, False), text_of(result)
            assert (name, result.structured_content) == (name, expected)
