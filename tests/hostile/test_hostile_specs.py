"""Hostile specs through the CLI: bombs, deep nesting, huge values, reference cycles and references out
of the ref root. Each ends with exit 2 or diagnostics, in time, without a traceback, and nothing read
outside the ref root reaches the output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostile_support import SECRET, generate, operation, refused, spec, write_json, written

pytestmark = pytest.mark.timeout(60)


def laughs(levels: int, first: str = "") -> str:
    lines = ["openapi: 3.0.3", *([first] if first else [])]
    lines.append("x-a: &a [" + ", ".join(["lol"] * 9) + "]")
    for level in range(1, levels):
        name, before = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"x-{name}: &{name} [" + ", ".join([f"*{before}"] * 9) + "]")
    last = chr(ord("a") + levels - 1)
    lines += ["info: {title: t, version: '1'}", "paths:", "  /x:", "    get:", "      operationId: x"]
    lines += [f"      description: *{last}", "      responses: {'200': {description: ok}}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("first", "line"),
    [("", 8), ("x-tag: !!map {a: 1}", None)],  # the second is read by PyYAML's own loader
    ids=["events", "pyyaml"],
)
def test_a_billion_laughs_is_refused_quickly(tmp_path: Path, first: str, line: int | None) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(laughs(9, first))
    outcome = generate(path, tmp_path)
    where = f"bomb.yaml:{line}: " if line else "bomb.yaml: "
    refused(outcome, where + "alias expansion would build more than 1,000,000 nodes")
    assert outcome.cpu_seconds < 5  # about 0.3 s over the CLI's start-up


def test_an_alias_bomb_in_an_overlay_is_refused(tmp_path: Path) -> None:
    (tmp_path / "overlay.yaml").write_text(laughs(9).replace("openapi: 3.0.3", "overlay: 1.0.0"))
    spec_path = write_json(tmp_path / "spec.json", spec({"/x": {"get": operation("x")}}))
    outcome = generate(spec_path, tmp_path, "--overlay", "overlay.yaml")
    refused(outcome, "overlay overlay.yaml:8: alias expansion would build more than 1,000,000 nodes")


def test_an_alias_bomb_in_a_referenced_file_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(laughs(9).replace("openapi: 3.0.3\n", "Thing: {type: string}\n"))
    body = {"content": {"application/json": {"schema": {"$ref": "bomb.yaml#/Thing"}}}}
    paths = {"/x": {"post": operation("x", requestBody=body)}, "/y": {"get": operation("y")}}
    outcome = generate(write_json(tmp_path / "spec.json", spec(paths)), tmp_path)
    assert outcome.returncode == 0
    assert "alias expansion would build more than 1,000,000 nodes" in outcome.stderr
    assert written(outcome) == "1 tools written (1 errors reported)"


def nested_schema(levels: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


@pytest.mark.parametrize("form", ["json", "yaml-flow", "yaml-block"])
def test_a_20000_deep_schema_is_refused_by_depth_in_seconds_of_cpu(tmp_path: Path, form: str) -> None:
    body = {"content": {"application/json": {"schema": nested_schema(20)}}}
    text = json.dumps(spec({"/x": {"post": operation("x", requestBody=body)}}))
    deep = '{"type": "object", "properties": {"a": ' * 20_000 + '{"type": "string"}' + "}}" * 20_000
    path = tmp_path / ("deep.json" if form == "json" else "deep.yaml")
    if form == "yaml-block":  # `- - - 1`: block sequences nested on one line
        path.write_text("openapi: 3.0.3\nx-deep:\n  " + "- " * 20_000 + "1\n")
    else:
        path.write_text(text.replace('{"type": "string"}', deep, 1))
    outcome = generate(path, tmp_path)
    refused(outcome, path.name, "levels deep, more than the limit of 256")
    # A gross-regression guard only (about 0.4 s alone): CPU, not wall time, and still the CI box's
    # busy cores once made it 2.1 s. A parser that walked the depth quadratically would take minutes.
    assert outcome.cpu_seconds < 8


def test_huge_strings_and_arrays_past_the_limits_are_refused(tmp_path: Path) -> None:
    description = "x" * (64 * 1024 * 1024 + 1)
    long = write_json(tmp_path / "long.json", spec({"/x": {"get": operation(description=description)}}))
    refused(
        generate(long, tmp_path), "long.json: keys and scalars would hold more than 67,108,864 characters"
    )
    wide = write_json(tmp_path / "wide.json", spec({}, **{"x-many": [0] * 5_000_001}))
    refused(generate(wide, tmp_path), "wide.json: the document would build more than 5,000,000 nodes")


def test_large_strings_and_arrays_within_the_limits_are_generated(tmp_path: Path) -> None:
    parameter = {
        "name": "q",
        "in": "query",
        "schema": {"type": "string", "enum": list(map(str, range(20_000)))},
    }
    big = operation(description="word " * 1_000_000, parameters=[parameter])
    path = write_json(tmp_path / "big.json", spec({"/x": {"get": big}}, **{"x-many": [0] * 1_000_000}))
    outcome = generate(path, tmp_path)
    assert written(outcome) == "1 tools written (0 errors reported)"


def test_reference_cycles_across_files_end_with_diagnostics(tmp_path: Path) -> None:
    write_json(
        tmp_path / "a.json",
        {"A": {"$ref": "b.json#/B"}, "Tree": {"properties": {"b": {"$ref": "b.json#/T"}}}},
    )
    write_json(tmp_path / "b.json", {"B": {"$ref": "a.json#/A"}, "T": {"items": {"$ref": "a.json#/Tree"}}})
    body = {"content": {"application/json": {"schema": {"$ref": "a.json#/A"}}}}
    tree = {"content": {"application/json": {"schema": {"$ref": "a.json#/Tree"}}}}
    paths = {
        "/loop": {"post": operation("loop", requestBody=body)},
        "/tree": {"post": operation("tree", requestBody=tree)},
    }
    outcome = generate(write_json(tmp_path / "spec.json", spec(paths)), tmp_path)
    assert outcome.returncode == 0
    assert "loops back to itself" in outcome.stderr or "refers to itself" in outcome.stderr, outcome.stderr
    assert "tree" in (outcome.out / "hostile" / "data" / "tool_data.json").read_text()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A secret file beside the ref root (the spec's directory, `root/`), and a symlink to it inside."""
    secret = write_json(
        tmp_path / "outside" / "secret.json", {"Secret": {"type": "string", "description": SECRET}}
    )
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link.json").symlink_to(secret)
    return secret


def test_references_outside_the_ref_root_are_never_read(tmp_path: Path, outside: Path) -> None:
    refs = [
        "../outside/secret.json#/Secret",
        "../../../../../../../../etc/passwd",
        str(outside) + "#/Secret",
        outside.as_uri() + "#/Secret",
        "link.json#/Secret",
        "file:///etc/passwd",
        "%2e%2e/outside/secret.json#/Secret",
        "fifo.json",  # reading it would wait forever
    ]
    os.mkfifo(tmp_path / "root" / "fifo.json")
    paths = {
        f"/r{index}": {
            "post": operation(
                f"r{index}", requestBody={"content": {"application/json": {"schema": {"$ref": ref}}}}
            )
        }
        for index, ref in enumerate(refs)
    }
    paths["/fine"] = {"get": operation("fine")}
    # one annotation per diagnostic, each placed in the spec (the places are looked up in the files)
    spec_path = write_json(tmp_path / "root" / "spec.json", spec(paths))
    outcome = generate(spec_path, tmp_path, "--diagnostics-format", "github")
    assert outcome.returncode == 0, outcome.stderr
    everything = outcome.everything()
    assert SECRET not in everything and "root:x:0:0" not in everything
    assert outcome.stdout.count("operation skipped") == len(refs), outcome.stdout
    assert outcome.stdout.count("is outside the spec's directory") == 2  # one warning per document
    assert "'fifo.json' is not a regular file" in outcome.stdout
    assert written(outcome) == f"1 tools written ({len(refs)} errors reported)"


def test_a_ref_root_does_not_widen_what_is_read_beyond_it(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "root" / "sub").mkdir()
    ref = {"$ref": "../../outside/secret.json#/Secret"}
    paths = {"/x": {"post": operation("x", requestBody={"content": {"application/json": {"schema": ref}}})}}
    path = write_json(tmp_path / "root" / "sub" / "spec.json", spec(paths))
    outcome = generate(path, tmp_path, "--ref-root", str(tmp_path / "root"))
    assert SECRET not in outcome.everything()
    assert "is outside the spec's directory and the --ref-root directory" in outcome.stderr


def test_a_spec_that_is_a_directory_or_nothing_is_refused(tmp_path: Path) -> None:
    for name in ("nothing.yaml", "."):
        refused(generate(tmp_path / name, tmp_path), "cannot read the file")
