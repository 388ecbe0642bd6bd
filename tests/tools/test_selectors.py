"""`--include` / `--exclude` selectors (issue 5): each kind, their combinations, the diagnostics,
and that selection happens before mapping and together with `x-mcp: false`."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.selectors import Selector, SelectorError, glob_pattern, parse, parse_all

OK = {"200": {"description": "ok"}}


def path_params(*names: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in names]


def op(operation_id: str, *tags: str, **extra: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "responses": OK, **({"tags": list(tags)} if tags else {}), **extra}


def zoo() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "https://zoo.example.com"}],
        "paths": {
            "/pets": {"get": op("listPets", "Pets"), "post": op("createPet", "pets", "admin")},
            "/pets/{id}": {
                "parameters": path_params("id"),
                "get": op("showPet", "PETS"),
                "delete": op("deletePet", "admin"),
            },
            "/petstore/info": {"get": op("storeInfo")},
            "/users/{id}/pets/{petId}": {
                "parameters": path_params("id", "petId"),
                "get": op("userPet", "users"),
            },
        },
    }


ALL = ["listPets", "createPet", "showPet", "deletePet", "storeInfo", "userPet"]


def run(
    include: tuple[str, ...] = (), exclude: tuple[str, ...] = (), document: dict[str, Any] | None = None
) -> tuple[list[str], list[tuple[Level, str, str]]]:
    diagnostics = Diagnostics()
    options = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", include=include, exclude=exclude)
    model = map_document(document or zoo(), options, diagnostics)
    return [tool.name for tool in model.tools], [(d.level, d.pointer, d.message) for d in diagnostics]


def kept_info(kept: int, total: int, not_included: int, excluded: int) -> tuple[Level, str, str]:
    return (
        Level.INFO,
        "#/paths",
        f"selectors: {kept} of {total} operations kept "
        f"({not_included} matched no include, {excluded} matched an exclude)",
    )


def no_match(role: str, text: str) -> tuple[Level, str, str]:
    return (Level.WARNING, "#/paths", f"{role} selector {text!r} matches no operation")


# ---------------------------------------------------------------------------------------------
# Parsing


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("tag:pets", "tag", "pets"),
        ("TAG: Pets ", "tag", "Pets"),
        ("op:listPets", "op", "listPets"),
        ("method:GET", "method", "GET"),
        (" path : /pets/** ", "path", "/pets/**"),
        ("op:a:b", "op", "a:b"),
    ],
)
def test_a_selector_is_a_kind_and_a_value_with_blanks_around_them_ignored(
    text: str, kind: str, value: str
) -> None:
    selector = parse(text)
    assert (selector.text, selector.kind, selector.value) == (text, kind, value)


@pytest.mark.parametrize("text", ["pets", "tags:pets", "operation:x", ":x", ""])
def test_an_unknown_kind_is_a_selector_error_that_lists_the_kinds(text: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse(text)
    assert str(caught.value) == (
        f"selector {text!r}: use tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB "
        "(e.g. tag:pets, path:/pets/**)"
    )


def test_a_selector_without_a_value_is_a_selector_error() -> None:
    with pytest.raises(SelectorError, match=r"^selector 'tag: ': nothing after 'tag:'$"):
        parse("tag: ")


def test_a_method_selector_must_name_an_http_method() -> None:
    with pytest.raises(SelectorError) as caught:
        parse("method:fetch")
    assert str(caught.value) == (
        "selector 'method:fetch': not an HTTP method; "
        "choose one of get, put, post, delete, options, head, patch, trace"
    )


def test_selector_error_is_a_value_error() -> None:
    assert issubclass(SelectorError, ValueError)


def test_parse_all_keeps_each_selector_once_in_order() -> None:
    assert [s.text for s in parse_all(["tag:a", "op:b", "tag:a"])] == ["tag:a", "op:b"]


@pytest.mark.parametrize(
    ("glob", "regex"),
    [
        ("/pets", r"/pets"),
        ("/pets/*", r"/pets/[^/]*"),
        ("/pets/**", r"/pets(?:/.*)?"),
        ("/**/photos", r"(?:/.*)?/photos"),
        ("/pet**", r"/pet.*"),
        ("/pets/?", r"/pets/[^/]"),
        ("/pets/{id}.json", r"/pets/\{id\}\.json"),
    ],
)
def test_a_path_glob_becomes_a_regular_expression(glob: str, regex: str) -> None:
    assert glob_pattern(glob).pattern == regex


# ---------------------------------------------------------------------------------------------
# Each kind


def test_without_selectors_every_operation_is_kept_and_nothing_is_reported() -> None:
    assert run() == (ALL, [])


def test_a_tag_selector_matches_the_tag_case_insensitively() -> None:
    assert run(include=("tag:pets",)) == (["listPets", "createPet", "showPet"], [kept_info(3, 6, 3, 0)])


@pytest.mark.parametrize(
    ("tags", "matches"), [(["x", "Pets"], True), ([7, "pets"], True), ("pets", False), (None, False)]
)
def test_a_tag_selector_looks_for_the_tag_among_the_string_entries_of_the_tags_list(
    tags: Any, matches: bool
) -> None:
    assert parse("tag:PETS").matches(Ref({"tags": tags})) is matches


def test_an_op_selector_matches_the_operation_id_exactly() -> None:
    assert run(include=("op:showPet",)) == (["showPet"], [kept_info(1, 6, 5, 0)])
    assert run(include=("op:showpet",)) == ([], [no_match("include", "op:showpet"), kept_info(0, 6, 6, 0)])


def test_a_method_selector_matches_the_verb_case_insensitively() -> None:
    assert run(include=("method:GET",))[0] == ["listPets", "showPet", "storeInfo", "userPet"]
    assert run(include=("method:delete",))[0] == ["deletePet"]


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("/pets", ["listPets", "createPet"]),
        ("/pets/*", ["showPet", "deletePet"]),
        ("/pets/{id}", ["showPet", "deletePet"]),
        ("/pets/?id?", ["showPet", "deletePet"]),
        ("/pet*", ["listPets", "createPet"]),
        ("/pets/**", ["listPets", "createPet", "showPet", "deletePet"]),
        ("/pet**", ["listPets", "createPet", "showPet", "deletePet", "storeInfo"]),
        ("/**/pets/*", ["showPet", "deletePet", "userPet"]),
        ("**/{id}", ["showPet", "deletePet"]),
        ("/*/*/pets/*", ["userPet"]),
        ("/**", ALL),
    ],
)
def test_a_path_glob_matches_the_path_key_star_within_a_segment_double_star_across(
    glob: str, expected: list[str]
) -> None:
    assert run(include=(f"path:{glob}",))[0] == expected


def test_a_path_glob_matches_the_whole_path_key_including_its_query_part() -> None:
    document = zoo()
    document["paths"]["/items?view=full"] = {"get": op("fullItems")}
    assert run(include=("path:/items",), document=document)[0] == []
    assert run(include=("path:/items?view=*",), document=document)[0] == ["fullItems"]


# ---------------------------------------------------------------------------------------------
# Combinations


def test_an_operation_matching_any_include_is_kept() -> None:
    names, diagnostics = run(include=("tag:users", "op:storeInfo", "method:delete"))
    assert (names, diagnostics) == (["deletePet", "storeInfo", "userPet"], [kept_info(3, 6, 3, 0)])


def test_excludes_alone_leave_out_what_any_of_them_matches() -> None:
    names, diagnostics = run(exclude=("method:delete", "tag:users"))
    assert (names, diagnostics) == (
        ["listPets", "createPet", "showPet", "storeInfo"],
        [kept_info(4, 6, 0, 2)],
    )


def test_an_exclude_wins_over_an_include() -> None:
    names, diagnostics = run(include=("tag:pets",), exclude=("method:post",))
    assert (names, diagnostics) == (["listPets", "showPet"], [kept_info(2, 6, 3, 1)])


def test_an_operation_both_included_and_excluded_by_the_same_kind_is_left_out() -> None:
    assert run(include=("path:/pets/**",), exclude=("path:/pets/*",))[0] == ["listPets", "createPet"]


def test_every_selector_that_matches_nothing_is_a_warning_and_the_others_still_apply() -> None:
    names, diagnostics = run(include=("tag:pest", "op:listPets"), exclude=("method:patch", "op:listPets"))
    assert names == []
    assert diagnostics == [
        no_match("include", "tag:pest"),
        no_match("exclude", "method:patch"),
        kept_info(0, 6, 5, 1),
    ]


def test_an_include_whose_operations_are_all_excluded_is_not_reported_as_matching_nothing() -> None:
    assert run(include=("op:listPets",), exclude=("tag:pets",)) == ([], [kept_info(0, 6, 5, 1)])


def test_an_invalid_selector_in_the_options_is_a_selector_error_from_the_mapper() -> None:
    with pytest.raises(SelectorError):
        run(exclude=("verb:get",))


# ---------------------------------------------------------------------------------------------
# With x-mcp: false, and before mapping


def test_x_mcp_false_operations_stay_out_and_do_not_count_for_selectors() -> None:
    document = zoo()
    document["paths"]["/pets"]["get"]["x-mcp"] = False
    document["paths"]["/petstore/info"]["x-mcp"] = False
    names, diagnostics = run(include=("tag:pets", "op:storeInfo"), document=document)
    assert names == ["createPet", "showPet"]
    assert diagnostics == [
        (Level.INFO, "#/paths/~1pets/get", "x-mcp: false: left out"),
        (Level.INFO, "#/paths/~1petstore~1info", "x-mcp: false: every operation of this path is left out"),
        no_match("include", "op:storeInfo"),
        kept_info(2, 4, 2, 0),
    ]


def test_x_mcp_false_at_the_root_leaves_nothing_for_the_selectors() -> None:
    document = {**zoo(), "x-mcp": False}
    assert run(include=("tag:pets",), document=document) == (
        [],
        [
            (Level.INFO, "#", "x-mcp: false at the root: no tools"),
            no_match("include", "tag:pets"),
            kept_info(0, 0, 0, 0),
        ],
    )


def test_operations_left_out_are_never_mapped_so_their_problems_are_not_reported() -> None:
    document = zoo()
    broken = {"$ref": "#/components/parameters/Missing"}
    document["paths"]["/petstore/info"]["get"]["parameters"] = [broken]
    assert run(exclude=("op:storeInfo",), document=document) == (
        ["listPets", "createPet", "showPet", "deletePet", "userPet"],
        [kept_info(5, 6, 0, 1)],
    )
    names, diagnostics = run(document=document)
    assert "storeInfo" not in names and [d[0] for d in diagnostics] == [Level.ERROR]


class Ref:
    def __init__(self, operation: dict[str, Any], path: str = "/a/{b}", method: str = "patch") -> None:
        self.operation, self.path, self.method = operation, path, method


def test_a_selector_matches_the_operation_itself() -> None:
    ref = Ref({"operationId": "x", "tags": ["T"]})
    selectors = [
        Selector("method:PATCH", "method", "PATCH"),
        parse("tag:t"),
        parse("op:x"),
        parse("path:/a/*"),
    ]
    assert [selector.matches(ref) for selector in selectors] == [True, True, True, True]
    assert [parse(text).matches(ref) for text in ("method:get", "tag:u", "op:X", "path:/a")] == [False] * 4
