"""The search index generation ships (`search_index.json`): the analyzer shared with the runtime,
the fields taken from each tool, the file's bytes, and exact rankings on a small spec."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from corpus_specs import CORPUS_SPECS

from openapi2mcp.emit.search_index import (
    SEARCH_INDEX_FILE,
    SchemaWords,
    documents,
    method_verb,
    schema_words,
    tool_fields,
)
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import Generation, generate
from openapi2mcp_runtime.discovery import search
from openapi2mcp_runtime.discovery import search_text as text_analysis

OK = {"200": {"description": "ok"}}


def operation(
    operation_id: str, summary: str | None, tags: list[str], description: str = ""
) -> dict[str, Any]:
    found: dict[str, Any] = {"operationId": operation_id, "tags": tags, "responses": OK}
    if summary:
        found["summary"] = summary
    if description:
        found["description"] = description
    return found


ID = [{"name": "issue_id", "in": "path", "required": True, "schema": {"type": "string"}}]
SORT = {
    "name": "sort",
    "in": "query",
    "description": "Order of the results.",
    "schema": {"type": "string", "enum": ["created", "priority"]},
}
MEMBERS = {
    "200": {
        "description": "ok",
        "content": {
            "application/json": {
                "schema": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/Member"},
                }
            }
        },
    }
}
TRACKER: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Tracker", "version": "1"},
    "servers": [{"url": "https://tracker.example.com"}],
    "tags": [{"name": "people", "description": "Staff and contractors."}],
    "components": {
        "schemas": {
            "Member": {
                "type": "object",
                "properties": {"login": {"type": "string"}, "timezone": {"type": "string"}},
            }
        }
    },
    "paths": {
        "/issues": {
            "get": operation("listIssues", "List issues", ["issues"]) | {"parameters": [SORT]},
            "post": operation("createIssue", "Create an issue", ["issues"]),
        },
        "/issues/{issue_id}": {
            "parameters": ID,
            "get": operation("getIssue", "Get an issue", ["issues"]),
            "patch": operation("updateIssue", "Update an issue", ["issues"], "Change its state or title."),
            "delete": operation("deleteIssue", "Delete an issue", ["issues"]),
        },
        "/issues/{issue_id}/comments": {
            "parameters": ID,
            "post": operation("addIssueComment", None, ["comments"]),
        },
        "/members": {
            "get": operation("listOrgMembers", "Members of the organization", ["people"])
            | {"responses": MEMBERS}
        },
        "/repos/{repo}/stargazers": {
            "parameters": [{"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": operation("listStargazers", "List stargazers", ["stars"], "Who starred a repository."),
        },
    },
}


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory) -> Generation:
    path = tmp_path_factory.mktemp("spec") / "tracker.yaml"
    path.write_text(yaml.safe_dump(TRACKER), encoding="utf-8")
    return generate(str(path), GeneratorOptions(dist_name="tracker", env_prefix="TRACKER"))


@pytest.fixture(scope="module")
def index(tracker: Generation, tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("index") / SEARCH_INDEX_FILE
    path.write_text(tracker.files[f"tracker/data/{SEARCH_INDEX_FILE}"], encoding="utf-8")
    return search.SearchIndex.load(path)


# ---- the analyzer --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("listCoreV1NamespacedPod", ["list", "core", "v1", "namespaced", "pod"]),
        ("HTTPRequestLog", ["http", "request", "log"]),
        ("conversations_setTopic", ["conversations", "set", "topic"]),
        ("dns-records-for-a-zone", ["dns", "records", "for", "a", "zone"]),
        ("/zones/{zone_id}/dns_records", ["zones", "zone", "id", "dns", "records"]),
        ("Crème brûlée, 2 ways", ["crème", "brûlée", "2", "ways"]),
        # CJK, written without spaces: overlapping character pairs; other text in the run as usual
        ("タグの削除", ["タグ", "グの", "の削", "削除"]),
        ("删除用户ID", ["删除", "除用", "用户", "id"]),
        ("getユーザー一覧", ["get", "ユー", "ーザ", "ザー", "ー一", "一覧"]),
        ("사용자 목록", ["사용", "용자", "목록"]),
        ("削", ["削"]),
    ],
)
def test_words_split_identifiers_paths_and_text(text: str, expected: list[str]) -> None:
    assert text_analysis.words(text) == expected


def test_analyze_drops_stop_words_and_one_letter_words_and_stems() -> None:
    assert search.analyze("Listing all of the Deployments in a namespace, v2") == [
        "list",
        "all",
        "deploy",
        "namespac",
        "v2",
    ]
    assert search.analyze("the of a I") == []
    assert search.analyze("削 a") == ["削"]  # a CJK character alone is a word


def test_a_query_word_expands_to_its_synonyms_at_a_lower_weight() -> None:
    expanded = text_analysis.expand("remove tickets")
    assert expanded[0]["remov"] == 1.0 and expanded[0]["delet"] == text_analysis.SYNONYM_WEIGHT
    assert {"issu", "incid"} <= set(expanded[1]) and expanded[1]["ticket"] == 1.0


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("How many users are there", "count users are there"),
        ("Turn off alerts, then turn on", "disable alerts, then enable"),
        ("who am I logged in as", "me current user current as"),
        ("lookup turnover", "lookup turnover"),  # whole words only
        ("Turn  OFF the alerts", "disable the alerts"),  # any case, any spaces
        ("deletePet when Logged In", "deletePet when current"),  # the rest as typed: camelCase splits
    ],
)
def test_phrases_are_read_as_the_words_they_mean(query: str, expected: str) -> None:
    assert text_analysis.rephrase(query) == expected


def test_the_http_method_says_what_a_tool_does() -> None:
    assert [method_verb(m, p) for m, p in [("GET", "/a"), ("GET", "/a/{id}"), ("POST", "/a")]] == [
        "list",
        "get",
        "create",
    ]
    assert [method_verb(m, "/a/{id}") for m in ("PUT", "PATCH", "DELETE", "HEAD")] == [
        "update",
        "update",
        "delete",
        "",
    ]


# ---- the fields and the file ---------------------------------------------------------------------


def test_a_tools_fields_hold_its_name_summary_tags_path_arguments_and_description(
    tracker: Generation,
) -> None:
    update = next(tool for tool in tracker.model.tools if tool.name == "updateIssue")
    assert tool_fields(update, search) == {
        "name": "updateIssue",
        "title": "Update an issue",
        "tags": "issues issues",
        "path": "/issues/{issue_id}",
        "verb": "",  # the name says it: "update"
        "params": "issue_id",
        "description": "Update an issue\n\nChange its state or title.",
        "about": "",
        "schema": [],
        "output": [],
    }
    issues = next(tool for tool in tracker.model.tools if tool.name == "listIssues")
    assert tool_fields(issues, search)["schema"] == ["Order of the results.", "created", "priority"]
    members = next(tool for tool in tracker.model.tools if tool.name == "listOrgMembers")
    assert tool_fields(members, search, "Staff and contractors.")["about"] == "Staff and contractors."
    assert tool_fields(members, search)["output"] == ["login", "timezone"]
    stargazers = next(tool for tool in tracker.model.tools if tool.name == "listStargazers")
    assert tool_fields(stargazers, search)["verb"] == ""
    comment = next(tool for tool in tracker.model.tools if tool.name == "addIssueComment")
    assert tool_fields(comment, search)["description"] == ""  # only the HTTP footer: left out


def test_schema_words_are_names_descriptions_and_enum_values_each_once() -> None:
    schema = {
        "type": "object",
        "description": "A pet.",
        "properties": {
            "owner": {"$ref": "#/$defs/Person"},
            "kind": {"anyOf": [{"enum": ["cat", "dog"]}, {"type": "null"}]},
            "friends": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
        },
        "$defs": {
            "Person": {
                "description": "Someone.",
                "properties": {"address": {"properties": {"city": {"properties": {"zip": {}}}}}},
            }
        },
    }
    assert sorted(schema_words(schema)) == sorted(
        [
            *["A pet.", "owner", "kind", "friends"],  # the top level
            *["Someone.", "address", "cat", "dog"],  # a level down
            "city",  # zip is a fourth level
        ]
    )
    assert sorted(schema_words(schema, names=False)) == ["A pet.", "Someone.", "cat", "dog"]
    assert sorted(schema_words(schema, descriptions=False, depth=1)) == [
        "cat",
        "dog",
        "friends",
        "kind",
        "owner",
    ]


def test_schema_words_follow_a_recursive_ref_without_going_round() -> None:
    schema = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {"description": "A node.", "anyOf": [{"$ref": "#/$defs/Node"}, {"enum": ["leaf"]}]}
        },
    }
    assert sorted(schema_words(schema)) == ["A node.", "leaf"]


def test_a_subschema_shared_by_tools_is_read_once_but_a_ref_is_read_in_its_own_schema() -> None:
    reader = SchemaWords(names=True, descriptions=True)
    shared = {"description": "Shared.", "properties": {"id": {}}}
    assert sorted(reader.of({"properties": {"a": shared}})) == ["Shared.", "a", "id"]
    shared["description"] = "Changed."  # a second reading would see it: the first one's words are kept
    assert sorted(reader.of({"properties": {"b": shared}})) == ["Shared.", "b", "id"]
    uses_ref = {"$ref": "#/$defs/X"}  # the same object in two schemas whose X differ
    first = reader.of({"properties": {"c": uses_ref}, "$defs": {"X": {"description": "One."}}})
    second = reader.of({"properties": {"c": uses_ref}, "$defs": {"X": {"description": "Two."}}})
    assert (sorted(first), sorted(second)) == (["One.", "c"], ["Two.", "c"])


def test_a_name_without_an_action_word_gets_the_methods() -> None:
    spec = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {"/pets": {"get": {}}}}
    spec["paths"]["/pets"]["get"] = operation("pets", None, [])
    tools = _generate(spec).model.tools
    assert tool_fields(tools[0], search)["verb"] == "list"


def _generate(document: dict[str, Any]) -> Generation:
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "spec.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return generate(str(path), GeneratorOptions(dist_name="t", env_prefix="T"))


def test_the_index_file_is_json_with_one_entry_per_tool_and_sorted_terms(tracker: Generation) -> None:
    text = tracker.files[f"tracker/data/{SEARCH_INDEX_FILE}"]
    data = json.loads(text)
    assert data["format"] == search.FORMAT_VERSION
    assert data["tools"] == [
        [tool.name, tool.toolset, search.path_depth(tool.path)] for tool in tracker.model.tools
    ]
    assert [depth for *_, depth in data["tools"]][:3] == [1, 1, 2]  # /issues, /issues, /issues/{issue_id}
    assert list(data["terms"]) == sorted(data["terms"])
    assert set(data["averageLengths"]) == set(search.FIELDS)
    postings = data["terms"]["stargaz"]
    assert postings[0::2] == [7] and all(isinstance(value, int) and value > 0 for value in postings[1::2])
    assert text.endswith("}}\n") and text.count("\n") == len(data["terms"]) + 2


def test_the_index_file_is_the_same_bytes_at_every_generation(tracker: Generation) -> None:
    found = documents(tracker.model, search)
    assert found[6][2]["about"] == "Staff and contractors."  # listOrgMembers: its tag's description
    again = search.index_text(search.build_index(found))
    assert again == tracker.files[f"tracker/data/{SEARCH_INDEX_FILE}"]
    reversed_fields = [(n, t, dict(reversed(list(f.items())))) for n, t, f in found]
    assert search.index_text(search.build_index(reversed_fields)) == again


def test_a_spec_without_operations_gets_an_empty_index(tmp_path: Path) -> None:
    document = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {}}
    text = _generate(document).files[f"t/data/{SEARCH_INDEX_FILE}"]
    path = tmp_path / SEARCH_INDEX_FILE
    path.write_text(text, encoding="utf-8")
    assert json.loads(text)["tools"] == []
    assert search.SearchIndex.load(path).search("anything", limit=5) == ([], 0)


# ---- rankings on the small spec ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("remove a ticket", ["deleteIssue"]),  # two synonyms
        ("open a new issue", ["createIssue"]),
        ("close the issue", ["updateIssue"]),  # close: an update
        ("show issue details", ["getIssue"]),
        ("browse all issues", ["listIssues"]),
        ("who starred this repo", ["listStargazers"]),  # repo: repository; starred: stargazers' text
        ("people in the org", ["listOrgMembers"]),
        ("comment on an issue", ["addIssueComment"]),  # no summary: the name's parts
        ("issues ordered by priority", ["listIssues"]),  # a parameter's description and enum value
        ("contractors", ["listOrgMembers"]),  # the description of the tag
        ("timezone of the staff", ["listOrgMembers"]),  # a property of the result
    ],
)
def test_the_right_tool_comes_first(index: Any, query: str, expected: list[str]) -> None:
    assert index.search(query, limit=1)[0] == expected


def test_exact_ranking_and_total_of_a_query(index: Any) -> None:
    assert index.search("delete issue", limit=10) == (
        # the path of get/update/delete holds "issue" twice, but is a segment deeper: the depth prior
        # (search.DEPTH_PRIOR) outweighs the second "issue"; addIssueComment: its name once, no summary
        ["deleteIssue", "createIssue", "listIssues", "getIssue", "updateIssue", "addIssueComment"],
        6,
    )


def test_pystemmer_and_pure_python_snowball_give_the_same_stem_for_every_word_of_the_corpus() -> None:
    """The generator stems with PyStemmer (C), a server maybe with snowballstemmer's pure-Python
    stemmer: an index and a query read the same words only if both give the same stems."""
    import Stemmer  # type: ignore[import-not-found,unused-ignore]
    from snowballstemmer.english_stemmer import EnglishStemmer  # type: ignore[import-untyped,unused-ignore]

    words: set[str] = set()
    for spec in sorted(path for path in CORPUS_SPECS.rglob("*") if path.is_file()):
        words.update(word.lower() for word in re.findall(r"[^\W_]+", spec.read_text("utf-8", "replace")))
    assert len(words) > 30_000
    vocabulary = sorted(words)
    pure = EnglishStemmer()
    assert Stemmer.Stemmer("english").stemWords(vocabulary) == [pure.stemWord(word) for word in vocabulary]
