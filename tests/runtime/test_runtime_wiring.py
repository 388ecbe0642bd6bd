"""wiring.py: tools/list from a constant, shaped by the SDK once per protocol version."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import mcp
import pytest

from openapi2mcp_runtime.serving import wiring
from openapi2mcp_runtime.upstream import audit

from .conftest import Make, mcp_server
from .test_runtime_requests import DATA

wiring = wiring
pytestmark = [pytest.mark.timeout(120)]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_list_is_shaped_by_the_sdk_once_per_protocol_version(
    make_runtime: Make, mode: str
) -> None:
    tools = make_runtime(DATA)
    handled = []
    original = tools.on_list_tools

    async def counting(ctx: Any, params: Any) -> Any:
        handled.append(ctx.protocol_version)
        return await original(ctx, params)

    tools.on_list_tools = counting
    server = mcp_server(tools)
    for _ in range(2):
        async with mcp.Client(server, mode=mode) as client:
            first, second = await client.list_tools(), await client.list_tools()
            assert first == second
            assert [t.name for t in first.tools] == [t["name"] for t in DATA["tools"]]
            assert first.tools[0].input_schema == DATA["tools"][0]["inputSchema"]
    assert len(handled) == 1
    cached = next(iter(server.middleware[-1].answers.values()))
    assert [t["name"] for t in cached["tools"]] == [t["name"] for t in DATA["tools"]]


@pytest.mark.anyio
async def test_other_requests_pass_through_the_middleware() -> None:
    listed = wiring.ListedOnce(lambda ctx: None)
    seen = []

    async def call_next(ctx: Any) -> Any:
        seen.append(ctx.method)
        return {"n": len(seen)}

    class Ctx:
        method, protocol_version, request_id = "tools/call", "2025-11-25", 1

    assert await listed(Ctx(), call_next) == {"n": 1}
    assert await listed(Ctx(), call_next) == {"n": 2}
    assert listed.answers == {}


class ListCtx:
    method, protocol_version = "tools/list", "2025-11-25"

    def __init__(self, request_id: int | None, params: Any = None) -> None:
        self.request_id, self.params = request_id, params


@pytest.mark.anyio
async def test_only_a_requests_answer_listing_tools_is_kept() -> None:
    """A notification's None (the SDK's answer to a notification-shaped tools/list) and an answer
    without a tools list are passed on and not kept: kept, they would be every later list."""
    listed = wiring.ListedOnce(lambda ctx: "view")
    answers: list[Any] = [None, {}, {"tools": "none"}, {"tools": [{"name": "a"}]}, {"tools": []}]

    async def call_next(ctx: Any) -> Any:
        return answers.pop(0)

    assert await listed(ListCtx(None), call_next) is None
    assert listed.answers == {}
    assert await listed(ListCtx(2), call_next) == {}
    assert await listed(ListCtx(3), call_next) == {"tools": "none"}
    assert listed.answers == {}
    assert await listed(ListCtx(4), call_next) == {"tools": [{"name": "a"}]}
    assert await listed(ListCtx(5), call_next) == {"tools": [{"name": "a"}]}
    assert listed.answers == {("2025-11-25", "view", None): {"tools": [{"name": "a"}]}}
    assert answers == [{"tools": []}]


@pytest.mark.anyio
async def test_each_cursor_is_kept_apart_and_a_malformed_one_never_answered_from_the_kept() -> None:
    listed = wiring.ListedOnce(lambda ctx: "view")
    calls: list[Any] = []

    async def call_next(ctx: Any) -> Any:
        calls.append(ctx.params)
        return {"tools": [{"name": str(len(calls))}]}

    first = await listed(ListCtx(1), call_next)
    assert await listed(ListCtx(2, {"cursor": "abc"}), call_next) == {"tools": [{"name": "2"}]}
    assert await listed(ListCtx(3, {"cursor": "abc"}), call_next) == {"tools": [{"name": "2"}]}
    assert await listed(ListCtx(4, {}), call_next) is first
    for odd in ({"cursor": 5}, [1]):  # the SDK refuses these: always passed on, never kept
        assert await listed(ListCtx(5, odd), call_next) == {"tools": [{"name": str(len(calls))}]}
    assert calls == [None, {"cursor": "abc"}, {"cursor": 5}, [1]]


RUNTIME = Path(__file__).resolve().parents[2] / "openapi2mcp_runtime"
RUNTIME_FILES = sorted(RUNTIME.rglob("*.py"))
BELOW_THE_LIBRARIES = ("mcp.shared", "mcp_types", "h11", "httpcore", "httpx")  # httpx2 is the client


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def runtime_id(path: Path) -> str:
    return path.relative_to(RUNTIME).as_posix()


@pytest.mark.parametrize("path", RUNTIME_FILES, ids=runtime_id)
def test_the_runtime_imports_nothing_of_the_generator_and_itself_only_relatively(path: Path) -> None:
    """So that a vendored copy (`<package>._runtime`) and the installed distribution both work."""
    absolute = sorted(
        m for m in imported_modules(path) if m.split(".")[0] in ("openapi2mcp", "openapi2mcp_runtime")
    )
    assert absolute == [], f"{runtime_id(path)} imports {absolute}"


@pytest.mark.parametrize("path", RUNTIME_FILES, ids=runtime_id)
def test_the_runtime_imports_only_the_sdks_public_api_and_httpx2(path: Path) -> None:
    below = [
        module
        for module in imported_modules(path)
        if any(module == name or module.startswith(f"{name}.") for name in BELOW_THE_LIBRARIES)
    ]
    assert below == [], f"{path.name} imports {below}"


def test_the_sdks_logging_deprecation_warning_is_silenced_and_no_other() -> None:
    from mcp.server import Server

    async def set_level(ctx: Any, params: Any) -> Any:
        raise AssertionError("not called")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with audit.McpLog.deprecation_ignored():
            Server("x", on_set_logging_level=set_level)  # the SDK's own warning
            warnings.warn("another warning", UserWarning, stacklevel=1)
        Server("x", on_set_logging_level=set_level)
    messages = [str(warning.message) for warning in caught]
    assert messages[0] == "another warning"
    assert len(messages) == 2 and messages[1].startswith("The logging capability is deprecated")


def test_the_event_loop_is_uvloop_where_installed_and_asyncio_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert wiring.event_loop_options() == {"use_uvloop": True}  # the dev environment has it, as servers do
    monkeypatch.setattr(wiring.importlib.util, "find_spec", lambda name: None)
    assert wiring.event_loop_options() == {"use_uvloop": False}
