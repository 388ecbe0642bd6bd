"""Resolve `$ref`s inside one document (`#/components/...`); anything else is a SpecError.

References to other documents were inlined before (`bundle`); one still here could not be loaded."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from openapi2mcp.diagnostics import SpecError

JSON = Any
_MAX_CHAIN = 32


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def follow_pointer(document: JSON, pointer: str) -> JSON:
    """The node at a JSON pointer (`/a/b~1c/0`, already percent-decoded); LookupError if none."""
    node = document
    for raw in pointer.split("/")[1:]:
        token = unescape_token(raw)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise LookupError(pointer)
    return node


class Resolver:
    """Follows local JSON-pointer references into the root document."""

    def __init__(self, document: JSON) -> None:
        self.document = document
        self._cache: dict[str, JSON] = {}

    def lookup(self, ref: str, where: str) -> JSON:
        """The node `ref` points at; `where` (a pointer) locates the `$ref` for the message."""
        cached = self._cache.get(ref)
        if cached is not None:
            return cached
        if not ref.startswith("#"):
            message = "is a reference to another document, which could not be loaded (see the warning)"
            raise SpecError(where, f"reference {ref!r} {message}")
        try:
            node = follow_pointer(self.document, unquote(ref[1:]))
        except LookupError:
            raise SpecError(where, f"dangling reference {ref!r}: nothing is there") from None
        self._cache[ref] = node
        return node

    def deref(self, node: JSON, where: str) -> tuple[JSON, str]:
        """Follow a chain of `$ref`s; return the target and its pointer (or `where` if no ref)."""
        pointer = where
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or len(seen) >= _MAX_CHAIN:
                raise SpecError(pointer, f"reference {ref!r} loops back to itself")
            seen.add(ref)
            node = self.lookup(ref, pointer)
            pointer = ref
        return node, pointer
