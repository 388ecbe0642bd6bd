"""Code-like text in every string field of a spec: the package is generated, compiles, imports and lists
its tools; the text reaches the agent verbatim, sits in the files only as data, and never runs."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from generated_servers import listed_tools
from hostile_support import generate, write_json

pytestmark = pytest.mark.timeout(60)
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def payload(marker: Path) -> str:
    """Every quoting, template and markup trick, control characters, and code creating `marker`."""
    run = f"touch {marker}"
    return (
        "\"\"\"''' {{ 7*7 }} {% if true %}x{% endif %} </script><script>alert(1)</script> \\ \\\\n "
        f"\x00 \x1b[31m \u2028 \u2029 __import__('os').system('{run}') ${{HOME}} $({run}) `{run}` "
        "\\u0000 %s %(x)s {0} # \r\n end"
    )


def hostile_spec(text: str) -> dict[str, Any]:
    def t(tag: str) -> str:
        return f"{tag} {text}"

    plain = text.replace("{", "(").replace("}", ")").replace("/", "|")
    strings = {"type": "string", "enum": [t("e1"), t("e2")], "default": t("e1"), "example": t("ex")}
    schema = {
        "type": "object",
        "title": t("title"),
        "description": t("schema"),
        "properties": {t("prop"): strings, "n": {"type": "integer", "description": t("n")}},
        "required": [t("prop")],
    }
    parameters: list[dict[str, Any]] = [
        {"name": t("query-name"), "in": "query", "description": t("query"), "schema": strings},
        {"name": "id", "in": "path", "required": True, "description": t("path"), "schema": strings},
    ]
    # no header or cookie name can hold it: that operation is skipped, with a diagnostic
    unusable = [{"name": text, "in": where, "schema": strings} for where in ("header", "cookie")]
    body = {
        "description": t("body"),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/T"}}},
    }
    responses = {"200": {"description": t("resp"), "content": {"application/json": {"schema": schema}}}}
    variable = {"default": t("v"), "enum": [t("v")], "description": t("var")}
    braces = {"name": text, "in": "path", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": t("info"),
            "version": t("ver"),
            "description": t("desc"),
            "license": {"name": t("l")},
        },
        "servers": [
            {
                "url": f"https://example.com/{{v}}/{plain}",
                "description": t("server"),
                "variables": {"v": variable},
            }
        ],
        "tags": [{"name": t("tag"), "description": t("tagdesc")}],
        "paths": {
            "/items/{id}": {
                "summary": t("pathsum"),
                "post": {
                    **{
                        "operationId": t("op"),
                        "summary": t("sum"),
                        "description": t("opdesc"),
                        "tags": [t("tag")],
                    },
                    **{"parameters": parameters, "requestBody": body, "responses": responses},
                    "security": [{t("sec"): []}],
                },
                "get": {"operationId": t("op"), "parameters": parameters[1:], "responses": responses},
            },
            "/header": {"get": {"operationId": t("h"), "parameters": unusable, "responses": responses}},
            f"/{plain}": {"delete": {"operationId": text, "responses": {"204": {"description": t("d")}}}},
            f"/braces/{{{text}}}": {
                "get": {"parameters": [braces], "responses": {"200": {"description": "ok"}}}
            },
        },
        "components": {
            "schemas": {"T": schema},
            "securitySchemes": {t("sec"): {"type": "http", "scheme": "bearer", "description": t("s")}},
        },
    }


@pytest.fixture
def imported(tmp_path: Path) -> Iterator[list[str]]:
    """Package names imported from tmp_path by the test, removed from sys.modules afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
            del sys.modules[key]
    sys.path[:] = [entry for entry in sys.path if not entry.startswith(str(tmp_path))]


def strings(value: Any) -> Iterator[str]:
    """Every string in JSON data, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_code_like_text_everywhere_is_only_ever_data(tmp_path: Path, form: str, imported: list[str]) -> None:
    marker = tmp_path / "PWNED"
    text = payload(marker)
    document = hostile_spec(text)
    if form == "json":
        spec = write_json(tmp_path / "code.json", document)
    else:
        spec = tmp_path / "code.yaml"
        spec.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    package = f"hostile_{form}"
    outcome = generate(spec, tmp_path, "--name", package)
    assert outcome.returncode == 0, outcome.stderr
    assert not CONTROLS.search(outcome.stderr.replace("\n", "")), (
        "a diagnostic printed a raw control character"
    )
    python_files = sorted((outcome.out / package).rglob("*.py"))
    assert len(python_files) > 10
    for path in python_files:
        source = path.read_text(encoding="utf-8")
        assert not CONTROLS.search(source.replace("\n", "")), path.name
        tree = ast.parse(source, str(path))
        compile(tree, str(path), "exec")
        called = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        assert not {"__import__", "os.system", "eval", "exec"} & called, path.name

    sys.path.insert(0, str(outcome.out))
    imported.append(package)
    tools = anyio.run(listed_tools, package)
    names = [tool.name for tool in tools]
    assert len(names) == len(set(names)) == 3 and all(NAME.match(name) for name in names), names
    described = [text for tool in tools for text in strings([tool.description, tool.input_schema])]
    assert any(f"opdesc {text}" in string for string in described)  # verbatim, as the spec has it
    assert {f"query {text}", f"path {text}", f"e1 {text}", f"e2 {text}"} <= set(described)
    assert not marker.exists()
