"""A JSON body cut at PREFIX_MAX_RESPONSE_BYTES read as the valid JSON value it starts with, by
ijson's incremental parser (its C backend): every array item kept is complete, so a cut list answer
becomes a shorter list that trimming.py reports as such."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
_NUMBER_END = b"0123456789.eE+- \t\r\n"  # a number at the cut may itself be cut: it is dropped


def read_prefix(body: bytes, enough: int) -> tuple[Any, list[tuple[Any, ...]]] | None:
    """The JSON value a cut body starts with, and the paths of the arrays left open. An item being
    read at the cut is dropped whole, so each item kept is complete; an object being read at the cut
    keeps the properties read (the output schema check decides). A list stops once its items make
    over `enough` characters of JSON (the rest would be trimmed). None when nothing valid was read.
    """
    import ijson  # type: ignore[import-untyped,unused-ignore]  # 16 ms: only when a body was cut

    text = body.rstrip(_NUMBER_END)
    if text.lstrip()[:1] == b"[":  # a list answer: ijson's C items() yields each complete item
        items: list[Any] = []
        size = 1
        try:
            for item in ijson.items(text, "item", use_float=True):
                items.append(item)
                size += len(_json(item)) + 1
                if size > enough:
                    break
        except ijson.IncompleteJSONError as error:
            if "premature EOF" not in str(error):
                return None
        return items, [()]
    return _build(ijson.basic_parse(text, use_float=True), ijson.IncompleteJSONError)


_NOTHING: Any = object()


def _build(
    events: Iterable[tuple[str, Any]], incomplete: type[Exception]
) -> tuple[Any, list[tuple[Any, ...]]] | None:
    """The value of the parse events up to the cut (ObjectBuilder's rules, with the open path)."""
    root, key = _NOTHING, None
    stack: list[Any] = []  # the open containers, root first
    path: list[Any] = []  # where each sits in its parent (None for the root)
    try:
        for event, value in events:
            if event == "map_key":
                key = value
                continue
            if event in ("end_map", "end_array"):
                stack.pop()
                path.pop()
                continue
            node = {} if event == "start_map" else [] if event == "start_array" else value
            if not stack:
                root, part = node, None
            elif isinstance(stack[-1], list):
                stack[-1].append(node)
                part = len(stack[-1]) - 1
            else:
                stack[-1][key] = node
                part = key
            if event in ("start_map", "start_array"):
                stack.append(node)
                path.append(part)
    except incomplete as error:
        if "premature EOF" not in str(error) or root is _NOTHING or not stack:
            return None
        for depth in range(1, len(stack)):  # the first open container inside an array goes
            if isinstance(stack[depth - 1], list):
                stack[depth - 1].pop()
                del stack[depth:]
                break
        opened = [
            tuple(path[1 : depth + 1]) for depth, node in enumerate(stack) if isinstance(node, list)
        ]
        return root, opened
    return None if root is _NOTHING else (root, [])
