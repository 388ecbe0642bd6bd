"""Start-up narrowing: which tools a server offers from --toolsets/--tools/--exclude-tools/--read-only
and their {PREFIX}_ variables (settings.py parses them, runtime.py applies them); the tools left
out are neither listed nor callable; unknown names stop the start with the valid ones."""

from __future__ import annotations

from typing import Any

import mcp
import pytest

from openapi2mcp_runtime.discovery import views

from .conftest import Make, call, hooks_api, runtime, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

TOOLS = [
    ("listPets", "GET", "pets"),
    ("createPet", "POST", "pets"),
    ("getStore", "GET", "store"),
    ("placeOrder", "POST", "store"),
    ("getUser", "GET", "users"),
    ("deleteUser", "DELETE", "users"),
]


def narrowed_data(with_toolsets: bool = True) -> dict[str, Any]:
    """Six tools in three toolsets (`users` not a default one); or older data without toolsets."""
    data = tool_data(*(tool(name, method, f"/{name}") for name, method, _ in TOOLS))
    if with_toolsets:
        for name, _, toolset in TOOLS:
            data["routes"][name]["toolset"] = toolset
        data["toolsets"] = {
            name: {"count": 2, "default": name != "users", "description": ""}
            for name in ("pets", "store", "users")
        }
    return data


def user_hooks() -> Any:
    """hooks.py with two tools of its own: one declared read-only, one not."""
    hooks = hooks_api.Hooks()
    hooks.tool("peek", annotations={"readOnlyHint": True})(lambda arguments: "peeked")
    hooks.tool("poke")(lambda arguments: "poked")
    return hooks


def names(tools: Any) -> list[str]:
    return [wire["name"] for wire in tools.list_tools_result()["tools"]]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, ["listPets", "createPet", "getStore", "placeOrder", "peek", "poke"]),
        ({"T_TOOLSETS": "all"}, [name for name, _, _ in TOOLS] + ["peek", "poke"]),
        (
            {"T_TOOLSETS": " users , ,pets "},
            ["listPets", "createPet", "getUser", "deleteUser", "peek", "poke"],
        ),
        ({"T_TOOLSETS": "default,users"}, [name for name, _, _ in TOOLS] + ["peek", "poke"]),
        ({"T_TOOLSETS": "  "}, ["listPets", "createPet", "getStore", "placeOrder", "peek", "poke"]),
        ({"T_TOOLS": "getUser"}, ["getUser", "peek", "poke"]),
        (
            {"T_TOOLSETS": "store", "T_TOOLS": "getUser,listPets"},
            ["listPets", "getStore", "placeOrder", "getUser", "peek", "poke"],
        ),
        (
            {"T_TOOLSETS": "all", "T_EXCLUDE_TOOLS": "deleteUser,poke"},
            ["listPets", "createPet", "getStore", "placeOrder", "getUser", "peek"],
        ),
        ({"T_TOOLS": "getUser", "T_EXCLUDE_TOOLS": "getUser"}, ["peek", "poke"]),
        ({"T_READ_ONLY": "true"}, ["listPets", "getStore", "peek"]),
        (
            {"T_READ_ONLY": "1", "T_TOOLSETS": "all", "T_TOOLS": "deleteUser"},
            ["listPets", "getStore", "getUser", "peek"],
        ),
        ({"T_READ_ONLY": "off", "T_TOOLSETS": "users"}, ["getUser", "deleteUser", "peek", "poke"]),
    ],
)
async def test_the_selection_rules(make_runtime: Make, env: dict[str, str], expected: list[str]) -> None:
    assert names(make_runtime(narrowed_data(), env=env, hooks=user_hooks())) == expected


async def test_older_tool_data_without_toolsets_offers_every_tool_by_default(make_runtime: Make) -> None:
    every = [name for name, _, _ in TOOLS]
    assert names(make_runtime(narrowed_data(with_toolsets=False))) == every
    assert names(make_runtime(narrowed_data(with_toolsets=False), env={"T_TOOLSETS": "all,default"})) == every
    read_only = make_runtime(narrowed_data(with_toolsets=False), env={"T_READ_ONLY": "yes"})
    assert names(read_only) == ["listPets", "getStore", "getUser"]


def test_a_flag_wins_over_its_variable() -> None:
    env = {"T_BASE_URL": "http://127.0.0.1:9", "T_TOOLSETS": "pets", "T_TOOLS": "getUser", "T_READ_ONLY": "1"}
    flags = {"toolsets": "store", "tools": None, "exclude_tools": "", "read_only": False}
    narrowing = runtime.Settings.from_env(env, prefix="T", flags=flags).narrowing
    assert (narrowing.toolsets, narrowing.tools, narrowing.exclude_tools, narrowing.read_only) == (
        ("store",),
        ("getUser",),
        (),
        False,
    )
    assert narrowing.where == {
        "toolsets": "--toolsets",
        "tools": "T_TOOLS",
        "exclude_tools": "--exclude-tools",
    }
    data = narrowed_data()
    toolset_of = {name: route["toolset"] for name, route in data["routes"].items()}
    assert sorted(views.selected(data["toolsets"], data["tools"], toolset_of, narrowing)) == [
        "getStore",
        "getUser",
        "placeOrder",
    ]


async def test_a_tool_left_out_is_neither_listed_nor_callable(make_runtime: Make) -> None:
    tools = make_runtime(narrowed_data(), env={"T_READ_ONLY": "true"}, hooks=user_hooks())
    for name in ("createPet", "poke", "getUser"):
        with pytest.raises(mcp.MCPError) as raised:
            await call(tools, name, {})
        assert (raised.value.error.code, raised.value.error.message) == (-32602, f"Unknown tool: {name}")
        assert tools.input_schema(name) is None
    assert (await call(tools, "peek", {})).content[0].text == "peeked"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"T_TOOLSETS": "pets,nope,users,zilch"},
            "unknown toolset(s) in T_TOOLSETS: nope; zilch. Valid toolsets: all, default, pets, store, users",
        ),
        (  # a typo names its fix
            {"T_TOOLSETS": "pet"},
            "unknown toolset(s) in T_TOOLSETS: pet (did you mean pets?). Valid toolsets: all, default, pets,"
            " store, users",
        ),
        (
            {"T_TOOLS": "listPets,getPet"},
            "unknown tool(s) in T_TOOLS: getPet (did you mean createPet, getUser?). Valid tools: listPets,"
            " createPet, getStore, placeOrder, getUser, deleteUser, peek, poke",
        ),
        (
            {"T_EXCLUDE_TOOLS": "peek,boom"},
            "unknown tool(s) in T_EXCLUDE_TOOLS: boom. Valid tools: listPets, createPet, getStore,"
            " placeOrder, getUser, deleteUser, peek, poke",
        ),
        ({"T_READ_ONLY": "maybe"}, "T_READ_ONLY must be true or false (1/0, yes/no, on/off), got 'maybe'"),
    ],
)
async def test_an_unknown_name_stops_the_start(make_runtime: Make, env: dict[str, str], message: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        make_runtime(narrowed_data(), env=env, hooks=user_hooks())
    assert str(raised.value) == message


async def test_a_long_list_of_valid_names_is_cut_after_twenty(make_runtime: Make) -> None:
    data = tool_data(*(tool(f"get{i:02}", "GET", f"/r{i}") for i in range(25)))
    with pytest.raises(runtime.ConfigError) as raised:
        make_runtime(data, env={"T_TOOLS": "nothing-like-them"})
    shown = ", ".join(f"get{i:02}" for i in range(20))
    assert str(raised.value) == (
        f"unknown tool(s) in T_TOOLS: nothing-like-them. Valid tools: {shown}"
        " (and 5 more: the package README's Tools section lists them all)"
    )
    with pytest.raises(runtime.ConfigError) as raised:
        make_runtime(data, env={"T_TOOLS": "get24,get42"})  # the closest of all, not of the twenty shown
    assert str(raised.value).startswith(
        "unknown tool(s) in T_TOOLS: get42 (did you mean get24, get23, get22?). Valid tools: get00,"
    )
