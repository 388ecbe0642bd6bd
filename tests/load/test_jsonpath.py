"""The JSONPath subset of Overlay targets: what each form selects, in which order, and what is refused."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.load.jsonpath import JsonPathError, compile_path

DOC: dict[str, Any] = {
    "info": {"title": "Zoo", "x-internal": True},
    "tags": [{"name": "pets"}, {"name": "admin", "x-internal": False}],
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {"name": "limit", "in": "query", "x-rank": 2},
                    {"name": "debug", "in": "header", "x-rank": 10},
                    {"name": "debug", "in": "query", "x-rank": 1.5},
                ],
                "x-oai-traits": ["paged"],
            },
            "post": {"operationId": "addPet", "deprecated": True},
        },
        "/pets/{id}": {"get": {"operationId": "showPet", "x-internal": None}},
    },
}


def found(query: str) -> list[str]:
    return [node.render() for node in compile_path(query).find(DOC)]


@pytest.mark.parametrize(
    ("query", "paths"),
    [
        ("$", ["$"]),
        ("$.info.title", ["$['info']['title']"]),
        ("$['info']['title']", ["$['info']['title']"]),
        ('$["paths"]["/pets"].post', ["$['paths']['/pets']['post']"]),
        ("$.paths.*.get", ["$['paths']['/pets']['get']", "$['paths']['/pets/{id}']['get']"]),
        ("$.paths['/pets'][*]", ["$['paths']['/pets']['get']", "$['paths']['/pets']['post']"]),
        ("$.tags[0]", ["$['tags'][0]"]),
        ("$.tags[-1]", ["$['tags'][1]"]),
        ("$.tags[2]", []),
        ("$.tags[-3]", []),
        ("$.tags.name", []),
        ("$.info[0]", []),
        (
            "$.paths['/pets']['get','post'].operationId",
            [
                "$['paths']['/pets']['get']['operationId']",
                "$['paths']['/pets']['post']['operationId']",
            ],
        ),
        (
            "$..x-internal",
            [
                "$['info']['x-internal']",
                "$['tags'][1]['x-internal']",
                "$['paths']['/pets/{id}']['get']['x-internal']",
            ],
        ),
        (
            "$.paths..operationId",
            [
                "$['paths']['/pets']['get']['operationId']",
                "$['paths']['/pets']['post']['operationId']",
                "$['paths']['/pets/{id}']['get']['operationId']",
            ],
        ),
        (
            "$.tags..*",
            [
                "$['tags'][0]",
                "$['tags'][1]",
                "$['tags'][0]['name']",
                "$['tags'][1]['name']",
                "$['tags'][1]['x-internal']",
            ],
        ),
        ("$..parameters[1]", ["$['paths']['/pets']['get']['parameters'][1]"]),
        ("$.paths['/pets'].get.x-oai-traits", ["$['paths']['/pets']['get']['x-oai-traits']"]),
    ],
)
def test_each_form_selects_the_nodes_in_document_order(query: str, paths: list[str]) -> None:
    assert found(query) == paths


PARAMS = "$.paths['/pets'].get.parameters"


@pytest.mark.parametrize(
    ("condition", "indexes"),
    [
        ("?(@.name == 'debug')", [1, 2]),
        ("?@.name == 'debug'", [1, 2]),
        ('?@.name=="debug"', [1, 2]),
        ("?@.name == 'debug' && @.in == 'query'", [2]),
        ("?(@.name == 'limit' || @.in == 'header')", [0, 1]),
        ("?@.name != 'debug'", [0]),
        ("?!(@.name == 'debug')", [0]),
        ("?@['x-rank'] > 1.5", [0, 1]),
        ("?@.x-rank >= 1.5", [0, 1, 2]),
        ("?@.x-rank < 2", [2]),
        ("?@.x-rank <= 2", [0, 2]),
        ("?@.x-rank == 2.0", [0]),
        ("?'query' == @.in", [0, 2]),
        ("?@.name < 'e'", [1, 2]),
        ("?@.missing", []),
        ("?!@.missing", [0, 1, 2]),
        ("?@.x-rank", [0, 1, 2]),
        ("?@.missing == null", []),
        ("?@.missing != 'x'", [0, 1, 2]),
        ("?@.name > 1", []),
        ("?$.info.title == 'Zoo' && @.in == 'header'", [1]),
    ],
)
def test_a_filter_keeps_the_array_items_for_which_it_is_true(condition: str, indexes: list[int]) -> None:
    expected = [f"$['paths']['/pets']['get']['parameters'][{index}]" for index in indexes]
    assert found(f"{PARAMS}[{condition}]") == expected


def test_a_filter_on_an_object_tests_its_member_values() -> None:
    assert found("$.paths['/pets'][?@.deprecated == true]") == ["$['paths']['/pets']['post']"]
    assert found("$.paths.*[?@.operationId == 'showPet']") == ["$['paths']['/pets/{id}']['get']"]


def test_a_filter_compares_primitives_with_at_itself_and_booleans_are_not_numbers() -> None:
    assert found("$.paths['/pets'].get.x-oai-traits[?@ == 'paged']") == [
        "$['paths']['/pets']['get']['x-oai-traits'][0]"
    ]
    assert found("$..[?@.x-internal == 1]") == []
    assert found("$..[?@.x-internal == true]") == ["$['info']"]
    assert found("$..[?@.x-internal == null]") == ["$['paths']['/pets/{id}']['get']"]


def test_a_filter_with_recursive_descent_searches_every_level() -> None:
    assert found("$..[?@.name == 'debug'].in") == [
        "$['paths']['/pets']['get']['parameters'][1]['in']",
        "$['paths']['/pets']['get']['parameters'][2]['in']",
    ]


def test_string_literals_understand_escapes() -> None:
    document = {"a": {"it's": 1, 'say "hi"': 2, "é": 3}}
    assert [n.value for n in compile_path("$.a['it\\'s']").find(document)] == [1]
    assert [n.value for n in compile_path('$.a["say \\"hi\\""]').find(document)] == [2]
    assert [n.value for n in compile_path("$.a['\\u00e9']").find(document)] == [3]
    assert [n.value for n in compile_path("$.a.é").find(document)] == [3]


def test_a_found_node_knows_its_parent_and_key() -> None:
    (node,) = compile_path("$.tags[1].name").find(DOC)
    assert (node.value, node.parent, node.key) == ("admin", DOC["tags"][1], "name")
    (root,) = compile_path("$").find(DOC)
    assert (root.value, root.parent, root.path) == (DOC, None, ())


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("paths", "JSONPath 'paths': expected '$', found 'p' at position 0"),
        ("$.tags[0:1]", "JSONPath '$.tags[0:1]': slices are not supported: ':' at position 8"),
        ("$[?length(@) > 1]", "JSONPath '$[?length(@) > 1]': functions are not supported: 'l' at position 3"),
        ("$[", "JSONPath '$[': expected a name, an index, '*' or a filter, found 'end' at position 2"),
        ("$['a]", "JSONPath \"$['a]\": unterminated string at 'end' at position 5"),
        ("$.a b", "JSONPath '$.a b': unexpected ' ' at position 3"),
        ("$..", "JSONPath '$..': expected a name, found 'end' at position 3"),
        (
            "$[?'x']",
            "JSONPath \"$[?'x']\": a literal alone is not a test; "
            "expected a comparison before ']' at position 6",
        ),
        (
            "$[?@..a]",
            "JSONPath '$[?@..a]': recursive descent is not supported in a filter: '.' at position 4",
        ),
        (
            "$[?@.* == 1]",
            "JSONPath '$[?@.* == 1]': a query in a filter takes one name or index per step: "
            "'.' at position 4",
        ),
        (
            "$[?@['a','b'] == 1]",
            "JSONPath \"$[?@['a','b'] == 1]\": a query in a filter takes one name or index per step: "
            "'[' at position 4",
        ),
        ("$['a\\q']", "JSONPath \"$['a\\\\q']\": invalid escape 'q' at position 5"),
        ("$[?(@.a == 1]", "JSONPath '$[?(@.a == 1]': expected ')', found ']' at position 12"),
    ],
)
def test_what_is_not_supported_is_an_error_that_says_where(query: str, message: str) -> None:
    with pytest.raises(JsonPathError) as caught:
        compile_path(query)
    assert str(caught.value) == message
