"""The golden record: generated/<stem>/ must equal a fresh generation of specs/<stem>.(yaml|yml|json),
made exactly as `bash scripts/regen-golden` makes it (the CLI, run from the repository root)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openapi2mcp.cli.app import app
from openapi2mcp.emit.output import MANIFEST
from openapi2mcp.emit.render import STARTERS

REPO = Path(__file__).resolve().parents[2]
SPECS = sorted(p for p in (REPO / "specs").iterdir() if p.suffix in (".yaml", ".yml", ".json"))
GOLDEN = REPO / "generated"
REGENERATE = "bash scripts/regen-golden"
SHOWN_DIFFS = 3
DIFF_LINES = 60


def tree(root: Path) -> dict[str, bytes]:
    """Relative path → bytes of every file (byte caches of a local import are not part of it)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def generate(spec: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`openapi2mcp generate specs/<file> -o OUT --name <stem> --models --runtime package` in-process,
    from the repository root (the record holds no copy of the runtime: test_runtime_forms.py)."""
    monkeypatch.chdir(REPO)
    args = ["generate", spec.relative_to(REPO).as_posix(), "-o", str(out), "--name", spec.stem, "--models"]
    args += ["--runtime", "package"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, f"openapi2mcp {' '.join(args)} failed:\n{result.output}"


def unified(name: str, golden: bytes, fresh: bytes) -> str:
    lines = list(
        difflib.unified_diff(
            golden.decode("utf-8", errors="replace").splitlines(keepends=True),
            fresh.decode("utf-8", errors="replace").splitlines(keepends=True),
            fromfile=f"generated/{name} (committed)",
            tofile=f"generated/{name} (fresh)",
        )
    )
    cut = f"... {len(lines) - DIFF_LINES} more diff lines\n" if len(lines) > DIFF_LINES else ""
    return "".join(lines[:DIFF_LINES]) + cut


@pytest.mark.parametrize("spec", SPECS, ids=[p.name for p in SPECS])
def test_generated_equals_a_fresh_generation(
    spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh_root = tmp_path / spec.stem
    generate(spec, fresh_root, monkeypatch)
    golden_root = GOLDEN / spec.stem
    assert golden_root.is_dir(), f"generated/{spec.stem}/ is missing: run `{REGENERATE}`"
    golden, fresh = tree(golden_root), tree(fresh_root)
    if golden == fresh:
        return
    missing = sorted(set(fresh) - set(golden))
    extra = sorted(set(golden) - set(fresh))
    changed = sorted(name for name in set(golden) & set(fresh) if golden[name] != fresh[name])
    report = [f"generated/{spec.stem}/ is not what the generator writes for specs/{spec.name}."]
    if missing:
        report.append(f"missing from generated/{spec.stem}/: {', '.join(missing)}")
    if extra:
        report.append(f"not generated any more (extra): {', '.join(extra)}")
    if changed:
        report.append(f"different: {', '.join(changed)}")
        report += [
            unified(f"{spec.stem}/{name}", golden[name], fresh[name]) for name in changed[:SHOWN_DIFFS]
        ]
    report.append(f"If the change is intended, regenerate and commit: {REGENERATE}")
    pytest.fail("\n".join(report), pytrace=False)


def test_every_golden_directory_has_a_spec() -> None:
    stems = {p.stem for p in SPECS}
    assert len(stems) == len(SPECS), "two specs share a stem"
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir() and p.name not in stems)
    assert not stale, f"generated/ has directories without a spec: {stale}; run `{REGENERATE}`"


@pytest.mark.parametrize("spec", SPECS, ids=[p.name for p in SPECS])
def test_manifest_lists_exactly_the_generated_files(spec: Path) -> None:
    root = GOLDEN / spec.stem
    assert (root / MANIFEST).is_file(), f"generated/{spec.stem}/{MANIFEST} is missing: run `{REGENERATE}`"
    listed = json.loads((root / MANIFEST).read_text("utf-8"))["files"]
    starters = {f"{spec.stem}/{name}" for name in STARTERS}  # the user's, never in the manifest
    files = sorted(name for name in tree(root) if name != MANIFEST and name not in starters)
    assert (
        listed == files
    ), f"generated/{spec.stem}/{MANIFEST} lists {listed}, the directory holds {files}: run `{REGENERATE}`"
