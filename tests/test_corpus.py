"""The real-world corpus in-process (issue 4), with the code of `scripts/corpus-report`: every spec
generates without an exception, at least 99% of the operations become tools, every skipped operation
is explained by an error diagnostic, and each spec's operation count is the manifest's (or differs
for a reason in `corpus_report.COUNT_DIFFERENCES`). Skipped, saying so, without `../shared/corpus`.

The corpus is generated once per test run (2 worker processes); with pytest-xdist the first worker
to need it does it and the other reads its results.
"""

from __future__ import annotations

import fcntl
import json
import os
import textwrap
import time
from pathlib import Path
from typing import Any

import corpus_runner
import pytest
from corpus_report import COUNT_DIFFERENCES, GOAL, count_note, found_shares, main, problems, totals
from corpus_runner import Operation, SpecResult, analyse, kind_of, run_corpus
from corpus_specs import CORPUS_MISSING, NO_MANIFEST, CorpusSpec, corpus_specs, folder_specs

SPECS = corpus_specs()
MISSING = pytest.param("", marks=pytest.mark.skip(reason=CORPUS_MISSING))
NAMES: list[Any] = [spec.name for spec in SPECS] or [MISSING]


@pytest.fixture(scope="session")
def corpus_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SpecResult]:
    """Every spec's result, computed once per run (shared between xdist workers through a file)."""
    if not SPECS:
        pytest.skip(CORPUS_MISSING)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    store = shared / "corpus-results.json"
    with (shared / "corpus-results.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not store.is_file():
            results = run_corpus(SPECS, jobs=2)
            store.write_text(json.dumps([result.to_json() for result in results]), "utf-8")
    loaded = [SpecResult.from_json(item) for item in json.loads(store.read_text("utf-8"))]
    return {result.name: result for result in loaded}


@pytest.mark.parametrize("name", NAMES)
def test_spec_generates(name: str, corpus_results: dict[str, SpecResult]) -> None:
    result = corpus_results[name]
    assert result.failure is None, f"{name}: generation failed:\n{result.failure}"
    assert result.tools + len(result.skipped) == result.operations


@pytest.mark.parametrize("name", NAMES)
def test_tool_names_are_portable_unique_and_one_per_parameter(
    name: str, corpus_results: dict[str, SpecResult]
) -> None:
    """Issue 28: portable, unique tool names; an operation without an operationId named in words
    (`list_kernels`, not `get__api_kernels`); a parameter is the same argument in every tool, whatever
    a body holds (Kubernetes' query `dryRun` beside DeleteOptions' `dryRun`: `dryRun`, `dryRun_body`)
    and whatever else the tool has (Kubernetes' query `path` is `path_query` in every tool, as it is
    beside the path parameter `{path}`)."""
    result = corpus_results[name]
    assert (result.bad_names, result.unwritten_names, result.split_parameters) == ([], [], [])


@pytest.mark.parametrize("name", NAMES)
def test_diff_pairs_every_tool_with_itself(name: str, corpus_results: dict[str, SpecResult]) -> None:
    """`openapi2mcp diff` of a package with itself is no change, even where several tools share a
    route (AWS's `/#Action=...` paths are all `GET /`)."""
    assert corpus_results[name].self_diff == ""


@pytest.mark.parametrize("name", NAMES)
def test_every_skipped_operation_is_explained(name: str, corpus_results: dict[str, SpecResult]) -> None:
    result = corpus_results[name]
    errors = [f"{d['pointer']}: {d['message']}" for d in result.diagnostics if d["level"] == "error"]
    assert result.unexplained == [], "\n".join(["skipped without an explaining error:", *errors])


@pytest.mark.parametrize("name", NAMES)
def test_operation_count_is_the_manifests(name: str, corpus_results: dict[str, SpecResult]) -> None:
    result = corpus_results[name]
    expected = COUNT_DIFFERENCES.get(name, (result.manifest_operations, ""))[0]
    assert result.operations == expected, f"manifest: {result.manifest_operations}"
    assert count_note(result) in ("", "*")


def test_the_corpus_becomes_tools(corpus_results: dict[str, SpecResult]) -> None:
    summary = totals(list(corpus_results.values()))
    assert summary["failed"] == 0
    assert summary["operations"] >= sum(spec.operations for spec in SPECS)
    assert summary["tool_ratio"] >= GOAL, f"{summary['tools']} tools of {summary['operations']} operations"
    assert problems(list(corpus_results.values())) == []


# ---- the report's own logic, without the corpus ------------------------------------------------


def tiny_spec(tmp_path: Path, body: str, name: str = "tiny") -> CorpusSpec:
    root = tmp_path / f"{name}.yaml"
    root.write_text(textwrap.dedent(body), "utf-8")
    return CorpusSpec(name, root, tmp_path, "3.0.3", operations=2, size_bytes=root.stat().st_size)


TINY = """\
    openapi: 3.0.3
    info: {title: tiny, version: "1"}
    paths:
      /pets:
        get:
          operationId: listPets
          responses: {"200": {description: ok}}
        post:
          operationId: addPet
          requestBody:
            content: {application/json: {schema: {$ref: "#/components/schemas/Gone"}}}
          responses: {"201": {description: created}}
"""


def test_a_skipped_operation_is_counted_and_explained(tmp_path: Path) -> None:
    result = analyse(tiny_spec(tmp_path, TINY))
    assert result.failure is None, result.failure
    assert (result.operations, result.tools, result.skipped, result.unexplained) == (2, 1, ["POST /pets"], [])
    (error,) = [d for d in result.diagnostics if d["level"] == "error"]
    assert error["kind"] == "dangling ref", error
    assert result.list_bytes == len(b'{"tools":[]}') + len(
        json.dumps(_only_tool(tmp_path), separators=(",", ":"), ensure_ascii=False).encode()
    )


def _only_tool(tmp_path: Path) -> dict[str, object]:
    """The one tool of TINY as tools/list sends it (no outputSchema: no JSON response)."""
    description = "HTTP: GET /pets"
    return {
        "name": "listPets",
        "title": "List pets",
        "description": description,
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
        },
        "annotations": {
            "title": "List pets",
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": True,
        },
        "_meta": {
            "openapi2mcp/operation": {
                "operationId": "listPets",
                "method": "GET",
                "path": "/pets",
                "toolset": "untagged",
            }
        },
    }


def test_a_failure_and_a_timeout_are_the_specs_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = analyse(tiny_spec(tmp_path, "openapi: [unclosed\n"))
    assert broken.failure is not None and "LoadError" in broken.failure.splitlines()[-1]
    # A generation that takes long (not a tiny one under a tiny limit: the alarm could go off while
    # the generator forks, where Python reports and ignores an exception raised by a signal handler).
    monkeypatch.setattr(corpus_runner.pipeline, "generate", lambda *args: time.sleep(30))
    slow = analyse(tiny_spec(tmp_path, TINY), timeout=0.05)
    assert slow.failure is not None and "SpecTimeout: still running after 0.05 s" in slow.failure
    assert problems([broken]) == [f"tiny: failed: {broken.failure.strip().splitlines()[-1]}"]


def test_run_corpus_keeps_the_order_and_isolates_failures(tmp_path: Path) -> None:
    good, bad = tiny_spec(tmp_path, TINY, "good"), tiny_spec(tmp_path, "swagger: '1.2'\n", "bad")
    results = run_corpus([bad, good], jobs=2)
    assert [(r.failure is None, r.tools) for r in results] == [(False, 0), (True, 1)]


def test_a_folder_gives_every_spec_file_below_it_named_by_its_path(tmp_path: Path) -> None:
    (tmp_path / "vendor").mkdir()
    for name in ("a.yaml", "vendor/b.json", "vendor/c.yml", "notes.txt", "vendor/_index.js"):
        (tmp_path / name).write_text(textwrap.dedent(TINY), "utf-8")
    specs = folder_specs(tmp_path)
    assert [(spec.name, spec.root, spec.ref_root, spec.operations) for spec in specs] == [
        ("a", tmp_path / "a.yaml", tmp_path, NO_MANIFEST),
        ("vendor/b", tmp_path / "vendor/b.json", tmp_path, NO_MANIFEST),
        ("vendor/c", tmp_path / "vendor/c.yml", tmp_path, NO_MANIFEST),
    ]
    results = run_corpus(specs, jobs=2)  # a name with a slash: its crash file is flattened
    assert [(result.name, result.failure, result.tools) for result in results] == [
        ("a", None, 1),
        ("vendor/b", None, 1),
        ("vendor/c", None, 1),
    ]
    assert [count_note(result) for result in results] == ["", "", ""]  # no manifest to differ from


def test_the_dynamic_list_is_measured_and_search_finds_the_tool(tmp_path: Path) -> None:
    plain = analyse(tiny_spec(tmp_path, TINY))
    searched = analyse(tiny_spec(tmp_path, TINY), search=True)
    assert 2_000 < plain.dynamic_bytes == searched.dynamic_bytes < 8_000
    assert (plain.searched, plain.found_by_title, plain.found_by_name) == (0, 0, 0)
    assert (searched.searched, searched.found_by_title, searched.found_by_name) == (1, 1, 1)
    assert (found_shares(0, 0, 0), found_shares(200, 199, 200)) == ("-", "100% / 100%")
    assert found_shares(4, 3, 4) == "75% / 100%"


def test_a_folder_without_specs_or_an_unknown_name_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not a spec", "utf-8")
    assert main(["--folder", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"corpus-report: no spec file (.json, .yaml, .yml) below {tmp_path}\n"
    (tmp_path / "a.yaml").write_text(textwrap.dedent(TINY), "utf-8")
    assert main(["--folder", str(tmp_path), "--only", "b"]) == 2
    assert capsys.readouterr().err == "corpus-report: no such spec: b\n"


def test_problems_name_a_dynamic_list_over_8000_bytes() -> None:
    fine = SpecResult("fine", "3.0.3", 1, operations=1, tools=1, dynamic_bytes=8_000)
    large = SpecResult("large", "3.0.3", 1, operations=1, tools=1, dynamic_bytes=8_001)
    assert problems([fine, large]) == ["large: the dynamic tools/list is 8,001 bytes; the limit is 8,000"]


def test_problems_name_unexplained_skips_and_a_low_ratio() -> None:
    result = SpecResult("s", "3.0.3", 100, operations=100, tools=98, skipped=["GET /a", "PUT /b"])
    result.unexplained = ["PUT /b"]
    assert problems([result]) == [
        "s: PUT /b was skipped without an error diagnostic pointing at it",
        "98 of 100 operations became tools (98.00%); the goal is 99%",
    ]


@pytest.mark.parametrize(
    ("level", "pointer", "message", "explains"),
    [
        ("error", "#/paths/~1pets/get", "invalid operation: x; operation skipped", True),
        ("error", "#/paths/~1pets/get/parameters/0", "a parameter needs a `name`; operation skipped", True),
        ("error", "#/components/schemas/A", "dangling reference; operation GET /pets skipped", True),
        ("error", "#/components/schemas/A", "dangling reference; operation GET /pets/{id} skipped", False),
        ("error", "#/paths/~1pets", "a path item must be an object; path skipped", True),
        ("error", "#/paths/~1pets/post", "invalid operation: x; operation skipped", False),
        ("error", "#/paths/~1pets2/get", "invalid operation: x; operation skipped", False),
        ("warning", "#/paths/~1pets/get", "something dropped", False),
        ("info", "#/paths/~1pets/get", "x-mcp: false: left out", True),
        ("info", "#", "x-mcp: false at the root: no tools", True),
    ],
)
def test_what_explains_a_skipped_operation(level: str, pointer: str, message: str, explains: bool) -> None:
    assert Operation("get", "/pets", "#/paths/~1pets/get").explained_by(level, pointer, message) is explains


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("header parameter 'Accept' is ignored, as OpenAPI specifies", "ignored header"),
        ("path key '/#Action=Run': the fragment '#Action=Run' is not sent over HTTP", "path key"),
        ("mutualTLS is not supported: the generated server sends no client certificate", "security"),
        ("server variable 'a' has no default: give one with --server-var a=VALUE", "server"),
        ("reference './x.json#/A' not followed: 'x.json' does not exist", "external ref"),
        ("dangling reference '#/components/schemas/Gone': nothing is there", "dangling ref"),
        ("tool name 'list_models' is shared by 2 operations; this one is 'list_models_8b'", "duplicate name"),
        ("the allOf branches have no type in common; the type is dropped", "invalid schema"),
        ("a request body needs at least one media type in `content`", "request body"),
        ("invalid operation: responses: Field required", "invalid operation"),
        ("12 of 40 inputSchemas compacted to fit 16,384 bytes (12 nested descriptions shortened)", "size"),
        ("tools/list is 9,000 bytes with every schema at its smallest, over the 100-byte budget", "size"),
        ("something new", "other"),
    ],
)
def test_diagnostic_kinds(message: str, kind: str) -> None:
    assert kind_of(message) == kind
