import json
import re
from pathlib import Path

import pytest

from openapi2mcp.output import MANIFEST, OutputError, write_package


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_new_output_directory_gets_the_files_and_a_manifest(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, {"a.txt": "A\n", "pkg/b.py": "B\n"})
    assert _tree(out) == {
        "a.txt": "A\n",
        "pkg/b.py": "B\n",
        MANIFEST: json.dumps({"generator": "openapi2mcp", "files": ["a.txt", "pkg/b.py"]}, indent=1) + "\n",
    }


def test_regeneration_replaces_owned_files_removes_stale_ones_and_keeps_foreign_ones(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, {"a.txt": "A\n", "old.txt": "old\n"})
    (out / "notes.md").write_text("mine\n")
    write_package(out, {"a.txt": "A2\n", "new.txt": "new\n"})
    tree = _tree(out)
    assert tree["a.txt"] == "A2\n"
    assert tree["new.txt"] == "new\n"
    assert tree["notes.md"] == "mine\n"
    assert "old.txt" not in tree


def test_files_the_generator_did_not_write_are_never_overwritten(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("my own readme\n")
    expected = re.escape("would overwrite files that openapi2mcp did not write (README.md)")
    with pytest.raises(OutputError, match=expected):
        write_package(out, {"README.md": "generated\n"})
    assert _tree(out) == {"README.md": "my own readme\n"}


def test_no_staging_directory_is_left_behind(tmp_path: Path):
    write_package(tmp_path / "out", {"a.txt": "A\n"})
    write_package(tmp_path / "out", {"a.txt": "B\n"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path):
    target = tmp_path / "file"
    target.write_text("keep\n")
    with pytest.raises(OutputError, match="is not a directory"):
        write_package(target, {"a.txt": "A\n"})
    assert target.read_text() == "keep\n"
