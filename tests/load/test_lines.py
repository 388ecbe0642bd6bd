"""Where diagnostics' JSON pointers are written: file, line and column in YAML and JSON specs,
through the `$ref`s of a multi-file spec (`openapi2mcp/load/lines.py`)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.load.lines import Location, locate
from openapi2mcp.load.lines_walk import Reached, walk

YAML_SPEC = """\
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /pets/{id}:
    get:
      parameters:
        - name: id
          in: path
        - {name: q, in: query}
      responses:
        '200': {description: ok}
"""


def test_yaml_pointers_land_on_the_key_or_the_item_that_starts_their_node() -> None:
    requests = [
        ("paths", "/pets/{id}", "get"),
        ("paths", "/pets/{id}", "get", "parameters", "0"),
        ("paths", "/pets/{id}", "get", "parameters", "1", "in"),
        ("paths", "/pets/{id}", "get", "responses", "200", "description"),
        ("info", "title"),
    ]
    assert walk(YAML_SPEC, requests) == [
        Reached(5, 5),
        Reached(7, 11),
        Reached(9, 21),
        Reached(11, 17),
        Reached(2, 8),
    ]


def test_a_pointer_past_what_the_text_holds_reaches_its_deepest_node_with_the_rest() -> None:
    requests = [("paths", "/pets/{id}", "post"), ("components", "schemas"), ()]
    assert walk(YAML_SPEC, requests) == [
        Reached(4, 3, ("post",)),
        Reached(None, None, ("components", "schemas")),
        Reached(None, None),
    ]


def test_json_pointers_land_on_lines_and_columns_of_pretty_and_minified_text() -> None:
    document = {
        "openapi": "3.0.3",
        "paths": {"/a~b/c": {"get": {"parameters": [{"in": "query"}, {"$ref": "x"}]}}},
    }
    pretty, minified = json.dumps(document, indent=2), json.dumps(document, separators=(",", ":"))
    requests = [
        ("paths", "/a~b/c", "get", "parameters", "1"),
        ("paths", "/a~b/c", "get", "parameters", "0", "in"),
    ]
    assert walk(pretty, requests) == [Reached(10, 11), Reached(8, 13)]
    assert walk(minified, requests) == [
        Reached(1, minified.index('{"$ref"') + 1),
        Reached(1, minified.index('"in"') + 1),
    ]


def test_a_node_left_by_its_ref_names_the_ref_in_json_and_yaml() -> None:
    json_text = '{"paths": {"/a": {"$ref": "paths/a.json#/item"}}}'
    yaml_text = "paths:\n  /a:\n    $ref: 'paths/a.yaml#/item'\n"
    assert walk(json_text, [("paths", "/a", "get")]) == [Reached(1, 12, ("get",), "paths/a.json#/item")]
    assert walk(yaml_text, [("paths", "/a", "get")]) == [Reached(2, 3, ("get",), "paths/a.yaml#/item")]


def test_locate_follows_the_refs_of_a_multi_file_spec_into_yaml_and_json_files(tmp_path: Path) -> None:
    (tmp_path / "paths").mkdir()
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n"
        "  /a:\n    $ref: 'paths/a.yaml#/item'\n"
        "  /b:\n    $ref: paths/b.json\n",
        encoding="utf-8",
    )
    (tmp_path / "paths" / "a.yaml").write_text(
        "item:\n  get:\n    responses:\n      '200':\n        $ref: '../shared.yaml#/ok'\n", encoding="utf-8"
    )
    (tmp_path / "paths" / "b.json").write_text(
        '{\n  "post": {\n    "responses": {}\n  }\n}\n', encoding="utf-8"
    )
    (tmp_path / "shared.yaml").write_text("x: 1\nok:\n  description: fine\n", encoding="utf-8")
    pointers = {
        "a": "#/paths/~1a/get/responses/200/description",
        "b": "#/paths/~1b/post/responses",
        "missing": "#/paths/~1b/put",
        "root": "#",
        "info": "#/info",
    }
    with contextlib.chdir(tmp_path):
        found = locate("api.yaml", pointers.values())
    assert {name: found[pointer] for name, pointer in pointers.items()} == {
        "a": Location("shared.yaml", 3, 3),
        "b": Location("paths/b.json", 3, 5),
        "missing": Location("api.yaml", 6, 3),
        "root": Location("api.yaml"),
        "info": Location("api.yaml", 2, 1),
    }


def test_a_ref_outside_the_reach_of_the_bundler_is_not_read(tmp_path: Path) -> None:
    spec, outside = tmp_path / "spec" / "api.yaml", tmp_path / "outside.yaml"
    spec.parent.mkdir()
    spec.write_text("paths:\n  /a:\n    $ref: ../outside.yaml#/a\n", encoding="utf-8")
    outside.write_text("a:\n  get: {}\n", encoding="utf-8")
    pointer = "#/paths/~1a/get"
    with contextlib.chdir(tmp_path):
        assert locate("spec/api.yaml", [pointer]) == {pointer: Location("spec/api.yaml", 2, 3)}
        allowed = locate("spec/api.yaml", [pointer], RefOptions(ref_root=tmp_path))
    assert allowed == {pointer: Location("outside.yaml", 2, 3)}


def test_a_spec_read_from_a_url_has_no_locations() -> None:
    assert locate("https://h.test/api.yaml", ["#/paths"]) == {}


def test_a_ref_to_something_other_than_a_regular_file_is_not_opened(tmp_path: Path) -> None:
    (tmp_path / "api.yaml").write_text("paths:\n  /a:\n    $ref: fifo.yaml#/a\n", encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.yaml")  # opening it would wait for a writer forever
    pointer = "#/paths/~1a/get"
    with contextlib.chdir(tmp_path):
        assert locate("api.yaml", [pointer]) == {pointer: Location("api.yaml", 2, 3)}
