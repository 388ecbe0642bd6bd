"""The size of a tools/list answer, in bytes and estimated tokens.

The estimator is deliberately simple, so that the generated runtime's `auto` mode can mirror it
exactly: the bytes are the UTF-8 length of the compact JSON text of `{"tools": [...]}` (no spaces,
non-ASCII characters as they are), and a token is about 4 bytes of such JSON (measured on tool
schemas), rounded up. A server in `auto` mode is dynamic when its selected tools' list is over
`MAX_LIST_TOKENS` estimated tokens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

BYTES_PER_TOKEN = 4
MAX_LIST_TOKENS = 20_000  # the runtime's default `{PREFIX}_MAX_LIST_TOKENS`


def compact_bytes(value: Any) -> int:
    """Bytes of the compact JSON form of `value` (UTF-8, no spaces, non-ASCII kept as it is)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def tools_list_bytes(tools: Iterable[Mapping[str, Any]]) -> int:
    """Bytes of the tools/list result `{"tools": [...]}` holding `tools` (wire form)."""
    return compact_bytes({"tools": list(tools)})


def estimated_tokens(byte_count: int) -> int:
    """The estimate: ceil(bytes / 4)."""
    return -(-byte_count // BYTES_PER_TOKEN)


_EMPTY_LIST = tools_list_bytes([])


def joined_bytes(tool_sizes: Iterable[int]) -> int:
    """`tools_list_bytes` of tools whose own `compact_bytes` are `tool_sizes`, without serialising
    them again: the list's frame, the tools and a comma between each two."""
    sizes = list(tool_sizes)
    return _EMPTY_LIST + sum(sizes) + max(len(sizes) - 1, 0)
