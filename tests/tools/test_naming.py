import re

from openapi2mcp.tools.naming import (
    argument_name,
    env_token,
    giving_way,
    humanize,
    resolve_argument_clashes,
    short_hash,
    tool_name,
    unique_tool_names,
)


def test_tool_name_keeps_portable_characters_and_case():
    assert tool_name("listPets_v2-beta") == "listPets_v2-beta"


def test_tool_name_turns_every_other_character_into_underscore():
    assert tool_name("pets.list/all {id}") == "pets_list_all__id_"
    assert tool_name("café") == "caf_"


def test_mcp_style_keeps_dots():
    assert tool_name("pets.list", "mcp") == "pets.list"


def test_long_names_keep_a_readable_head_and_a_stable_hash():
    raw = "a" * 30 + "VeryLongOperationIdentifierThatGoesOnAndOn" * 2
    name = tool_name(raw)
    assert len(name) == 64
    assert name.startswith("a" * 30)
    assert name.endswith("_" + short_hash(raw))
    assert tool_name(raw) == name


def test_mcp_style_allows_128_characters():
    raw = "x" * 100
    assert tool_name(raw, "mcp") == raw
    assert len(tool_name("x" * 200, "mcp")) == 128


def test_clashing_names_all_get_a_suffix_from_their_own_identity():
    names = unique_tool_names([("get_pets", "GET /pets"), ("get_pets", "GET /pets/"), ("other", "GET /o")])
    assert names[0] == "get_pets_" + short_hash("GET /pets")
    assert names[1] == "get_pets_" + short_hash("GET /pets/")
    assert names[2] == "other"


def test_clash_suffixes_do_not_depend_on_spec_order():
    forward = unique_tool_names([("x", "GET /a"), ("x", "GET /b")])
    backward = unique_tool_names([("x", "GET /b"), ("x", "GET /a")])
    assert forward == list(reversed(backward))


def test_clash_suffix_keeps_names_within_the_limit():
    long = "n" * 64
    names = unique_tool_names([(long, "GET /a"), (long, "GET /b")])
    assert all(len(name) == 64 for name in names)
    assert len(set(names)) == 2


def test_argument_names_change_only_where_needed():
    assert argument_name("petId") == "petId"
    assert argument_name("page.size") == "page.size"
    assert argument_name("filter[status]") == "filter_status_"
    assert re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", argument_name("x" * 90))


def test_of_an_argument_clash_the_path_parameter_keeps_the_name_and_the_others_get_their_location():
    names = resolve_argument_clashes([("id", "path"), ("id", "body"), ("name", "body"), ("id", "query")])
    assert names == ["id", "id_body", "name", "id_query"]


def test_a_query_parameter_keeps_its_name_against_a_body_property_and_a_header():
    names = resolve_argument_clashes([("dryRun", "body"), ("dryRun", "header"), ("dryRun", "query")])
    assert names == ["dryRun_body", "dryRun_header", "dryRun"]


def test_a_suffixed_name_that_another_argument_has_is_hashed_but_the_kept_name_stays():
    names = resolve_argument_clashes([("id", "path"), ("id", "body"), ("id_body", "query")])
    assert names == ["id", "id_body_" + short_hash("id body"), "id_body"]


def test_names_that_sanitize_alike_in_one_location_stay_distinct():
    names = resolve_argument_clashes([("a b", "query"), ("a_b", "query")])
    assert len(set(names)) == 2
    assert all(name.startswith("a_b_query_") for name in names)


def test_what_gives_way_is_each_parameter_behind_one_of_another_location_with_its_name():
    entries = [("path", "path"), ("path", "query"), ("dryRun", "query"), ("dryRun", "header")]
    assert giving_way([*entries, ("a b", "cookie")]) == {("path", "query"), ("dryRun", "header")}
    assert giving_way([("page[size]", "query"), ("page_size_", "header")]) == {("page_size_", "header")}


def test_what_gives_way_is_not_two_parameters_of_one_location_nor_a_lone_one():
    assert giving_way([("a b", "query"), ("a_b", "query"), ("path", "query")]) == set()


def test_a_moved_parameter_takes_its_suffixed_name_where_nothing_clashes():
    moved = frozenset({("path", "query")})
    assert resolve_argument_clashes([("path", "query"), ("name", "query")], moved) == ["path_query", "name"]
    assert resolve_argument_clashes([("path", "path"), ("path", "query")], moved) == ["path", "path_query"]


def test_a_body_property_gives_way_to_a_moved_parameter_of_its_name():
    moved = frozenset({("path", "query")})
    names = resolve_argument_clashes([("path", "query"), ("path", "body")], moved)
    assert names == ["path_query", "path_body"]


def test_a_moved_name_that_another_argument_has_is_hashed_and_the_other_stays():
    moved = frozenset({("id", "query")})
    names = resolve_argument_clashes([("id", "query"), ("id_query", "header")], moved)
    assert names == ["id_query_" + short_hash("id query"), "id_query"]


def test_moved_entries_of_other_names_or_locations_change_nothing():
    moved = frozenset({("path", "header"), ("id", "query"), ("path", "body")})
    assert resolve_argument_clashes([("path", "query"), ("path", "body")], moved) == ["path", "path_body"]


def test_humanize_splits_camel_case_and_separators():
    assert humanize("listPets") == "List pets"
    assert humanize("get_/pets/{petId}") == "Get pets pet id"
    assert humanize("getHTTPStatus") == "Get HTTP status"


def test_env_token_upper_cases_and_replaces_non_alphanumerics():
    assert env_token("petstore-api v2") == "PETSTORE_API_V2"
