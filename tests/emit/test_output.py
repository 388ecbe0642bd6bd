import json
import re
from pathlib import Path

import pytest

from openapi2mcp.emit.output import MANIFEST, OutputError, write_package


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


# ---- starters: files the user owns (hooks.py) ------------------------------------------------

FILES = {"pkg/server.py": "generated\n"}
STARTERS = {"pkg/hooks.py": "template\n"}


def _manifest(out: Path) -> list[str]:
    return list(json.loads((out / MANIFEST).read_text())["files"])


def test_a_starter_is_written_into_a_new_directory_but_not_into_the_manifest(tmp_path: Path):
    out = tmp_path / "out"
    assert write_package(out, FILES, STARTERS) == ["pkg/hooks.py"]
    assert _tree(out) == {
        "pkg/server.py": "generated\n",
        "pkg/hooks.py": "template\n",
        MANIFEST: json.dumps({"generator": "openapi2mcp", "files": ["pkg/server.py"]}, indent=1) + "\n",
    }


def test_regeneration_keeps_the_users_starter_and_recreates_a_deleted_one(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, FILES, STARTERS)
    (out / "pkg/hooks.py").write_text("my hooks\n")
    assert write_package(out, {"pkg/server.py": "new\n"}, {"pkg/hooks.py": "new template\n"}) == []
    assert _tree(out)["pkg/hooks.py"] == "my hooks\n"
    assert _tree(out)["pkg/server.py"] == "new\n"
    (out / "pkg/hooks.py").unlink()
    assert write_package(out, FILES, {"pkg/hooks.py": "new template\n"}) == ["pkg/hooks.py"]
    assert _tree(out)["pkg/hooks.py"] == "new template\n"
    assert _manifest(out) == ["pkg/server.py"]


def test_a_starter_is_created_in_a_package_directory_that_is_gone(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, {"README.md": "r\n"})
    assert write_package(out, {"README.md": "r\n"}, STARTERS) == ["pkg/hooks.py"]
    assert _tree(out)["pkg/hooks.py"] == "template\n"


def test_an_existing_starter_in_a_directory_without_manifest_is_neither_refused_nor_replaced(tmp_path: Path):
    out = tmp_path / "out"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg/hooks.py").write_text("kept from elsewhere\n")
    assert write_package(out, FILES, STARTERS) == []
    assert _tree(out)["pkg/hooks.py"] == "kept from elsewhere\n"


def test_a_starter_listed_in_an_old_manifest_is_never_removed_as_stale(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, {**FILES, "pkg/hooks.py": "owned once\n"})
    (out / "pkg/hooks.py").write_text("mine now\n")
    assert write_package(out, FILES, STARTERS) == []
    assert _tree(out)["pkg/hooks.py"] == "mine now\n"
    assert _manifest(out) == ["pkg/server.py"]


def test_a_broken_link_where_a_starter_goes_is_left_alone(tmp_path: Path):
    out = tmp_path / "out"
    write_package(out, FILES)
    (out / "pkg/hooks.py").symlink_to(tmp_path / "elsewhere.py")
    assert write_package(out, FILES, STARTERS) == []
    assert (out / "pkg/hooks.py").is_symlink() and not (tmp_path / "elsewhere.py").exists()


def test_a_path_both_generated_and_a_starter_is_a_programming_error(tmp_path: Path):
    with pytest.raises(ValueError, match=r"both generated and a starter: pkg/hooks\.py"):
        write_package(tmp_path / "out", {"pkg/hooks.py": "x\n"}, STARTERS)
    assert not (tmp_path / "out").exists()
