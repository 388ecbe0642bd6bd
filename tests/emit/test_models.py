"""models.py (`--models`): class names from tool names, hoisted `$defs`, schemas the generator fails
on left out with a warning, the shape check of the output, the flag and the missing extra."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from openapi2mcp.cli.app import app
from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit import models
from openapi2mcp.model import ApiModel, GeneratorOptions
from openapi2mcp.pipeline import generate

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
OBJECT = {"type": "object", "properties": {"id": {"type": "string"}}}


@pytest.fixture(scope="module")
def petstore() -> ApiModel:
    return generate(str(PETSTORE), GeneratorOptions(dist_name="petstore", env_prefix="P")).model


def with_tools(model: ApiModel, *schemas: tuple[str, dict[str, Any], dict[str, Any] | None]) -> ApiModel:
    """`model` with one tool per (name, inputSchema, outputSchema), made from its first tool."""
    first = model.tools[0]
    tools = tuple(
        dataclasses.replace(first, name=name, input_schema=given, output_schema=output)
        for name, given, output in schemas
    )
    return dataclasses.replace(model, tools=tools)


@pytest.mark.parametrize(
    ("tool", "stem"),
    [
        ("listPets", "ListPets"),
        ("repos_get", "ReposGet"),
        ("zones.dns-records.list", "ZonesDnsRecordsList"),
        ("2fa-enable", "Tool2faEnable"),
        ("_", "Tool"),
    ],
)
def test_a_class_stem_is_the_tool_name_in_pascal_case(tool: str, stem: str) -> None:
    assert models.class_stem(tool) == stem


def test_class_names_that_clash_get_a_number_in_tool_order(petstore: ApiModel) -> None:
    model = with_tools(
        petstore, ("repos_get", OBJECT, None), ("reposGet", OBJECT, None), ("repos.get", OBJECT, None)
    )
    assert models.class_names(model.tools) == {
        "repos_get": ("ReposGetArgs", "ReposGetResult"),
        "reposGet": ("ReposGet2Args", "ReposGet2Result"),
        "repos.get": ("ReposGet3Args", "ReposGet3Result"),
    }


def test_every_tool_gets_its_args_and_result_classes(petstore: ApiModel) -> None:
    text = models.models_text(petstore, "# header", Diagnostics())
    assert text.startswith('# header\n"""Pydantic v2 classes')
    defined = models._class_names_in(text)
    for tool in petstore.tools:
        args, result = models.class_names([tool])[tool.name]
        assert args in defined
        assert (result in defined) is (tool.output_schema is not None)
    assert "class ListPetsResultResult(BaseModel):" in text  # nested classes: named after the parent


def test_a_tool_schemas_own_defs_are_hoisted_under_its_class_name(petstore: ApiModel) -> None:
    schema = {
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/postal-address"}},
        "$defs": {"postal-address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
    model = with_tools(petstore, ("send", schema, None))
    (unit,) = models.units(model)
    assert unit.schemas == {
        "SendArgs": {"type": "object", "properties": {"home": {"$ref": "#/$defs/SendArgsPostalAddress"}}},
        "SendArgsPostalAddress": schema["$defs"]["postal-address"],
    }
    text = models.models_text(model, "#", Diagnostics())
    assert "class SendArgsPostalAddress(BaseModel):" in text
    assert "home: SendArgsPostalAddress | None = None" in text


BROKEN = {"type": "object", "properties": {"a": {"type": "integer", "minimum": "x"}}}


def test_a_schema_the_generator_fails_on_is_left_out_with_a_warning(petstore: ApiModel) -> None:
    model = with_tools(petstore, ("good", OBJECT, OBJECT), ("bad", BROKEN, OBJECT), ("fine", OBJECT, None))
    diagnostics = Diagnostics()
    text = models.models_text(model, "#", diagnostics)
    assert sorted(models._class_names_in(text)) == ["BadResult", "FineArgs", "GoodArgs", "GoodResult"]
    [warning] = [d.render() for d in diagnostics]
    assert warning.startswith(
        "warning: #/x-mcp/models: models.py: no class BadArgs for tool 'bad': its schema cannot be"
        " generated (SchemaParseError: Error at schema path '#/$defs/BadArgs': ValidationError: "
    )


@pytest.mark.parametrize("ref", ["#/$defs/GoodArgs", "#/$defs/nothing", "other.json#/x", "#/properties/id"])
def test_a_ref_to_anything_but_the_schemas_own_defs_leaves_it_out(petstore: ApiModel, ref: str) -> None:
    """Hoisted beside the other tools' classes, it would name one of them, or nothing."""
    pointing = {"type": "object", "properties": {"id": {"type": "string"}, "a": {"$ref": ref}}}
    diagnostics = Diagnostics()
    model = with_tools(petstore, ("good", OBJECT, None), ("bad", pointing, None))
    text = models.models_text(model, "#", diagnostics)
    assert sorted(models._class_names_in(text)) == ["GoodArgs"]
    assert [d.render() for d in diagnostics] == [
        "warning: #/x-mcp/models: models.py: no class BadArgs for tool 'bad': its schema cannot be"
        f" generated ($ref {ref!r} names none of the schema's own $defs)"
    ]


def test_when_every_schema_fails_models_py_holds_no_class(petstore: ApiModel) -> None:
    broken = BROKEN
    diagnostics = Diagnostics()
    text = models.models_text(with_tools(petstore, ("bad", broken, None)), "# h", diagnostics)
    assert text == f"# h\n{models._DOCSTRING}\n"
    assert len(diagnostics) == 1


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import os\n", "imports os (line 1)"),
        ("from subprocess import run\n", "imports from subprocess (line 1)"),
        ("class A:\n    x = print('hi')\n", "calls print (line 2)"),
        ("class A:\n    def f(self): pass\n", "defines a function (line 2)"),
        ("x = (lambda: 1)\n", "defines a function (line 1)"),
        ("class A(\n", "is not valid Python ('(' was never closed, line 1)"),
        (
            "from pydantic import BaseModel, EmailStr\n",
            "imports EmailStr, which needs a package the server does not have (line 1)",
        ),
    ],
)
def test_the_output_check_names_what_is_not_a_declaration(source: str, problem: str) -> None:
    assert models.check_declarations(source) == problem


def test_an_email_is_a_plain_string_email_validator_is_not_installed(petstore: ApiModel) -> None:
    schema = {"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}
    text = models.models_text(with_tools(petstore, ("send", schema, None)), "#", Diagnostics())
    assert "    to: str | None = None" in text
    assert "EmailStr" not in text


def test_the_generated_models_pass_the_output_check(petstore: ApiModel) -> None:
    assert models.check_declarations(models.models_text(petstore, "#", Diagnostics())) is None


def generate_cli(tmp_path: Path, *extra: str) -> Any:
    args = ["generate", str(PETSTORE), "-o", str(tmp_path / "out"), "--name", "petstore", *extra]
    return CliRunner().invoke(app, args)


def test_models_py_is_written_only_with_the_flag_or_the_config_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert generate_cli(tmp_path).exit_code == 0
    assert not (tmp_path / "out" / "petstore" / "models.py").exists()
    (tmp_path / "openapi2mcp.toml").write_text("models = true\n")
    result = generate_cli(tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "petstore" / "models.py").read_text().count("\nclass ") == 16
    assert "models.py" in (tmp_path / "out" / ".openapi2mcp-manifest.json").read_text()


def test_without_the_models_extra_the_flag_is_refused_before_anything_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == models.GENERATOR else find_spec(name, *a),
    )
    result = generate_cli(tmp_path, "--models")
    assert result.exit_code == 2
    assert result.output.strip().endswith(
        "--models: needs datamodel-code-generator, the `models` extra of openapi2mcp:"
        " pip install 'openapi2mcp[models]'"
    )
    assert not (tmp_path / "out").exists()
