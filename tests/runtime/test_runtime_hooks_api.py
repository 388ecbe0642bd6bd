"""hooks_api.py on its own: the registry hooks.py fills, and the Request and Result hooks change."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest

from .conftest import hooks_api

Hooks, Request, Result = hooks_api.Hooks, hooks_api.Request, hooks_api.Result


def noop(call: Any, value: Any) -> None:
    return None


# ---- the registry ------------------------------------------------------------------------------


def test_hooks_apply_to_every_tool_or_the_named_ones_in_definition_order() -> None:
    hooks = Hooks()

    def first(call: Any, request: Any) -> None: ...
    def only_b(call: Any, request: Any) -> None: ...
    def last(call: Any, request: Any) -> None: ...

    hooks.before_request()(first)
    hooks.before_request("b", "c")(only_b)
    hooks.before_request()(last)
    assert [h.function for h in hooks.before_for("a")] == [first, last]
    assert [h.function for h in hooks.before_for("b")] == [first, only_b, last]


def test_after_result_hooks_see_errors_only_when_asked() -> None:
    hooks = Hooks()
    hooks.after_result()(noop)
    with_errors = hooks.after_result("a", errors=True)(lambda call, result: None)
    assert [h.function for h in hooks.after_for("a", False)] == [noop, with_errors]
    assert [h.function for h in hooks.after_for("a", True)] == [with_errors]
    assert [h.function for h in hooks.after_for("b", True)] == []


def test_the_decorators_return_the_function_unchanged() -> None:
    hooks = Hooks()
    assert hooks.before_request()(noop) is noop
    assert hooks.after_result("x")(noop) is noop
    assert hooks.tool()(noop) is noop


def test_a_decorator_without_parentheses_is_a_clear_type_error() -> None:
    hooks = Hooks()
    with pytest.raises(TypeError, match=r"takes tool names, not .* \(mind the \(\)\)"):
        hooks.before_request(noop)
    with pytest.raises(TypeError, match=r"use @hooks.tool\(...\) with parentheses"):
        hooks.tool(noop)


def test_a_tool_defaults_to_the_function_name_its_docstring_and_no_arguments() -> None:
    hooks = Hooks()

    @hooks.tool()
    async def pet_count(arguments: dict[str, Any]) -> int:
        """Count the pets.

        Every one of them."""
        return 0

    (tool,) = hooks.tools.values()
    assert tool.wire == {
        "name": "pet_count",
        "description": "Count the pets.\n\nEvery one of them.",
        "inputSchema": {"type": "object", "properties": {}},
    }
    assert tool.with_call is False and tool.function is pet_count


def test_a_tool_with_every_option_and_the_call_argument() -> None:
    hooks = Hooks()
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    output = {"type": "object", "properties": {"n": {"type": "integer"}}}

    @hooks.tool(
        "search",
        description="Search.",
        input_schema=schema,
        output_schema=output,
        title="Search it",
        annotations={"readOnlyHint": True},
    )
    def anything(arguments: dict[str, Any], call: Any) -> dict[str, Any]:
        return {}

    assert hooks.tools["search"].wire == {
        "name": "search",
        "title": "Search it",
        "description": "Search.",
        "inputSchema": schema,
        "outputSchema": output,
        "annotations": {"readOnlyHint": True},
    }
    assert hooks.tools["search"].with_call is True


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "has space"}, "tool name 'has space': use 1-128 of A-Z a-z 0-9 _ . -"),
        ({"name": "x" * 129}, "use 1-128 of"),
        ({"input_schema": {"type": "array"}}, "tool 'noop': input_schema must have type 'object'"),
        ({"output_schema": {"type": "string"}}, "tool 'noop': output_schema must have type 'object'"),
    ],
)
def test_a_bad_tool_definition_fails_when_hooks_py_is_imported(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Hooks().tool(**options)(noop)


def test_a_tool_defined_twice_fails() -> None:
    hooks = Hooks()
    hooks.tool("dup")(noop)
    with pytest.raises(ValueError, match=r"tool 'dup' is defined twice in hooks\.py"):
        hooks.tool("dup")(noop)


def test_check_names_an_unknown_tool_of_a_hook() -> None:
    hooks = Hooks()
    hooks.after_result("getPet", "getPett")(noop)
    with pytest.raises(hooks_api.ConfigError) as raised:
        hooks.check({"getPet", "listPets"})
    assert str(raised.value) == "hooks.py: the after_result hook 'noop' names unknown tool(s) 'getPett'"


# ---- Request -----------------------------------------------------------------------------------


def test_an_untouched_request_is_sent_byte_for_byte() -> None:
    url = "https://h/api/items/a%2Fb?ids=1,2&pipe=a|b&filter[x]=y&q=a%20b&empty="
    request = Request.parse("GET", url, {"X-A": "1"}, None)
    assert request.url == "https://h/api/items/a%2Fb"
    assert request.params == [
        ("ids", "1,2"),
        ("pipe", "a|b"),
        ("filter[x]", "y"),
        ("q", "a b"),
        ("empty", ""),
    ]
    assert request.full_url == url
    assert request.wire() == ("GET", url, [(b"X-A", b"1")], None)


def test_new_and_changed_params_are_percent_encoded_the_others_kept() -> None:
    request = Request.parse("GET", "https://h/x?pipe=a|b&q=1", {}, None)
    request.params[1] = ("q", "2 & 3")
    request.params.append(("new[key]", "ü/?"))
    assert request.full_url == "https://h/x?pipe=a|b&q=2%20%26%203&new%5Bkey%5D=%C3%BC%2F%3F"
    request.params.clear()
    assert request.full_url == "https://h/x"


def test_a_duplicated_param_keeps_the_encoding_of_each_copy() -> None:
    request = Request.parse("GET", "https://h/x?a=1&a=1", {}, None)
    request.params.append(("a", "1"))
    assert request.full_url == "https://h/x?a=1&a=1&a=1"


def test_headers_are_case_insensitive_and_keep_the_last_spelling() -> None:
    request = Request.parse("POST", "https://h/x", {"Content-Type": "text/plain"}, b"hi")
    request.headers["content-type"] = "text/csv"
    assert request.headers["CONTENT-TYPE"] == "text/csv"
    assert dict(request.headers) == {"content-type": "text/csv"}
    del request.headers["Content-Type"]
    assert len(request.headers) == 0


def test_setting_json_sets_the_body_and_a_json_content_type_unless_one_is_there() -> None:
    request = Request("post", "https://h/x", headers={"Content-Type": "text/plain"})
    request.json = {"a": "ü", "b": [1]}
    assert request.body == '{"a":"ü","b":[1]}'.encode()
    assert request.headers["Content-Type"] == "application/json"
    assert request.json == {"a": "ü", "b": [1]}
    request.headers["Content-Type"] = "application/merge-patch+json"
    request.json = None
    assert request.body == b"null" and request.headers["Content-Type"] == "application/merge-patch+json"
    assert request.wire()[0] == "POST"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: setattr(r, "method", "GE T"), "invalid HTTP method 'GE T'"),
        (lambda r: setattr(r, "url", "/relative"), "request.url must be an http(s) URL, not '/relative'"),
        (lambda r: r.headers.__setitem__("Bad Name", "v"), "invalid header name 'Bad Name'"),
        (lambda r: r.headers.__setitem__("X", "a\r\nB: c"), "header X: the value must be a str"),
        (lambda r: r.headers.__setitem__("X", 3), "header X: the value must be a str"),
        (lambda r: setattr(r, "body", 3), "request.body must be bytes or None, not int"),
    ],
)
def test_a_request_that_cannot_be_sent_is_a_value_error(change: Any, message: str) -> None:
    request = Request("GET", "https://h/x")
    change(request)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        request.wire()


def test_a_str_body_is_sent_as_utf8() -> None:
    request = Request("PUT", "https://h/x", body="ü")  # type: ignore[arg-type]
    assert request.wire()[3] == "ü".encode()


# ---- Result ------------------------------------------------------------------------------------


def dumped(result: Any) -> dict[str, Any]:
    """The result on the wire, less its `resultType` (always "complete")."""
    wire: dict[str, Any] = result.to_mcp().model_dump(by_alias=True, exclude_none=True, mode="json")
    assert wire.pop("resultType") == "complete"
    return wire


def test_a_tool_value_becomes_a_result() -> None:
    assert dumped(Result.of({"n": 1})) == {
        "content": [{"type": "text", "text": '{"n":1}'}],
        "structuredContent": {"n": 1},
        "isError": False,
    }
    assert dumped(Result.of([1, "ü"])) == {
        "content": [{"type": "text", "text": '{"result":[1,"ü"]}'}],
        "structuredContent": {"result": [1, "ü"]},
        "isError": False,
    }
    assert dumped(Result.of("plain")) == {"content": [{"type": "text", "text": "plain"}], "isError": False}
    error = Result.error("no")
    assert Result.of(error) is error
    assert dumped(error) == {"content": [{"type": "text", "text": "no"}], "isError": True}


def from_mcp(text: str, structured_content: dict[str, Any]) -> Result:
    """The Result of a tools/call result with one text block and this structured content."""
    original = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(text=text)], structured_content=structured_content
    )
    return Result.from_mcp(original)


def test_changing_the_data_in_place_changes_its_json_text_too() -> None:
    result = from_mcp('{"name":"rex"}', {"name": "rex"})
    assert result.data is not None
    result.data["name"] = "REX"
    assert dumped(result)["content"] == [{"type": "text", "text": '{"name":"REX"}'}]
    assert dumped(result)["structuredContent"] == {"name": "REX"}


def test_a_text_that_does_not_mirror_the_data_is_left_alone() -> None:
    result = from_mcp("plain words", {"result": "plain words"})
    assert result.data is not None
    result.data["result"] = "other"
    assert dumped(result)["content"] == [{"type": "text", "text": "plain words"}]


def test_content_set_by_the_hook_wins_over_the_mirror() -> None:
    result = Result.of({"n": 1})
    result.text = "one item"
    assert result.data is not None
    result.data["n"] = 2
    assert dumped(result) == {
        "content": [{"type": "text", "text": "one item"}],
        "structuredContent": {"n": 2},
        "isError": False,
    }


def test_assigning_data_sets_both_and_rejects_what_is_not_an_object() -> None:
    result = Result.error("HTTP 404")
    result.data = {"found": False}
    result.is_error = False
    assert dumped(result) == {
        "content": [{"type": "text", "text": '{"found":false}'}],
        "structuredContent": {"found": False},
        "isError": False,
    }
    assert result.text == '{"found":false}'
    with pytest.raises(TypeError, match=r"structured content is a JSON object: wrap it, \{'result': \[1\]\}"):
        result.data = [1]  # type: ignore[assignment]


def test_data_that_is_not_json_fails_when_the_result_is_made() -> None:
    result = Result.of({"n": 1})
    assert result.data is not None
    result.data["when"] = object()
    with pytest.raises(TypeError, match="not JSON serializable"):
        result.to_mcp()
