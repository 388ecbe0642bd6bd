"""--mode code (issue 31): search_tools, describe_tools with Python stubs, and run_code, whose
program runs in pydantic-monty with `import api`. Every inner call goes the way of a tool call
(validation, narrowing, read-only, confirmation, audit); programs are type-checked before
anything is sent; each limit ends a runaway program with isError naming it, and the server keeps
serving. Against a recording upstream, through the runtime's handlers and the SDK client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from benchmarks.code_agent import not_described
from openapi2mcp_runtime import settings as runtime_settings
from openapi2mcp_runtime import tool_runtime as runtime
from openapi2mcp_runtime.discovery import search
from openapi2mcp_runtime.hooks.api import Hooks
from openapi2mcp_runtime.settings import ConfigError

from .conftest import Make, Recorded, Reply, Upstream, call, mcp_server, param, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
STR, INT = {"type": "string"}, {"type": "integer"}
PET = {
    "type": "object",
    "properties": {"id": INT, "name": STR, "tag": STR},
    "required": ["id", "name"],
}
PETS = [{"id": n, "name": f"pet{n}", "tag": "dog" if n % 2 else "cat"} for n in range(1, 7)]


def data() -> dict[str, Any]:
    listed = {"type": "object", "properties": {"result": {"type": "array", "items": PET}}}
    made = tool_data(
        tool(
            "listPets",
            "GET",
            "/pets",
            params=(param("limit", "query", INT),),
            output_schema=listed,
            wrapped=True,
        ),
        tool(
            "getPet",
            "GET",
            "/pets/{id}",
            params=(param("id", "path", INT, required=True),),
            output_schema=PET,
        ),
        tool("deletePet", "DELETE", "/pets/{id}", params=(param("id", "path", INT, required=True),)),
        tool("traced", "GET", "/traced", params=(param("X-Request-Id", "header", STR, required=True),)),
    )
    for wire in made["tools"]:
        if wire["name"] == "deletePet":
            wire["annotations"].update(readOnlyHint=False, destructiveHint=True)
    return made


def answering(request: Recorded) -> Reply:
    """The pets API: the list, one pet, 404 for an unknown one, 204 for a delete."""
    if request.method == "DELETE":
        return Reply(204, b"")
    if request.path == "/api/v1/pets":
        return Reply(200, json.dumps(PETS).encode())
    if request.path == "/api/v1/traced":
        return Reply(200, b"{}")
    number = request.path.rsplit("/", 1)[-1]
    found = [pet for pet in PETS if str(pet["id"]) == number]
    if found:
        return Reply(200, json.dumps(found[0]).encode())
    return Reply(404, b'{"message": "no such pet"}')


@pytest.fixture
def code(make_runtime: Make, upstream: Upstream) -> Make:
    """make(**env) → a code-mode runtime against the pets API."""
    upstream.responder = answering

    def make(**env: str) -> Any:
        return make_runtime(data(), env={"T_MODE": "code", **env})

    return make


async def run(tools: Any, program: str) -> Any:
    return await call(tools, "run_code", {"code": program})


def names(result: Any) -> list[str]:
    return [wire["name"] for wire in result["tools"]]


async def test_code_mode_lists_search_describe_and_run_code(code: Make) -> None:
    listed = code().list_tools_result()["tools"]
    assert names({"tools": listed}) == ["search_tools", "describe_tools", "run_code"]
    run_code = listed[2]
    assert run_code["inputSchema"]["required"] == ["code"]
    assert run_code["annotations"]["readOnlyHint"] is False
    assert "Limits: 30 s, 50 API calls." in run_code["description"]
    assert "run_code" in listed[0]["description"]
    read_only = code(T_READ_ONLY="yes").list_tools_result()["tools"]
    assert read_only[2]["annotations"]["readOnlyHint"] is True


async def test_search_tools_gives_a_line_a_tool_found_then_how_many(
    upstream: Upstream, tmp_path: Path
) -> None:
    """Text for the model, no structured content: a tool's name, its function only when renamed in
    Python (else it is api.<name>), its one line and toolset; then how many were found."""
    made = data()
    wire, made["routes"]["list-toys"] = tool("list-toys", "GET", "/toys")
    made["tools"].append(wire)
    for route in made["routes"].values():
        route["toolset"] = "pets"
    made["toolsets"] = {"pets": {"count": len(made["tools"]), "default": True}}
    documents = [(wire["name"], "pets", {"name": wire["name"], "path": "/pets"}) for wire in made["tools"]]
    (tmp_path / "search_index.json").write_text(search.index_text(search.build_index(documents)))
    env = {"T_MODE": "code", "T_BASE_URL": upstream.url}
    tools = runtime.ToolRuntime(made, runtime.Settings.from_env(env, prefix="T"), None, tmp_path)
    try:
        one = await call(tools, "search_tools", {"query": "deletePet", "limit": 1})
        renamed = await call(tools, "search_tools", {"query": "list-toys", "limit": 1})
        every = await call(tools, "search_tools", {"query": "", "limit": 50})
        listed = tools.list_tools_result()["tools"][0]
    finally:
        await tools.aclose()
    assert (one.structured_content, text_of(one)) == (
        None,
        "deletePet: DELETE /pets/{id} [pets]\n1 shown of 5 found",
    )
    assert text_of(renamed).split("\n")[0] == "list-toys (api.list_toys): GET /toys [pets]"
    assert text_of(every).split("\n")[-1] == "5 found"
    assert "outputSchema" not in listed


async def test_describe_tools_answers_the_tools_as_python_each_type_once(code: Make) -> None:
    """The stubs as one text: a TypedDict the same as one written before is an alias of it; each
    function after a comment with its tool's hints that hold. Code, not JSON: no structured content."""
    tools = code()
    [describe] = [wire for wire in tools.list_tools_result()["tools"] if wire["name"] == "describe_tools"]
    assert "outputSchema" not in describe
    result = await call(tools, "describe_tools", {"names": ["listPets", "getPet", "deletePet", "listPets"]})
    assert result.structured_content is None and result.is_error is not True
    assert [block.type for block in result.content] == ["text"]
    assert text_of(result) == (
        "class ListPetsResultItem(TypedDict):\n    id: int\n    name: str\n    tag: NotRequired[str]\n\n"
        "# readOnlyHint\ndef listPets(*, limit: int = ...) -> list[ListPetsResultItem]:\n"
        '    """GET /pets"""\n\n'
        "GetPetResult = ListPetsResultItem\n\n"
        '# readOnlyHint\ndef getPet(*, id: int) -> GetPetResult:\n    """GET /pets/{id}"""\n\n'
        '# destructiveHint\ndef deletePet(*, id: int) -> Any:\n    """DELETE /pets/{id}"""'
    )


async def test_describe_tools_keeps_within_max_result_chars_by_whole_tools(code: Make) -> None:
    """The tools that fit, in the order asked, and a comment naming the rest; a stub is never cut:
    the first tool comes whole whatever the limit."""
    asked = {"names": ["listPets", "getPet", "deletePet", "traced"]}
    whole = text_of(await call(code(), "describe_tools", asked))
    two = whole.split("\n\n# destructiveHint\ndef deletePet")[0]
    one = whole.split("\n\nGetPetResult = ")[0]
    left = "Ask describe_tools for them in another call."
    fitted = text_of(await call(code(T_MAX_RESULT_CHARS="450"), "describe_tools", asked))
    within = "# Not described, to stay within T_MAX_RESULT_CHARS"
    assert fitted == f"{two}\n\n{within} (450 characters): deletePet, traced. {left}"
    assert len(whole) > 450 >= len(fitted)
    tiny = await call(code(T_MAX_RESULT_CHARS="50"), "describe_tools", asked)
    assert text_of(tiny) == f"{one}\n\n{within} (50 characters): getPet, deletePet, traced. {left}"
    assert not_described(tiny) == ["getPet", "deletePet", "traced"]  # as the benchmark's agent reads it
    assert not_described(await call(code(), "describe_tools", asked)) == []


async def test_describe_tools_names_the_tool_of_a_function_renamed_in_python(code: Make) -> None:
    made = data()
    wire, made["routes"]["list-toys"] = tool("list-toys", "GET", "/toys")
    wire["annotations"].update(readOnlyHint=False, idempotentHint=True, openWorldHint=True)
    made["tools"].append(wire)
    tools = runtime.ToolRuntime(made, runtime.Settings.from_env({"T_MODE": "code"}, prefix="T"))
    result = await call(tools, "describe_tools", {"names": ["list-toys"]})
    assert (
        text_of(result)
        == '# tool list-toys; idempotentHint, openWorldHint\ndef list_toys() -> Any:\n    """GET /toys"""'
    )


async def test_a_program_calls_the_api_and_only_its_result_comes_back(code: Make, upstream: Upstream) -> None:
    program = "import api\ndogs = [p['name'] for p in api.listPets() if p.get('tag') == 'dog']\ndogs"
    result = await run(code(), program)
    assert result.is_error is not True, text_of(result)
    assert result.structured_content == {"result": ["pet1", "pet3", "pet5"], "printed": "", "calls": 1}
    assert json.loads(text_of(result)) == result.structured_content
    assert [(r.method, r.path) for r in upstream.requests] == [("GET", "/api/v1/pets")]


@pytest.mark.parametrize(
    ("body", "value", "framed"),
    [
        (b"5", 5, True),
        (b'["a", 1]', ["a", 1], True),
        (b'{"result": 5}', {"result": 5}, False),  # the API's own `result` key is kept
        (b'{"result": {"id": 1}}', {"result": {"id": 1}}, False),
    ],
)
async def test_a_program_gets_the_apis_json_whatever_its_root(
    make_runtime: Make, upstream: Upstream, body: bytes, value: Any, framed: bool
) -> None:
    """A tool without an output schema: a root that is no object comes framed as {"result": ...}
    (its _meta says so), and the program gets the API's JSON back, framed or not."""
    upstream.responder = lambda request: Reply(200, body)
    made = tool_data(tool("status", "GET", "/status"))
    direct = await call(make_runtime(made, env={"T_MODE": "static"}), "status", {})
    assert json.loads(text_of(direct)) == ({"result": value} if framed else value)
    assert (direct.meta or {}).get("openapi2mcp/framed", False) is framed
    result = await run(make_runtime(made, env={"T_MODE": "code"}), "import api\napi.status()")
    assert result.structured_content == {"result": value, "printed": "", "calls": 1}, text_of(result)


async def test_a_program_gets_a_user_tools_value_and_a_hooks_changed_frame(
    make_runtime: Make, upstream: Upstream
) -> None:
    """hooks.py: a tool of the user's returning a list (framed by the server), and an after_result
    hook that turns a framed answer into an object of its own: the program gets each as made."""
    upstream.responder = lambda request: Reply(200, b"5")
    hooks = Hooks()
    hooks.tool(name="numbers")(lambda arguments: [1, 2])
    hooks.after_result("count")(lambda call_, result: setattr(result, "data", {"n": result.data["result"]}))
    made = tool_data(tool("status", "GET", "/status"), tool("count", "GET", "/count"))
    tools = make_runtime(made, env={"T_MODE": "code"}, hooks=hooks)
    result = await run(tools, "import api\n[api.numbers(), api.status(), api.count()]")
    assert result.structured_content == {"result": [[1, 2], 5, {"n": 5}], "printed": "", "calls": 3}, text_of(
        result
    )


async def test_a_typed_tools_result_key_is_the_apis_own(code: Make, upstream: Upstream) -> None:
    """getPet's output schema is an object: an answer {"result": 7} deviates from it, and is no frame."""
    upstream.responder = lambda request: Reply(200, b'{"result": 7}')
    result = await run(code(), "import api\napi.getPet(id=1)")
    assert result.structured_content == {"result": {"result": 7}, "printed": "", "calls": 1}, text_of(result)


async def test_prints_are_the_result_when_there_is_no_last_expression(code: Make) -> None:
    result = await run(code(), "import api\nfor p in api.listPets()[:2]:\n    print(p['id'])")
    assert result.structured_content == {"result": None, "printed": "1\n2\n", "calls": 1}


async def test_a_keyword_that_is_no_identifier_is_mapped_back(code: Make, upstream: Upstream) -> None:
    stub = text_of(await call(code(), "describe_tools", {"names": ["traced"]}))
    keyword = stub.split("def traced(*, ", 1)[1].split(":", 1)[0]
    assert keyword.isidentifier() and keyword != "X-Request-Id"
    result = await run(code(), f"import api\napi.traced({keyword}='abc')")
    assert result.is_error is not True, text_of(result)
    assert upstream.last.header("X-Request-Id") == "abc"


@pytest.mark.parametrize(
    ("program", "says"),
    [
        ("import api\napi.getPet(pet_id=1)", "unknown-argument"),
        ("import api\napi.getPet()", "missing-argument"),
        ("import api\napi.getPet(id='one')", "invalid-argument-type"),
        ("import api\napi.getPet(id=1)['nmae']", "invalid-key"),
        ("import api\napi.listPets(limit=2)\napi.nothing()", "unresolved-attribute"),
    ],
)
async def test_a_program_that_does_not_type_check_sends_nothing(
    code: Make, upstream: Upstream, program: str, says: str
) -> None:
    result = await run(code(), program)
    assert result.is_error is True
    assert text_of(result).startswith("The program was not run, and nothing was sent to the API:")
    assert says in text_of(result)
    assert upstream.requests == []


async def test_what_the_api_sends_beyond_its_stub_is_read_as_any_or_past_the_checker(
    code: Make, upstream: Upstream
) -> None:
    """Real APIs send keys their specs do not list: the refusal says how to read them, and both ways run."""
    upstream.responder = lambda request: Reply(200, b'{"id": 1, "name": "Rex", "nickname": "R"}')
    tools = code()
    refused = await run(tools, "import api\napi.getPet(id=1)['nickname']")
    assert text_of(refused) == (
        "The program was not run, and nothing was sent to the API:\n"
        'program.py:2:18: error[invalid-key] Unknown key "nickname" for TypedDict `GetPetResult`\n'
        "(describe_tools gives each function's stub. Where the API sends what its stub does not say, give"
        " the value the type Any (`from typing import Any`, then `value: Any = api.<function>(...)`) or end"
        " the line with `# type: ignore`.)"
    )
    assert upstream.requests == []
    ignored = "import api\napi.getPet(id=1)['nickname']  # type: ignore"
    typed = "import api\nfrom typing import Any\nvalue: Any = api.getPet(id=1)\nvalue['nickname']"
    for program in (ignored, typed):
        result = await run(tools, program)
        assert result.structured_content == {"result": "R", "printed": "", "calls": 1}, text_of(result)


async def test_a_syntax_error_is_refused_without_the_typing_hint(code: Make, upstream: Upstream) -> None:
    result = await run(code(), "import api\nfor")
    assert result.is_error is True and upstream.requests == []
    assert text_of(result).endswith("\n(describe_tools gives each function's stub.)"), text_of(result)


async def test_an_api_error_raises_oserror_and_last_error_has_status_and_body(code: Make) -> None:
    program = (
        "import api\ntry:\n    api.getPet(id=99)\n    seen = None\nexcept OSError:\n"
        "    seen = api.last_error()\nseen"
    )
    result = await run(code(), program)
    assert result.is_error is not True, text_of(result)
    seen = result.structured_content["result"]
    assert (seen["tool"], seen["status"], seen["body"]) == ("getPet", 404, {"message": "no such pet"})
    assert seen["message"].startswith("The API answered HTTP 404")


async def test_an_uncaught_api_error_fails_the_program_with_its_traceback(code: Make) -> None:
    result = await run(code(), "import api\nx = api.getPet(id=1)\napi.getPet(id=99)")
    assert result.is_error is True
    text = text_of(result)
    assert text.startswith("The program failed after 2 API calls:")
    assert "OSError: The API answered HTTP 404" in text and "line 3" in text


async def test_a_program_reads_what_the_api_sent_where_it_deviates_from_the_schema(
    code: Make, upstream: Upstream
) -> None:
    upstream.reply(body=json.dumps({"id": "seven", "name": "Rex", "extra": [1]}))
    result = await run(code(), "import api\npet = api.getPet(id=7)\n(pet['id'], pet.get('extra'))")
    assert result.structured_content is not None, text_of(result)
    assert result.structured_content["result"] == ["seven", [1]]


async def test_inner_results_are_whole_and_the_programs_result_is_trimmed(
    code: Make, upstream: Upstream
) -> None:
    many = [{"id": n, "name": "x" * 40} for n in range(2_000)]
    upstream.reply(body=json.dumps(many))
    tools = code(T_MAX_RESULT_CHARS="2000")
    counted = await run(tools, "import api\nlen(api.listPets())")
    assert counted.structured_content["result"] == 2_000
    whole = await run(tools, "import api\napi.listPets()")
    assert whole.is_error is not True
    assert len(whole.content[0].text) <= 2_000
    assert "T_MAX_RESULT_CHARS=2,000" in whole.content[1].text


async def test_each_inner_call_has_an_audit_line_marked_with_the_run(code: Make, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    tools = code(T_AUDIT_LOG=str(log))
    await run(tools, "import api\n[api.getPet(id=n)['name'] for n in (1, 2)]")
    await run(tools, "import api\napi.getPet(id=3)")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["tool"], x["status"], x["outcome"]) for x in lines] == [
        ("getPet", 200, "ok"),
        ("getPet", 200, "ok"),
        ("run_code", None, "ok"),
        ("getPet", 200, "ok"),
        ("run_code", None, "ok"),
    ]
    first, second = lines[0]["run"], lines[3]["run"]
    assert [x["run"] for x in lines] == [first, first, first, second, second] and first != second


# ---- escape attempts: each limit ends the program with isError naming it; the server goes on ----


async def healthy(tools: Any) -> None:
    result = await run(tools, "import api\napi.getPet(id=2)['name']")
    assert result.structured_content["result"] == "pet2", text_of(result)


@pytest.mark.parametrize(
    ("program", "says"),
    [
        ("import socket", "Cannot resolve imported module `socket`"),
        ("import subprocess", "Cannot resolve imported module `subprocess`"),
        ("import urllib.request", "Cannot resolve imported module `urllib.request`"),
        ("open('/etc/passwd').read()", "Name `open` used when not defined"),
        ("__import__('os').system('true')", "Name `__import__` used when not defined"),
    ],
)
async def test_forbidden_modules_and_builtins_are_refused_before_running(
    code: Make, upstream: Upstream, program: str, says: str
) -> None:
    tools = code()
    result = await run(tools, program)
    assert result.is_error is True and says in text_of(result), text_of(result)
    assert upstream.requests == []
    await healthy(tools)


@pytest.mark.parametrize(
    ("program", "says"),
    [
        ("from pathlib import Path\nPath('/etc/passwd').read_text()", "PermissionError"),
        ("import os\nos.getenv('HOME')", "'os.getenv' is not supported"),
        ("import os\nos.environ", "'os.environ' is not supported"),
    ],
)
async def test_files_and_environment_are_out_of_reach(code: Make, program: str, says: str) -> None:
    tools = code()
    result = await run(tools, program)
    assert result.is_error is True and says in text_of(result), text_of(result)
    await healthy(tools)


async def test_an_endless_loop_ends_at_the_time_limit(code: Make) -> None:
    tools = code(T_CODE_TIMEOUT="1")
    result = await run(tools, "n = 0\nwhile True:\n    n += 1")
    assert result.is_error is True
    assert text_of(result).startswith("The program was stopped after 0 API calls: time limit")
    assert "T_CODE_TIMEOUT" in text_of(result)
    await healthy(tools)


async def test_a_program_may_sleep_within_its_time_and_no_longer(code: Make) -> None:
    tools = code(T_CODE_TIMEOUT="1")
    napped = await run(tools, "import time\nimport asyncio\ntime.sleep(0.05)\nawait asyncio.sleep(0.05)\n1")
    assert napped.structured_content == {"result": 1, "printed": "", "calls": 0}, text_of(napped)
    overslept = await run(tools, "import time\ntime.sleep(60)")
    assert overslept.is_error is True and "T_CODE_TIMEOUT" in text_of(overslept)
    await healthy(tools)


async def test_memory_growth_ends_at_the_memory_limit(code: Make) -> None:
    tools = code(T_CODE_MAX_MEMORY_MB="16")
    result = await run(tools, "x = []\nwhile True:\n    x.append('a' * 100_000)")
    assert result.is_error is True
    assert "memory limit" in text_of(result) and "T_CODE_MAX_MEMORY_MB=16" in text_of(result)
    await healthy(tools)


async def test_too_many_calls_end_at_the_call_limit_with_nothing_more_sent(
    code: Make, upstream: Upstream
) -> None:
    tools = code(T_CODE_MAX_CALLS="3")
    program = (
        "import api\nfor n in range(10):\n    try:\n        api.getPet(id=1)\n"
        "    except Exception:\n        pass"
    )
    result = await run(tools, program)
    assert result.is_error is True
    assert "call limit" in text_of(result) and "T_CODE_MAX_CALLS" in text_of(result)
    assert len(upstream.requests) == 3
    await healthy(tools)


async def test_host_calls_past_the_sandboxs_own_budget_end_the_program(code: Make) -> None:
    tools = code(T_CODE_MAX_CALLS="5")  # the sandbox's budget: 2 x 5 + 100 host calls
    result = await run(tools, "import api\nfor n in range(500):\n    api.last_error()")
    assert result.is_error is True
    assert text_of(result) == (
        "The program was stopped after 0 API calls: call limit: more than 110 calls into the server"
        " (API calls, last_error(), imports, sleeps: twice T_CODE_MAX_CALLS, plus 100)."
    )
    await healthy(tools)


async def test_prints_are_kept_up_to_a_cap(code: Make) -> None:
    tools = code(T_MAX_RESULT_CHARS="3000")
    result = await run(tools, "for n in range(5000):\n    print('line', n)")
    assert result.is_error is not True, text_of(result)
    printed = result.structured_content["printed"]
    assert printed.startswith("line 0\nline 1\n") and len(printed) <= 3000


async def test_programs_beyond_the_workers_wait_their_turn(code: Make) -> None:
    tools = code(T_CODE_WORKERS="1")
    results: list[Any] = []

    async def one(number: int) -> None:
        results.append(await run(tools, f"import api\napi.getPet(id={number})['id']"))

    async with anyio.create_task_group() as group:
        for number in (1, 2, 3):
            group.start_soon(one, number)
    assert sorted(result.structured_content["result"] for result in results) == [1, 2, 3]


async def test_a_write_in_read_only_mode_does_not_exist(code: Make, upstream: Upstream) -> None:
    tools = code(T_READ_ONLY="yes")
    result = await run(tools, "import api\napi.deletePet(id=1)")
    assert result.is_error is True and "deletePet" in text_of(result)
    assert upstream.requests == []
    await healthy(tools)


async def test_a_tool_narrowed_away_does_not_exist(code: Make, upstream: Upstream) -> None:
    tools = code(T_TOOLS="listPets")
    result = await run(tools, "import api\napi.getPet(id=1)")
    assert result.is_error is True and "unresolved-attribute" in text_of(result)
    assert upstream.requests == []


# ---- confirmation: asked once, before the program runs ----


class User:
    def __init__(self, action: str) -> None:
        self.action, self.asked = action, list[Any]()

    async def __call__(self, context: Any, params: Any) -> Any:
        self.asked.append(params)
        return mcp.types.ElicitResult(action=self.action, content={} if self.action == "accept" else None)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_a_program_naming_a_destructive_tool_is_confirmed_once_before_it_runs(
    code: Make, upstream: Upstream, mode: str, action: str
) -> None:
    user = User(action)
    server = mcp_server(code(T_CONFIRM="destructive"))
    program = "import api\nfor n in (1, 2):\n    api.deletePet(id=n)"
    async with mcp.Client(server, mode=mode, elicitation_callback=user) as client:
        result = await client.call_tool("run_code", {"code": program})
    [asked] = user.asked
    assert "deletePet (DELETE /pets/{id})" in asked.message and program in asked.message
    sent = [(r.method, r.path) for r in upstream.requests]
    if action == "accept":
        assert result.is_error is not True, text_of(result)
        assert sent == [("DELETE", "/api/v1/pets/1"), ("DELETE", "/api/v1/pets/2")]
    else:
        assert result.is_error is True and sent == []


async def test_a_program_of_reads_only_is_not_confirmed(code: Make) -> None:
    user = User("decline")
    server = mcp_server(code(T_CONFIRM="writes"))
    async with mcp.Client(server, mode="legacy", elicitation_callback=user) as client:
        result = await client.call_tool("run_code", {"code": "import api\napi.getPet(id=1)['id']"})
    assert result.structured_content["result"] == 1 and user.asked == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_run_code_through_the_sdk_client_in_both_eras(code: Make, mode: str) -> None:
    async with mcp.Client(mcp_server(code()), mode=mode) as client:
        listed = await client.list_tools()
        result = await client.call_tool("run_code", {"code": "import api\nlen(api.listPets())"})
    assert [t.name for t in listed.tools] == ["search_tools", "describe_tools", "run_code"]
    assert result.structured_content == {"result": 6, "printed": "", "calls": 1}


# ---- settings ----


def test_the_code_settings_are_read_and_checked() -> None:
    settings = runtime_settings.Settings.from_env(
        {"T_CODE_TIMEOUT": "2.5", "T_CODE_MAX_CALLS": "7", "T_CODE_MAX_MEMORY_MB": "64"}, prefix="T"
    )
    assert (settings.code.timeout, settings.code.max_calls, settings.code.max_memory_mb) == (2.5, 7, 64)
    with pytest.raises(ConfigError, match="T_CODE_MAX_CALLS must be a whole number of calls"):
        runtime_settings.Settings.from_env({"T_CODE_MAX_CALLS": "many"}, prefix="T")
    with pytest.raises(ConfigError, match="cannot be combined with --mode code"):
        runtime_settings.Settings.from_env({"T_MODE": "code", "T_DYNAMIC_TOOLSETS": "yes"}, prefix="T")


async def test_code_mode_without_the_sandbox_installed_says_how_to_install_it(
    make_runtime: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pydantic_monty" else real(name, *a)
    )
    with pytest.raises(ConfigError, match=r"pydantic-monty.*pip install 't-server\[code\]'"):
        make_runtime(data(), env={"T_MODE": "code"})


class Request:
    """An HTTP request as the runtime reads it (audit.share_of): its headers and address."""

    def __init__(self, token: str) -> None:
        self.headers = {"authorization": f"Bearer {token}"}
        self.scope: dict[str, Any] = {}
        self.client = None


async def test_one_http_caller_runs_at_most_half_the_workers_and_others_still_run(code: Make) -> None:
    tools = code(T_CODE_WORKERS="2")
    slow = "import time\ntime.sleep(0.5)\n1"
    params = mcp.types.CallToolRequestParams(name="run_code", arguments={"code": slow})

    def running(token: str, program: str) -> Any:
        ctx = type("Ctx", (), {"request": Request(token), "session_id": None})()
        return tools.code.run(ctx, params, tools.view, program)

    results: dict[str, Any] = {}

    async def one(key: str, token: str, program: str, delay: float) -> None:
        await anyio.sleep(delay)
        results[key] = await running(token, program)

    async with anyio.create_task_group() as group:
        group.start_soon(one, "first", "a", slow, 0)
        group.start_soon(one, "second", "a", slow, 0.2)
        group.start_soon(one, "other", "b", "2", 0.2)
    assert results["first"].structured_content is not None, text_of(results["first"])
    assert results["first"].structured_content["result"] == 1
    assert results["second"].is_error is True
    assert text_of(results["second"]).startswith("Not run: this caller already runs 1 program(s)")
    assert results["other"].structured_content["result"] == 2
