"""OAS 3.1 (JSON Schema 2020-12) references by `$id` and `$anchor` inside the root document.

A schema with `$id: /schemas/pet` is a resource whose URI is that value resolved against the
document's own URI; `$anchor: name` names a schema inside the nearest enclosing resource. A
reference `/schemas/pet#name` (or `/schemas/pet`, or `/schemas/pet#/properties/id`) resolved against
the referring document's URI names such a node. The index is built on first use, once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from openapi2mcp.diagnostics import pointer_join
from openapi2mcp.load.source import is_url

JSON = Any


def as_uri(location: str) -> str:
    """A document location (real path or URL) as a URI to resolve `$id`s against."""
    return location if is_url(location) else Path(os.path.abspath(location)).as_uri()


class SchemaIds:
    """Where each `$id` resource and `$anchor` of one document is, as JSON pointers into it."""

    def __init__(self, document: JSON, uri: str) -> None:
        self._document, self._uri = document, uri
        self._resources: dict[str, str] | None = None  # resource URI → pointer
        self._anchors: dict[tuple[str, str], str] = {}  # (resource URI, anchor) → pointer

    def local_pointer(self, ref: str, base: str) -> str | None:
        """The JSON pointer (`#/...`) in this document that `ref`, written in `base`, names; else None."""
        uri, _, fragment = urljoin(base, ref).partition("#")
        if self._resources is None:
            self._resources = self._index()
        found = self._resources.get(uri)
        if found is None:
            return None
        fragment = unquote(fragment)
        if not fragment or fragment.startswith("/"):
            return found + fragment
        return self._anchors.get((uri, fragment))

    def _index(self) -> dict[str, str]:
        """Resource URIs → pointers (anchors go to `_anchors`), in one walk of the document."""
        resources = {self._uri: "#"}  # the document itself is a resource
        stack: list[tuple[JSON, str, str]] = [(self._document, "#", self._uri)]
        while stack:
            node, pointer, base = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("$id"), str) and urlsplit(node["$id"]).scheme in ("", "http", "https"):
                    base = urljoin(base, node["$id"]).partition("#")[0]
                    resources.setdefault(base, pointer)
                if isinstance(node.get("$anchor"), str):
                    self._anchors.setdefault((base, node["$anchor"]), pointer)
                children = node.items()
            elif isinstance(node, list):
                children = enumerate(node)  # type: ignore[assignment]
            else:
                continue
            for key, child in children:
                if isinstance(child, dict | list):
                    stack.append((child, pointer_join(pointer, key), base))
        return resources
