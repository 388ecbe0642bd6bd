"""Overlay targets (JSONPath, RFC 9535, by python-jsonpath): what each form selects, and what is refused."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.load.overlay import Node, OverlayError, compile_target, select

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


def find(query: str, document: Any = DOC) -> list[Node]:
    return select(compile_target(query, "o.yaml#/actions/0"), document, "o.yaml#/actions/0")


def found(query: str) -> list[str]:
    return [node.render() for node in find(query)]


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
    assert [n.value for n in find("$.a['it\\'s']", document)] == [1]
    assert [n.value for n in find('$.a["say \\"hi\\""]', document)] == [2]
    assert [n.value for n in find("$.a['\\u00e9']", document)] == [3]
    assert [n.value for n in find("$.a.é", document)] == [3]


def test_a_found_node_knows_its_parent_and_key() -> None:
    (node,) = find("$.tags[1].name")
    assert (node.value, node.parent, node.key) == ("admin", DOC["tags"][1], "name")
    (root,) = find("$")
    assert (root.value, root.parent, root.path) == (DOC, None, ())


def test_slices_functions_and_descent_in_filters_select_as_rfc_9535_says() -> None:
    assert found("$.tags[0:1]") == ["$['tags'][0]"]
    assert found("$.tags[::-1]") == ["$['tags'][1]", "$['tags'][0]"]
    assert found("$.tags[?length(@.name) > 4]") == ["$['tags'][1]"]
    assert found("$.tags[?match(@.name, 'p.*')]") == ["$['tags'][0]"]
    assert found("$.paths[?@..deprecated]") == ["$['paths']['/pets']"]


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("$[", "unexpected end of query at the end"),
        ("$.a b", "unexpected token 'b' at position 4"),
        ("$..", "expected a shorthand selector at the end"),
        ("$.responses.200", "expected a shorthand selector at position 12"),
        ("$.a.$ref", "expected a shorthand selector at position 4"),
        (
            "$[?'x']",
            "filter expression literals outside of function expressions must be compared at position 2",
        ),
        ("$[?@.* == 1]", "non-singular query is not comparable at position 7"),
        ("$[?(@.a == 1]", "unbalanced parentheses at position 3"),
        ("$[?nosuch(@)]", "function 'nosuch' is not defined at position 3"),
    ],
)
def test_a_target_the_library_cannot_read_is_an_overlay_error_saying_where(query: str, problem: str) -> None:
    with pytest.raises(OverlayError) as caught:
        compile_target(query, "o.yaml#/actions/0")
    assert str(caught.value) == f"o.yaml#/actions/0: target {query!r}: {problem}"
