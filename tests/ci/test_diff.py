"""`openapi2mcp diff OLD NEW` (`openapi2mcp.cli.diff` over `openapi2mcp.ci.diff`), run in-process
through its own Typer app: specs and generated packages as either side, both output formats, exit
statuses."""

from __future__ import annotations

import contextlib
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from openapi2mcp.cli.diff import diff_command
from openapi2mcp.emit.output import MANIFEST, write_package
from openapi2mcp.model import GeneratorOptions, NameStyle
from openapi2mcp.pipeline import generate

app = typer.Typer()
app.command("diff")(diff_command)


@app.callback()
def _root() -> None:
    """Keep `diff` a subcommand, as in the real CLI."""


ITEM = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}, "color": {"type": "string", "enum": ["red", "blue"]}},
}
LIST_ITEMS = {
    "operationId": "listItems",
    "summary": "List items",
    "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}],
    "responses": {
        "200": {
            "description": "ok",
            "content": {
                "application/json": {
                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
                }
            },
        }
    },
}
CREATE_ITEM = {
    "operationId": "createItem",
    "summary": "Create an item",
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
    },
    "responses": {"201": {"description": "created"}},
}
DELETE_ITEM = {
    "operationId": "deleteItem",
    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
    "responses": {"204": {"description": "gone"}},
}
BASE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "servers": [{"url": "https://shop.example.com"}],
    "paths": {"/items": {"get": LIST_ITEMS, "post": CREATE_ITEM}, "/items/{id}": {"delete": DELETE_ITEM}},
    "components": {"schemas": {"Item": ITEM}},
}

BREAKING_TEXT = """\
1 tool renamed, 2 changed (3 breaking changes)

listItems: changed
  - BREAKING argument limit: maximum lowered: 100 -> 50
  - argument q: added (optional)
createItem: changed
  - BREAKING argument color: enum values removed: "blue"
removeItem: renamed from deleteItem (BREAKING)
  - title: "Delete item" -> "Remove item"
"""


def breaking_spec() -> dict[str, Any]:
    """BASE with a lower maximum, a new optional argument, an enum value fewer and a renamed operation."""
    new = copy.deepcopy(BASE)
    parameters = new["paths"]["/items"]["get"]["parameters"]
    parameters[0]["schema"]["maximum"] = 50
    parameters.append({"name": "q", "in": "query", "schema": {"type": "string"}})
    new["components"]["schemas"]["Item"]["properties"]["color"]["enum"] = ["red"]
    new["paths"]["/items/{id}"]["delete"]["operationId"] = "removeItem"
    return new


def write_spec(path: Path, document: dict[str, Any]) -> str:
    text = json.dumps(document) if path.suffix == ".json" else yaml.safe_dump(document)
    path.write_text(text, encoding="utf-8")
    return str(path)


def write_generated(out: Path, document: dict[str, Any], name_style: NameStyle = "portable") -> str:
    spec = write_spec(out.with_suffix(".yaml"), document)
    generation = generate(spec, GeneratorOptions("shop", "SHOP", name_style=name_style))
    write_package(out, generation.files)
    return str(out)


def diff(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `diff ARGS`; an escaping exception fails the test."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, ["diff", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_same_spec_has_no_changes(tmp_path: Path) -> None:
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.json", BASE)
    assert diff("old.yaml", "new.json", cwd=tmp_path) == (0, "no tool changes\n", "")
    assert diff("old.yaml", "new.json", "--format", "markdown", cwd=tmp_path) == (
        0,
        "## Tool changes\n\nno tool changes\n",
        "",
    )


def test_breaking_changes_exit_1(tmp_path: Path) -> None:
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.json", breaking_spec())
    assert diff("old.yaml", "new.json", cwd=tmp_path) == (1, BREAKING_TEXT, "")


def test_markdown_for_a_pull_request(tmp_path: Path) -> None:
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.json", breaking_spec())
    assert diff("old.yaml", "new.json", "--format", "markdown", cwd=tmp_path) == (
        1,
        """\
## Tool changes

1 tool renamed, 2 changed (3 breaking changes)

| Tool | Change | Breaking changes |
| --- | --- | ---: |
| `listItems` | changed | 1 |
| `createItem` | changed | 1 |
| `removeItem` | renamed from `deleteItem` | 1 |

### `listItems`: changed

- **BREAKING** argument `limit`: maximum lowered: 100 -> 50
- argument `q`: added (optional)

### `createItem`: changed

- **BREAKING** argument `color`: enum values removed: "blue"

### `removeItem`: renamed from `deleteItem` (BREAKING)

- title: "Delete item" -> "Remove item"
""",
        "",
    )


def test_markdown_escapes_values(tmp_path: Path) -> None:
    new = copy.deepcopy(BASE)
    new["components"]["schemas"]["Item"]["properties"]["name"]["pattern"] = "^[a-z_]*|x$"
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.yaml", new)
    status, out, _ = diff("old.yaml", "new.yaml", "--format", "markdown", cwd=tmp_path)
    assert status == 1
    assert out.endswith(
        "### `createItem`: changed\n\n"
        '- **BREAKING** argument `name`: pattern added: "^\\[a-z\\_\\]\\*\\|x$"\n'
    )


def test_compatible_changes_exit_0(tmp_path: Path) -> None:
    new = copy.deepcopy(BASE)
    new["paths"]["/items"]["get"]["parameters"][0]["schema"]["maximum"] = 200
    new["paths"]["/items"]["get"]["summary"] = "List all items"
    new["paths"]["/items/{id}"]["get"] = {
        "operationId": "getItem",
        **{k: v for k, v in DELETE_ITEM.items() if k != "operationId"},
    }
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.yaml", new)
    assert diff("old.yaml", "new.yaml", cwd=tmp_path) == (
        0,
        """\
1 tool added, 1 changed

listItems: changed
  - title: "List items" -> "List all items"
  - description changed
  - argument limit: maximum raised: 100 -> 200
getItem: added
""",
        "",
    )


def test_a_removed_operation_is_breaking_and_listed_last(tmp_path: Path) -> None:
    new = copy.deepcopy(BASE)
    del new["paths"]["/items"]["get"]
    new["paths"]["/new"] = {"get": {"operationId": "fresh", "responses": {"204": {"description": "ok"}}}}
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.yaml", new)
    assert diff("old.yaml", "new.yaml", cwd=tmp_path) == (
        1,
        "1 tool added, 1 removed (1 breaking change)\n\nfresh: added\nlistItems: removed (BREAKING)\n",
        "",
    )


def test_a_package_against_a_spec(tmp_path: Path) -> None:
    package = write_generated(tmp_path / "pkg", BASE)
    write_spec(tmp_path / "new.json", breaking_spec())
    assert diff(package, str(tmp_path / "new.json"), cwd=tmp_path) == (1, BREAKING_TEXT, "")
    assert diff(str(tmp_path / "new.json"), package, cwd=tmp_path)[0] == 1
    assert diff(package, "pkg.yaml", cwd=tmp_path) == (0, "no tool changes\n", "")


def test_two_packages_and_the_tool_data_file_itself(tmp_path: Path) -> None:
    old = write_generated(tmp_path / "old", BASE)
    new = write_generated(tmp_path / "new", breaking_spec())
    assert diff(old, new, cwd=tmp_path) == (1, BREAKING_TEXT, "")
    old_data, new_data = "old/shop/data/tool_data.json", "new/shop/data/tool_data.json"
    assert diff(old_data, new_data, cwd=tmp_path) == (1, BREAKING_TEXT, "")


@pytest.mark.parametrize("manifest", [True, False])
def test_a_package_generated_before_data_has_its_tool_data_beside_server_py(
    tmp_path: Path, manifest: bool
) -> None:
    old = write_generated(tmp_path / "old", BASE)
    (tmp_path / "old/shop/data/tool_data.json").rename(tmp_path / "old/shop/tool_data.json")
    listed = tmp_path / "old" / MANIFEST
    if manifest:  # as that generation listed it
        listed.write_text(listed.read_text().replace('"shop/data/tool_data.json"', '"shop/tool_data.json"'))
    else:
        listed.unlink()
    new = write_generated(tmp_path / "new", breaking_spec())
    assert diff(old, new, cwd=tmp_path) == (1, BREAKING_TEXT, "")


def test_a_package_without_its_manifest_is_found_by_its_files(tmp_path: Path) -> None:
    package = write_generated(tmp_path / "pkg", BASE)
    (tmp_path / "pkg" / MANIFEST).unlink()
    assert diff(package, "pkg.yaml", cwd=tmp_path) == (0, "no tool changes\n", "")


def test_the_name_style_of_spec_sides(tmp_path: Path) -> None:
    dotted = copy.deepcopy(BASE)
    dotted["paths"]["/items"]["get"]["operationId"] = "items.list"
    package = write_generated(tmp_path / "pkg", dotted, name_style="mcp")
    assert diff(package, "pkg.yaml", "--name-style", "mcp", cwd=tmp_path) == (0, "no tool changes\n", "")
    assert diff(package, "pkg.yaml", cwd=tmp_path) == (
        1,
        "1 tool renamed (1 breaking change)\n\nitems_list: renamed from items.list (BREAKING)\n",
        "",
    )


def test_an_operation_skipped_with_errors_is_absent_and_said_so(tmp_path: Path) -> None:
    new = copy.deepcopy(BASE)
    del new["paths"]["/items/{id}"]["delete"]["parameters"]  # the path parameter is not declared
    write_spec(tmp_path / "old.yaml", BASE)
    write_spec(tmp_path / "new.yaml", new)
    assert diff("old.yaml", "new.yaml", cwd=tmp_path) == (
        1,
        "1 tool removed (1 breaking change)\n\ndeleteItem: removed (BREAKING)\n",
        "openapi2mcp: new.yaml: 1 operation skipped with errors (`openapi2mcp generate` lists them); "
        "they count as absent\n",
    )


def test_a_spec_served_over_http(tmp_path: Path, site: tuple[str, dict[str, bytes]]) -> None:
    base, files = site
    files["/shop.yaml"] = yaml.safe_dump(BASE).encode()
    write_spec(tmp_path / "new.json", breaking_spec())
    assert diff(f"{base}/shop.yaml", "new.json", cwd=tmp_path) == (1, BREAKING_TEXT, "")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: None, "missing.yaml: cannot read the file: No such file or directory"),
        (
            lambda d: (d / "missing.yaml").write_text("a: 1\n"),
            "missing.yaml: not an OpenAPI 3.0 or 3.1 document (`openapi: None`)",
        ),
        (
            lambda d: (d / "missing.yaml").mkdir(),
            "missing.yaml: not a generated package (no <package>/tool_data.json in it)",
        ),
    ],
)
def test_an_unreadable_side_exits_2(tmp_path: Path, make: Any, message: str) -> None:
    write_spec(tmp_path / "old.yaml", BASE)
    make(tmp_path)
    assert diff("old.yaml", "missing.yaml", cwd=tmp_path) == (2, "", f"openapi2mcp: error: {message}\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{",
            "tool_data.json: not a tool_data.json file: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
        (
            '{"tools": [{"title": "no name"}]}',
            'tool_data.json: not a tool_data.json file (no "tools" list of named tools)',
        ),
        ("[]", 'tool_data.json: not a tool_data.json file (no "tools" list of named tools)'),
    ],
)
def test_a_broken_tool_data_file_exits_2(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "tool_data.json").write_text(text, encoding="utf-8")
    write_spec(tmp_path / "new.yaml", BASE)
    assert diff("tool_data.json", "new.yaml", cwd=tmp_path) == (2, "", f"openapi2mcp: error: {message}\n")


def test_a_directory_of_several_packages_exits_2(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / "both" / name).mkdir(parents=True)
        (tmp_path / "both" / name / "tool_data.json").write_text('{"tools": []}', encoding="utf-8")
    write_spec(tmp_path / "new.yaml", BASE)
    assert diff("both", "new.yaml", cwd=tmp_path) == (
        2,
        "",
        "openapi2mcp: error: both: several packages (a, b): name one's tool_data.json instead\n",
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--format", "html"], "--format 'html': choose 'text' or 'markdown'"),
        (["--name-style", "snake"], "--name-style 'snake': choose 'portable' or 'mcp'"),
    ],
)
def test_bad_options_exit_2(tmp_path: Path, option: list[str], message: str) -> None:
    write_spec(tmp_path / "old.yaml", BASE)
    assert diff("old.yaml", "old.yaml", *option, cwd=tmp_path) == (2, "", f"openapi2mcp: error: {message}\n")


def test_a_self_referencing_schema_in_tool_data_exits_2(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}]}},
    }
    tool = {"name": "t", "inputSchema": schema}
    (tmp_path / "tool_data.json").write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    assert diff("tool_data.json", "tool_data.json", cwd=tmp_path) == (
        2,
        "",
        "openapi2mcp: error: the tool schemas are nested too deeply to compare\n",
    )


def test_operations_told_apart_by_query_templates_are_renamed_each_to_its_own(tmp_path: Path) -> None:
    def weather(by_city: str, by_point: str, reverse: bool = False) -> dict[str, Any]:
        def get(name: str, argument: str) -> dict[str, Any]:
            parameter = {"name": argument, "in": "path", "required": True, "schema": {"type": "string"}}
            return {
                "get": {
                    "operationId": name,
                    "parameters": [parameter],
                    "responses": {"200": {"description": "ok"}},
                }
            }

        paths = {"/w?city={city}": get(by_city, "city"), "/w?lat={lat}": get(by_point, "lat")}
        paths = dict(reversed(paths.items())) if reverse else paths  # one route each: not paired by order
        return {"openapi": "3.0.3", "info": {"title": "W", "version": "1"}, "paths": paths}

    write_spec(tmp_path / "old.yaml", weather("byCity", "byPoint"))
    write_spec(tmp_path / "new.json", weather("weatherForCity", "atPoint", reverse=True))  # JSON: order kept
    status, out, _ = diff("old.yaml", "new.json", cwd=tmp_path)
    assert (status, out.splitlines()[0]) == (1, "2 tools renamed (2 breaking changes)")
    headings = [line for line in out.splitlines() if "renamed from" in line]
    assert sorted(headings) == [
        "atPoint: renamed from byPoint (BREAKING)",
        "weatherForCity: renamed from byCity (BREAKING)",
    ]


JUPYTER = Path(__file__).parents[1] / "tools" / "jupyter_server.yaml"


def test_a_package_with_the_former_method_and_path_names_against_the_spec_lists_renames(
    tmp_path: Path,
) -> None:
    """Tools named `{method}_{path}` (as operations without an operationId were before) against the
    same spec named with verbs and resources: each is one renamed tool, paired by its route."""
    generation = generate(str(JUPYTER), GeneratorOptions("api", "API"))
    data = json.loads(generation.files["api/data/tool_data.json"])
    former: dict[str, str] = {}
    for tool in data["tools"]:
        route = data["routes"][tool["name"]]
        former[tool["name"]] = re.sub(r"[^A-Za-z0-9_-]", "_", f"{route['method'].lower()}_{route['path']}")
        tool["name"] = former[tool["name"]]
    data["routes"] = {former[name]: route for name, route in data["routes"].items()}
    for tool in data["tools"]:  # and the path parameter `path` was `path_path` beside a body's `path`
        route = data["routes"][tool["name"]]
        if "path_body" in tool["inputSchema"]["properties"]:
            schema = tool["inputSchema"]
            schema["properties"] = {
                ("path_path" if k == "path" else k): v for k, v in schema["properties"].items()
            }
            schema["required"] = ["path_path" if k == "path" else k for k in schema["required"]]
            route["params"][0]["arg"] = "path_path"
    (tmp_path / "tool_data.json").write_text(json.dumps(data), encoding="utf-8")
    status, out, _ = diff("tool_data.json", str(JUPYTER), cwd=tmp_path)
    assert (status, out.splitlines()[0]) == (1, "32 tools renamed (34 breaking changes)")
    lines = out.splitlines()
    assert "restart_kernel: renamed from post__api_kernels__kernel_id__restart (BREAKING)" in lines
    assert "get_contents: renamed from get__api_contents__path_ (BREAKING)" in lines
    index = lines.index("update_contents: renamed from patch__api_contents__path_ (BREAKING)")
    assert lines[index + 1] == "  - BREAKING argument path: renamed from path_path"
    assert [line for line in lines if line.startswith("  - ")] == [
        "  - BREAKING argument path: renamed from path_path"
    ] * 2  # replace_contents' and update_contents': nothing else changed


def test_a_new_shallower_route_that_takes_a_derived_name_is_an_addition_and_a_rename(tmp_path: Path) -> None:
    def builds(*paths: str) -> dict[str, Any]:
        parameter = {"name": "project", "in": "path", "required": True, "schema": {"type": "string"}}
        operations = {
            path: {
                "get": {
                    "parameters": [parameter] if "{" in path else [],
                    "responses": {"200": {"description": "ok"}},
                }
            }
            for path in paths
        }
        return {"openapi": "3.0.3", "info": {"title": "B", "version": "1"}, "paths": operations}

    write_spec(tmp_path / "old.yaml", builds("/build/{project}"))
    write_spec(tmp_path / "new.yaml", builds("/build", "/build/{project}"))
    status, out, _ = diff("old.yaml", "new.yaml", cwd=tmp_path)
    assert status == 1
    assert [line for line in out.splitlines() if line and not line.startswith("  -")] == [
        "1 tool added, 1 renamed (1 breaking change)",
        "get_build: added",
        "get_build_by_project: renamed from get_build (BREAKING)",
    ]
