"""concurrent_validation.py: operations mapped while a forked child validates them give exactly what
mapping with validation gives (tools and diagnostics), whether the operations are valid or not."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp import pipeline
from openapi2mcp.background import can_fork
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import ApiModel, GeneratorOptions
from openapi2mcp.tools import concurrent_validation
from openapi2mcp.tools.concurrent_validation import ALL_VALID, SOME_INVALID, map_validated, verdict
from openapi2mcp.tools.mapper import map_document

OPTIONS = GeneratorOptions(dist_name="t", env_prefix="T")
OK = {"200": {"description": "ok"}}
QUERY = {"name": "q", "in": "query", "schema": {"type": "string"}}
needs_fork = pytest.mark.skipif(not can_fork(), reason="no fork or one core: nothing runs elsewhere")


def spec(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths}


VALID = spec(
    {
        "/pets": {"get": {"operationId": "listPets", "parameters": [QUERY], "responses": OK}},
        "/pets/{id}": {"delete": {"operationId": "deletePet", "responses": OK}},  # `id` undeclared
    }
)
# Operations that mapping without validation would keep (as a tool) or skip with another message.
INVALID = spec(
    {
        "/a": {"get": {"operationId": "responsesNotObject", "responses": "none"}},
        "/b": {"get": {"operationId": "serversNotList", "servers": "x", "responses": OK}},
        "/c": {"get": {"operationId": "parametersNotList", "parameters": "q", "responses": OK}},
        "/d": {"get": {"operationId": "good", "parameters": [QUERY], "responses": OK}},
    }
)
DOCUMENTS = {"valid": VALID, "invalid": INVALID, "no paths": spec({})}


def mapped_serially(
    document: dict[str, Any], options: GeneratorOptions = OPTIONS
) -> tuple[ApiModel, Diagnostics]:
    diagnostics = Diagnostics()
    diagnostics.warning("#", "before")
    return map_document(document, options, diagnostics, "spec.json"), diagnostics


def mapped_concurrently(
    document: dict[str, Any], options: GeneratorOptions = OPTIONS
) -> tuple[ApiModel, Diagnostics, int]:
    diagnostics, restarts = Diagnostics(), []
    diagnostics.warning("#", "before")
    model = map_validated(
        document, options, diagnostics, "spec.json", lambda: None, lambda: restarts.append(1)
    )
    return model, diagnostics, len(restarts)


@pytest.mark.parametrize("forks", [pytest.param(True, marks=needs_fork), False], ids=["fork", "no-fork"])
@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_result_is_exactly_what_mapping_with_validation_gives(
    name: str, forks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not forks:
        monkeypatch.setattr(concurrent_validation, "can_fork", lambda: False)
    expected, expected_diagnostics = mapped_serially(DOCUMENTS[name])
    model, diagnostics, _ = mapped_concurrently(DOCUMENTS[name])
    assert model == expected
    assert list(diagnostics) == list(expected_diagnostics)


def test_the_invalid_operations_are_skipped_with_their_validation_errors() -> None:
    model, diagnostics, _ = mapped_concurrently(INVALID)
    assert [tool.name for tool in model.tools] == ["good"]
    errors = [(d.pointer, d.message.split(":")[0]) for d in diagnostics if d.level is Level.ERROR]
    assert errors == [
        ("#/paths/~1a/get/responses", "invalid operation"),
        ("#/paths/~1b/get/servers", "invalid operation"),
        ("#/paths/~1c/get/parameters", "invalid operation"),
    ]


@needs_fork
def test_the_operations_are_mapped_again_only_when_one_is_invalid() -> None:
    assert mapped_concurrently(VALID)[2] == 0
    assert mapped_concurrently(INVALID)[2] == 1


class DecidedAtOnce:
    """A `Pending` whose child has already found an invalid operation."""

    def __init__(self, work: Any) -> None:
        pass

    def __enter__(self) -> DecidedAtOnce:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def done(self) -> bool:
        return True

    def result(self) -> str:
        return SOME_INVALID


def test_the_unvalidated_mapping_stops_as_soon_as_the_child_finds_an_invalid_operation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(concurrent_validation, "can_fork", lambda: True)
    monkeypatch.setattr(concurrent_validation, "Pending", DecidedAtOnce)
    steps, restarts = [], []
    diagnostics = Diagnostics()
    diagnostics.warning("#", "before")
    model = map_validated(
        INVALID,
        OPTIONS,
        diagnostics,
        "spec.json",
        lambda: steps.append(1),
        lambda: restarts.append(len(steps)),
    )
    assert restarts == [1]  # one operation reached, then mapped again: all four
    assert len(steps) == 1 + 4
    assert (model, list(diagnostics)) == tuple_of(mapped_serially(INVALID))


def test_the_verdict_covers_only_the_operations_the_selectors_keep() -> None:
    assert verdict(VALID, OPTIONS) == ALL_VALID
    assert verdict(INVALID, OPTIONS) == SOME_INVALID
    only_good = GeneratorOptions(dist_name="t", env_prefix="T", include=("op:good",))
    assert verdict(INVALID, only_good) == ALL_VALID
    model, diagnostics, restarts = mapped_concurrently(INVALID, only_good)
    assert (model, list(diagnostics)) == tuple_of(mapped_serially(INVALID, only_good))
    assert restarts == 0


def test_an_operation_whose_check_overflows_the_stack_is_invalid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mapper skips such an operation ("nested too deeply"), so the verdict must send it there."""

    def overflowing(*args: Any) -> None:
        raise RecursionError

    monkeypatch.setattr(concurrent_validation, "check_operation", overflowing)
    assert verdict(VALID, OPTIONS) == SOME_INVALID


@pytest.mark.parametrize("forks", [pytest.param(True, marks=needs_fork), False], ids=["fork", "no-fork"])
def test_an_error_of_the_unvalidated_mapping_falls_back_when_an_operation_is_invalid(
    forks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mapper relies on validation for nothing today; should it, its error on an invalid
    operation must not surface, and on valid operations it must."""
    if not forks:
        monkeypatch.setattr(concurrent_validation, "can_fork", lambda: False)

    def fragile(*args: Any, validate: bool = True) -> ApiModel:
        if not validate:
            raise TypeError("relied on validation")
        return map_document(*args)

    monkeypatch.setattr(concurrent_validation, "map_document", fragile)
    model, diagnostics, _ = mapped_concurrently(INVALID)
    assert (model, list(diagnostics)) == tuple_of(mapped_serially(INVALID))
    if forks:
        with pytest.raises(TypeError, match="relied on validation"):
            mapped_concurrently(VALID)


def tuple_of(result: tuple[ApiModel, Diagnostics]) -> tuple[ApiModel, list[Any]]:
    return result[0], list(result[1])


class Recorded:
    def __init__(self) -> None:
        self.names: list[str] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.names.append(name)

    def step(self) -> None:
        pass


@needs_fork
@pytest.mark.parametrize(("name", "again"), [("valid", False), ("invalid", True)])
def test_the_progress_line_says_when_the_operations_are_mapped_again(
    name: str, again: bool, tmp_path: Path
) -> None:
    source = tmp_path / "spec.json"
    source.write_text(json.dumps(DOCUMENTS[name]))
    stages = Recorded()
    pipeline.generate(str(source), GeneratorOptions(dist_name="t", env_prefix="T"), stages=stages)
    mapping = ["map operations", "map operations again"] if again else ["map operations"]
    assert stages.names == ["load", "bundle $refs", *mapping, "fit sizes", "render", "format"]


PROBE = """
import json, sys
from openapi2mcp import background, pipeline
from openapi2mcp.model import GeneratorOptions
if sys.argv[2] == "no-fork":
    background._START_METHOD = "no-such-method"
pipeline.generate(sys.argv[1], GeneratorOptions(dist_name="t", env_prefix="T"))
print(json.dumps("openapi_pydantic" in sys.modules))
"""


@pytest.mark.parametrize("forks", [pytest.param(True, marks=needs_fork), False], ids=["fork", "no-fork"])
def test_with_a_second_core_the_generator_never_loads_openapi_pydantic(forks: bool, tmp_path: Path) -> None:
    source = tmp_path / "spec.json"
    source.write_text(json.dumps(VALID))
    argv = [sys.executable, "-c", PROBE, str(source), "fork" if forks else "no-fork"]
    probe = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(probe.stdout) is (not forks)


def generated_files(source: str) -> dict[str, str]:
    return pipeline.generate(source, GeneratorOptions(dist_name="t", env_prefix="T")).files


@pytest.mark.parametrize("name", ["valid", "invalid"])
def test_a_pool_worker_generates_what_the_main_process_does(name: str, tmp_path: Path) -> None:
    """A `multiprocessing.Pool` worker is daemonic and may not fork children: it works serially."""
    source = tmp_path / "spec.json"
    source.write_text(json.dumps(DOCUMENTS[name]))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        in_worker = pool.apply(generated_files, (str(source),))
    assert in_worker == generated_files(str(source))
