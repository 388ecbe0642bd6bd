"""Generation is deterministic: the CLI, run in separate processes under different hash seeds, writes
byte-identical trees (set and dict iteration orders must never leak into the output)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("openapi2mcp")
SEEDS = ("0", "1", "12345")
SPECS = ("petstore.yaml", "escaping.yaml")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, bytes]]:
    """(spec, seed) → the tree the CLI writes; all six processes run at once."""
    root = tmp_path_factory.mktemp("determinism")
    processes = {}
    for spec in SPECS:
        for seed in SEEDS:
            out = root / f"seed-{seed}" / Path(spec).stem
            env = {**os.environ, "PYTHONHASHSEED": seed}
            command = [str(CLI), "generate", f"specs/{spec}", "-o", str(out), "--name", Path(spec).stem]
            command.append("--models")  # models.py too: datamodel-code-generator's output must not vary
            processes[(spec, seed)] = (
                out,
                subprocess.Popen(
                    command,
                    cwd=REPO,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                ),
            )
    found = {}
    for key, (out, process) in processes.items():
        _, stderr = process.communicate(timeout=180)
        assert process.returncode == 0, f"{key}: {stderr}"
        found[key] = tree(out)
    return found


@pytest.mark.parametrize("spec", SPECS)
def test_different_hash_seeds_write_byte_identical_trees(
    trees: dict[tuple[str, str], dict[str, bytes]], spec: str
) -> None:
    reference = trees[(spec, SEEDS[0])]
    # the generated files (models.py, Dockerfile too; 46 of the runtime), the manifest, hooks.py
    assert len(reference) == 69
    for seed in SEEDS[1:]:
        other = trees[(spec, seed)]
        assert sorted(other) == sorted(reference), seed
        different = sorted(name for name in reference if reference[name] != other[name])
        assert different == [], f"PYTHONHASHSEED={seed} changes {different}"


def test_the_output_directory_name_does_not_reach_the_generated_files(
    trees: dict[tuple[str, str], dict[str, bytes]],
) -> None:
    for (spec, seed), files in trees.items():
        for name, content in files.items():
            assert f"seed-{seed}".encode() not in content, (spec, name)
