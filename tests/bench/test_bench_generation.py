"""benchmarks/generation.py: the sub-spec cut for the curve, the linearity figure, one real measurement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.generation import (
    GenerationFailed,
    GenerationFigures,
    count_operations,
    first_operations,
    generation_curve,
    linearity,
    measure_generation,
    spread_operations,
)

SHARED = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Cut", "version": "1"},
    "paths": {
        "/a": {"get": {"responses": {"200": {"description": "ok"}}}},
        "/b/{id}": {
            "parameters": SHARED,
            "summary": "B",
            "delete": {"responses": {"204": {"description": "gone"}}},
            "get": {"responses": {"200": {"description": "ok"}}},
            "x-note": "not an operation",
        },
        "/c": {"post": {"responses": {"201": {"description": "made"}}}},
    },
    "components": {"schemas": {"Thing": {"type": "object"}}},
}


def test_operations_are_counted_like_the_generator_counts_them() -> None:
    assert count_operations(OPENAPI) == 4
    assert count_operations({"openapi": "3.0.3"}) == 0


def test_the_first_operations_are_kept_in_the_generators_order_with_their_path_items_members() -> None:
    cut = first_operations(OPENAPI, 2)
    assert list(cut["paths"]) == ["/a", "/b/{id}"]
    b = cut["paths"]["/b/{id}"]
    assert "get" in b and "delete" not in b  # get comes before delete in the generator's method order
    assert b["parameters"] == SHARED and b["summary"] == "B" and b["x-note"] == "not an operation"
    assert cut["components"] == OPENAPI["components"] and cut["info"] == OPENAPI["info"]
    assert count_operations(cut) == 2


def test_path_items_left_without_operations_are_dropped_and_the_input_is_not_changed() -> None:
    before = json.dumps(OPENAPI)
    assert list(first_operations(OPENAPI, 1)["paths"]) == ["/a"]
    assert first_operations(OPENAPI, 4)["paths"] == OPENAPI["paths"]
    assert json.dumps(OPENAPI) == before


def test_swagger_2_specs_are_cut_the_same_way() -> None:
    swagger = {
        "swagger": "2.0",
        "info": {"title": "S", "version": "1"},
        "paths": {"/x": {"parameters": SHARED, "put": {}, "get": {}}, "/y": {"get": {}}},
        "definitions": {"Thing": {"type": "object"}},
    }
    cut = first_operations(swagger, 2)
    assert cut["paths"] == {"/x": {"parameters": SHARED, "put": {}, "get": {}}}
    assert cut["definitions"] == swagger["definitions"] and cut["swagger"] == "2.0"


def figures(operations: int, seconds: float) -> GenerationFigures:
    return GenerationFigures(operations=operations, seconds=seconds, peak_mib=100.0, runs=5)


def test_linearity_is_one_for_a_linear_cost_whatever_the_start_up_cost() -> None:
    points = [figures(n, 0.6 + 0.001 * n) for n in (100, 200, 400, 600, 800)]
    assert linearity(points) == pytest.approx(1.0)
    assert linearity(list(reversed(points))) == pytest.approx(1.0)


def test_linearity_is_well_above_one_for_a_quadratic_cost() -> None:
    points = [figures(n, 0.6 + 1e-6 * n * n) for n in (100, 200, 400, 600, 800)]
    # least-squares slopes of n²: 2 * 600 over (400, 600, 800), 24e6 / 46_666.7 over (100, 200, 400)
    assert linearity(points) == pytest.approx(7 / 3)


def test_linearity_needs_three_sizes() -> None:
    with pytest.raises(ValueError):
        linearity([figures(100, 1.0), figures(200, 2.0)])
    with pytest.raises(ValueError):
        linearity([figures(100, 1.0), figures(100, 1.1), figures(200, 2.0)])


def write_spec(tmp_path: Path) -> Path:
    spec = tmp_path / "cut.json"
    spec.write_text(json.dumps(OPENAPI), "utf-8")
    return spec


def test_a_generation_is_measured_as_a_child_process(tmp_path: Path) -> None:
    result = measure_generation(write_spec(tmp_path), 1, tmp_path / "work")
    assert result.operations == 4 and result.runs == 1
    assert 0 < result.seconds < 60 and 10 < result.peak_mib < 500
    assert (tmp_path / "work" / "out" / "bench" / "data" / "tool_data.json").is_file()


def test_the_peak_memory_is_the_childs_own_not_the_benchmarks(tmp_path: Path) -> None:
    """A child's ru_maxrss starts at its parent's peak on Linux: 400 MiB held here must not show."""
    ballast = bytearray(400 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: resident
    result = measure_generation(write_spec(tmp_path), 1, tmp_path / "work")
    assert 10 < result.peak_mib < 300
    del ballast


def test_curve_points_are_valid_sub_specs_measured_in_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured: list[Path] = []

    def fake_run(spec: Path, workdir: Path) -> tuple[float, float]:
        measured.append(spec)
        return float(count_operations(json.loads(spec.read_text("utf-8")))), 50.0

    monkeypatch.setattr("benchmarks.generation._run_once", fake_run)
    points = generation_curve(write_spec(tmp_path), (0.25, 0.5, 1.0), 2, tmp_path / "curve")
    assert [(point.operations, point.seconds, point.runs) for point in points] == [
        (1, 1, 2),
        (2, 2, 2),
        (4, 4, 2),
    ]
    assert json.loads(measured[1].read_text("utf-8")) == first_operations(OPENAPI, 2)
    names = [path.name for path in measured]
    assert names[:3] == names[3:6] == names[6:] and len(set(names)) == 3  # warm-ups, then two rounds


def test_a_failed_generation_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"swagger": "1.2"}', "utf-8")
    with pytest.raises(GenerationFailed, match=r"exited with 2"):
        measure_generation(broken, 1, tmp_path / "work")


def test_spread_operations_sample_the_whole_spec() -> None:
    cut = spread_operations(OPENAPI, 2)  # operations 0 and 2 of 4: /a get, then /b/{id} delete
    assert list(cut["paths"]) == ["/a", "/b/{id}"]
    assert "delete" in cut["paths"]["/b/{id}"] and "get" not in cut["paths"]["/b/{id}"]
    assert cut["paths"]["/b/{id}"]["parameters"] == SHARED
    assert count_operations(spread_operations(OPENAPI, 3)) == 3
    assert spread_operations(OPENAPI, 4) == first_operations(OPENAPI, 4) == OPENAPI
