"""How inputSchemas are listed (PREFIX_LISTED_SCHEMAS). The generator writes them `portable`:
without `additionalProperties: false`, which google-genai cannot read (a boolean subschema), and
with its places as JSON pointers (`closed`, in the tool's route and in tool_details.json). `exact`
puts it back where the runtime enforces it, for clients that read it (OpenAI's strict mode takes a
tool without arguments only so). Validation always closes them again (validation.py)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

CLOSED_BYTES = len(',"additionalProperties":false')  # what `exact` adds to a listed object


def closed_again(schema: Mapping[str, Any], pointers: Sequence[str]) -> dict[str, Any]:
    """The listed inputSchema with `additionalProperties: false` back at each pointer (the listed
    form leaves it out for the clients' converters: the generator's emit/listing.py)."""
    whole = copy.deepcopy(dict(schema))
    for pointer in pointers:
        node: Any = whole
        for token in pointer.split("/")[1:]:
            key = token.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) else node[key]
        node["additionalProperties"] = False
    return whole


def listed(tool: dict[str, Any], pointers: Sequence[str], exact: bool) -> dict[str, Any]:
    """`tool` (or a describe_tools entry) as listed: as generated, or with its inputSchema closed
    again at `pointers` when `exact`."""
    if not exact or not pointers or "inputSchema" not in tool:
        return tool
    return {**tool, "inputSchema": closed_again(tool["inputSchema"], pointers)}
