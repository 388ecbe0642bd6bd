"""check.py: what `generate --check` compares, counts and says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openapi2mcp.ci.check import check_package
from openapi2mcp.emit.output import MANIFEST, write_package
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
DATA = "petstore/data/tool_data.json"


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return generate(str(PETSTORE), GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE")).files


@pytest.fixture
def out(tmp_path: Path, files: dict[str, str]) -> Path:
    target = tmp_path / "out"
    write_package(target, files)
    return target


def test_an_up_to_date_package_is_clean(out: Path, files: dict[str, str]) -> None:
    (out / "NOTES.md").write_text("mine", "utf-8")  # the user's files are not compared
    drift = check_package(out, files)
    assert drift.clean and drift.diffs == ()
    assert drift.summary(out) == f"{out}: up to date"
    assert drift.changelog is not None and drift.changelog.summary() == "no tool changes"


def test_a_changed_file_gives_its_unified_diff_and_the_tool_changelog(
    out: Path, files: dict[str, str]
) -> None:
    data = json.loads(files[DATA])
    removed = data["tools"].pop()["name"]
    fresh = {**files, DATA: json.dumps(data)}
    drift = check_package(out, fresh)
    assert (drift.changed, drift.created, drift.deleted) == (1, 0, 0)
    [diff] = drift.diffs
    assert diff.startswith(f"--- a/{DATA}\n+++ b/{DATA}\n@@ ")
    assert drift.changelog is not None and drift.changelog.summary() == "1 tool removed (1 breaking change)"
    assert drift.summary(out) == (
        f"{out}: 1 file differs (1 changed); tools: 1 tool removed (1 breaking change)"
    )
    assert removed in "".join(drift.diffs)


def test_files_a_regeneration_would_create_or_delete_are_counted(out: Path, files: dict[str, str]) -> None:
    fresh = {**files, "petstore/new.py": "x = 1\n"}
    del fresh["petstore/server.py"]
    drift = check_package(out, fresh)
    assert (drift.changed, drift.created, drift.deleted) == (0, 1, 1)
    assert sorted(diff.splitlines()[0] for diff in drift.diffs) == [
        "--- /dev/null",
        "--- a/petstore/server.py",
    ]


def test_a_missing_out_is_all_created_and_every_tool_added(tmp_path: Path, files: dict[str, str]) -> None:
    drift = check_package(tmp_path / "none", files)
    tools = len(json.loads(files[DATA])["tools"])
    assert (drift.changed, drift.created, drift.deleted) == (0, len(files), 0)
    assert drift.changelog is not None and drift.changelog.summary() == f"{tools} tools added"


def test_check_reads_but_never_writes(out: Path, files: dict[str, str]) -> None:
    before = {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}
    check_package(out, {**files, DATA: "{}"})
    after = {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}
    assert after == before and (out / MANIFEST) in after
