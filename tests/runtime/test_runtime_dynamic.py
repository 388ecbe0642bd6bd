"""The dynamic mode and the per-request views in the runtime (issue 15): when `auto` switches, the
three meta-tools as listed, describe_tools' whole schemas, call_tool giving exactly the static
tool's result, the messages for unknown names, the settings' errors, and the URL/header parsing."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from benchmarks.code_agent import not_described
from openapi2mcp_runtime.discovery import search, views

from .conftest import Upstream, call, runtime, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
META = ["search_tools", "describe_tools", "call_tool"]
LIMIT = {"arg": "limit", "name": "limit", "in": "query", "required": False, "style": "form", "explode": True}
TOOLS = [("listPets", "GET", "pets"), ("createPet", "POST", "pets"), ("getStore", "GET", "store")]
WHOLE = {"type": "object", "properties": {"limit": {"type": "integer", "description": "All of it."}}}


def data() -> dict[str, Any]:
    limit = {**LIMIT, "schema": {"type": "integer", "minimum": 1}}
    made = tool_data(*(tool(n, m, f"/{n}", params=(limit,) if n == "listPets" else ()) for n, m, _ in TOOLS))
    for name, _, toolset in TOOLS:
        made["routes"][name]["toolset"] = toolset
    made["toolsets"] = {
        "pets": {"count": 2, "default": True, "description": "Everything about your pets"},
        "store": {"count": 1, "default": True, "description": ""},
    }
    return made


Make = Callable[..., Any]


@pytest.fixture
async def make(upstream: Upstream, tmp_path: Path) -> AsyncIterator[Make]:
    """make(**env) → a ToolRuntime on `data()` whose folder has a tool_details.json."""
    (tmp_path / "tool_details.json").write_text(
        json.dumps({"format": 1, "tools": {"listPets": {"inputSchema": WHOLE, "closed": [""]}}})
    )
    made: list[Any] = []

    def build(**env: str) -> Any:
        environment = {"T_BASE_URL": upstream.url + "/api/v1", "T_TIMEOUT": "5", **env}
        settings = runtime.Settings.from_env(environment, prefix="T")
        made.append(runtime.ToolRuntime(data(), settings, None, tmp_path))
        return made[-1]

    yield build
    for tools in made:
        await tools.aclose()


def listed(tools: Any) -> list[str]:
    return [wire["name"] for wire in tools.list_tools_result()["tools"]]


def static_tokens() -> int:
    sizes = [len(json.dumps(wire, separators=(",", ":")).encode()) for wire in data()["tools"]]
    return math.ceil((len('{"tools":[]}') + sum(sizes) + len(sizes) - 1) / 4)


async def test_auto_is_static_until_the_list_passes_max_list_tokens(make: Make) -> None:
    tokens = static_tokens()
    assert listed(make()) == ["listPets", "createPet", "getStore"]
    assert listed(make(T_MAX_LIST_TOKENS=str(tokens))) == ["listPets", "createPet", "getStore"]
    assert listed(make(T_MAX_LIST_TOKENS=str(tokens - 1))) == META
    assert listed(make(T_MODE="dynamic")) == META
    assert listed(make(T_MODE="static", T_MAX_LIST_TOKENS="1")) == ["listPets", "createPet", "getStore"]


async def test_the_meta_tools_as_listed(make: Make) -> None:
    search, describe, call_tool = make(T_MODE="dynamic").list_tools_result()["tools"]
    assert search["description"] == (
        "Find this API's tools (3) by what you want to do; then describe_tools for their inputs and"
        " call_tool to run one. Toolsets (pass one as `toolset` to search or list only it):"
        " pets (2: Everything about your pets); store (1)."
    )
    assert search["inputSchema"]["required"] == ["query"]
    assert search["annotations"] == {
        "title": "Search tools",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert describe["annotations"]["readOnlyHint"] is True
    assert call_tool["annotations"] == {
        "title": "Call tool",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert "outputSchema" not in call_tool  # the result is the called tool's own
    read_only = make(T_MODE="dynamic", T_READ_ONLY="yes").list_tools_result()["tools"]
    assert read_only[2]["annotations"]["readOnlyHint"] is True
    assert "(2)" in read_only[0]["description"] and "Read-only" in read_only[0]["description"]


def listed_with_toolsets(tmp_path: Path, names: list[str], description: str) -> list[dict[str, Any]]:
    """The dynamic tools/list of an API with one tool in each of the toolsets `names`."""
    made = tool_data(*(tool(f"op{number}", "GET", f"/t{number}") for number in range(len(names))))
    made["toolsets"] = {name: {"count": 1, "default": True, "description": description} for name in names}
    for number, name in enumerate(names):
        made["routes"][f"op{number}"]["toolset"] = name
    environment = {"T_BASE_URL": "http://127.0.0.1:9", "T_MODE": "dynamic"}
    settings = runtime.Settings.from_env(environment, prefix="T")
    listed: list[dict[str, Any]] = runtime.ToolRuntime(made, settings, None, tmp_path).list_tools_result()[
        "tools"
    ]
    return listed


def overview_of(listed: list[dict[str, Any]]) -> str:
    return str(listed[0]["description"]).split("only it): ", 1)[1]


def sent_bytes(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


JAPANESE = "ペットに関するすべての操作を一覧表示し、作成し、更新し、削除します" + '"' * 10


def test_the_toolsets_are_described_only_while_every_one_fits(tmp_path: Path) -> None:
    """Ten toolsets described in Japanese (3 UTF-8 bytes a character, a quote 2 in JSON): 550
    characters, but over 1,200 bytes as sent, so the overview names each with its count instead."""
    names = [f"set{number}" for number in range(10)]
    assert overview_of(listed_with_toolsets(tmp_path, names[:5], JAPANESE)).count("ペット") == 5
    overview = overview_of(listed_with_toolsets(tmp_path, names, JAPANESE))
    assert overview == "; ".join(f"{name} (1)" for name in names) + "."


def test_the_toolsets_overview_is_measured_in_the_bytes_sent(tmp_path: Path) -> None:
    """400 toolsets named in Japanese: the overview names the largest that fit in 3,000 bytes (not
    characters), so the list stays within issue 15's 8,000."""
    names = [f"ペット{number:03}" for number in range(400)]
    listed = listed_with_toolsets(tmp_path, names, JAPANESE)
    overview = overview_of(listed)
    shown = overview.split("; and ", 1)[0].split("; ")
    assert shown == [f"{name} (1)" for name in names[: len(shown)]]
    budget = 3_000 - sent_bytes(listed[0]["description"].split(" Toolsets")[0])
    assert sent_bytes("; ".join(shown)) <= budget < sent_bytes("; ".join(shown[:1] * (len(shown) + 1)))
    assert overview.endswith(f"; and {400 - len(shown)} smaller toolsets.")
    assert len(json.dumps({"tools": listed}, separators=(",", ":"), ensure_ascii=False).encode()) <= 8_000


async def test_search_tools_by_toolset_and_by_name(make: Make, tmp_path: Path) -> None:
    documents = [(name, toolset, {"name": name, "path": f"/{name}"}) for name, _, toolset in TOOLS]
    index = search.index_text(search.build_index(documents))
    (tmp_path / "search_index.json").write_text(index, encoding="utf-8")
    tools = make(T_MODE="dynamic")
    found = await call(tools, "search_tools", {"query": "createPet"})  # a name splits into its words
    assert [tool["name"] for tool in found.structured_content["tools"]][:1] == ["createPet"]
    only = await call(tools, "search_tools", {"query": "get", "toolset": "store"})
    assert [tool["name"] for tool in only.structured_content["tools"]] == ["getStore"]
    browsed = await call(tools, "search_tools", {"query": "", "toolset": "pets", "limit": 1})
    assert browsed.structured_content["total"] == 2  # an empty query lists, in the API's order
    assert [tool["name"] for tool in browsed.structured_content["tools"]] == ["listPets"]
    typo = await call(tools, "search_tools", {"query": "pets", "toolset": "pet"})
    assert typo.is_error
    assert typo.content[0].text == "Unknown toolset 'pet' (did you mean pets?); toolsets: pets, store"


async def test_a_tool_found_says_its_title_once_and_only_when_it_adds_to_the_line(tmp_path: Path) -> None:
    """The summary is usually the title, the description's first line and the annotations' title:
    a tool found gives it once, as its description."""
    made = data()
    listed, created = made["tools"][0], made["tools"][1]
    listed.update(title="List pets", description="List pets\n\nAll of them, a page at a time.")
    created.update(title="Add a pet", description="POST /pets, with the pet as the body")
    listed["annotations"]["title"], created["annotations"]["title"] = "List pets", "Add a pet"
    documents = [(name, toolset, {"name": name, "path": f"/{name}"}) for name, _, toolset in TOOLS]
    (tmp_path / "search_index.json").write_text(search.index_text(search.build_index(documents)), "utf-8")
    environment = {"T_BASE_URL": "http://127.0.0.1:9", "T_MODE": "dynamic"}
    tools = runtime.ToolRuntime(made, runtime.Settings.from_env(environment, prefix="T"), None, tmp_path)
    try:
        found = await call(tools, "search_tools", {"query": "", "toolset": "pets"})
    finally:
        await tools.aclose()
    assert found.structured_content["tools"] == [
        {
            "name": "listPets",
            "description": "List pets",
            "toolset": "pets",
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "createPet",
            "title": "Add a pet",
            "description": "POST /pets, with the pet as the body",
            "toolset": "pets",
            "annotations": {"readOnlyHint": False},
        },
    ]


async def test_describe_tools_gives_whole_schemas_and_names_the_closest(make: Make) -> None:
    tools = make(T_MODE="dynamic")
    described = await call(tools, "describe_tools", {"names": ["listPets", "getStore", "listPets"]})
    static = {wire["name"]: wire for wire in data()["tools"]}
    assert described.structured_content == {
        "tools": [{**static["listPets"], "inputSchema": WHOLE}, static["getStore"]]
    }
    assert json.loads(described.content[0].text) == described.structured_content
    unknown = await call(tools, "describe_tools", {"names": ["listPet", "zzz"]})
    assert unknown.is_error
    assert unknown.content[0].text == (
        "Unknown tool(s): 'listPet' (did you mean listPets?); 'zzz'. Find tools with search_tools."
    )
    empty = await call(tools, "describe_tools", {"names": []})
    assert empty.is_error and "- $.names: [] should be non-empty (rule: minItems)" in empty.content[0].text


async def test_describe_tools_keeps_within_max_result_chars_by_whole_tools(make: Make) -> None:
    """As many whole tools as fit, in the order asked, then the others named with a note."""
    names = ["listPets", "getStore", "createPet"]
    whole = (await call(make(T_MODE="dynamic"), "describe_tools", {"names": names})).structured_content
    assert [tool["name"] for tool in whole["tools"]] == names and len(whole) == 1

    def paged(kept: int, limit: int) -> dict[str, Any]:
        note = f"Not described, to stay within T_MAX_RESULT_CHARS ({limit:,} characters):"
        return {
            "tools": whole["tools"][:kept],
            "not_described": names[kept:],
            "note": f"{note} ask describe_tools for them in another call.",
        }

    two = len(json.dumps(paged(2, 100), ensure_ascii=False))
    assert 100 <= two < min(len(json.dumps(whole)), 1000)  # (as many digits as 100)
    for limit, kept in ((two, 2), (two - 1, 1)):
        described = await call(
            make(T_MODE="dynamic", T_MAX_RESULT_CHARS=str(limit)), "describe_tools", {"names": names}
        )
        assert described.structured_content == paged(kept, limit)
        assert described.content[0].text == json.dumps(paged(kept, limit), ensure_ascii=False)
        assert not_described(described) == names[kept:]  # as the benchmark's agent reads it


async def test_a_tool_whose_whole_schemas_alone_pass_the_limit_comes_as_listed(make: Make) -> None:
    """Named in `fitted`, with a note; a tool whose schemas the listing did not cut comes whole
    whatever its size (it is what tools/list gives too)."""
    static = {wire["name"]: wire for wire in data()["tools"]}
    whole = {**static["listPets"], "inputSchema": WHOLE}
    limit = len(json.dumps({"tools": [whole]}, ensure_ascii=False)) - 1
    over = f"their whole schemas being over T_MAX_RESULT_CHARS ({limit:,} characters)."
    described = await call(
        make(T_MODE="dynamic", T_MAX_RESULT_CHARS=str(limit)), "describe_tools", {"names": ["listPets"]}
    )
    assert described.structured_content == {
        "tools": [static["listPets"]],
        "fitted": ["listPets"],
        "note": f"Fitted as tools/list gives them, {over}",
    }
    tiny = make(T_MODE="dynamic", T_MAX_RESULT_CHARS="50")
    alone = await call(tiny, "describe_tools", {"names": ["getStore"]})
    assert alone.structured_content == {"tools": [static["getStore"]]}
    both = await call(tiny, "describe_tools", {"names": ["listPets", "getStore"]})
    assert both.structured_content == {
        "tools": [static["listPets"]],
        "fitted": ["listPets"],
        "not_described": ["getStore"],
        "note": "Fitted as tools/list gives them, their whole schemas being over T_MAX_RESULT_CHARS"
        " (50 characters). Not described, to stay within T_MAX_RESULT_CHARS (50 characters): ask"
        " describe_tools for them in another call.",
    }


async def test_describe_tools_lists_the_whole_schema_closed_where_enforced_when_exact(make: Make) -> None:
    tools = make(T_MODE="dynamic", T_LISTED_SCHEMAS="exact")
    described = await call(tools, "describe_tools", {"names": ["listPets"]})
    static = {wire["name"]: wire for wire in data()["tools"]}
    closed = {**WHOLE, "additionalProperties": False}
    assert described.structured_content == {"tools": [{**static["listPets"], "inputSchema": closed}]}


async def test_call_tool_gives_exactly_the_static_tools_result(make: Make, upstream: Upstream) -> None:
    static, dynamic = make(T_MODE="static"), make(T_MODE="dynamic")
    for arguments in ({"limit": 3}, {"limit": 0}, {"limit": 3, "colour": "red"}):
        direct = await call(static, "listPets", arguments)
        through = await call(dynamic, "call_tool", {"name": "listPets", "arguments": arguments})
        assert through.model_dump() == direct.model_dump()
    assert [request.target for request in upstream.requests] == ["/api/v1/listPets?limit=3"] * 2


async def test_call_tool_refuses_what_the_view_does_not_offer(make: Make, upstream: Upstream) -> None:
    tools = make(T_MODE="dynamic", T_READ_ONLY="on", T_EXCLUDE_TOOLS="getStore")
    results = [
        await call(tools, "call_tool", {"name": name, "arguments": {}})
        for name in ("createPet", "getStore", "listPet")
    ]
    assert [(r.is_error, r.content[0].text) for r in results] == [
        (True, "Tool 'createPet' may change data and this server is read-only: nothing was sent to the API."),
        (
            True,
            "Tool 'getStore' is not offered here (toolsets or tools narrow this server): nothing was sent.",
        ),
        (True, "Unknown tool(s): 'listPet' (did you mean listPets?). Find tools with search_tools."),
    ]
    assert upstream.requests == []


async def test_meta_tools_are_unknown_in_static_mode(make: Make) -> None:
    import mcp

    with pytest.raises(mcp.MCPError) as raised:
        await call(make(T_MODE="static"), "search_tools", {"query": "pets"})
    assert raised.value.error.message == "Unknown tool: search_tools"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"T_MODE": "fast"}, "T_MODE must be one of auto, static, dynamic, code, got 'fast'"),
        (
            {"T_MAX_LIST_TOKENS": "many"},
            "T_MAX_LIST_TOKENS must be a whole number of tokens greater than 0, got 'many'",
        ),
        (
            {"T_DYNAMIC_TOOLSETS": "maybe"},
            "T_DYNAMIC_TOOLSETS must be true or false (1/0, yes/no, on/off), got 'maybe'",
        ),
        (
            {"T_DYNAMIC_TOOLSETS": "1", "T_MODE": "dynamic"},
            "--dynamic-toolsets lists the enabled toolsets' tools: it cannot be combined with --mode dynamic"
            " (which lists only search_tools, describe_tools and call_tool)",
        ),
    ],
)
def test_bad_discovery_settings_stop_the_start(env: dict[str, str], message: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env({"T_BASE_URL": "http://h", **env}, prefix="T")
    assert str(raised.value) == message


def test_a_flag_wins_over_the_mode_variable() -> None:
    flags = {"mode": "static", "dynamic_toolsets": False}
    settings = runtime.Settings.from_env({"T_BASE_URL": "http://h", "T_MODE": "x"}, prefix="T", flags=flags)
    assert (settings.discovery.mode, settings.discovery.dynamic_toolsets) == ("static", False)
    packaged = runtime.Settings.from_env({"T_BASE_URL": "http://h"}, prefix="T", default_mode="dynamic")
    assert packaged.discovery.mode == "dynamic"


@pytest.mark.parametrize(
    ("path", "toolsets", "read_only"),
    [
        ("/mcp", None, None),
        ("/mcp/", None, None),
        ("/mcp/readonly", None, True),
        ("/mcp/x/pets", ("pets",), False),
        ("/mcp/x/pets,store/readonly", ("pets", "store"), True),
    ],
)
def test_urls_that_narrow(path: str, toolsets: tuple[str, ...] | None, read_only: bool | None) -> None:
    narrowing = views.from_path(path, "/mcp")
    if read_only is None:
        assert narrowing is None
    else:
        assert (narrowing.toolsets, narrowing.read_only) == (toolsets, read_only)


@pytest.mark.parametrize(
    "path",
    ["/mcp/x", "/mcp/x/", "/mcp/x/,", "/mcp/x/ , /readonly", "/mcp/y/pets", "/mcp/x/a/b", "/mcp/readonly/x"],
)
def test_other_urls_are_not_found(path: str) -> None:
    with pytest.raises(ValueError):
        views.from_path(path, "/mcp")


async def test_a_request_narrows_and_never_widens(make: Make) -> None:
    tools = make(T_TOOLSETS="pets")
    headers = views.from_headers({"x-mcp-tools": "listPets, createPet", "x-mcp-readonly": "1"})
    view = tools.resolve((headers,))
    assert (sorted(view.names), view.read_only, view.dynamic) == (["listPets"], True, False)
    for header, value in (("x-mcp-toolsets", "store"), ("x-mcp-tools", "getStore")):
        with pytest.raises(runtime.ConfigError) as raised:
            tools.resolve((views.from_headers({header: value}),))
        name = "X-MCP-Toolsets" if header == "x-mcp-toolsets" else "X-MCP-Tools"
        valid = "all, default, pets" if header == "x-mcp-toolsets" else "listPets, createPet"
        what = "toolset" if header == "x-mcp-toolsets" else "tool"
        assert str(raised.value) == f"unknown {what}(s) in header {name}: {value}. Valid {what}s: {valid}"
    assert views.from_headers({"accept": "*/*"}) is None
    with pytest.raises(runtime.ConfigError, match="header X-MCP-Readonly must be true or false"):
        views.from_headers({"x-mcp-readonly": "please"})


@pytest.mark.parametrize("value", ["maybe", "", " "])
def test_an_empty_readonly_header_is_refused_as_an_unknown_value_is(value: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        views.from_headers({"x-mcp-readonly": value})
    assert str(raised.value) == (
        f"header X-MCP-Readonly must be true or false (1/0, yes/no, on/off), got {value!r}"
    )


@pytest.mark.parametrize(
    ("header", "what"),
    [("X-MCP-Toolsets", "toolsets"), ("X-MCP-Tools", "tools"), ("X-MCP-Exclude-Tools", "tools")],
)
@pytest.mark.parametrize("value", ["", ",", " , "])
def test_a_list_header_naming_nothing_is_refused(header: str, what: str, value: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        views.from_headers({header.lower(): value})
    assert str(raised.value) == (
        f"header {header} names no {what}, got {value!r}: give them comma-separated, or leave the header out"
    )


async def test_enable_toolsets_needs_a_session(make: Make) -> None:
    tools = make(T_DYNAMIC_TOOLSETS="true", T_TOOLSETS="store")
    assert listed(tools) == ["getStore", "list_toolsets", "enable_toolsets"]

    class Request:  # an HTTP request of the 2026-07-28 protocol: no Mcp-Session-Id
        def __init__(self) -> None:
            self.headers: dict[str, str] = {}
            self.scope: dict[str, Any] = {}

    class Ctx:
        request = Request()

    params = mcp_types.CallToolRequestParams(name="enable_toolsets", arguments={"toolsets": ["pets"]})
    refused = await tools.on_call_tool(Ctx(), params)
    assert refused.is_error and refused.content[0].text.startswith("This connection has no session")
    enabled = await call(tools, "enable_toolsets", {"toolsets": ["pets", "nope"]})
    assert enabled.is_error and enabled.content[0].text == "Unknown toolset(s): nope. Toolsets: pets, store"
    typo = await call(tools, "enable_toolsets", {"toolsets": ["pet", "stores"]})
    assert typo.content[0].text == (
        "Unknown toolset(s): pet (did you mean pets?); stores (did you mean store?). Toolsets: pets, store"
    )


async def test_dynamic_toolsets_check_the_toolsets_named_at_start_up(make: Make) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        make(T_DYNAMIC_TOOLSETS="true", T_TOOLSETS="pets,nope")
    assert (
        str(raised.value)
        == "unknown toolset(s) in T_TOOLSETS: nope. Valid toolsets: all, default, pets, store"
    )
    every = make(T_DYNAMIC_TOOLSETS="true", T_TOOLSETS="all")
    assert listed(every) == ["listPets", "createPet", "getStore", "list_toolsets", "enable_toolsets"]
