"""Format generated Python in-process with black (pinned), so it can never be skipped silently."""

from __future__ import annotations

import black
from black.mode import Mode, TargetVersion

_MODE = Mode(line_length=100, target_versions={TargetVersion.PY311})


def format_python(source: str) -> str:
    return black.format_str(source, mode=_MODE)


def format_files(files: dict[str, str], verbatim: frozenset[str] = frozenset()) -> dict[str, str]:
    """Every `.py` file formatted, except the `verbatim` paths (already formatted); others unchanged."""
    return {
        path: format_python(text) if path.endswith(".py") and path not in verbatim else text
        for path, text in files.items()
    }
