"""Escaping filters: the only way spec text reaches generated files."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from openapi2mcp.model import Annotations

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")


def pyrepr(value: Any) -> str:
    """A Python literal for a str, int, finite float, bool or None (`repr`, always re-parsable)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise TypeError(f"pyrepr cannot write {value!r} as a literal")
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    raise TypeError(f"pyrepr takes scalars only, not {type(value).__name__}")


def pystr_body(value: str) -> str:
    """Text safe inside a triple-double-quoted docstring: one line, quotes and backslashes escaped."""
    one_line = " ".join(_CONTROL.sub(" ", str(value)).split())
    return one_line.replace("\\", "\\\\").replace('"', '\\"')


def tomlstr(value: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, the rest as is."""
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", escaped) + '"'


def tomlkey(value: str) -> str:
    """A TOML key: bare when it can be, else quoted."""
    return value if re.fullmatch(r"[A-Za-z0-9_-]+", value) else tomlstr(value)


def md_inline(value: str) -> str:
    """Markdown text on one line with markup characters escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def md_cell(value: str) -> str:
    """A Markdown table cell: one line, markup escaped (pipes included)."""
    return md_inline(value)


def md_code(value: str) -> str:
    """Text inside a single-backtick code span (backticks cannot be escaped there)."""
    return " ".join(str(value).split()).replace("`", "'").replace("|", "\\|")


def md_fence(value: str) -> str:
    """A code fence longer than any run of backticks in `value` (at least three)."""
    longest = max((len(run) for run in re.findall(r"`+", str(value))), default=0)
    return "`" * max(3, longest + 1)


def env_comment(value: str) -> str:
    """One line of a `.env` comment or value: control characters and line breaks become spaces."""
    return " ".join(_CONTROL.sub(" ", str(value)).split())


def hint_labels(annotations: Annotations) -> str:
    if annotations.read_only:
        return "read-only"
    labels = ["destructive" if annotations.destructive else "non-destructive"]
    if annotations.idempotent:
        labels.append("idempotent")
    return ", ".join(labels)


def json_line(value: Any) -> str:
    """Compact JSON on one line (the C encoder: fast on large schemas), non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


FILTERS: dict[str, Callable[..., str]] = {
    "json": json_line,
    "pyrepr": pyrepr,
    "pystr_body": pystr_body,
    "tomlstr": tomlstr,
    "tomlkey": tomlkey,
    "md_inline": md_inline,
    "md_cell": md_cell,
    "md_code": md_code,
    "md_fence": md_fence,
    "env_comment": env_comment,
    "hint_labels": hint_labels,
}
