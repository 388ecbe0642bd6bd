"""A generated server for a spec without `servers`, started the way registries and clients
introspect one before its user configured it: no environment but PATH, initialize and tools/list
over stdio (both protocol eras) and streamable HTTP; a call then names what to set. A setting that
is set but bad still stops the start (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_support import Generated, generate_document, generator_command, minimal_env, run_tool
from http_support import HttpServer, http_session
from mcp_support import CLIENT_MODES, run_async, stdio_session, text_of
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Unconfigured API", "version": "1.0.0"},
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    "security": [{"bearer": []}],
    "paths": {
        "/items": {"get": {"operationId": "listItems", "responses": {"200": {"description": "ok"}}}},
        "/items/{id}": {
            "get": {
                "operationId": "getItem",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}
MESSAGE = (
    "This MCP server is not configured yet. Set UNCONFIGURED_BASE_URL (the API's base URL, such as"
    " https://api.example.com/v1; or start the server with --base-url), and UNCONFIGURED_BEARER_TOKEN,"
    " in the MCP server's environment and restart it. Nothing was sent to the API."
)


@pytest.fixture(scope="module")
def package(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_document(SPEC, "unconfigured", server_venv, tmp_path_factory)


def only_path() -> dict[str, str]:
    return {"PATH": os.environ["PATH"]}


@pytest.mark.parametrize("era", sorted(CLIENT_MODES))
@pytest.mark.representative(era="legacy")  # (CI's second pass: tests/conftest.py)
def test_over_stdio_with_only_path_tools_are_listed_and_a_call_names_what_to_set(
    package: Generated, era: str, tmp_path: Path
) -> None:
    mode, version = CLIENT_MODES[era]
    errlog = tmp_path / "stderr.log"

    async def session() -> None:
        async with stdio_session(package.command, env=only_path(), mode=mode, errlog=errlog) as client:
            assert client.protocol_version == version
            assert [tool.name for tool in (await client.list_tools()).tools] == ["listItems", "getItem"]
            result = await client.call_tool("getItem", {"id": "7"})
            assert result.is_error and text_of(result) == MESSAGE

    run_async(session)


def test_over_http_with_no_settings_tools_are_listed_and_a_call_names_what_to_set(
    package: Generated, tmp_path: Path
) -> None:
    server = HttpServer(package, {}, tmp_path / "server.log").start()

    async def session() -> None:
        async with http_session(server.url) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["listItems", "getItem"]
            result = await client.call_tool("listItems", {})
            assert result.is_error and text_of(result) == MESSAGE

    try:
        run_async(session)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "BASE_URL=api.example.com",
            "UNCONFIGURED_BASE_URL must be an absolute http(s) URL like https://h/v1",
        ),
        ("MODE=dinamic", "UNCONFIGURED_MODE must be one of auto, static, dynamic, code, got 'dinamic'"),
    ],
)
def test_a_setting_set_but_bad_still_exits_2(package: Generated, setting: str, message: str) -> None:
    key, value = setting.split("=", 1)
    env = minimal_env({f"UNCONFIGURED_{key}": value})
    done = subprocess.run(
        [str(package.command)], env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2, done
    assert done.stderr == f"unconfigured: {message}\n"


def test_inspect_reads_the_package_without_any_setting(package: Generated, tmp_path: Path) -> None:
    done = run_tool(
        [*generator_command(), "inspect", str(package.source), "--format", "json"], only_path(), tmp_path
    )
    assert done.returncode == 0, str(done)
    report = json.loads(done.stdout)
    assert (report["kind"], report["tools"]) == ("package", 2), report
