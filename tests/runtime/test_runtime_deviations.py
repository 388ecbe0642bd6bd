"""A success is never an error (issue 28): a 2xx answer that deviates from the tool's outputSchema
is a success whose structuredContent meets the schema, whose text is the answer whole, and whose
`_meta` lists what structuredContent left out. The cases are recorded in deviations.yaml."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import mcp
import pytest
import yaml

from openapi2mcp_runtime.results import conform as conform_module

from .conftest import Make, Upstream, call, mcp_server, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

ALL: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "deviations.yaml").read_text())
CASES = [case for case in ALL if case["leftOut"] or case["nulled"]]  # the rest: tests/tools
META_KEY = "openapi2mcp/deviations"


def _data(case: dict[str, Any]) -> dict[str, Any]:
    return tool_data(tool("getIt", "GET", "/it", output_schema=case["outputSchema"], wrapped=case["wrapped"]))


def _shown(case: dict[str, Any]) -> str:
    """The text block: the answer as the tool's results carry it (in `result` when wrapped)."""
    value = {"result": case["answer"]} if case["wrapped"] else case["answer"]
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _case(name: str) -> dict[str, Any]:
    (case,) = [case for case in CASES if case["name"] == name]
    return case


async def _answered(case: dict[str, Any], make_runtime: Make, upstream: Upstream) -> Any:
    """The result of the case's tool when the upstream answers with the case's answer."""
    upstream.reply(body=json.dumps(case["answer"]))
    return await call(make_runtime(_data(case)), "getIt", {})


def _listed(result: Any) -> tuple[list[str], list[str]] | None:
    meta = (result.meta or {}).get(META_KEY)
    return None if meta is None else (meta["leftOut"], meta["nulled"])


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_a_deviating_answer_is_a_conforming_success_with_the_answer_whole_as_text(
    make_runtime: Make, upstream: Upstream, case: dict[str, Any]
) -> None:
    result = await _answered(case, make_runtime, upstream)
    assert not result.is_error, text_of(result)
    jsonschema.validate(result.structured_content, case["outputSchema"])
    assert [block.type for block in result.content] == ["text"]
    assert text_of(result) == _shown(case)
    assert _listed(result) == (case["leftOut"], case["nulled"])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_the_mcp_client_accepts_every_deviating_answer(
    make_runtime: Make, upstream: Upstream, case: dict[str, Any], mode: str
) -> None:
    upstream.reply(body=json.dumps(case["answer"]))
    async with mcp.Client(mcp_server(make_runtime(_data(case))), mode=mode) as client:
        result = await client.call_tool("getIt", {})  # it raises on non-conforming structured content
    assert not result.is_error
    assert text_of(result) == _shown(case)
    assert _listed(result) == (case["leftOut"], case["nulled"])


async def test_the_jupyter_folder_keeps_everything_but_its_content_in_structured_content(
    make_runtime: Make, upstream: Upstream
) -> None:
    case = _case("array_for_a_string")
    result = await _answered(case, make_runtime, upstream)
    assert result.structured_content == {k: v for k, v in case["answer"].items() if k != "content"}
    assert result.meta[META_KEY] == {"leftOut": ["/content"], "nulled": [], "unlisted": 0}


async def test_an_array_item_of_the_wrong_type_is_nulled_in_place(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await _answered(_case("nested_deviations_in_an_array_of_objects"), make_runtime, upstream)
    assert result.structured_content == {
        "result": [
            {"id": 1, "name": "Rex", "tag": None},
            {"name": "Tom"},
            None,
            {"id": 4, "name": "Kiki"},
        ]
    }


OPEN = {"type": "object", "properties": {"id": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}
LIST = {"type": "object", "properties": {"result": {"type": "array", "items": OPEN}}}


@pytest.mark.parametrize(("content_type", "body"), [("text/plain", "OK"), ("text/html", "<h1>Done</h1>")])
async def test_a_text_answer_to_a_tool_with_an_object_schema_is_a_success_left_out_whole(
    make_runtime: Make, upstream: Upstream, content_type: str, body: str
) -> None:
    upstream.reply(body=body, content_type=content_type)
    data = tool_data(tool("getIt", "GET", "/it", output_schema=OPEN))
    result = await call(make_runtime(data), "getIt", {})
    assert not result.is_error
    assert result.structured_content == {}
    assert text_of(result) == body
    assert _listed(result) == ([""], [])


async def test_a_binary_answer_to_a_tool_with_an_array_schema_is_a_success_left_out_whole(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")
    data = tool_data(tool("listIt", "GET", "/it", output_schema=LIST, wrapped=True))
    result = await call(make_runtime(data), "listIt", {})
    assert not result.is_error
    assert result.structured_content == {}
    assert [block.type for block in result.content] == ["image"]
    assert _listed(result) == ([""], [])


async def test_a_deviation_in_a_trimmed_answer_keeps_both_notes_in_meta(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body=json.dumps([{"id": "one"}] + [{"id": n} for n in range(2, 400)]))
    data = tool_data(tool("listIt", "GET", "/it", output_schema=LIST, wrapped=True))
    result = await call(make_runtime(data, {"T_MAX_RESULT_CHARS": "2500"}), "listIt", {})
    assert not result.is_error
    assert {"openapi2mcp/trimmed", META_KEY} <= set(result.meta)
    assert _listed(result) == (["/result/0/id"], [])
    assert result.structured_content["result"][0] == {}
    jsonschema.validate(result.structured_content, LIST)


# ---- conform.py on its own ----------------------------------------------------------------------


@pytest.fixture
def conform() -> Any:
    return conform_module


def _errors(schema: dict[str, Any]) -> Any:
    validator = jsonschema.Draft202012Validator(schema)
    return lambda value: list(validator.iter_errors(value))


def test_a_pointer_escapes_tilde_and_slash_and_the_root_is_empty(conform: Any) -> None:
    assert conform.pointer(()) == ""
    assert conform.pointer(("a/b", 0, "c~d")) == "/a~1b/0/c~0d"


def test_a_schema_not_even_an_empty_object_meets_gives_none(conform: Any) -> None:
    strict = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
    assert conform.conform({"id": "seven"}, _errors(strict)) is None
    assert conform.conform([1], _errors(strict)) is None


def test_the_answer_itself_is_never_changed(conform: Any) -> None:
    answer = {"items": [{"id": "x"}, 5]}
    item = {"anyOf": [OPEN, {"type": "null"}]}
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": item}}}
    fitted = conform.conform(answer, _errors(schema))
    assert fitted.value == {"items": [{}, None]}
    assert answer == {"items": [{"id": "x"}, 5]}


def test_an_item_already_null_that_deviates_leaves_its_array_out(conform: Any) -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
    fitted = conform.conform({"tags": ["a", None, 3], "n": 1}, _errors(schema))
    assert (fitted.value, fitted.left_out, fitted.nulled) == ({"n": 1}, (("tags",),), ())


def test_more_deviations_than_listed_are_counted(conform: Any) -> None:
    numbers = {"type": "array", "items": {"type": ["number", "null"]}}
    schema = {"type": "object", "properties": {"n": numbers}}
    fitted = conform.conform({"n": ["1"] * 60}, _errors(schema))
    meta = fitted.meta[conform.META_KEY]
    assert (len(meta["nulled"]), meta["nulled"][-1], meta["unlisted"]) == (50, "/n/49", 10)
