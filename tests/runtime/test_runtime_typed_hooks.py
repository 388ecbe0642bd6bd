"""Typed hooks: `call.arguments_as` and `result.data_as` with the classes of a generated models.py
(petstore, `--models`), in a hooks.py of a generated package, against the recording upstream."""

from __future__ import annotations

import json
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from .conftest import HOOKS_API, REPO, Make, Reply, Upstream, call, hooks_api, hooks_runner, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SPEC = REPO / "specs" / "petstore.yaml"
PET = {"id": "p-1", "name": "rex", "tag": "dog", "createdAt": "2024-05-01T10:00:00Z"}
HOOKS = """
from .hooks_api import Call, Hooks, Request, Result
from .models import CreatePetArgs, ListPetsArgs, ShowPetByIdResult

hooks = Hooks()
seen = []


@hooks.before_request("listPets")
def typed_arguments(call: Call, request: Request) -> None:
    arguments = call.arguments_as(ListPetsArgs)
    seen.append((type(arguments).__name__, arguments.limit, [tag.value for tag in arguments.tags]))


@hooks.after_result("showPetById")
def typed_result(call: Call, result: Result) -> None:
    pet = result.data_as(ShowPetByIdResult)
    pet.name = pet.name.upper()
    result.data = pet.model_dump(mode="json", exclude_unset=True)


@hooks.before_request("deletePet")
def wrong_class(call: Call, request: Request) -> None:
    call.arguments_as(CreatePetArgs)


@hooks.after_result("replacePet")
def wrong_result_class(call: Call, result: Result) -> None:
    result.data_as(CreatePetArgs)
"""


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    from openapi2mcp.model import GeneratorOptions
    from openapi2mcp.pipeline import generate

    options = GeneratorOptions(dist_name="petstore", env_prefix="T", models=True)
    return generate(str(SPEC), options).files


@pytest.fixture
def package(tmp_path: Path, generated: dict[str, str]) -> Iterator[str]:
    """A package of the generated models.py, HOOKS as hooks.py and a generated package's hooks_api.py."""
    name = f"typed_hooks_pkg_{id(tmp_path)}"
    (tmp_path / "hooks_api.py").write_text(HOOKS_API)
    (tmp_path / "models.py").write_text(generated["petstore/models.py"])
    (tmp_path / "hooks.py").write_text(HOOKS)
    module = types.ModuleType(name)
    module.__path__ = [str(tmp_path)]
    sys.modules[name] = module
    yield name
    for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
        del sys.modules[key]


@pytest.fixture
def tools(package: str, generated: dict[str, str], make_runtime: Make, upstream: Upstream) -> Any:
    upstream.responder = lambda r: Reply(200, json.dumps([PET] if r.path.endswith("/pets") else PET).encode())
    hooks = hooks_runner.load_hooks(package)
    data = json.loads(generated["petstore/data/tool_data.json"])
    return make_runtime(data, {"T_API_KEY_KEY": "k"}, hooks=hooks)


async def test_a_hook_reads_the_arguments_as_their_class(
    tools: Any, package: str, upstream: Upstream
) -> None:
    result = await call(tools, "listPets", {"limit": 5, "tags": ["cat", "dog"]})
    assert sys.modules[f"{package}.hooks"].seen == [("ListPetsArgs", 5, ["cat", "dog"])]
    assert not result.is_error, text_of(result)
    assert [r.target for r in upstream.requests] == ["/api/v1/pets?limit=5&tags=cat&tags=dog"]


async def test_a_hook_reads_the_result_as_its_class_and_writes_it_back(tools: Any) -> None:
    result = await call(tools, "showPetById", {"petId": "p-1"})
    assert not result.is_error, text_of(result)
    assert result.structured_content == {**PET, "name": "REX"}
    assert json.loads(text_of(result)) == {**PET, "name": "REX"}


async def test_arguments_that_do_not_fit_the_class_fail_the_call_with_the_reason(
    tools: Any, upstream: Upstream
) -> None:
    result = await call(tools, "deletePet", {"petId": "p-1"})
    assert result.is_error
    assert text_of(result) == (
        "The before_request hook 'wrong_class' in hooks.py failed (ModelMismatch: the arguments of"
        " 'deletePet' do not fit CreatePetArgs: name: Field required; petId: Extra inputs are not"
        " permitted). Nothing was sent to the API."
    )
    assert upstream.requests == []


async def test_a_result_that_does_not_fit_the_class_fails_the_call_with_the_reason(tools: Any) -> None:
    result = await call(tools, "replacePet", {"petId": "p-1", "name": "rex"})
    assert result.is_error
    assert text_of(result) == (
        "The after_result hook 'wrong_result_class' in hooks.py failed (ModelMismatch: the structured"
        " content does not fit CreatePetArgs: id: Extra inputs are not permitted; createdAt: Extra"
        " inputs are not permitted). The API answered HTTP 200."
    )


def test_the_server_does_not_import_models_py_unless_a_hook_does(
    package: str, generated: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "hooks.py").write_text("from .hooks_api import Hooks\nhooks = Hooks()\n")
    hooks_runner.load_hooks(package)
    __import__("openapi2mcp_runtime.tool_runtime")
    assert f"{package}.hooks" in sys.modules
    assert f"{package}.models" not in sys.modules


# ---- arguments_as / data_as on their own -----------------------------------------------------------


class Point(BaseModel):
    x: int
    y: int = 0


def test_arguments_as_gives_a_typed_copy() -> None:
    call_ = hooks_api.Call("t", {"x": "3"})
    point = call_.arguments_as(Point)
    assert (point, call_.arguments) == (Point(x=3, y=0), {"x": "3"})


def test_data_as_without_structured_content_is_a_mismatch() -> None:
    with pytest.raises(hooks_api.ModelMismatch, match=r"^no structured content to read as Point$"):
        hooks_api.Result.of("just text").data_as(Point)


def test_more_than_five_problems_are_counted() -> None:
    class Wide(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int

    with pytest.raises(hooks_api.ModelMismatch) as raised:
        hooks_api.Result.of({}).data_as(Wide)
    assert str(raised.value) == (
        "the structured content does not fit Wide: a: Field required; b: Field required;"
        " c: Field required; d: Field required; e: Field required; 2 more"
    )


def test_a_class_that_is_not_a_pydantic_model_is_a_type_error() -> None:
    expected = "give a pydantic model class (e.g. of models.py), not <class 'dict'>"
    with pytest.raises(TypeError, match=f"^{re.escape(expected)}$"):
        hooks_api.Call("t", {}).arguments_as(dict)  # type: ignore[type-var]
