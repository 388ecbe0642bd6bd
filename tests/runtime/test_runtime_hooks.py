"""hooks.py in the runtime: request hooks, result hooks and the user's own tools, end to end against
the recording upstream (tools/list, tools/call, errors, loading hooks.py)."""

from __future__ import annotations

import json
import sys
import threading
import types
from pathlib import Path
from typing import Any

import mcp
import pytest

from openapi2mcp_runtime.upstream import http_exchange

from .conftest import (
    HOOKS_API,
    REPO,
    Make,
    Reply,
    Upstream,
    body,
    body_field,
    call,
    hooks_api,
    hooks_runner,
    mcp_server,
    param,
    runtime,
    text_of,
    tool,
    tool_data,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

Hooks, Request, Result, HookError = hooks_api.Hooks, hooks_api.Request, hooks_api.Result, hooks_api.HookError
KEY = "key-secret-0042"
PET = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
    "required": ["id"],
}
DATA = tool_data(
    tool("getPet", "GET", "/pets/{id}", params=(param("id", "path", {"type": "string"}),), output_schema=PET),
    tool(
        "listPets",
        "GET",
        "/pets",
        params=(
            param(
                "tags",
                "query",
                {"type": "array", "items": {"type": "string"}},
                style="pipeDelimited",
                explode=False,
            ),
        ),
        security=[["api_key"]],
    ),
    tool(
        "createPet",
        "POST",
        "/pets",
        request_body=body("application/json", "json", fields=(body_field("name", {"type": "string"}),)),
    ),
)
ECHO_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1}},
    "required": ["text"],
    "additionalProperties": False,
}


def pet_upstream(upstream: Upstream) -> None:
    upstream.responder = lambda r: Reply(
        404 if r.path.endswith("/missing") else 200,
        json.dumps({"id": 7, "name": "rex"} if r.path.startswith("/api/v1/pets/") else [1, 2]).encode(),
    )


# ---- before_request ------------------------------------------------------------------------------


async def test_a_request_hook_for_every_tool_sees_the_final_request_and_changes_it(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks, seen = Hooks(), []

    @hooks.before_request()
    def trace(call_: Any, request: Any) -> None:
        seen.append((call_.tool, call_.arguments, request.method, request.full_url, dict(request.headers)))
        request.headers["X-Trace"] = f"t-{call_.tool}"
        request.params.append(("via", "hooks py"))

    tools = make_runtime(DATA, {"T_API_KEY_KEY": KEY}, hooks=hooks)
    await call(tools, "listPets", {"tags": ["a b", "c"]})
    await call(tools, "getPet", {"id": "x/y"})
    assert [r.target for r in upstream.requests] == [
        "/api/v1/pets?tags=a%20b|c&via=hooks%20py",
        "/api/v1/pets/x%2Fy?via=hooks%20py",
    ]
    assert [r.header("X-Trace") for r in upstream.requests] == ["t-listPets", "t-getPet"]
    base = {"User-Agent": "t-server-mcp/1.2.3", "Accept": "application/json, */*;q=0.8"}
    assert seen == [
        (
            "listPets",
            {"tags": ["a b", "c"]},
            "GET",
            f"{upstream.url}/api/v1/pets?tags=a%20b|c",
            {**base, "X-API-Key": KEY},
        ),
        ("getPet", {"id": "x/y"}, "GET", f"{upstream.url}/api/v1/pets/x%2Fy", base),
    ]


async def test_a_request_hook_for_named_tools_leaves_the_others_alone(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks = Hooks()

    @hooks.before_request("getPet")
    async def only_get_pet(call_: Any, request: Any) -> None:
        request.headers["X-Only"] = "1"

    tools = make_runtime(DATA, hooks=hooks)
    await call(tools, "createPet", {"name": "a"})
    await call(tools, "getPet", {"id": "1"})
    assert [r.header("X-Only") for r in upstream.requests] == [None, "1"]


async def test_a_request_hook_may_return_a_new_request_with_another_method_url_and_body(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks = Hooks()

    @hooks.before_request("createPet")
    def rewrite(call_: Any, request: Any) -> Any:
        new = Request("put", request.url + "/v2", headers=request.headers)
        new.json = {**request.json, "source": "hooks"}
        return new

    result = await call(make_runtime(DATA, hooks=hooks), "createPet", {"name": "Rex"})
    assert not result.is_error, text_of(result)
    sent = upstream.last
    assert (sent.method, sent.target) == ("PUT", "/api/v1/pets/v2")
    assert json.loads(sent.body) == {"name": "Rex", "source": "hooks"}
    assert sent.header("Content-Type") == "application/json"


async def test_a_failing_request_hook_is_an_error_naming_it_and_nothing_is_sent(
    make_runtime: Make, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = Hooks()

    @hooks.before_request()
    def broken(call_: Any, request: Any) -> None:
        raise KeyError("missing")

    result = await call(make_runtime(DATA, hooks=hooks), "getPet", {"id": "1"})
    assert result.is_error and result.structured_content is None
    assert text_of(result) == (
        "The before_request hook 'test_a_failing_request_hook_is_an_error_naming_it_and_nothing_is_sent"
        ".<locals>.broken' in hooks.py failed (KeyError: 'missing'). Nothing was sent to the API."
    )
    assert upstream.requests == []
    assert 'raise KeyError("missing")' in caplog.text


async def test_an_unsendable_request_from_a_hook_is_an_error_naming_it(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks = Hooks()

    @hooks.before_request()
    def inject(call_: Any, request: Any) -> None:
        request.headers["X-Evil"] = "a\r\nX-Injected: 1"

    result = await call(make_runtime(DATA, hooks=hooks), "getPet", {"id": "1"})
    assert result.is_error
    assert "hook 'test_an_unsendable_request_from_a_hook_is_an_error_naming_it.<locals>.inject'" in text_of(
        result
    )
    assert "(ValueError: header X-Evil: the value must be a str without CR, LF or NUL)" in text_of(result)
    assert upstream.requests == []


async def test_a_hook_error_is_the_exact_message_and_later_hooks_do_not_run(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks, ran = Hooks(), []

    @hooks.before_request("createPet")
    def refuse(call_: Any, request: Any) -> None:
        raise HookError("Creating pets is switched off here.")

    @hooks.before_request()
    def later(call_: Any, request: Any) -> None:
        ran.append(call_.tool)

    result = await call(make_runtime(DATA, hooks=hooks), "createPet", {"name": "a"})
    assert result.is_error and text_of(result) == "Creating pets is switched off here."
    assert upstream.requests == [] and ran == []


# ---- after_result ------------------------------------------------------------------------------


async def test_a_result_hook_changes_the_data_and_the_text_follows(
    make_runtime: Make, upstream: Upstream
) -> None:
    pet_upstream(upstream)
    hooks = Hooks()

    @hooks.after_result("getPet")
    async def shout(call_: Any, result: Any) -> None:
        result.data["name"] = result.data["name"].upper() + f" ({call_.status}, {call_.request.full_url})"

    tools = make_runtime(DATA, {"T_API_KEY_KEY": KEY}, hooks=hooks)
    result = await call(tools, "getPet", {"id": "1"})
    assert not result.is_error
    name = f"REX (200, {upstream.url}/api/v1/pets/1)"
    assert result.structured_content == {"id": 7, "name": name}
    assert [c.text for c in result.content] == [json.dumps({"id": 7, "name": name}, separators=(",", ":"))]
    other = await call(tools, "listPets", {})
    assert other.structured_content == {"result": [1, 2]}


async def test_result_hooks_see_errors_only_when_asked_and_may_turn_one_into_a_success(
    make_runtime: Make, upstream: Upstream
) -> None:
    pet_upstream(upstream)
    hooks, seen = Hooks(), []
    hooks.after_result()(lambda call_, result: seen.append(("all", result.is_error)))

    @hooks.after_result("getPet", errors=True)
    def not_found_is_none(call_: Any, result: Any) -> Any:
        seen.append(("errors", result.is_error))
        if call_.status == 404:
            return Result.of({"id": 0})
        return None

    result = await call(make_runtime(DATA, hooks=hooks), "getPet", {"id": "missing"})
    assert (result.is_error, result.structured_content, text_of(result)) == (False, {"id": 0}, '{"id":0}')
    assert seen == [("errors", True)]


async def test_a_result_hook_that_breaks_the_output_schema_gives_an_error(
    make_runtime: Make, upstream: Upstream
) -> None:
    pet_upstream(upstream)
    hooks = Hooks()

    @hooks.after_result("getPet")
    def drop_id(call_: Any, result: Any) -> None:
        del result.data["id"]

    result = await call(make_runtime(DATA, hooks=hooks), "getPet", {"id": "1"})
    assert result.is_error and result.structured_content is None
    assert text_of(result) == (
        "The result of tool 'getPet', as the after_result hook(s) "
        "'test_a_result_hook_that_breaks_the_output_schema_gives_an_error.<locals>.drop_id'"
        " left it in hooks.py,"
        " does not match the tool's output schema ($: 'id' is a required property). Fix hooks.py; the call"
        " itself was made."
    )


async def test_a_failing_result_hook_is_an_error_naming_it_and_the_http_status(
    make_runtime: Make, upstream: Upstream
) -> None:
    pet_upstream(upstream)
    hooks = Hooks()
    hooks.after_result()(lambda call_, result: result.missing)

    result = await call(make_runtime(DATA, hooks=hooks), "getPet", {"id": "1"})
    assert result.is_error
    assert text_of(result) == (
        "The after_result hook 'test_a_failing_result_hook_is_an_error_naming_it_and_the_http_status.<locals>"
        ".<lambda>' in hooks.py failed (AttributeError: 'Result' object has no attribute 'missing')."
        " The API answered HTTP 200."
    )


async def test_secrets_a_result_hook_adds_are_still_scrubbed(make_runtime: Make, upstream: Upstream) -> None:
    hooks = Hooks()

    @hooks.after_result("listPets")
    def leak(call_: Any, result: Any) -> None:
        result.data = {"sent": call_.request.headers["x-api-key"] if call_.request else None}

    result = await call(make_runtime(DATA, {"T_API_KEY_KEY": KEY}, hooks=hooks), "listPets", {})
    assert result.structured_content == {"sent": "[REDACTED]"}
    assert text_of(result) == '{"sent":"[REDACTED]"}'


async def test_hooks_of_one_call_share_its_state(make_runtime: Make, upstream: Upstream) -> None:
    hooks = Hooks()
    hooks.before_request()(lambda call_, request: call_.state.update(url=request.full_url))

    @hooks.after_result()
    def report(call_: Any, result: Any) -> None:
        result.data = {"url": call_.state["url"]}

    result = await call(make_runtime(DATA, hooks=hooks), "createPet", {"name": "a"})
    assert result.structured_content == {"url": f"{upstream.url}/api/v1/pets"}


# ---- the user's tools --------------------------------------------------------------------------


def user_tools(threads: list[str]) -> Any:
    hooks = Hooks()

    @hooks.tool(
        name="echo", description="Echo.", input_schema=ECHO_SCHEMA, annotations={"readOnlyHint": True}
    )
    def echo(arguments: dict[str, Any]) -> str:
        threads.append(threading.current_thread().name)
        return arguments["text"] * 2

    @hooks.tool(
        output_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    )
    async def count_pets(arguments: dict[str, Any], call_: Any) -> dict[str, Any]:
        """Count the pets."""
        pets = await call_.call_tool("listPets", {"tags": ["x"]})
        return {"count": len(pets.data["result"])}

    @hooks.tool(output_schema={"type": "object", "required": ["count"]})
    async def bad_output(arguments: dict[str, Any]) -> Any:
        return [1]

    @hooks.tool()
    async def broken(arguments: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    return hooks


async def test_user_tools_are_listed_after_the_generated_ones(make_runtime: Make) -> None:
    tools = make_runtime(DATA, hooks=user_tools([]))
    listed = tools.list_tools_result()["tools"]
    assert listed[:3] == DATA["tools"]
    assert listed[3:] == [
        {
            "name": "echo",
            "description": "Echo.",
            "inputSchema": ECHO_SCHEMA,
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "count_pets",
            "description": "Count the pets.",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {
                "type": "object",
                "properties": {"count": {"type": "integer"}},
                "required": ["count"],
            },
        },
        {
            "name": "bad_output",
            "description": "",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "object", "required": ["count"]},
        },
        {"name": "broken", "description": "", "inputSchema": {"type": "object", "properties": {}}},
    ]
    assert tools.input_schema("echo") == ECHO_SCHEMA


async def test_a_sync_user_tool_runs_in_a_worker_thread_with_validated_arguments(
    make_runtime: Make, upstream: Upstream
) -> None:
    threads: list[str] = []
    tools = make_runtime(DATA, hooks=user_tools(threads))
    result = await call(tools, "echo", {"text": "ab"})
    assert (result.is_error, result.structured_content, text_of(result)) == (False, None, "abab")
    assert threads and threads[0] != threading.current_thread().name
    invalid = await call(tools, "echo", {"text": "", "more": 1})
    assert invalid.is_error and text_of(invalid).startswith("Invalid arguments for tool 'echo'")
    assert "- unknown argument(s) 'more'; valid: text" in text_of(invalid)
    assert "- $.text: '' should be non-empty (rule: minLength)" in text_of(invalid)
    assert len(threads) == 1 and upstream.requests == []


async def test_an_async_user_tool_calls_a_generated_tool_with_its_hooks(
    make_runtime: Make, upstream: Upstream
) -> None:
    pet_upstream(upstream)
    hooks = user_tools([])
    hooks.before_request()(lambda call_, request: request.headers.update({"X-Hooked": call_.tool}))
    result = await call(make_runtime(DATA, {"T_API_KEY_KEY": KEY}, hooks=hooks), "count_pets", {})
    assert (result.is_error, result.structured_content, text_of(result)) == (
        False,
        {"count": 2},
        '{"count":2}',
    )
    assert [(r.target, r.header("X-Hooked")) for r in upstream.requests] == [
        ("/api/v1/pets?tags=x", "listPets")
    ]


async def test_user_tool_failures_are_errors_naming_the_function(make_runtime: Make) -> None:
    tools = make_runtime(DATA, hooks=user_tools([]))
    broken = await call(tools, "broken", {})
    assert broken.is_error
    assert text_of(broken) == (
        "Tool 'broken' (user_tools.<locals>.broken) in hooks.py failed (RuntimeError: boom)."
    )
    bad = await call(tools, "bad_output", {})
    assert bad.is_error
    assert text_of(bad) == (
        "The result of tool 'bad_output', as its function 'user_tools.<locals>.bad_output' made it in"
        " hooks.py, does not match the tool's output schema ($: 'count' is a required property)."
        " Fix hooks.py; the call itself was made."
    )


async def test_result_hooks_for_every_tool_also_see_user_tools(make_runtime: Make) -> None:
    hooks = user_tools([])
    hooks.after_result()(lambda call_, result: Result.of(f"{call_.tool}: {result.text}"))
    result = await call(make_runtime(DATA, hooks=hooks), "echo", {"text": "a"})
    assert text_of(result) == "echo: aa"


async def test_user_tools_through_an_mcp_client(make_runtime: Make) -> None:
    async with mcp.Client(mcp_server(make_runtime(DATA, hooks=user_tools([]))), mode="legacy") as client:
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == [
            "getPet",
            "listPets",
            "createPet",
            "echo",
            "count_pets",
            "bad_output",
            "broken",
        ]
        result = await client.call_tool("echo", {"text": "hi"})
        assert (result.is_error, text_of(result)) == (False, "hihi")


# ---- start-up ----------------------------------------------------------------------------------


async def test_a_user_tool_named_like_a_generated_one_stops_the_start(make_runtime: Make) -> None:
    hooks = Hooks()
    hooks.tool("getPet")(lambda arguments: "")
    with pytest.raises(runtime.ConfigError) as raised:
        make_runtime(DATA, hooks=hooks)
    assert str(raised.value) == (
        "hooks.py: tool 'getPet'"
        " (test_a_user_tool_named_like_a_generated_one_stops_the_start.<locals>.<lambda>)"
        " has the name of a generated tool: choose another"
    )


async def test_a_user_tool_that_is_not_a_valid_mcp_tool_stops_the_start(make_runtime: Make) -> None:
    hooks = Hooks()
    hooks.tool("odd", annotations={"readOnlyHint": "maybe"})(lambda arguments: "")
    with pytest.raises(runtime.ConfigError) as raised:
        make_runtime(DATA, hooks=hooks)
    assert str(raised.value).startswith(
        "hooks.py: tool 'odd'"
        " (test_a_user_tool_that_is_not_a_valid_mcp_tool_stops_the_start.<locals>.<lambda>)"
        " is not a valid MCP tool: 1 validation error for Tool\nannotations.readOnlyHint\n"
    )


async def test_a_hook_naming_an_unknown_tool_stops_the_start(make_runtime: Make) -> None:
    hooks = Hooks()
    hooks.before_request("getPet", "getPett", "echo")(lambda call_, request: None)
    hooks.tool("echo")(lambda arguments: "")
    with pytest.raises(runtime.ConfigError, match=r"names unknown tool\(s\) 'getPett'$"):
        make_runtime(DATA, hooks=hooks)


@pytest.fixture
def package(tmp_path: Path) -> Any:
    """A package `pkg_N` of the files written to tmp_path, with a generated package's hooks_api.py."""
    name = f"hooks_test_pkg_{id(tmp_path)}"
    (tmp_path / "hooks_api.py").write_text(HOOKS_API)
    module = types.ModuleType(name)
    module.__path__ = [str(tmp_path)]
    sys.modules[name] = module
    yield name, tmp_path
    for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
        del sys.modules[key]


def load(name: str) -> Any:
    return hooks_runner.load_hooks(name)


def test_no_hooks_py_means_no_hooks(package: Any) -> None:
    name, _ = package
    hooks = load(name)
    assert (hooks.hooks, hooks.tools) == ([], {})


def test_hooks_py_is_loaded_from_the_package(package: Any) -> None:
    name, folder = package
    (folder / "hooks.py").write_text(
        "from .hooks_api import Hooks\nhooks = Hooks()\nhooks.tool('mine')(lambda arguments: 'ok')\n"
    )
    assert list(load(name).tools) == ["mine"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def broken(:\n", "cannot load hooks.py:\nTraceback"),
        ("import not_a_module_anywhere\n", "No module named 'not_a_module_anywhere'"),
        ("raise RuntimeError('at import')\n", "RuntimeError: at import"),
        ("hooks = 1\n", "hooks.py must define `hooks = Hooks()` (from .hooks_api import Hooks)"),
    ],
)
def test_a_broken_hooks_py_stops_the_start_with_its_traceback(
    package: Any, source: str, message: str
) -> None:
    name, folder = package
    (folder / "hooks.py").write_text(source)
    with pytest.raises(Exception) as raised:
        load(name)
    assert type(raised.value).__name__ == "ConfigError"
    assert message in str(raised.value)


def test_without_hooks_the_runtime_lists_exactly_the_generated_tools() -> None:
    settings = runtime.Settings.from_env({}, prefix="T", base_url="http://h")
    tools = runtime.ToolRuntime(DATA, settings)
    assert (tools.hooks.hooks, tools.hooks.tools) == ([], {})
    listed = tools.list_tools_result()["tools"]
    assert listed == DATA["tools"]


def test_the_hooks_py_openapi2mcp_writes_loads_and_defines_nothing(package: Any) -> None:
    from openapi2mcp.emit.render import render_starters
    from openapi2mcp.model import GeneratorOptions
    from openapi2mcp.pipeline import generate

    name, folder = package
    options = GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE")
    model = generate(str(REPO / "specs" / "petstore.yaml"), options).model
    (folder / "hooks.py").write_text(render_starters(model, options)["petstore/hooks.py"])
    hooks = load(name)
    assert (hooks.hooks, hooks.tools) == ([], {})


async def test_the_starter_hooks_py_examples_work_once_uncommented(
    package: Any, upstream: Upstream, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each example block (after a lone `#` line, up to a blank line) with its `# ` removed."""
    import httpx2

    from openapi2mcp.emit.render import render_starters
    from openapi2mcp.model import GeneratorOptions
    from openapi2mcp.pipeline import generate

    name, folder = package
    options = GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE", models=True)
    generation = generate(str(REPO / "specs" / "petstore.yaml"), options)
    model = generation.model
    (folder / "models.py").write_text(generation.files["petstore/models.py"])  # the typed example's
    lines, in_example = [], False
    for line in render_starters(model, options)["petstore/hooks.py"].splitlines():
        in_example = (in_example or line == "#") and line != ""
        lines.append(line.removeprefix("# ").removeprefix("#") if in_example else line)
    (folder / "hooks.py").write_text("\n".join(lines) + "\n")
    hooks = load(name)
    kinds = ["before_request", "after_result", "before_request", "after_result", "http_client"]
    assert [hook.kind for hook in hooks.hooks] == kinds
    assert list(hooks.tools) == ["echo"]
    client_options = http_exchange.client_options(True)
    hooks.client_hooks()[0].function(client_options)
    typed_call = hooks_api.Call("listPets", {"limit": 3})
    hooks.hooks[2].function(typed_call, Request("GET", "http://h/pets"))
    assert typed_call.state["arguments"].limit == 3
    typed_result = Result.of({"result": [{"name": "rex", "id": "1"}]})
    hooks.hooks[3].function(typed_call, typed_result)
    assert typed_result.data == {"result": [{"name": "rex", "id": "1"}]}
    async with httpx2.AsyncClient(**client_options) as client:
        assert (await client.get(upstream.url + "/x")).status_code == 200
    assert f"-> <Request('GET', '{upstream.url}/x')>" in capsys.readouterr().err
