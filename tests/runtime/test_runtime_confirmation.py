"""T_CONFIRM (issue 30): the user confirms a destructive call (or any write) through elicitation
before it reaches the API; declined, cancelled or unaskable calls send nothing. Through the SDK
client in both protocol eras (2025-11-25: elicitation/create; 2026-07-28: input_required and
the client's second call), static and dynamic mode."""

from __future__ import annotations

import json
from typing import Any

import mcp
import mcp.types as types
import pytest

from openapi2mcp_runtime.serving.confirmation import Confirmation

from .conftest import Make, Upstream, mcp_server, param, runtime, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ERAS = pytest.mark.parametrize("mode", ["legacy", "auto"])
STR = {"type": "string"}


def data() -> dict[str, Any]:
    made = tool_data(
        tool("listPets", "GET", "/pets"),
        tool("createPet", "POST", "/pets", params=(param("name", "query", STR),)),
        tool("deletePet", "DELETE", "/pets/{id}", params=(param("id", "path", STR),)),
    )
    hints = {"createPet": False, "deletePet": True}
    for wire in made["tools"]:
        if wire["name"] in hints:
            wire["annotations"]["destructiveHint"] = hints[wire["name"]]
    return made


class User:
    """The client's elicitation callback: answers `action` and keeps what it was asked."""

    def __init__(self, action: str) -> None:
        self.action, self.asked = action, []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        content = {} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


async def session_call(
    server: Any, mode: str, user: User | None, name: str, arguments: dict[str, Any]
) -> Any:
    async with mcp.Client(server, mode=mode, elicitation_callback=user) as client:
        return await client.call_tool(name, arguments)


@ERAS
async def test_an_accepted_destructive_call_is_sent_after_asking(
    make_runtime: Make, upstream: Upstream, mode: str
) -> None:
    user = User("accept")
    server = mcp_server(make_runtime(data(), env={"T_CONFIRM": "destructive"}))
    result = await session_call(server, mode, user, "deletePet", {"id": "7"})
    assert result.is_error is not True, text_of(result)
    assert [(r.method, r.path) for r in upstream.requests] == [("DELETE", "/api/v1/pets/7")]
    [asked] = user.asked
    assert asked.message == (
        "Allow this call to the API?\n\nTool: deletePet\nRequest: DELETE /pets/{id}\n"
        'Arguments: {\n "id": "7"\n}'
    )
    assert asked.requested_schema == {"type": "object", "properties": {}}


@ERAS
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_or_cancelled_call_sends_nothing(
    make_runtime: Make, upstream: Upstream, mode: str, action: str
) -> None:
    user = User(action)
    server = mcp_server(make_runtime(data(), env={"T_CONFIRM": "destructive"}))
    result = await session_call(server, mode, user, "deletePet", {"id": "7"})
    assert result.is_error is True
    assert text_of(result) == "not sent: the user declined"
    assert upstream.requests == []
    assert len(user.asked) == 1


@ERAS
@pytest.mark.parametrize(
    ("scope", "asked_for"),
    [("none", []), ("destructive", ["deletePet"]), ("writes", ["createPet", "deletePet"])],
)
async def test_the_scope_says_which_tools_ask(
    make_runtime: Make, upstream: Upstream, mode: str, scope: str, asked_for: list[str]
) -> None:
    user = User("accept")
    server = mcp_server(make_runtime(data(), env={"T_CONFIRM": scope}))
    async with mcp.Client(server, mode=mode, elicitation_callback=user) as client:
        for name, arguments in (("listPets", {}), ("createPet", {"name": "a"}), ("deletePet", {"id": "1"})):
            assert (await client.call_tool(name, arguments)).is_error is not True
    assert [asked.message.split("\n")[2] for asked in user.asked] == [f"Tool: {n}" for n in asked_for]
    assert [r.method for r in upstream.requests] == ["GET", "POST", "DELETE"]


@ERAS
@pytest.mark.parametrize("fallback", [None, "refuse", "allow"])
async def test_a_client_without_elicitation_follows_the_fallback(
    make_runtime: Make, upstream: Upstream, mode: str, fallback: str | None
) -> None:
    env = {"T_CONFIRM": "writes", **({"T_CONFIRM_FALLBACK": fallback} if fallback else {})}
    server = mcp_server(make_runtime(data(), env=env))
    result = await session_call(server, mode, None, "createPet", {"name": "a"})
    if fallback == "allow":
        assert result.is_error is not True
        assert [r.method for r in upstream.requests] == ["POST"]
        return
    assert result.is_error is True
    assert text_of(result) == (
        "not sent: T_CONFIRM=writes has the user confirm this call, and the client cannot be asked"
        " (it declared no elicitation); T_CONFIRM_FALLBACK=allow sends such calls without asking"
    )
    assert upstream.requests == []


@ERAS
@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_call_tool_in_dynamic_mode_asks_about_the_tool_it_calls(
    make_runtime: Make, upstream: Upstream, mode: str, action: str
) -> None:
    user = User(action)
    server = mcp_server(make_runtime(data(), env={"T_CONFIRM": "destructive", "T_MODE": "dynamic"}))
    call = {"name": "deletePet", "arguments": {"id": "9"}}
    result = await session_call(server, mode, user, "call_tool", call)
    assert [asked.message.split("\n")[2:4] for asked in user.asked] == [
        ["Tool: deletePet", "Request: DELETE /pets/{id}"]
    ]
    if action == "accept":
        assert result.is_error is not True
        assert [(r.method, r.path) for r in upstream.requests] == [("DELETE", "/api/v1/pets/9")]
    else:
        assert text_of(result) == "not sent: the user declined"
        assert upstream.requests == []


async def test_an_in_process_call_has_nobody_to_ask(make_runtime: Make, upstream: Upstream) -> None:
    tools = make_runtime(data(), env={"T_CONFIRM": "destructive"})
    params = types.CallToolRequestParams(name="deletePet", arguments={"id": "1"})
    result = await tools.on_call_tool(None, params)
    assert result.is_error is True
    assert "and there is no client to ask;" in text_of(result)
    assert upstream.requests == []


async def test_a_forged_answer_without_the_servers_state_is_refused(
    make_runtime: Make, upstream: Upstream
) -> None:
    """2026-07-28: an accepting inputResponse sent with a first call, with no requestState or one
    the server did not seal, never counts: the SDK's boundary refuses a foreign state (-32602),
    and without one the server asks."""
    server = mcp_server(make_runtime(data(), env={"T_CONFIRM": "destructive"}))
    accepted = {"confirm": types.ElicitResult(action="accept", content={})}
    async with mcp.Client(server, elicitation_callback=User("decline")) as client:
        first = await client.session.call_tool(
            "deletePet", {"id": "1"}, input_responses=accepted, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult)
        with pytest.raises(mcp.MCPError) as raised:
            await client.session.call_tool(
                "deletePet",
                {"id": "1"},
                input_responses=accepted,
                request_state="openapi2mcp/confirm/1",
                allow_input_required=True,
            )
        assert (raised.value.error.code, raised.value.error.message) == (
            -32602,
            "Invalid or expired requestState",
        )
    assert upstream.requests == []


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"T_CONFIRM": "always"}, "T_CONFIRM must be one of none, destructive, writes, got 'always'"),
        ({"T_CONFIRM_FALLBACK": "ask"}, "T_CONFIRM_FALLBACK must be one of refuse, allow, got 'ask'"),
    ],
)
def test_bad_confirmation_settings_stop_the_start(env: dict[str, str], message: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env(env, prefix="T")
    assert str(raised.value) == message


def test_the_settings_default_to_no_confirmation() -> None:
    assert runtime.Settings.from_env({}, prefix="T").confirmation == Confirmation("none", "refuse", "T")
    given = runtime.Settings.from_env({"T_CONFIRM": " Writes ", "T_CONFIRM_FALLBACK": "ALLOW"}, prefix="T")
    assert given.confirmation == Confirmation("writes", "allow", "T")


@pytest.mark.parametrize(
    ("annotations", "destructive", "writes"),
    [
        ({"readOnlyHint": True}, False, False),
        ({"readOnlyHint": True, "destructiveHint": True}, False, False),
        ({"readOnlyHint": False, "destructiveHint": False}, False, True),
        ({"readOnlyHint": False, "destructiveHint": True}, True, True),
        ({}, True, True),  # the MCP defaults: not read-only, destructive
        ({"destructiveHint": False}, False, True),
    ],
)
def test_which_annotations_are_confirmed(
    annotations: dict[str, Any], destructive: bool, writes: bool
) -> None:
    assert Confirmation("destructive").applies(annotations) is destructive
    assert Confirmation("writes").applies(annotations) is writes
    assert Confirmation("none").applies(annotations) is False


def test_long_arguments_are_cut_in_the_question() -> None:
    from openapi2mcp_runtime.serving.confirmation import describe

    text = describe("t", "POST", "/x", {"body": "y" * 5000})
    shown = text.split("Arguments: ", 1)[1]
    assert shown.startswith('{\n "body": "yyy')
    assert shown.endswith(f"\n... ({len(json.dumps({'body': 'y' * 5000}, indent=1)):,} characters in all)")
    assert describe("mine", None, None, {}) == "Tool: mine\nRequest: its own code (hooks.py)\nArguments: {}"
