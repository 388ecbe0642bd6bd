"""Configuration-free listing (issue 17): a server started with no environment answers initialize
and tools/list (static and dynamic) as registries ask them; a call then fails naming every variable
still to set, the base URL first; a setting that is set but bad still stops the start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcp
import pytest

from .conftest import Make, Upstream, call, mcp_server, runtime, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

DATA = tool_data(
    tool("listItems", "GET", "/items", security=[["bearer"]]),
    tool("login", "POST", "/login", security=[["api_key", "basic"], ["oauth"], []]),
    tool("getKeyed", "GET", "/keyed", security=[["api_key"], ["bearer"]]),
    tool("ping", "GET", "/ping"),
)
NAMES = ["listItems", "login", "getKeyed", "ping"]
SET_BASE_URL = (
    "This MCP server is not configured yet. Set T_BASE_URL (the API's base URL, such as"
    " https://api.example.com/v1; or start the server with --base-url)"
)
RESTART = " in the MCP server's environment and restart it. Nothing was sent to the API."


@pytest.fixture
async def bare() -> AsyncIterator[Make]:
    """make(env=None, default_base_url=None) → a ToolRuntime with only that environment."""
    made: list[Any] = []

    def make(env: dict[str, str] | None = None, default_base_url: str | None = None) -> Any:
        settings = runtime.Settings.from_env(env or {}, prefix="T", default_base_url=default_base_url)
        made.append(runtime.ToolRuntime(DATA, settings))
        return made[-1]

    yield make
    for tools in made:
        await tools.aclose()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_initialize_and_tools_list_need_no_environment(bare: Make, mode: str) -> None:
    async with mcp.Client(mcp_server(bare()), mode=mode) as client:
        assert [t.name for t in (await client.list_tools()).tools] == NAMES
        result = await client.call_tool("listItems", {})
    assert result.is_error
    assert text_of(result) == f"{SET_BASE_URL}, and T_BEARER_TOKEN,{RESTART}"


async def test_the_dynamic_meta_tools_are_listed_and_call_tool_names_what_to_set(bare: Make) -> None:
    tools = bare({"T_MODE": "dynamic"})
    async with mcp.Client(mcp_server(tools)) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("call_tool", {"name": "ping", "arguments": {}})
    assert listed == ["search_tools", "describe_tools", "call_tool"]
    assert result.is_error and text_of(result) == f"{SET_BASE_URL}{RESTART}"


async def test_the_message_names_every_alternative_of_credentials(bare: Make) -> None:
    tools = bare()
    keyed = await call(tools, "getKeyed", {})
    assert text_of(keyed) == f"{SET_BASE_URL}, and T_API_KEY_KEY; or set T_BEARER_TOKEN,{RESTART}"
    anonymous_allowed = await call(tools, "login", {})
    assert text_of(anonymous_allowed) == f"{SET_BASE_URL}{RESTART}"


async def test_credentials_already_set_are_not_named(bare: Make) -> None:
    result = await call(bare({"T_BEARER_TOKEN": "secret-token"}), "listItems", {})
    assert text_of(result) == f"{SET_BASE_URL}{RESTART}"


async def test_the_base_url_comes_first_even_before_argument_problems(bare: Make) -> None:
    result = await call(bare(), "ping", {"unexpected": 1})
    assert text_of(result) == f"{SET_BASE_URL}{RESTART}"


async def test_a_relative_spec_server_counts_as_unset_and_the_message_asks_for_the_origin(
    bare: Make,
) -> None:
    tools = bare(default_base_url="/api/v3")
    assert tools.settings.base_url is None
    assert text_of(await call(tools, "ping", {})) == (
        "This MCP server is not configured yet. Set T_BASE_URL (the service's origin, such as"
        " https://api.example.com; the spec's server is relative, so requests go to"
        f" https://api.example.com/api/v3/...; or start the server with --base-url){RESTART}"
    )


async def test_once_set_calls_go_through(make_runtime: Make, upstream: Upstream) -> None:
    result = await call(make_runtime(DATA, env={"T_BEARER_TOKEN": "tok-123456"}), "listItems", {})
    assert not result.is_error, text_of(result)
    assert upstream.last.header("Authorization") == "Bearer tok-123456"


async def test_an_operation_with_its_own_server_needs_no_base_url(upstream: Upstream) -> None:
    wire, route = tool("upload", "POST", "/files")
    route["baseUrl"] = upstream.url + "/files-api"
    settings = runtime.Settings.from_env({}, prefix="T")
    tools = runtime.ToolRuntime(tool_data((wire, route)), settings)
    try:
        result = await call(tools, "upload", {})
    finally:
        await tools.aclose()
    assert not result.is_error, text_of(result)
    assert upstream.last.target == "/files-api/files"


@pytest.mark.parametrize(
    ("env", "base_url", "message"),
    [
        ({"T_BASE_URL": "api.example.com"}, None, "T_BASE_URL must be an absolute http(s) URL"),
        ({}, "ftp://h", "T_BASE_URL must be an absolute http(s) URL"),
        ({"T_TIMEOUT": "soon"}, None, "T_TIMEOUT must be a number of seconds"),
        ({"T_MODE": "dinamic"}, None, "T_MODE must be one of auto, static, dynamic, code, got 'dinamic'"),
    ],
)
def test_settings_set_but_bad_still_stop_the_start(
    env: dict[str, str], base_url: str | None, message: str
) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env(env, prefix="T", base_url=base_url)
    assert message in str(raised.value)
