"""Multi-file specs (openapi2mcp.load.bundle): references to other files and URLs are inlined before the
pipeline runs, within the ref root and the remote-reference rules, and failures are diagnostics.

Fixtures are written into tmp_path by each test. Most tests compare a multi-file spec with the same
spec written as one file by hand: both must give exactly the same tools."""

from __future__ import annotations

import contextlib
import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

import openapi2mcp.load.bundle_sources
from openapi2mcp.cli.app import app
from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.bundle import DEFAULT_REF_OPTIONS, RefOptions, bundle
from openapi2mcp.load.source import load_source
from openapi2mcp.load.swagger2.convert import convert_swagger2, is_swagger2
from openapi2mcp.model import GeneratorOptions, Tool
from openapi2mcp.pipeline import Generation, generate
from openapi2mcp.tools.mapper import map_document

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
Site = tuple[str, dict[str, bytes]]  # the `site` fixture of tests/conftest.py: base URL, files
OPTIONS = GeneratorOptions(dist_name="t", env_prefix="T")
OK = {"200": {"description": "ok"}}
SKIPPED = "operations that need it are skipped"
ANOTHER = "is a reference to another document, which could not be loaded (see the warning)"


def write(root: Path, files: dict[str, Any]) -> Path:
    """Write each file (YAML for .yaml, JSON for .json, text as is); return the first one's path."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif name.endswith(".json"):
            path.write_text(json.dumps(content), encoding="utf-8")
        else:
            path.write_text(yaml.safe_dump(content, sort_keys=False), encoding="utf-8")
    return root / next(iter(files))


def bundled(source: Path | str, options: RefOptions = DEFAULT_REF_OPTIONS) -> tuple[Any, list[str]]:
    document, name = load_source(str(source))
    diagnostics = Diagnostics()
    return bundle(document, name, diagnostics, options), [item.render() for item in diagnostics]


def generated(source: Path | str, options: RefOptions = DEFAULT_REF_OPTIONS) -> tuple[Generation, list[str]]:
    generation = generate(str(source), OPTIONS, options)
    return generation, [item.render() for item in generation.diagnostics]


def tools(source: Path | str, options: RefOptions = DEFAULT_REF_OPTIONS) -> dict[str, Tool]:
    generation, _ = generated(source, options)
    return {tool.name: tool for tool in generation.model.tools}


def oas(paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> dict[str, Any]:
    info = {"title": "T", "version": "1"}
    return {
        "openapi": version,
        "info": info,
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        **extra,
    }


def json_body(schema: Any) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def json_response(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def post(operation_id: str, schema: Any) -> dict[str, Any]:
    return {"post": {"operationId": operation_id, "requestBody": json_body(schema), "responses": OK}}


# ---------------------------------------------------------------------------------------------
# What is inlined


OWNER = {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}
LIMIT = {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}


def pets_files(pet_category: Any) -> dict[str, Any]:
    """A path item in another file, a schema in a third file referring to a fourth, `../`."""
    return {
        "openapi.yaml": oas(
            {"/pets": {"$ref": "paths/pets.yaml"}},
            components={"schemas": {"Category": {"type": "string", "enum": ["dog", "cat"]}}},
        ),
        "paths/pets.yaml": {
            "get": {
                "operationId": "listPets",
                "parameters": [{"$ref": "../common/parameters.yaml#/limit"}],
                "responses": json_response({"type": "array", "items": {"$ref": "../schemas/pet.yaml"}}),
            },
            "post": {
                "operationId": "addPet",
                "requestBody": json_body({"$ref": "../schemas/pet.yaml"}),
                "responses": {"201": {"description": "created"}},
            },
        },
        "common/parameters.yaml": {"limit": LIMIT},
        "schemas/pet.yaml": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "owner": {"$ref": "owner.yaml"},
                "category": pet_category,
            },
        },
        "schemas/owner.yaml": OWNER,
    }


def inlined_pets_item(pet: dict[str, Any]) -> dict[str, Any]:
    """paths/pets.yaml of pets_files with its parameter and schemas inlined, `pet` the pet schema."""
    return {
        "get": {
            "operationId": "listPets",
            "parameters": [LIMIT],
            "responses": json_response({"type": "array", "items": pet}),
        },
        "post": {
            "operationId": "addPet",
            "requestBody": json_body(pet),
            "responses": {"201": {"description": "created"}},
        },
    }


def test_a_path_item_parameter_and_schemas_in_other_files_are_inlined_in_place(tmp_path: Path) -> None:
    root = write(tmp_path, pets_files({"$ref": "../openapi.yaml#/components/schemas/Category"}))
    document, diagnostics = bundled(root)
    pet = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "owner": OWNER,
            "category": {"$ref": "#/components/schemas/Category"},  # back into the root: local
        },
    }
    assert diagnostics == []
    assert document["paths"] == {"/pets": inlined_pets_item(pet)}
    assert document["components"] == {"schemas": {"Category": {"type": "string", "enum": ["dog", "cat"]}}}


def test_a_multi_file_spec_gives_the_same_tools_as_the_same_spec_in_one_file(tmp_path: Path) -> None:
    root = write(tmp_path / "multi", pets_files({"$ref": "../openapi.yaml#/components/schemas/Category"}))
    pet = copy.deepcopy(pets_files({"$ref": "#/components/schemas/Category"})["schemas/pet.yaml"])
    pet["properties"]["owner"] = OWNER
    single = oas(
        {"/pets": inlined_pets_item(pet)},
        components={"schemas": {"Category": {"type": "string", "enum": ["dog", "cat"]}}},
    )
    multi = tools(root)
    assert list(multi) == ["listPets", "addPet"]
    assert multi == tools(write(tmp_path / "single", {"openapi.yaml": single}))
    assert multi["addPet"].input_schema["properties"]["owner"] == {
        "type": "object",
        "properties": {"email": {"type": "string", "format": "email"}},
    }


def test_the_same_target_referenced_many_times_is_one_object(tmp_path: Path) -> None:
    root = write(tmp_path, pets_files({"type": "string"}))
    document, _ = bundled(root)
    item = document["paths"]["/pets"]
    listed = item["get"]["responses"]["200"]["content"]["application/json"]["schema"]["items"]
    added = item["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert listed is added


def test_a_fragment_ref_and_local_refs_inside_another_file_mean_that_files_root(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas(
                {"/pets": post("addPet", {"$ref": "defs.yaml#/Pet"})},
                components={"schemas": {"Tag": {"type": "integer"}}},  # not what `#/Tag` in defs means
            ),
            "defs.yaml": {
                "Pet": {
                    "type": "object",
                    "properties": {"tag": {"$ref": "#/Tag"}, "kind": {"$ref": "#/a~1b"}},
                },
                "Tag": {"type": "string", "maxLength": 10},
                "a/b": {"$ref": "#/with%20space"},
                "with space": {"type": "string", "enum": ["x"]},
            },
        },
    )
    assert tools(root)["addPet"].input_schema == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "tag": {"type": "string", "maxLength": 10},
            "kind": {"type": "string", "enum": ["x"]},
        },
        "additionalProperties": False,
    }


def test_siblings_of_an_external_ref_are_merged_over_a_copy_of_its_target(tmp_path: Path) -> None:
    pet = {"type": "object", "description": "A pet.", "properties": {"id": {"type": "integer"}}}
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas(
                {
                    "/a": post("a", {"$ref": "defs.yaml#/Pet", "description": "The pet to add."}),
                    "/b": post("b", {"$ref": "defs.yaml#/Pet"}),
                },
                version="3.1.0",
            ),
            "defs.yaml": {"Pet": pet},
        },
    )
    document, diagnostics = bundled(root)
    schema_a = document["paths"]["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schema_b = document["paths"]["/b"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert diagnostics == []
    assert schema_a == {**pet, "description": "The pet to add."}
    assert schema_b == pet  # the shared target itself is unchanged


def test_a_recursive_schema_across_two_files_is_hoisted_and_cut_like_a_local_one(tmp_path: Path) -> None:
    existing = {"type": "string"}  # a Node already in the root: the hoisted one is Node_2
    root = write(
        tmp_path / "multi",
        {
            "openapi.yaml": oas(
                {"/nodes": post("addNode", {"$ref": "a.yaml#/Node"})},
                components={"schemas": {"Node": existing}},
            ),
            "a.yaml": {
                "Node": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "child": {"$ref": "b.yaml#/Wrapper"}},
                }
            },
            "b.yaml": {"Wrapper": {"type": "object", "properties": {"node": {"$ref": "a.yaml#/Node"}}}},
        },
    )
    document, diagnostics = bundled(root)
    local = {"$ref": "#/components/schemas/Node_2"}
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "child": {"type": "object", "properties": {"node": local}},
        },
    }
    assert diagnostics == []
    assert document["components"]["schemas"] == {"Node": existing, "Node_2": node}
    assert (
        document["paths"]["/nodes"]["post"]["requestBody"]["content"]["application/json"]["schema"] == local
    )
    single = oas(
        {"/nodes": post("addNode", local)}, components={"schemas": {"Node": existing, "Node_2": node}}
    )
    multi = tools(root)
    assert multi == tools(write(tmp_path / "single", {"openapi.yaml": single}))
    cut = multi["addNode"].input_schema["properties"]["child"]
    for _ in range(3):
        cut = cut["properties"]["node"]["properties"]["child"]
    assert cut["properties"]["node"] == {
        "type": "object",
        "description": "Recursive reference to Node_2; the recursion is cut here.",
    }


def test_a_file_that_refers_to_itself_is_hoisted_under_its_stem(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas({"/t": post("t", {"$ref": "tree node.yaml"})}),
            "tree node.yaml": {
                "type": "object",
                "properties": {"kids": {"items": {"$ref": "tree%20node.yaml"}}},
            },
        },
    )
    document, diagnostics = bundled(root)
    assert diagnostics == []
    assert document["components"] == {
        "schemas": {
            "tree_node": {
                "type": "object",
                "properties": {"kids": {"items": {"$ref": "#/components/schemas/tree_node"}}},
            }
        }
    }


def test_swagger_2_refs_to_other_files_are_inlined_before_the_conversion(tmp_path: Path) -> None:
    pet = {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array"}}}
    swagger_root = {
        "swagger": "2.0",
        "info": {"title": "T", "version": "1"},
        "definitions": {"Pet": {"type": "string"}},
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "parameters": [{"$ref": "parameters.yaml#/limit"}],
                    "responses": {"200": {"description": "ok", "schema": {"$ref": "Pet.yaml"}}},
                },
                "post": {
                    "operationId": "addPet",
                    "parameters": [
                        {"name": "pet", "in": "body", "required": True, "schema": {"$ref": "Pet.yaml"}}
                    ],
                    "responses": {
                        "default": {"description": "error", "schema": {"$ref": "../common/Error.yaml"}}
                    },
                },
            }
        },
    }
    limit = {"name": "limit", "in": "query", "type": "integer", "format": "int32"}
    recursive = copy.deepcopy(pet)
    recursive["properties"]["kids"]["items"] = {"$ref": "Pet.yaml"}
    root = write(
        tmp_path / "multi" / "spec",
        {"swagger.yaml": swagger_root, "parameters.yaml": {"limit": limit}, "Pet.yaml": recursive},
    )
    write(tmp_path / "multi" / "common", {"Error.yaml": {"type": "object"}})
    document, diagnostics = bundled(root, RefOptions(ref_root=tmp_path / "multi"))
    hoisted = copy.deepcopy(pet)
    hoisted["properties"]["kids"]["items"] = {"$ref": "#/definitions/Pet_2"}
    assert diagnostics == []
    assert document["definitions"] == {"Pet": {"type": "string"}, "Pet_2": hoisted}
    assert document["paths"]["/pets"]["get"]["parameters"] == [limit]
    assert document["paths"]["/pets"]["post"]["responses"]["default"]["schema"] == {"type": "object"}

    single = copy.deepcopy(swagger_root)
    single["definitions"]["Pet_2"] = hoisted
    operations = single["paths"]["/pets"]
    operations["get"]["parameters"] = [limit]
    operations["get"]["responses"]["200"]["schema"] = {"$ref": "#/definitions/Pet_2"}
    operations["post"]["parameters"][0]["schema"] = {"$ref": "#/definitions/Pet_2"}
    operations["post"]["responses"]["default"]["schema"] = {"type": "object"}
    multi = tools(root, RefOptions(ref_root=tmp_path / "multi"))
    assert list(multi) == ["listPets", "addPet"]
    assert multi == tools(write(tmp_path / "single", {"swagger.yaml": single}))


def test_structure_named_like_data_keywords_is_followed_but_data_is_left_untouched(tmp_path: Path) -> None:
    data = {"$ref": "missing.yaml"}  # would be a warning if it were followed
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas(
                {
                    "/a": {
                        "x-data": data,
                        "post": {
                            "operationId": "a",
                            "x-vendor": data,
                            "requestBody": {
                                "content": {
                                    "application/json": {
                                        "schema": {
                                            "type": "object",
                                            "properties": {
                                                "default": {"$ref": "defs.yaml#/Tag"},
                                                "example": {"$ref": "defs.yaml#/Tag"},
                                                "x-tag": {"$ref": "defs.yaml#/Tag"},
                                            },
                                            "example": data,
                                            "default": data,
                                            "enum": [data],
                                            "const": data,
                                            "x-extra": data,
                                        },
                                        "examples": {
                                            "inline": {"value": data},
                                            "shared": {"$ref": "defs.yaml#/Example"},
                                        },
                                    }
                                }
                            },
                            "responses": {"default": {"$ref": "defs.yaml#/Error"}},
                        },
                    }
                },
                version="3.1.0",
                components={"schemas": {"L": {"type": "array", "examples": [data]}}},
            ),
            "defs.yaml": {
                "Tag": {"type": "string"},
                "Example": {"summary": "one", "value": data},
                "Error": {"description": "error"},
            },
        },
    )
    document, diagnostics = bundled(root)
    operation = document["paths"]["/a"]["post"]
    media = operation["requestBody"]["content"]["application/json"]
    tag = {"type": "string"}
    assert diagnostics == []
    assert media["schema"]["properties"] == {"default": tag, "example": tag, "x-tag": tag}
    assert media["examples"] == {"inline": {"value": data}, "shared": {"summary": "one", "value": data}}
    assert operation["responses"] == {"default": {"description": "error"}}
    for value in (
        media["schema"]["example"], media["schema"]["default"], media["schema"]["enum"][0],
        media["schema"]["const"], media["schema"]["x-extra"], operation["x-vendor"],
        document["paths"]["/a"]["x-data"], document["components"]["schemas"]["L"]["examples"][0],
    ):  # fmt: skip
        assert value == {"$ref": "missing.yaml"}


def test_a_single_file_spec_comes_out_as_the_very_same_object(tmp_path: Path) -> None:
    single = oas({"/a": post("a", {"$ref": "#/components/schemas/A"})}, components={"schemas": {"A": {}}})
    root = write(tmp_path, {"openapi.yaml": single})
    document, _ = load_source(str(root))
    diagnostics = Diagnostics()
    assert bundle(document, str(root), diagnostics) is document
    assert len(diagnostics) == 0


def test_the_rest_of_the_pipeline_does_not_mutate_the_bundled_document(tmp_path: Path) -> None:
    root = write(tmp_path, pets_files({"$ref": "../openapi.yaml#/components/schemas/Category"}))
    document, _ = bundled(root)
    before = json.dumps(document)
    converted = convert_swagger2(document, Diagnostics()) if is_swagger2(document) else document
    model = map_document(converted, OPTIONS, Diagnostics())
    assert len(model.tools) == 2
    assert json.dumps(document) == before


# ---------------------------------------------------------------------------------------------
# Failures: a warning per file, the operations that need it skipped, the rest generated


def test_missing_unparsable_and_dangling_targets_are_warnings_and_skip_only_what_needs_them(
    tmp_path: Path,
) -> None:
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas(
                {
                    "/missing": post("missing", {"$ref": "missing.yaml"}),
                    "/missing-again": post("missingAgain", {"$ref": "missing.yaml#/Pet"}),
                    "/bad": post("bad", {"$ref": "bad.yaml#/Pet"}),
                    "/dangling": post("dangling", {"$ref": "defs.yaml#/Nope"}),
                    "/nested": post("nested", {"$ref": "sub/nested.yaml"}),
                    "/fine": post("fine", {"$ref": "defs.yaml#/Pet"}),
                }
            ),
            "bad.yaml": "Pet: [1, 2\n",
            "defs.yaml": {"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}},
            "sub/nested.yaml": {"type": "object", "properties": {"x": {"$ref": "gone.yaml"}}},
        },
    )
    generation, diagnostics = generated(root)
    body = "post/requestBody/content/application~1json/schema"
    assert [tool.name for tool in generation.model.tools] == ["fine"]
    assert diagnostics == [
        f"warning: #/paths/~1missing/{body}: reference 'missing.yaml' not followed: "
        f"'missing.yaml' does not exist; {SKIPPED}",
        f"warning: #/paths/~1bad/{body}: reference 'bad.yaml#/Pet' not followed: "
        f"bad.yaml:2:1: invalid YAML: did not find expected ',' or ']'; {SKIPPED}",
        f"warning: #/paths/~1dangling/{body}: reference 'defs.yaml#/Nope' not followed: "
        f"nothing is at 'defs.yaml#/Nope'; {SKIPPED}",
        f"warning: sub/nested.yaml#/properties/x: reference 'gone.yaml' not followed: "
        f"'sub/gone.yaml' does not exist; {SKIPPED}",
        f"error: #/paths/~1missing/{body}: reference 'missing.yaml' {ANOTHER}; operation skipped",
        f"error: #/paths/~1missing-again/{body}: reference 'missing.yaml#/Pet' {ANOTHER}; operation skipped",
        f"error: #/paths/~1bad/{body}: reference 'bad.yaml#/Pet' {ANOTHER}; operation skipped",
        f"error: #/paths/~1dangling/{body}: reference 'defs.yaml#/Nope' {ANOTHER}; operation skipped",
        # written in sub/nested.yaml, the reference stays, relative to the root document
        f"error: #/paths/~1nested/{body}/properties/x: reference 'sub/gone.yaml' {ANOTHER}; "
        "operation skipped",
    ]


def test_a_dangling_local_ref_inside_another_file_keeps_naming_that_file(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "openapi.yaml": oas({"/a": post("a", {"$ref": "defs.yaml#/Pet"})}),
            "defs.yaml": {"Pet": {"type": "object", "properties": {"tag": {"$ref": "#/Tag"}}}},
        },
    )
    document, diagnostics = bundled(root)
    schema = document["paths"]["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert schema == {"type": "object", "properties": {"tag": {"$ref": "defs.yaml#/Tag"}}}
    assert diagnostics == [
        f"warning: defs.yaml#/Pet/properties/tag: reference '#/Tag' not followed: "
        f"nothing is at 'defs.yaml#/Tag'; {SKIPPED}"
    ]


def test_an_unknown_anchor_is_reported(tmp_path: Path) -> None:
    root = write(tmp_path, {"openapi.yaml": oas({"/a": post("a", {"$ref": "/schemas/pet#pet_id"})})})
    _, diagnostics = bundled(root)
    assert diagnostics == [
        "warning: #/paths/~1a/post/requestBody/content/application~1json/schema: reference "
        "'/schemas/pet#pet_id' not followed: '#pet_id' names no `$anchor` of a schema with a known "
        f"`$id`; {SKIPPED}"
    ]


PET_RESOURCE = {
    "$id": "/schemas/pet",
    "type": "object",
    "properties": {"id": {"$anchor": "pet_id", "type": "integer"}, "name": {"type": "string"}},
}


@pytest.mark.parametrize(
    ("ref", "local", "kind"),
    [
        ("/schemas/pet#pet_id", "#/components/schemas/Pet/properties/id", "integer"),
        ("/schemas/pet", "#/components/schemas/Pet", "object"),
        ("/schemas/pet#/properties/name", "#/components/schemas/Pet/properties/name", "string"),
        ("#top", "#/components/schemas/Top", "string"),
    ],
)
def test_oas_31_id_and_anchor_references_become_local_references(
    tmp_path: Path, ref: str, local: str, kind: str
) -> None:
    components = {"schemas": {"Pet": PET_RESOURCE, "Top": {"$anchor": "top", "type": "string"}}}
    spec = oas({"/a": post("a", {"type": "object", "properties": {"x": {"$ref": ref}}})}, "3.1.0")
    root = write(tmp_path, {"openapi.yaml": {**spec, "components": components}})
    document, diagnostics = bundled(root)
    schema = document["paths"]["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert (schema["properties"]["x"], diagnostics) == ({"$ref": local}, [])
    assert tools(root)["a"].input_schema["properties"]["x"]["type"] == kind


def test_the_number_of_files_read_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openapi2mcp.load.bundle_sources, "MAX_LOCAL_FILES", 2)
    files: dict[str, Any] = {
        "openapi.yaml": oas({f"/{n}": post(f"op{n}", {"$ref": f"{n}.yaml"}) for n in range(3)})
    }
    files.update({f"{n}.yaml": {"type": "object"} for n in range(3)})
    generation, diagnostics = generated(write(tmp_path, files))
    assert [tool.name for tool in generation.model.tools] == ["op0", "op1"]
    assert diagnostics[0] == (
        "warning: #/paths/~12/post/requestBody/content/application~1json/schema: reference '2.yaml' "
        f"not followed: '2.yaml' not read: more than 2 files referenced; {SKIPPED}"
    )


# ---------------------------------------------------------------------------------------------
# The ref root


def escape_files(ref: str) -> dict[str, Any]:
    return {"spec/openapi.yaml": oas({"/a": post("a", {"$ref": ref})})}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A readable file outside the spec's directory (tmp_path/spec)."""
    return write(
        tmp_path, {"outside/secret.yaml": {"type": "object", "properties": {"s": {"type": "string"}}}}
    )


def outside_warning(ref: str, name: str = "", roots: str = "the spec's directory") -> str:
    return (
        f"warning: #/paths/~1a/post/requestBody/content/application~1json/schema: reference {ref!r} not "
        f"followed: {name or ref!r} is outside {roots}; --ref-root DIR allows the files under DIR; {SKIPPED}"
    )


def test_a_relative_ref_out_of_the_spec_directory_is_not_read_without_ref_root(
    tmp_path: Path, outside: Path
) -> None:
    root = write(tmp_path, escape_files("../outside/secret.yaml"))
    generation, diagnostics = generated(root)
    assert generation.model.tools == ()
    assert diagnostics[0] == outside_warning("../outside/secret.yaml")
    assert list(tools(root, RefOptions(ref_root=tmp_path))["a"].input_schema["properties"]) == ["s"]


def test_ref_root_widens_but_does_not_open_everything(tmp_path: Path, outside: Path) -> None:
    root = write(tmp_path, escape_files("../../../../../../../../etc/passwd"))
    _, diagnostics = bundled(root, RefOptions(ref_root=tmp_path / "outside"))
    expected = os.path.relpath("/etc/passwd", os.path.realpath(tmp_path / "spec"))
    roots = "the spec's directory and the --ref-root directory"
    assert diagnostics == [outside_warning("../../../../../../../../etc/passwd", expected, roots)]


def test_an_absolute_path_outside_the_ref_root_is_not_read(tmp_path: Path, outside: Path) -> None:
    root = write(tmp_path, escape_files(str(outside)))
    _, diagnostics = bundled(root)
    assert diagnostics == [outside_warning(str(outside))]
    inside = write(tmp_path / "spec", {"defs.yaml": {"type": "string"}})
    root = write(tmp_path, escape_files(str(inside)))
    document, diagnostics = bundled(root)
    assert diagnostics == []
    assert document["paths"]["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"] == {
        "type": "string"
    }


def test_a_file_uri_outside_the_ref_root_is_not_read(tmp_path: Path, outside: Path) -> None:
    root = write(tmp_path, escape_files(outside.as_uri()))
    _, diagnostics = bundled(root)
    name = os.path.relpath(outside, os.path.realpath(tmp_path / "spec"))
    assert diagnostics == [outside_warning(outside.as_uri(), name)]


def test_a_symlink_that_resolves_outside_the_ref_root_is_not_read(tmp_path: Path, outside: Path) -> None:
    root = write(tmp_path, escape_files("link.yaml"))
    (tmp_path / "spec" / "link.yaml").symlink_to(outside)
    (tmp_path / "spec" / "dir").symlink_to(outside.parent, target_is_directory=True)
    _, diagnostics = bundled(root)
    assert diagnostics == [outside_warning("link.yaml", "../outside/secret.yaml")]
    root = write(tmp_path, escape_files("dir/secret.yaml"))
    _, diagnostics = bundled(root)
    assert diagnostics == [outside_warning("dir/secret.yaml", "../outside/secret.yaml")]


# ---------------------------------------------------------------------------------------------
# Remote references


def dump(document: Any) -> bytes:
    return yaml.safe_dump(document, sort_keys=False).encode()


TAG = dump({"Tag": {"type": "string", "maxLength": 3}})


def schema_of(document: Any, path: str) -> Any:
    return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]


def test_remote_refs_from_a_local_spec_need_allow_remote_refs(
    tmp_path: Path, site: Site
) -> None:
    base, files = site
    files["/defs.yaml"] = TAG
    root = write(tmp_path, {"openapi.yaml": oas({"/a": post("a", {"$ref": f"{base}/defs.yaml#/Tag"})})})
    document, diagnostics = bundled(root)
    assert diagnostics == [
        "warning: #/paths/~1a/post/requestBody/content/application~1json/schema: reference "
        f"'{base}/defs.yaml#/Tag' not followed: '{base}/defs.yaml' is a remote document; "
        f"--allow-remote-refs allows fetching it; {SKIPPED}"
    ]
    assert schema_of(document, "/a") == {"$ref": f"{base}/defs.yaml#/Tag"}
    document, diagnostics = bundled(root, RefOptions(allow_remote_refs=True))
    assert diagnostics == []
    assert schema_of(document, "/a") == {"type": "string", "maxLength": 3}


def test_a_remote_spec_may_refer_under_its_own_url_directory_and_nowhere_else_without_the_flag(
    site: Site,
) -> None:
    base, files = site
    refs = {
        "/same-dir": "defs.yaml#/Tag",
        "/below": "sub/more.yaml#/Tag",
        "/up": "../other/defs.yaml#/Tag",
        "/other-host": f"{base.replace('127.0.0.1', 'localhost')}/api/defs.yaml#/Tag",
        "/redirect": "/moved/defs.yaml#/Tag",
        "/file": "file:///etc/passwd",
    }
    paths = {path: post(path.strip("/").replace("-", "_"), {"$ref": ref}) for path, ref in refs.items()}
    files["/api/openapi.yaml"] = dump(oas(paths))
    files["/api/defs.yaml"] = files["/api/sub/more.yaml"] = files["/other/defs.yaml"] = TAG
    root = f"{base}/api/openapi.yaml"
    document, diagnostics = bundled(root)
    tag = {"type": "string", "maxLength": 3}
    assert [path for path in refs if schema_of(document, path) == tag] == ["/same-dir", "/below"]
    pointer = "#/paths/~1{}/post/requestBody/content/application~1json/schema"
    flag = "--allow-remote-refs allows fetching it"
    other = base.replace("127.0.0.1", "localhost")
    under = f"is not under the spec's own URL directory '{base}/api/'; {flag}"
    assert diagnostics == [
        f"warning: {pointer.format('up')}: reference '../other/defs.yaml#/Tag' not followed: "
        f"'{base}/other/defs.yaml' {under}; {SKIPPED}",
        f"warning: {pointer.format('other-host')}: reference '{other}/api/defs.yaml#/Tag' not followed: "
        f"'{other}/api/defs.yaml' {under}; {SKIPPED}",
        f"warning: {pointer.format('redirect')}: reference '/moved/defs.yaml#/Tag' not followed: "
        f"'{base}/moved/defs.yaml' {under}; {SKIPPED}",
        f"warning: {pointer.format('file')}: reference 'file:///etc/passwd' not followed: "
        f"'file:///etc/passwd': a remote spec cannot refer to local files; {SKIPPED}",
    ]
    document, diagnostics = bundled(root, RefOptions(allow_remote_refs=True))
    followed = [path for path in refs if schema_of(document, path) == tag]
    # /other-host is fetched too, where `localhost` resolves to the server's 127.0.0.1
    assert [path for path in followed if path != "/other-host"] == ["/same-dir", "/below", "/up", "/redirect"]
    assert diagnostics[-1].endswith(
        f"'file:///etc/passwd': a remote spec cannot refer to local files; {SKIPPED}"
    )


def test_a_redirect_away_from_the_allowed_directory_is_refused(site: Site) -> None:
    base, files = site
    files["/moved/openapi.yaml"] = dump(oas({"/a": post("a", {"$ref": "defs.yaml#/Tag"})}))
    files["/other/defs.yaml"] = TAG
    # the spec itself is fetched from /moved/ (by the loader); its refs are fetched from /moved/ too
    # and redirected to /other/, outside the spec's URL directory
    document, diagnostics = bundled(f"{base}/moved/openapi.yaml")
    assert diagnostics == [
        "warning: #/paths/~1a/post/requestBody/content/application~1json/schema: reference "
        f"'defs.yaml#/Tag' not followed: '{base}/moved/defs.yaml' redirects to '{base}/other/defs.yaml', "
        f"which needs --allow-remote-refs; {SKIPPED}"
    ]
    document, diagnostics = bundled(f"{base}/moved/openapi.yaml", RefOptions(allow_remote_refs=True))
    assert diagnostics == []
    assert schema_of(document, "/a") == {"type": "string", "maxLength": 3}


# ---------------------------------------------------------------------------------------------
# The command line


def run(*args: str, cwd: Path) -> tuple[int, str]:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


SETUP_LINES = 4  # generate's client set-up after the sizes line (emit/client_setup.summary_lines)


def written_to_out2(tokens: int) -> list[str]:
    """generate's stderr before the client set-up: the one tool written and the sizes line, nothing else."""
    return [
        "out2: 1 tools written (0 errors reported)",
        f"out2: 1 tool in 1 toolset, tools/list about {tokens} tokens; recommended mode: static "
        "(details: openapi2mcp inspect out2)",
    ]


def test_cli_ref_root_lets_refs_read_files_under_it(tmp_path: Path, outside: Path) -> None:
    write(tmp_path, escape_files("../outside/secret.yaml"))
    code, stderr = run("generate", "spec/openapi.yaml", "-o", "out", "--name", "t", cwd=tmp_path)
    assert code == 0
    placed = "warning: spec/openapi.yaml:15:13: "
    warning = outside_warning("../outside/secret.yaml").replace("warning: ", placed)
    assert warning in stderr.splitlines()
    assert stderr.splitlines()[-2 - SETUP_LINES] == "out: 0 tools written (1 errors reported)"
    code, stderr = run(
        "generate", "spec/openapi.yaml", "-o", "out2", "--name", "t", "--ref-root", ".", cwd=tmp_path
    )
    assert (code, stderr.splitlines()[:-SETUP_LINES]) == (0, written_to_out2(103))


def test_cli_a_missing_ref_root_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, escape_files("defs.yaml"))
    code, stderr = run(
        "generate", "spec/openapi.yaml", "-o", "out", "--name", "t", "--ref-root", "nowhere", cwd=tmp_path
    )
    assert (code, stderr) == (2, "openapi2mcp: error: --ref-root 'nowhere': not a directory\n")
    assert not (tmp_path / "out").exists()


def test_cli_allow_remote_refs_fetches_remote_documents(
    tmp_path: Path, site: Site
) -> None:
    base, files = site
    files["/defs.yaml"] = TAG
    write(tmp_path, {"openapi.yaml": oas({"/a": post("a", {"$ref": f"{base}/defs.yaml#/Tag"})})})
    code, stderr = run("generate", "openapi.yaml", "-o", "out", "--name", "t", cwd=tmp_path)
    assert code == 0 and "--allow-remote-refs allows fetching it" in stderr
    code, stderr = run(
        "generate", "openapi.yaml", "-o", "out2", "--name", "t", "--allow-remote-refs", cwd=tmp_path
    )
    assert (code, stderr.splitlines()[:-SETUP_LINES]) == (0, written_to_out2(113))


# ---------------------------------------------------------------------------------------------
# The corpus


def corpus_spec(path: str) -> Path:
    spec = CORPUS / "specs" / path
    if not spec.is_file():
        pytest.skip(f"the corpus is not at {CORPUS} (../shared/corpus from the repository root)")
    return spec


def test_digitalocean_2850_files_become_659_tools_without_errors() -> None:
    generation, diagnostics = generated(corpus_spec("digitalocean/DigitalOcean-public.v2.yaml"))
    assert len(generation.model.tools) == 659
    assert [line for line in diagnostics if line.startswith("error") or "not followed" in line] == []


def test_oai_petstore_separate_v2_needs_ref_root_for_its_common_directory() -> None:
    spec = corpus_spec("oai-petstore-separate-v2/spec/swagger.yaml")
    generation, diagnostics = generated(spec, RefOptions(ref_root=spec.parent.parent))
    assert len(generation.model.tools) == 4
    assert diagnostics == []
    generation, diagnostics = generated(spec)
    assert diagnostics == [
        "warning: #/paths/~1pets/get/responses/default/schema: reference '../common/Error.yaml' not "
        "followed: '../common/Error.yaml' is outside the spec's directory; --ref-root DIR allows the files "
        f"under DIR; {SKIPPED}"
    ]
    assert len(generation.model.tools) == 4  # only error responses use it, and they are not needed
