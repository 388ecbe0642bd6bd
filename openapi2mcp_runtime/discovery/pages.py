"""tools/list in pages ({PREFIX}_LIST_PAGE_SIZE): each cursor is opaque to the client and names
the list it pages (a digest of its tools' names) and where the next page starts. A cursor of a
list that has changed since (enable_toolsets, another view) is refused like any invalid one, so a
client restarts the listing instead of mixing two lists."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import mcp.types as types
from mcp import MCPError


def page(listed: Mapping[str, Any], cursor: str | None, size: int | None) -> dict[str, Any]:
    """The page of the tools/list result `listed` that `cursor` starts (None: the first), with a
    `nextCursor` while tools remain; all of it when `size` is None. MCPError -32602: a cursor
    this list did not give."""
    tools: Sequence[Mapping[str, Any]] = listed["tools"]
    if size is None and cursor is None:
        return dict(listed)
    digest = list_digest(tools)
    start = 0 if cursor is None else _offset(cursor, digest, len(tools))
    end = len(tools) if size is None else start + size
    answer = {**listed, "tools": list(tools[start:end])}
    if end < len(tools):
        answer["nextCursor"] = _cursor(digest, end)
    return answer


def list_digest(tools: Sequence[Mapping[str, Any]]) -> str:
    """What a cursor is bound to: the listed tools' names, in order."""
    names = "\n".join(str(tool["name"]) for tool in tools).encode("utf-8")
    return hashlib.blake2b(names, digest_size=9).hexdigest()


def _cursor(digest: str, offset: int) -> str:
    raw = json.dumps([digest, offset], separators=(",", ":")).encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _offset(cursor: str, digest: str, count: int) -> int:
    """Where the page of `cursor` starts; MCPError when it is not one of this list's cursors."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        given, offset = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, TypeError, UnicodeError):
        given, offset = None, None
    if given == digest and type(offset) is int and 0 < offset < count:
        return offset
    problem = (
        "not a cursor this server gave" if given is None else "the tool list has changed since"
    )
    raise MCPError(
        code=types.INVALID_PARAMS,
        message=f"Invalid cursor ({problem}): list the tools again without a cursor",
    )
