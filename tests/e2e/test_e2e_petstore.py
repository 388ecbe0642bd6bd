"""specs/petstore.yaml end to end: the generated server, installed in a venv, started over stdio (and
streamable HTTP) with the `mcp` client, calling Prism as the upstream API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Generated, dump, free_port, tail
from http_support import HttpServer, http_session
from mcp import MCPError
from mcp_support import CLIENT_MODES, MODES, run_async, stdio_session, text_of
from prism_support import Prism
from recording_upstream import Recorded, RecordingUpstream, Reply

pytestmark = pytest.mark.e2e

API_KEY = "e2e-secret-api-key-0042"
KEY_VAR = "PETSTORE_API_KEY_KEY"

# name → (title, HTTP method, path): every operation of the spec, nothing else.
EXPECTED_TOOLS = {
    "listPets": ("List pets", "GET", "/pets"),
    "createPet": ("Create a pet", "POST", "/pets"),
    "showPetById": ("Info for a specific pet", "GET", "/pets/{petId}"),
    "replacePet": ("Replace a pet", "PUT", "/pets/{petId}"),
    "deletePet": ("Delete a pet", "DELETE", "/pets/{petId}"),
    "renamePet": ("Rename a pet", "PATCH", "/pets/{petId}"),
    "get_health": ("Health check", "GET", "/health"),  # no operationId: a verb and the resource
}
# The verb's hints (the contract in issue 2); openWorldHint is true for every tool.
EXPECTED_HINTS: dict[str, dict[str, bool]] = {
    "GET": {"readOnlyHint": True},
    "POST": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "PUT": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "PATCH": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
}

# Valid calls and the request Prism must see for each (method, path).
VALID_CALLS: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
    ("listPets", {"limit": 5, "tags": ["cat", "dog"]}, ("GET", "/pets")),
    ("createPet", {"name": "Rex", "tag": "dog"}, ("POST", "/pets")),
    ("showPetById", {"petId": "rex-1"}, ("GET", "/pets/rex-1")),
    ("replacePet", {"petId": "rex-1", "name": "Rex", "tag": None}, ("PUT", "/pets/rex-1")),
    ("renamePet", {"petId": "rex-1", "name": "Max"}, ("PATCH", "/pets/rex-1")),
    ("deletePet", {"petId": "rex-1", "X-Request-Reason": "adopted"}, ("DELETE", "/pets/rex-1")),
    ("get_health", {}, ("GET", "/health")),
]

# Schema-invalid calls: (tool, arguments, the argument the error text must name).
INVALID_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("listPets", {"limit": "ten"}, "limit"),  # type
    ("listPets", {"limit": 0}, "limit"),  # minimum
    ("listPets", {"tags": ["fish"]}, "tags"),  # enum of the items
    ("listPets", {"tags": ["cat", "dog", "bird", "cat"]}, "tags"),  # maxItems
    ("showPetById", {"petId": "Not Valid!"}, "petId"),  # pattern
    ("showPetById", {}, "petId"),  # required path parameter
    ("createPet", {"tag": "cat"}, "name"),  # required body field
    ("createPet", {"name": "Rex", "colour": "brown"}, "colour"),  # unknown argument
    ("renamePet", {"petId": "rex-1", "name": ""}, "name"),  # minLength
]


def session(petstore: Generated, mode: str, env: dict[str, str], tmp_path: Path) -> Any:
    """A stdio client session on the generated console script; its stderr goes to a file."""
    return stdio_session(
        petstore.command,
        env=env,
        mode=CLIENT_MODES[mode][0],
        errlog=tmp_path / "server.stderr",
    )


def assert_no_violation(prism: Prism, mark: int, expected: list[tuple[str, str]]) -> None:
    requests = prism.wait_for_requests(mark, len(expected))
    seen = [(request.method, request.path.split("?")[0]) for request in requests]
    assert seen == expected, f"Prism saw {seen}, expected {expected}:\n{tail(prism.log)}"
    for request in requests:
        assert not request.violations, f"Prism rejected a request the server built:\n{request}"


def test_prism_log_shows_a_violation(prism: Prism) -> None:
    """The harness itself: a request Prism rejects is seen as a violation, else the checks that
    valid calls have none would prove nothing."""
    mark = prism.mark()
    response = httpx.get(
        f"{prism.base_url}/pets", params={"limit": 0}, headers={"X-API-Key": "k"}, timeout=10
    )
    assert response.status_code == 422 and "sl-violations" in response.headers, response.headers
    (request,) = prism.wait_for_requests(mark, 1)
    assert request.violations, str(request)


@MODES
@pytest.mark.representative(mode="legacy")  # (CI's second pass: tests/conftest.py)
def test_tools_list_is_the_contract(petstore: Generated, prism: Prism, mode: str, tmp_path: Path) -> None:
    async def body() -> Any:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY)
        async with session(petstore, mode, env, tmp_path) as client:
            assert client.protocol_version == CLIENT_MODES[mode][1]
            return await client.list_tools()

    listing = run_async(body)
    tools = {tool.name: tool for tool in listing.tools}
    assert [tool.name for tool in listing.tools] == list(tools), "duplicate tool names"
    assert set(tools) == set(EXPECTED_TOOLS)
    for name, (title, method, path) in EXPECTED_TOOLS.items():
        tool = tools[name]
        wire = tool.model_dump(by_alias=True, exclude_none=True)
        assert tool.title == title, dump(wire)
        assert tool.description and title in tool.description, dump(wire)
        assert method in tool.description and path in tool.description, dump(wire)
        hints = wire["annotations"]
        assert hints["title"] == title, dump(wire)
        assert hints["openWorldHint"] is True, dump(wire)
        for hint, value in EXPECTED_HINTS[method].items():
            assert hints.get(hint) is value, f"{name}: {hint} should be {value}: {dump(hints)}"
        schema = wire["inputSchema"]
        # listed without additionalProperties (docs/clients.md); enforced all the same (INVALID_CALLS)
        assert schema["type"] == "object" and "properties" in schema, dump(schema)
        assert "additionalProperties" not in schema, dump(schema)
        if "outputSchema" in wire:
            assert wire["outputSchema"]["type"] == "object", dump(wire["outputSchema"])
    assert set(tools["createPet"].input_schema["properties"]) == {"name", "tag"}
    assert tools["createPet"].input_schema.get("required") == ["name"]
    assert set(tools["replacePet"].input_schema["required"]) == {"petId", "name"}


@MODES
@pytest.mark.representative(mode="modern")
def test_valid_calls_pass_prism_validation(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    mark = prism.mark()

    async def body() -> list[Any]:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY)
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            return [await client.call_tool(name, args) for name, args, _ in VALID_CALLS]

    results = run_async(body)
    for (name, args, _), result in zip(VALID_CALLS, results, strict=True):
        wire = result.model_dump(by_alias=True, exclude_none=True)
        assert not result.is_error, f"{name}({args}) failed: {dump(wire)}"
        assert result.content, f"{name}: no content"
        if name in ("listPets", "createPet", "showPetById", "replacePet", "renamePet"):
            assert result.structured_content is not None, f"{name}: {dump(wire)}"
            assert result.structured_content == json.loads(text_of(result)), dump(wire)
        if name == "listPets":  # an array answer is wrapped as {"result": [...]}
            assert isinstance(result.structured_content["result"], list), dump(wire)
    assert text_of(results[-1]).strip(), "the text/plain health answer is empty"
    assert_no_violation(prism, mark, [expected for *_, expected in VALID_CALLS])


@MODES
@pytest.mark.representative(mode="legacy")
def test_invalid_arguments_are_tool_errors_and_never_sent(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    mark = prism.mark()

    async def body() -> tuple[list[Any], Any]:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY)
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            results = [await client.call_tool(name, args) for name, args, _ in INVALID_CALLS]
            # A valid call last: Prism logs in order, so anything sent before it shows up first.
            return results, await client.call_tool("get_health", {})

    results, sentinel = run_async(body)
    for (name, args, argument), result in zip(INVALID_CALLS, results, strict=True):
        wire = result.model_dump(by_alias=True, exclude_none=True)
        assert result.is_error, f"{name}({args}) should be a tool error: {dump(wire)}"
        assert argument in text_of(result), f"{name}({args}): the text must name {argument!r}"
        assert result.structured_content is None, dump(wire)
    unknown = text_of(results[[c[2] for c in INVALID_CALLS].index("colour")])
    assert "name" in unknown and "tag" in unknown, f"the valid arguments are not listed: {unknown}"
    assert not sentinel.is_error, dump(sentinel.model_dump())
    assert_no_violation(prism, mark, [("GET", "/health")])


@MODES
@pytest.mark.representative(mode="modern")
def test_unknown_tool_is_a_protocol_error(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    async def body() -> MCPError:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY)
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            with pytest.raises(MCPError) as raised:
                await client.call_tool("noSuchTool", {})
            return raised.value

    error = run_async(body)
    assert error.code == -32602, f"{error.code}: {error.message}"
    assert "noSuchTool" in error.message


@MODES
@pytest.mark.representative(mode="legacy")
def test_upstream_http_error_is_a_tool_error(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    """Prism answers with the declared 404 when asked (`Prefer: code=404`, set as a static header)."""
    mark = prism.mark()

    async def body() -> Any:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, HEADERS=json.dumps({"Prefer": "code=404"}))
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            return await client.call_tool("showPetById", {"petId": "gone"})

    result = run_async(body)
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert result.is_error, dump(wire)
    assert "404" in text_of(result), dump(wire)
    assert result.structured_content is None, dump(wire)
    assert_no_violation(prism, mark, [("GET", "/pets/gone")])


@MODES
@pytest.mark.representative(mode="modern")
def test_missing_credential_names_the_variable(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    mark = prism.mark()

    async def body() -> tuple[Any, Any]:
        async with session(petstore, mode, petstore.env(prism.base_url), tmp_path) as client:
            await client.list_tools()
            refused = await client.call_tool("listPets", {})
            return refused, await client.call_tool("get_health", {})  # security: [] → anonymous

    refused, anonymous = run_async(body)
    assert refused.is_error, dump(refused.model_dump())
    assert KEY_VAR in text_of(refused), text_of(refused)
    assert not anonymous.is_error, dump(anonymous.model_dump())
    assert_no_violation(prism, mark, [("GET", "/health")])


def _fail_echoing_headers(request: Recorded) -> Reply:
    """Answers 500 and echoes the request headers in the body (a careless API leaking the key)."""
    return Reply(status=500, body=json.dumps({"error": "boom", "echo": dict(request.headers)}).encode())


@pytest.fixture
def failing_api() -> Iterator[tuple[str, RecordingUpstream]]:
    upstream = RecordingUpstream(default=Reply(status=500)).start()
    upstream.routes["/"] = _fail_echoing_headers
    try:
        yield f"{upstream.url}/v1", upstream
    finally:
        upstream.stop()


@MODES
@pytest.mark.representative(mode="legacy")
def test_server_error_is_a_tool_error_without_the_credential(
    petstore: Generated, failing_api: tuple[str, RecordingUpstream], mode: str, tmp_path: Path
) -> None:
    base_url, upstream = failing_api

    async def body() -> Any:
        env = petstore.env(base_url, API_KEY_KEY=API_KEY)
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            return await client.call_tool("showPetById", {"petId": "rex-1"})

    result = run_async(body)
    wire = result.model_dump(by_alias=True, exclude_none=True)
    seen = [(request.method, request.target, dict(request.headers)) for request in upstream.requests]
    assert [(method, path) for method, path, _ in seen] == [("GET", "/v1/pets/rex-1")]
    headers = {key.lower(): value for key, value in seen[0][2].items()}
    assert headers.get("x-api-key") == API_KEY, "the apiKey header was not sent"
    assert result.is_error and "500" in text_of(result), dump(wire)
    assert result.structured_content is None, dump(wire)
    assert API_KEY not in json.dumps(wire), f"the credential leaked into the result: {dump(wire)}"


@MODES
@pytest.mark.representative(mode="modern")
def test_unreachable_api_is_a_tool_error(petstore: Generated, mode: str, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there

    async def body() -> Any:
        env = petstore.env(f"http://127.0.0.1:{port}", API_KEY_KEY=API_KEY, TIMEOUT="5")
        async with session(petstore, mode, env, tmp_path) as client:
            await client.list_tools()
            return await client.call_tool("listPets", {})

    result = run_async(body)
    assert result.is_error, dump(result.model_dump())
    assert f"127.0.0.1:{port}" in text_of(result), text_of(result)


@pytest.fixture(scope="module")
def http_server(
    petstore: Generated, prism: Prism, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    log = tmp_path_factory.mktemp("petstore-http") / "server.log"
    server = HttpServer(petstore, petstore.env(prism.base_url, API_KEY_KEY=API_KEY), log)
    try:
        yield server.start()
    finally:
        server.stop()


@MODES
@pytest.mark.representative(mode="legacy")
def test_streamable_http_transport(http_server: HttpServer, prism: Prism, mode: str) -> None:
    mark = prism.mark()

    async def body() -> tuple[Any, Any]:
        async with http_session(http_server.url, mode=CLIENT_MODES[mode][0]) as client:
            assert client.protocol_version == CLIENT_MODES[mode][1]
            listing = await client.list_tools()
            return listing, await client.call_tool("showPetById", {"petId": "rex-1"})

    listing, result = run_async(body)
    assert {tool.name for tool in listing.tools} == set(EXPECTED_TOOLS)
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert not result.is_error, dump(wire)
    assert result.structured_content == json.loads(text_of(result)), dump(wire)
    assert_no_violation(prism, mark, [("GET", "/pets/rex-1")])
