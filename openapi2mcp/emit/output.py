"""Write a generated package safely: stage everything, then replace only the files we own.

Generated files are owned: listed in the manifest, replaced by each generation, removed when a
generation no longer makes them. Starters (e.g. `hooks.py`) are the user's: written only where no
file is, never replaced or removed, never in the manifest (a later check of the generated files
ignores them)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

MANIFEST = ".openapi2mcp-manifest.json"


class OutputError(Exception):
    """Writing would lose data the generator does not own, or the disk refused."""


def read_manifest(out: Path) -> set[str] | None:
    """The files a previous generation wrote into `out`, or None when there was none."""
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
        return {str(item) for item in data["files"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise OutputError(f"{path}: unreadable manifest ({exc}); move it away to regenerate") from None


def write_package(out: Path, files: dict[str, str], starters: Mapping[str, str] | None = None) -> list[str]:
    """Stage all files beside `out`, then move them in; foreign files in `out` are never touched.
    Returns the `starters` written (those that did not exist)."""
    starters = starters or {}
    if clash := sorted(set(files) & set(starters)):
        raise ValueError(f"both generated and a starter: {', '.join(clash)}")
    owned_before = read_manifest(out) if out.exists() else None
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    _refuse_foreign_overwrites(out, files, owned_before or set())
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        staging.chmod(0o777 & ~_umask())
        for relative, text in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        manifest = {"generator": "openapi2mcp", "files": sorted(files)}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        if out.exists():
            _move_in(staging, out, files, (owned_before or set()) - set(starters))
        else:
            os.replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _create_missing(out, starters)


def _create_missing(out: Path, starters: Mapping[str, str]) -> list[str]:
    """Each starter where nothing is (not even a broken link); exclusive creation: never a replace."""
    created = []
    for relative, text in sorted(starters.items()):
        target = out / relative
        if os.path.lexists(target):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "x", encoding="utf-8", newline="\n") as file:
            file.write(text)
        created.append(relative)
    return created


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _refuse_foreign_overwrites(out: Path, files: dict[str, str], owned: set[str]) -> None:
    if not out.is_dir():
        return
    foreign = sorted(path for path in files if path not in owned and (out / path).exists())
    if foreign:
        shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        raise OutputError(
            f"{out}: would overwrite files that openapi2mcp did not write ({shown}); "
            "choose an empty output directory or move them away"
        )


def _move_in(staging: Path, out: Path, files: dict[str, str], owned_before: set[str]) -> None:
    for relative in sorted(owned_before - set(files)):
        stale = out / relative
        if stale.is_file():
            stale.unlink()
    for relative in [*sorted(files), MANIFEST]:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / relative, target)
