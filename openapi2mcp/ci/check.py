"""`generate --check`: compare what a generation would write with OUT, and write nothing.

Only the files the generator owns are compared: the ones it would write now and the ones OUT's
manifest says it wrote before (which regeneration would delete). Everything else in OUT (the
user's files, `hooks.py` and other files created once) is not looked at.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from openapi2mcp.ci.changelog import Changelog, ToolSet, compare
from openapi2mcp.ci.diff import parse_tool_data
from openapi2mcp.emit.output import read_manifest
from openapi2mcp.emit.render import TOOL_DATA_FILE
from openapi2mcp.load.source import LoadError


@dataclass(frozen=True)
class Drift:
    """How OUT differs from a fresh generation: a unified diff per file, and the tool changelog."""

    diffs: tuple[str, ...]
    changed: int  # files whose content differs
    created: int  # files a regeneration would create
    deleted: int  # files a regeneration would delete
    changelog: Changelog | None  # None when either side has no readable tool_data.json

    @property
    def clean(self) -> bool:
        return not self.diffs

    def summary(self, out: Path) -> str:
        """One line for the log, e.g. `out: 2 files differ (1 changed, 1 created); tools: 1 added`."""
        if self.clean:
            return f"{out}: up to date"
        counts = [(self.changed, "changed"), (self.created, "created"), (self.deleted, "deleted")]
        parts = ", ".join(f"{number} {what}" for number, what in counts if number)
        files = sum(number for number, _ in counts)
        tools = self.changelog.summary() if self.changelog is not None else "tool changes unknown"
        return f"{out}: {files} {'file differs' if files == 1 else 'files differ'} ({parts}); tools: {tools}"


def check_package(out: Path, files: dict[str, str]) -> Drift:
    """Compare `files` (relative path → text, as `write_package` would write them) with OUT."""
    owned_before = read_manifest(out) if out.is_dir() else set()
    olds = {relative: _read(out / relative) for relative in sorted(set(files) | (owned_before or set()))}
    diffs: list[str] = []
    changed = created = deleted = 0
    for relative, old in olds.items():
        new = files.get(relative)
        if old == new:
            continue
        if new is None:
            deleted += 1
        elif old is None:
            created += 1
        else:
            changed += 1
        diffs.append(_unified(relative, old, new))
    return Drift(tuple(diffs), changed, created, deleted, _changelog(out, files, olds))


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except (OSError, ValueError):  # absent, a directory, unreadable or not UTF-8: nothing comparable
        return None


def _unified(relative: str, old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{relative}" if old is not None else "/dev/null",
        tofile=f"b/{relative}" if new is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _changelog(out: Path, files: dict[str, str], olds: dict[str, str | None]) -> Changelog | None:
    """OUT's tools (in `olds`, OUT's texts as read) against the fresh ones (none if OUT has none)."""
    data = [path for path in files if PurePosixPath(path).name == TOOL_DATA_FILE]
    if len(data) != 1:
        return None
    relative = data[0]
    try:
        new = parse_tool_data(files[relative], Path(relative))
        old_text = olds[relative]
        old = parse_tool_data(old_text, out / relative) if old_text is not None else ToolSet(())
    except LoadError:
        return None
    return compare(old, new)
