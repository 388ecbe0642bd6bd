"""serving/command.py: a generated server.py's ServerCommand, its command line, settings and tools,
in this process (the e2e tests run generated servers through it as processes)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest

from openapi2mcp_runtime.serving import http_serving
from openapi2mcp_runtime.serving.command import ServerCommand

from .conftest import param, tool, tool_data

PETS = tool("list_pets", "GET", "/pets", params=(param("limit", "query", {"type": "integer"}),))
DELETE = tool(
    "delete_pet",
    "DELETE",
    "/pets/{id}",
    params=(param("id", "path", {"type": "string"}, required=True),),
)


@pytest.fixture
def command(tmp_path: Path) -> Iterator[ServerCommand]:
    """A ServerCommand over a two-tool API, its package `cmdpkg` importable (with no hooks.py)."""
    package = tmp_path / "cmdpkg"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    data = package / "data" / "tool_data.json"
    data.write_text(json.dumps(tool_data(PETS, DELETE)), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield ServerCommand(
        name="t-server",
        version="1.2.3",
        title="Test API",
        env_prefix="T",
        default_base_url="https://api.test/v1",
        default_mode="auto",
        tool_data=data,
        package="cmdpkg",
        module="cmdpkg.server",
        description="MCP server for Test API.",
    )
    sys.path.remove(str(tmp_path))
    for name in [name for name in sys.modules if name == "cmdpkg" or name.startswith("cmdpkg.")]:
        del sys.modules[name]


async def listed(command: ServerCommand, env: dict[str, str], **flags: str | bool | None) -> list[str]:
    tools = command.load_tools(command.settings(env, flags=flags))
    try:
        async with mcp.Client(command.build_server(tools)) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)
    finally:
        await tools.aclose()


@pytest.mark.anyio
async def test_the_command_serves_its_tool_data(command: ServerCommand) -> None:
    assert await listed(command, {}) == ["delete_pet", "list_pets"]


@pytest.mark.anyio
async def test_a_flag_wins_over_its_variable(command: ServerCommand) -> None:
    dynamic = ["call_tool", "describe_tools", "search_tools"]
    assert await listed(command, {"T_MODE": "dynamic"}) == dynamic
    assert await listed(command, {"T_MODE": "dynamic"}, mode="static") == [
        "delete_pet",
        "list_pets",
    ]
    assert await listed(command, {}, read_only=True) == ["list_pets"]


def test_a_bad_setting_exits_2_naming_the_server_and_the_variable(
    command: ServerCommand,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("T_MODE", "sometimes")
    assert command.run([]) == 2
    error = capsys.readouterr().err
    assert error.startswith("t-server: ") and "T_MODE" in error and "sometimes" in error


def test_a_broken_hooks_py_exits_2_with_its_traceback(
    command: ServerCommand, capsys: pytest.CaptureFixture[str]
) -> None:
    (command.tool_data.parent.parent / "hooks.py").write_text("import no_such_module\n", encoding="utf-8")
    assert command.run(["--base-url", "http://127.0.0.1:9"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("t-server: cannot load hooks.py:\n") and "no_such_module" in error


def test_an_http_only_flag_on_stdio_exits_2(
    command: ServerCommand, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command.run(["--stateless"]) == 2
    assert (
        capsys.readouterr().err
        == "t-server: --sse, --stateless and --workers serve HTTP: use --transport http\n"
    )


def test_the_help_names_each_flags_variable_and_the_default_mode(
    command: ServerCommand,
) -> None:
    text = " ".join(command.parser().format_help().split())
    assert text.startswith("usage: t-server [-h] [--transport {stdio,http}]")
    for variable in (
        "$T_BASE_URL",
        "$T_TOOLSETS",
        "$T_TOOLS",
        "$T_EXCLUDE_TOOLS",
        "$T_READ_ONLY",
    ):
        assert f"(default: {variable})" in text
    assert "(default: $T_MODE, else auto)" in text
    assert "MCP server for Test API." in text


@pytest.mark.parametrize(("argv", "tasks"), [([], True), (["--stateless", "--workers", "2"], False)])
def test_under_workers_long_running_calls_are_followed_within_the_call(
    command: ServerCommand, monkeypatch: pytest.MonkeyPatch, argv: list[str], tasks: bool
) -> None:
    """A task lives in one process, and another worker would answer its tasks/get: with
    --workers N > 1 the server keeps no tasks (nor declares them)."""
    data = tool_data(PETS, DELETE)
    data["routes"]["delete_pet"]["longRunning"] = {"source": "x-mcp", "finalStateVia": None, "cancel": None}
    command.tool_data.write_text(json.dumps(data), encoding="utf-8")
    served: list[Any] = []
    monkeypatch.setattr(http_serving, "serve", lambda server, tools, *rest: served.append(tools))
    assert command.run(["--transport", "http", *argv]) == 0
    assert (served[0].tasks is not None) is tasks
