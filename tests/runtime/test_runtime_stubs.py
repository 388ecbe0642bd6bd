"""Code mode's `api` stub (openapi2mcp_runtime/code_mode/stubs.py): each rule of the mapping from
JSON Schema to Python types on a small schema with the exact text; the stub read by the real
sandbox's type checker (pydantic-monty's ty), which refuses wrong calls and reads results; and the
corpus' whole schemas made stubs that ty reads without error, each function within the size guard."""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from corpus_specs import CORPUS_MISSING, corpus_present, corpus_specs
from pydantic_monty import ExternalModule, Monty, MontyRuntimeError, MontyTypingError

from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate
from openapi2mcp_runtime.code_mode import stubs
from openapi2mcp_runtime.code_mode.stub_types import NESTING
from openapi2mcp_runtime.code_mode.stubs import Function, Module, described, module_stub
from openapi2mcp_runtime.discovery.meta_tools import Details


def tool(
    name: str,
    properties: dict[str, Any] | None = None,
    required: tuple[str, ...] = (),
    output: dict[str, Any] | None = None,
    description: str = "",
    **extra: Any,
) -> dict[str, Any]:
    """A tool as the runtime lists it (`extra`: `wrapped`, or `defs` for the inputSchema's $defs)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = list(required)
    if "defs" in extra:
        schema["$defs"] = extra.pop("defs")
    found = {"name": name, "description": description, "inputSchema": schema, **extra}
    return found if output is None else {**found, "outputSchema": output}


def stub(tool: dict[str, Any]) -> str:
    """The tool's snippet, as describe_tools gives it: its TypedDicts and its function."""
    [snippet] = described([tool])
    return snippet


def argument_type(schema: Any) -> str:
    """The type an optional argument of this schema gets."""
    head = stub(tool("f", {"x": schema})).split("\n")[0]
    assert head.startswith("def f(*, x: ") and head.endswith(" = ...) -> Any:"), head
    return head.removeprefix("def f(*, x: ").removesuffix(" = ...) -> Any:")


NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}
PET = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tag": {"type": "string"}},
    "required": ["id", "name"],
}
LIST_PETS = tool(
    "listPets",
    {
        "limit": {"type": "integer", "description": "How many pets to return at most."},
        "tags": {
            "type": "array",
            "items": {"enum": ["cat", "dog", "bird"]},
            "description": "Only pets with one of these tags.",
        },
    },
    output={"type": "object", "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Pet"}}}}
    | {"$defs": {"Pet": PET}},
    description="List pets\n\nReturns the pets in the store, optionally filtered by tag.\n\nHTTP: GET /pets",
    wrapped=True,
)
HEALTH = tool("get-health", description="Health check")


def test_the_module_is_the_header_then_each_tools_typeddicts_and_function() -> None:
    module = module_stub([LIST_PETS, HEALTH])
    assert (
        module.text
        == stubs.HEADER.format(imports="Any, Literal, NotRequired, TypedDict")
        + '''
class Pet(TypedDict):
    id: int
    name: str
    tag: NotRequired[str]

def listPets(*, limit: int = ..., tags: list[Literal["cat", "dog", "bird"]] = ...) -> list[Pet]:
    """List pets

    Returns the pets in the store, optionally filtered by tag.

    HTTP: GET /pets

    Args:
        limit: How many pets to return at most.
        tags: Only pets with one of these tags.
    """

def get_health() -> Any:
    """Health check"""
'''
    )
    assert module.functions == {
        "listPets": Function("listPets", "listPets", {"limit": "limit", "tags": "tags"}),
        "get_health": Function("get_health", "get-health", {}),
    }
    ast.parse(module.text)


def test_the_header_imports_only_the_typing_names_used() -> None:
    text = module_stub([HEALTH]).text
    assert "\nfrom typing import Any, TypedDict\n" in text
    assert (
        "\nfrom typing import Any, Literal, TypedDict\n" in module_stub([tool("f", {"x": {"const": 1}})]).text
    )


def test_described_tools_are_the_modules_body_each_typeddict_once_with_its_names() -> None:
    owner = {"type": "object", "properties": {"id": {"type": "string"}}}
    tools = [tool("Pet"), tool("a", {"p": {"$ref": "#/$defs/Pet"}}, defs={"Pet": owner}), LIST_PETS]
    parts = described(tools, notes=["readOnlyHint", ""])
    assert [part.rsplit("\ndef ", 1)[1].split("(")[0] for part in parts] == ["Pet_3", "a", "listPets"]
    text = "\n\n".join(parts)
    assert text.startswith(
        "# readOnlyHint\ndef Pet_3() -> Any:\n    ...\n\n"  # a function gives way to TypedDicts
        "class Pet(TypedDict, total=False):\n    id: str\n\ndef a(*, p: Pet = ...) -> Any:\n    ...\n\n"
        "class Pet_2(TypedDict):\n    id: int\n"
    )
    assert "\n\ndef listPets(*, limit: int = ..., tags: " in text
    assert module_stub(tools).text.endswith("\n" + "\n\n".join(described(tools)) + "\n")  # (no aliases here)


def test_a_typeddict_the_same_as_one_written_but_for_its_name_is_an_alias_of_it(pool: Monty) -> None:
    """Compared as graphs: the recursive twins are one; a type that differs in one field is not."""

    def linked(name: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "next": {"$ref": f"#/$defs/{name}"}},
        }

    output = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": linked("Node")},
    }
    tools = [
        tool("get", output=output),
        tool("put", {"item": {"$ref": "#/$defs/Item"}}, defs={"Item": linked("Item")}),
        tool("odd", output={"type": "object", "properties": {"id": {"type": "string"}, "next": {}}}),
    ]
    parts = described(tools)
    text = "\n\n".join(parts)
    assert (
        parts[1] == "Item = Node\n\ndef put(*, item: Item = ...) -> Any:\n    ..."
    )  # (Node: an earlier part)
    assert text == (
        "class GetResult(TypedDict, total=False):\n    node: Node\n\n"
        "class Node(TypedDict, total=False):\n    id: int\n    next: Node\n\n"
        "def get() -> GetResult:\n    ...\n\n"
        "Item = Node\n\n"
        "def put(*, item: Item = ...) -> Any:\n    ...\n\n"
        "class OddResult(TypedDict, total=False):\n    id: str\n    next: Any\n\n"
        "def odd() -> OddResult:\n    ..."
    )
    module = module_stub(tools)  # what the type checker reads: each in full, its messages name it
    assert "\nclass Item(TypedDict, total=False):\n    id: int\n    next: Item\n" in module.text
    with_aliases = Module(stubs.HEADER.format(imports="Any, TypedDict") + f"\n{text}\n", module.functions)
    assert ty_errors(pool, with_aliases.text) == []  # the answer is a stub the checker reads too
    assert run(pool, with_aliases, "import api\napi.put(item={'id': 1, 'next': {'id': 2}})") is None


def test_function_names_are_unique_identifiers_that_leave_the_stubs_own_names_alone() -> None:
    names = ["get-pet", "get_pet", "class", "2fa", "_hidden", "last_error", "ApiError", "str", "x.y/z", "ünï"]
    functions = module_stub([tool(name) for name in names]).functions
    assert [(function.name, function.tool) for function in functions.values()] == [
        ("get_pet_2", "get-pet"),  # the tool already named so keeps it
        ("get_pet", "get_pet"),
        ("class_", "class"),
        ("t2fa", "2fa"),
        ("t_hidden", "_hidden"),  # the sandbox hides names starting with `_`
        ("last_error_", "last_error"),
        ("ApiError_", "ApiError"),
        ("str_", "str"),  # a function named str would retype every `str` of the stub
        ("x_y_z", "x.y/z"),
        ("n", "ünï"),
    ]


def test_keywords_are_unique_identifiers_mapped_back_to_the_arguments() -> None:
    properties = {
        name: {"type": "string"}
        for name in ("$top", "top", "X-Request-Id", "filter[name]", "class", "_id", "9")
    }
    snippet = stub(tool("f", properties, required=("top", "class")))
    assert snippet.split("\n)")[0] == (
        "def f(\n    *,\n    top_2: str = ...,\n    top: str,\n    X_Request_Id: str = ...,\n"
        "    filter_name: str = ...,\n    class_: str,\n    _id: str = ...,\n    t9: str = ...,"
    )
    keywords = module_stub([tool("f", properties)]).functions["f"].keywords
    assert keywords == {
        "top_2": "$top",
        "top": "top",
        "X_Request_Id": "X-Request-Id",
        "filter_name": "filter[name]",
        "class_": "class",
        "_id": "_id",
        "t9": "9",
    }


def test_required_arguments_come_without_a_default_and_optional_ones_with_an_ellipsis() -> None:
    snippet = stub(tool("f", {"a": {"type": "string"}, "b": {"type": "integer"}}, required=("b",)))
    assert snippet == "def f(*, a: str = ..., b: int) -> Any:\n    ..."


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string"}, "str"),
        ({"type": "integer"}, "int"),
        ({"type": "number"}, "float"),
        ({"type": "boolean"}, "bool"),
        ({"type": "null"}, "None"),
        (NULLABLE, "str | None"),
        ({"type": ["integer", "null"]}, "int | None"),
        ({"type": "array", "items": {"type": "string"}}, "list[str]"),
        ({"type": "array"}, "list[Any]"),
        ({"items": {"type": "boolean"}}, "list[bool]"),
        ({"enum": ["a", "b"]}, 'Literal["a", "b"]'),
        ({"enum": [1, -2, True]}, "Literal[1, -2, True]"),
        ({"enum": ["a", None]}, 'Literal["a"] | None'),
        ({"enum": [1.5, 2.5]}, "float"),
        ({"enum": ["a", 1.5, {"k": 1}, [2]]}, 'float | dict[str, Any] | list[Any] | Literal["a"]'),
        ({"const": "only"}, 'Literal["only"]'),
        ({"enum": ['say "hi"\\', "\ud800"]}, r'Literal["say \"hi\"\\", "\ud800"]'),
        ({"anyOf": [{"type": "string"}, {"type": "string"}, {"type": "integer"}]}, "str | int"),
        ({"oneOf": [{"enum": ["a"]}, {"enum": ["b"]}, {"type": "null"}]}, 'Literal["a", "b"] | None'),
        ({"anyOf": [{"type": "string"}, {"enum": ["a"]}]}, "str"),
        ({"anyOf": [{"type": "string"}, {}]}, "Any"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "dict[str, int]"),
        ({"type": "object"}, "dict[str, Any]"),
        ({"type": "object", "properties": {}}, "dict[str, Any]"),
        ({}, "Any"),
        (True, "Any"),
        ({"description": "anything"}, "Any"),
        ({"type": "string", "enum": ["a", "b"], "allOf": [{"enum": ["a"]}]}, 'Literal["a", "b"]'),
        ({"type": "string", "allOf": [{"type": "integer"}]}, "str"),  # contradictions leave the part out
        ({"$ref": "#/$defs/missing"}, "Any"),
        ({"$ref": "https://example.com/other.json"}, "Any"),
    ],
)
def test_each_kind_of_schema_is_its_python_type(schema: Any, expected: str) -> None:
    assert argument_type(schema) == expected


def test_an_object_with_properties_is_a_typeddict_whose_optional_keys_are_notrequired() -> None:
    assert stub(tool("make", {"body": PET})) == (
        "class MakeBody(TypedDict):\n    id: int\n    name: str\n    tag: NotRequired[str]\n\n"
        "def make(*, body: MakeBody = ...) -> Any:\n    ..."
    )
    open_pet = {"type": "object", "properties": {"name": NULLABLE}}
    assert stub(tool("make", {"body": open_pet})).split("\n\n")[0] == (
        "class MakeBody(TypedDict, total=False):\n    name: str | None"
    )


@pytest.mark.parametrize(
    ("key", "typeddict"),
    [
        ("x-y", 'MakeBody = TypedDict("MakeBody", {"x-y": str, "a": NotRequired[int]})'),
        ("from", 'MakeBody = TypedDict("MakeBody", {"from": str, "a": NotRequired[int]})'),
        ("__proto__", 'MakeBody = TypedDict("MakeBody", {"__proto__": str, "a": NotRequired[int]})'),
        ("int", 'MakeBody = TypedDict("MakeBody", {"int": str, "a": NotRequired[int]})'),  # `a: int` kept
        ("é", 'MakeBody = TypedDict("MakeBody", {"é": str, "a": NotRequired[int]})'),
        ('q"', 'MakeBody = TypedDict("MakeBody", {"q\\"": str, "a": NotRequired[int]})'),
        (
            "Literal_in_a_string",
            "class MakeBody(TypedDict):\n    Literal_in_a_string: str\n    a: NotRequired[int]",
        ),
    ],
)
def test_keys_that_cannot_be_class_attributes_make_a_functional_typeddict(key: str, typeddict: str) -> None:
    body = {
        "type": "object",
        "properties": {key: {"type": "string"}, "a": {"type": "integer"}},
        "required": [key],
    }
    assert stub(tool("make", {"body": body})).split("\n\n")[0] == typeddict


def test_a_long_functional_typeddict_takes_a_line_per_key() -> None:
    keys = [f"key-{index}" for index in range(8)]
    body = {"type": "object", "properties": {key: {"type": "string"} for key in keys}}
    assert stub(tool("make", {"body": body})).split("\n\n")[0] == "\n".join(
        ['MakeBody = TypedDict("MakeBody", {', *(f'    "{key}": str,' for key in keys), "}, total=False)"]
    )


def test_allof_objects_merge_into_one_typeddict() -> None:
    named = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    both = {"allOf": [{"$ref": "#/$defs/Named"}, {"properties": {"age": {"type": "integer"}}}]}
    assert stub(tool("make", {"body": both}, defs={"Named": named})).split("\n\n")[0] == (
        "class MakeBody(TypedDict):\n    name: str\n    age: NotRequired[int]"
    )


def test_anyof_objects_are_numbered_typeddicts_each_with_the_properties_beside_it() -> None:
    kind = {"type": "string"}
    body = {
        "type": "object",
        "properties": {"kind": kind},
        "required": ["kind"],
        "oneOf": [
            {"properties": {"bark": {"type": "boolean"}}},
            {"properties": {"hunts": {"type": "boolean"}}},
        ],
    }
    assert stub(tool("make", {"body": body, "other": NULLABLE})) == (
        "class MakeBody1(TypedDict):\n    kind: str\n    bark: NotRequired[bool]\n\n"
        "class MakeBody2(TypedDict):\n    kind: str\n    hunts: NotRequired[bool]\n\n"
        "def make(*, body: MakeBody1 | MakeBody2 = ..., other: str | None = ...) -> Any:\n    ..."
    )
    small = {"type": "object", "properties": {"gt": {"type": "integer"}}}
    assert stub(tool("list", {"created": {"anyOf": [small, {"type": "integer"}, {"type": "null"}]}})) == (
        "class ListCreated(TypedDict, total=False):\n    gt: int\n\n"  # one TypedDict: not numbered
        "def list_(*, created: ListCreated | int | None = ...) -> Any:\n    ..."
    )
    only_required = {**body, "oneOf": [{"required": ["kind"]}, {"required": ["other"]}]}
    assert (
        stub(tool("make", {"body": only_required})).split("\n\n")[0]
        == "class MakeBody(TypedDict):\n    kind: str"
    )


def test_a_defs_reference_is_a_typeddict_named_after_it_that_may_refer_to_itself() -> None:
    node = {
        "type": "object",
        "properties": {
            "label": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/tree_node"}},
        },
        "required": ["label"],
    }
    assert stub(tool("walk", {"root": {"$ref": "#/$defs/tree_node"}}, defs={"tree_node": node})) == (
        "class TreeNode(TypedDict):\n    label: str\n    children: NotRequired[list[TreeNode]]\n\n"
        "def walk(*, root: TreeNode = ...) -> Any:\n    ..."
    )
    looping = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Loop"}}]}
    assert stub(tool("f", {"x": {"$ref": "#/$defs/Loop"}}, defs={"Loop": looping})) == (
        "def f(*, x: str | list[Any] = ...) -> Any:\n    ..."  # a non-object met again inside itself
    )


def test_identical_definitions_share_a_name_and_different_ones_get_a_suffix() -> None:
    other_pet = {"type": "object", "properties": {"id": {"type": "string"}}}
    tools = [
        tool("a", {"p": {"$ref": "#/$defs/Pet"}}, defs={"Pet": PET}),
        tool("b", {"p": {"$ref": "#/$defs/Pet"}}, defs={"Pet": copy.deepcopy(PET)}),
        tool("c", {"p": {"$ref": "#/$defs/Pet"}}, defs={"Pet": other_pet}),
    ]
    text = module_stub(tools).text
    assert (
        text.count("class Pet(TypedDict):") == 1 and text.count("class Pet_2(TypedDict, total=False):") == 1
    )
    assert [line for line in text.split("\n") if line.startswith("def ")][1:] == [
        "def a(*, p: Pet = ...) -> Any:",
        "def b(*, p: Pet = ...) -> Any:",
        "def c(*, p: Pet_2 = ...) -> Any:",
    ]


def test_recursive_definitions_are_the_same_when_their_graphs_are() -> None:
    def node(label: str) -> dict[str, Any]:
        kids = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        return {"type": "object", "properties": {label: {"type": "string"}, "kids": kids}}

    trees = [
        tool(name, {"n": {"$ref": "#/$defs/Node"}}, defs={"Node": node(label)})
        for name, label in (("a", "x"), ("b", "x"), ("c", "y"))
    ]
    text = module_stub(trees).text
    assert text.count("\nclass Node(") == 1 and text.count("\nclass Node_2(") == 1
    assert "    kids: list[Node_2]\n\ndef c(*, n: Node_2 = ...) -> Any:" in text
    assert "def b(*, n: Node = ...) -> Any:" in text


def test_typeddicts_with_the_same_fields_in_another_order_are_the_same() -> None:
    """PagerDuty's references list id and summary in either order."""
    string = {"type": "string"}
    first = {"type": "object", "properties": {"id": string, "summary": string}}
    second = {"type": "object", "properties": {"summary": string, "id": string}}
    text = stub(tool("get", output={"type": "object", "properties": {"user": first, "channel": second}}))
    assert text.split("\n\ndef ")[0] == (
        "class GetResult(TypedDict, total=False):\n    user: GetResultUser\n    channel: GetResultChannel\n\n"
        "class GetResultUser(TypedDict, total=False):\n    id: str\n    summary: str\n\n"
        "GetResultChannel = GetResultUser"
    )


def test_other_typeddicts_are_named_after_the_function_and_the_path() -> None:
    small = {"type": "object", "properties": {"v": {"type": "integer"}}}
    body = {
        "type": "object",
        "properties": {
            "owner": small,
            "tags": {"type": "array", "items": small},
            "extra": {"type": "object", "additionalProperties": small},
        },
    }
    text = stub(tool("create_pet", {"body": body}, output=small))
    assert re.findall(r"^(?:class )?(\w+)", text, re.M) == [
        "CreatePetBody",
        "CreatePetBodyOwner",
        "CreatePetBodyTagsItem",  # the same as the owner: an alias of it (below)
        "CreatePetBodyExtraValue",
        "CreatePetResult",
        "def",
    ]
    assert "\n\nCreatePetResult = CreatePetBodyOwner\n\n" in text


def test_a_result_leaves_out_none_and_types_its_numbers_int() -> None:
    tolerant = {
        "type": "object",
        "properties": {
            "id": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "tags": {
                "anyOf": [
                    {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                    {"type": "null"},
                ]
            },
            "gone": {"type": "null"},
        },
    }
    assert stub(tool("get", output=tolerant)) == (
        "class GetResult(TypedDict, total=False):\n    id: int\n    tags: list[str]\n    gone: None\n\n"
        "def get() -> GetResult:\n    ..."
    )


def test_the_return_is_the_output_schema_unwrapped_when_wrapped_and_any_without_one() -> None:
    wrapped = {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}}
    assert stub(tool("f", output=wrapped, wrapped=True)).startswith("def f() -> list[str]:")
    assert stub(tool("f", output=wrapped)).startswith(
        "class FResult(TypedDict, total=False):\n    result: list[str]"
    )
    assert stub(tool("f", output={"type": "object", "properties": {}}, wrapped=True)).startswith(
        "def f() -> Any:"
    )
    assert stub(tool("f")).startswith("def f() -> Any:")


def test_the_docstring_is_the_description_verbatim_then_each_arguments_on_one_cut_line() -> None:
    description = 'Say "hi"\n\n  Indented C:\\temp, """quoted""", a bell \x07, \ud800, then a quote"'
    long = " ".join(["word"] * 40) + "\nand more"
    snippet = stub(
        tool("say", {"x": {"type": "string", "description": long}, "y": NULLABLE}, description=description)
    )
    docstring = ast.get_docstring(ast.parse(snippet).body[0])  # less the indentation the stub adds
    assert docstring == f"{description}\n\nArgs:\n    x: {' '.join(['word'] * 29)}…"
    assert stub(tool("q", description='one line ending in a quote"')).endswith(
        '"""one line ending in a quote"\n    """'
    )


def test_past_four_levels_of_typeddicts_objects_are_dicts() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    for _ in range(5):
        schema = {"type": "object", "properties": {"down": schema}}
    snippet = stub(tool("deep", {"x": schema}))
    assert re.findall(r"^class (\w+)", snippet, re.M) == [
        "DeepX",
        "DeepXDown",
        "DeepXDownDown",
        "DeepXDownDownDown",
    ]
    assert "class DeepXDownDownDown(TypedDict, total=False):\n    down: dict[str, Any]\n" in snippet


def test_a_function_over_the_size_guard_nests_less_then_cuts_literals_then_descriptions() -> None:
    def strings(count: int) -> dict[str, Any]:
        return {"type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(count)}}

    nested = stub(
        tool("f", {f"a{i}": {"type": "object", "properties": {"inner": strings(60)}} for i in range(5)})
    )
    assert len(nested) <= stubs.STUB_CHARS
    assert "class FA0(TypedDict, total=False):\n    inner: dict[str, Any]\n" in nested
    flat = stub(tool("f", {f"a{i}": strings(400) for i in range(5)}))
    assert not flat.startswith("class") and "    a0: dict[str, Any] = ...,\n" in flat
    many = {"enum": [f"value-{i}" for i in range(stubs.FEW_LITERALS + 1)], "description": "x " * 100}
    few = {**many, "enum": ["a"]}
    literals_cut = stub(tool("f", {f"a{i}": many for i in range(30)}))
    assert "    a0: str = ...,\n" in literals_cut and f"a0: {' '.join(['x'] * 74)}…\n" in literals_cut
    descriptions_cut = stub(tool("f", {f"a{i}": few for i in range(50)}))
    assert f"a0: {' '.join(['x'] * 29)}…\n" in descriptions_cut
    bare = stub(tool("f", {f"a{i}": few for i in range(120)}))
    assert "Args:" not in bare and '    a119: Literal["a"] = ...,\n' in bare
    assert all(len(text) <= stubs.STUB_CHARS for text in (flat, literals_cut, descriptions_cut, bare))


def test_a_long_description_is_cut_before_the_types_shrink_and_kept_whole_when_it_fits() -> None:
    """DigitalOcean's droplet actions: a 5,000-character table of action types would leave the body
    untyped; cut to DESCRIPTION_CHARS, the body keeps its TypedDict."""
    body = {"type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(60)}}
    table = "\n".join(f"| action_{i} | what action {i} does to the droplet |" for i in range(120))
    cut = stub(tool("act", {"body": body}, description=table))
    assert "class ActBody(TypedDict, total=False):" in cut and len(cut) <= stubs.STUB_CHARS
    docstring = ast.get_docstring(ast.parse(cut).body[-1]) or ""
    assert docstring.startswith("| action_0 | what action 0 does to the droplet |\n| action_1 |")
    assert len(docstring.partition("\n\nArgs:")[0]) < stubs.DESCRIPTION_CHARS
    assert docstring.partition("\n\nArgs:")[0].endswith("…")
    short = "\n".join(table.splitlines()[:40])  # 1,600 characters, which fit with the types
    whole = stub(tool("act", {"body": body}, description=short))
    assert ast.get_docstring(ast.parse(whole).body[-1]) == short and "class ActBody(" in whole


def test_odd_or_deep_schemas_give_any_and_never_an_error() -> None:
    deep: Any = {"type": "string"}
    chained: Any = {"type": "string"}
    for _ in range(3000):  # deeper than Python's stack
        deep, chained = {"type": "array", "items": deep}, {"allOf": [chained]}
    odd = {"type": 5, "enum": "no", "properties": [1], "required": "x"}
    looping = {
        "A": {"allOf": [{"$ref": "#/$defs/B"}]},
        "B": {"allOf": [{"$ref": "#/$defs/A"}], "properties": {"q": {"$ref": "#/$defs/A"}}},
    }
    properties = {
        "deep": deep,
        "chained": chained,
        "odd": odd,
        "none": {"anyOf": []},
        "a": {"$ref": "#/$defs/A"},
    }
    module = module_stub(
        [tool("f", properties, defs=looping), {"name": 5, "inputSchema": [], "description": 5}]
    )
    assert module.text.split("def last_error() -> ApiError | None:\n")[1].split("\n\n", 1)[1] == (
        "class A(TypedDict, total=False):\n    q: A\n\n"
        "def f(\n    *,\n"
        f"    deep: {'list[' * NESTING}Any{']' * NESTING} = ...,\n"
        "    chained: Any = ...,\n    odd: dict[str, Any] = ...,\n    none: Any = ...,\n    a: A = ...,\n"
        ") -> Any:\n    ...\n\ndef t5() -> Any:\n    ...\n"
    )


def test_the_same_tools_give_the_same_stub_byte_for_byte() -> None:
    tools = [LIST_PETS, HEALTH, tool("c", {"p": {"$ref": "#/$defs/Pet"}}, defs={"Pet": PET})]
    assert module_stub(tools) == module_stub(copy.deepcopy(tools))
    assert described(tools) == described(json.loads(json.dumps(tools)))


# The stub in the sandbox: pydantic-monty type-checks each program with ty before running it.

TOLERANT_PET = {  # as the generator writes a result: nothing required, null everywhere, no integer
    "type": "object",
    "properties": {
        "id": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "name": NULLABLE,
        "tag": NULLABLE,
        "pages": {"anyOf": [{"type": "number"}, {"type": "null"}]},
    },
}
OWNER = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "x-id": {"type": "integer"}, "str": {"type": "integer"}},
    "required": ["name"],
}
PET_TOOLS = [
    tool(
        "list-pets",
        {"limit": {"type": "integer"}, "tags": {"type": "array", "items": {"enum": ["cat", "dog"]}}},
        output={"type": "object", "properties": {"result": {"type": "array", "items": TOLERANT_PET}}},
        wrapped=True,
    ),
    tool("get_pet", {"pet_id": {"type": "integer"}}, required=("pet_id",), output=TOLERANT_PET),
    tool("create_pet", {"name": {"type": "string"}, "owner": OWNER}, required=("name",), output=TOLERANT_PET),
]
REX = {"id": 7, "name": "Rex", "tag": "dog", "pages": 2}
HOSTS = {
    "list_pets": lambda **arguments: [REX],
    "get_pet": lambda **arguments: REX,
    "create_pet": lambda **arguments: {**REX, "name": arguments["name"]},
    "last_error": lambda: None,
}


@pytest.fixture(scope="module")
def pool() -> Iterator[Monty]:
    with Monty() as monty:
        yield monty


def run(pool: Monty, module: Module, program: str, hosts: dict[str, Any] | None = None) -> Any:
    api = ExternalModule(
        hosts or {name: (lambda **arguments: None) for name in module.functions}, stubs=module.text
    )
    with pool.checkout(
        type_check=True, type_check_format="concise", external_modules={"api": api}
    ) as session:
        return session.feed_run(program)


def refusal(pool: Monty, program: str) -> str:
    with pytest.raises(MontyTypingError) as refused:
        run(pool, module_stub(PET_TOOLS), program, HOSTS)
    return refused.value.display()


def test_a_correct_program_type_checks_and_runs(pool: Monty) -> None:
    program = """import api
pets = api.list_pets(limit=2, tags=["dog"])
made = api.create_pet(name="Ada", owner={"name": "Bo", "x-id": 3, "str": 4})
found = api.get_pet(pet_id=pets[0]["id"])
error = api.last_error()
[pet["name"].upper() for pet in pets], made["name"], found["tag"], list(range(found["pages"])), error
"""
    assert run(pool, module_stub(PET_TOOLS), program, HOSTS) == (["REX"], "Ada", "dog", [0, 1], None)


@pytest.mark.parametrize(
    ("program", "refused"),
    [
        (
            "api.get_pet(pet_id=1, petid=2)",
            "[unknown-argument] Argument `petid` does not match any known parameter",
        ),
        ("api.get_pet()", "[missing-argument] No argument provided for required parameter `pet_id`"),
        (
            'api.get_pet(pet_id="7")',
            "[invalid-argument-type] Argument to function `get_pet` is incorrect: Expected `int`",
        ),
        ("api.get_pet(7)", "[too-many-positional-arguments]"),
        ('api.list_pets(tags=["cow"])', 'Expected `list[Literal["cat", "dog"]]`'),
        (
            'api.get_pet(pet_id=1)["nickname"]',
            '[invalid-key] Unknown key "nickname" for TypedDict `GetPetResult`',
        ),
        (
            'api.list_pets()[0]["nickname"]',
            '[invalid-key] Unknown key "nickname" for TypedDict `ListPetsResultItem`',
        ),
        (
            'api.create_pet(name="A", owner={"name": "B", "nick": 1})',
            '[invalid-key] Unknown key "nick" for TypedDict `CreatePetOwner`',
        ),
        (
            'api.create_pet(name="A", owner={"x-id": 1})',
            "[missing-typed-dict-key] Missing required key 'name'",
        ),
        (
            'api.create_pet(name="A", owner={"name": 1})',
            'Invalid argument to key "name" with declared type `str`',
        ),
        ('api.last_error()["code"]', "[not-subscriptable]"),
    ],
)
def test_the_type_checker_refuses_a_wrong_program_saying_why(pool: Monty, program: str, refused: str) -> None:
    assert refused in refusal(pool, f"import api\n{program}\n")


def test_a_result_key_is_read_without_complaint_and_get_is_the_careful_read(pool: Monty) -> None:
    module, hosts = module_stub(PET_TOOLS), {**HOSTS, "get_pet": lambda **arguments: {"id": 7}}
    assert run(pool, module, 'import api\napi.get_pet(pet_id=7).get("name", "?")', hosts) == "?"
    with pytest.raises(MontyRuntimeError, match="KeyError"):  # the API left it out
        run(pool, module, 'import api\napi.get_pet(pet_id=7)["name"]', hosts)


# The corpus: the generated tools with their whole schemas (tool_details.json over the listed ones).

CORPUS = ["oai-uber-v2", "rdm-discriminators", "train-travel-v31", "stripe-swagger2"]  # 2.0, 3.0, 3.1, huge
STUB_AS_PROGRAM = {"invalid-parameter-default", "empty-body"}  # `= ...` and `...` bodies outside a .pyi


def whole_tools(name: str) -> list[dict[str, Any]]:
    spec = next(spec for spec in corpus_specs() if spec.name == name)
    options = GeneratorOptions(dist_name="x", env_prefix="T")
    files = generate(str(spec.root), options, RefOptions(ref_root=spec.ref_root)).files
    data, details = json.loads(files["x/data/tool_data.json"]), json.loads(files["x/data/tool_details.json"])
    whole = Details(details).whole
    return [
        {**tool, **whole(tool["name"]), "wrapped": data["routes"][tool["name"]]["wrapped"]}
        for tool in data["tools"]
    ]


def ty_errors(pool: Monty, text: str) -> list[str]:
    """What ty finds in the stub read as a program, but for what only a .pyi allows (`...` bodies and
    defaults, names defined further down)."""
    with pool.checkout(type_check=True, type_check_format="concise") as session:
        try:
            session.feed_run(text)
        except MontyTypingError as refused:
            found = refused.display().splitlines()
        except MontyRuntimeError:  # checked, then run: the sandbox has no class syntax
            found = []
    defined = set(re.findall(r"^(?:class |def )?(\w+)", text, re.M))
    return [
        line
        for line in found
        if line.strip()
        and not any(f"error[{code}]" in line for code in STUB_AS_PROGRAM)
        and not (
            (name := re.search(r"\[unresolved-reference\] Name `(\w+)` used when not defined", line))
            and name.group(1) in defined
        )
    ]


@pytest.mark.skipif(not corpus_present(), reason=CORPUS_MISSING)
@pytest.mark.parametrize("name", CORPUS)
def test_a_corpus_spec_gives_a_stub_ty_reads_without_error_each_function_within_the_guard(
    pool: Monty, name: str
) -> None:
    tools = whole_tools(name)
    module, snippets = module_stub(tools), {wire["name"]: stub(wire) for wire in tools}
    assert ty_errors(pool, module.text) == []
    defined = [node.name for node in ast.parse(module.text).body if isinstance(node, ast.FunctionDef)]
    assert defined == ["last_error", *module.functions]
    first, *_, last = module.functions  # ty reads the functions a program uses (all: seconds)
    assert run(pool, module, f"import api\nlen([api.{first}, api.{last}])") == 2
    assert list(snippets) == [tool["name"] for tool in tools]
    assert max(len(snippet) for snippet in snippets.values()) <= stubs.STUB_CHARS


def test_the_stub_read_as_a_program_shows_a_name_that_is_nowhere(pool: Monty) -> None:
    text = module_stub([LIST_PETS]).text
    assert ty_errors(pool, text) == []
    broken = text.replace("-> list[Pet]:", "-> list[Pets]:").replace(
        "    tag: NotRequired[str]", '    tag: str = "x"'
    )
    assert [re.sub(r"^main.py:\d+:\d+: ", "", line) for line in ty_errors(pool, broken)] == [
        "error[invalid-typed-dict-statement] TypedDict item cannot have a value",
        "error[unresolved-reference] Name `Pets` used when not defined",
    ]
