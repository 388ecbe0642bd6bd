"""Multi-file specs: inline what `$ref`s to other documents name, so the pipeline sees ONE document.

Runs right after the root document is loaded, before the Swagger 2.0 conversion (`bundle_sources`
says which documents may be read, and reads them).

- A `$ref` that does not start with `#` names another document (a path or URL, resolved relative to
  the document it is written in) and optionally a JSON pointer into it. It is replaced by its
  target, transformed the same way: the target's own references resolve relative to ITS document,
  and `#/...` there means that document's root. Each target is transformed once and the same
  object is inserted wherever it is referenced (no copies; the pipeline never mutates the
  document). Siblings of such a `$ref` (`description`...) are merged over a shallow copy of it.
- A reference back into the root document becomes the local reference `#/...`.
- Recursion: a target met again while it is being transformed is hoisted to
  `components/schemas/<Name>` (Swagger 2.0: `definitions/<Name>`; the name is the pointer's last
  token or the file's stem, `_2`, `_3`... on a clash) and every occurrence becomes a local
  reference to it, which the schema converter cuts as usual.
- Data is not searched for references: `example`, `default`, `enum`, `const`, `x-*` extensions and
  JSON Schema `examples` lists are left as they are; of an `examples` or `links` map only a `$ref`
  at the root of an entry (a reference to an Example or Link object) is followed.
- A reference that cannot be followed stays (rewritten relative to the root document's directory
  when it is written in another document, so that it keeps its meaning), the mapper skips the
  operations that need it, and one warning per document (per place, for a fragment that names
  nothing) says why, at the first place that refers to it.

Copy-on-write: a subtree without references to other documents is the loaded one, unchanged, so a
single-file spec comes out as the very same object.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from openapi2mcp.diagnostics import Diagnostics, pointer_join
from openapi2mcp.load.bundle_ids import SchemaIds, as_uri
from openapi2mcp.load.bundle_sources import DEFAULT_REF_OPTIONS, RefFailure, RefOptions, Sources
from openapi2mcp.load.refs import follow_pointer, unescape_token
from openapi2mcp.load.swagger2.convert import is_swagger2

__all__ = ["DEFAULT_REF_OPTIONS", "RefOptions", "bundle"]

JSON = Any
Where = str | tuple["Where", str | int]  # a JSON pointer, built lazily: rendered only for a warning
Key = tuple[str, str, int]  # a target: document location, JSON pointer, kind
MAX_NESTED_TARGETS = 100

# What a node is decides which of its members are searched for references.
STRUCT = 0  # an OpenAPI or Schema object: keywords
NAMES = 1  # a map from names to objects (`properties`, `components/schemas`, `content`...)
NAMES_EXT = 2  # the same with `x-*` extensions among the names (`paths`, `responses`, a callback)
CALLBACKS = 3  # a map from names to callback objects
ENTRIES = 4  # a map from names to example or link objects: only a `$ref` at an entry's root
OPAQUE = 5  # an example or link object: only a `$ref` at its root
_DATA = frozenset({"example", "default", "enum", "const"})
_MEMBERS = {
    **dict.fromkeys(
        (
            "properties", "patternProperties", "dependentSchemas", "definitions", "$defs", "schemas",
            "parameters", "requestBodies", "headers", "securitySchemes", "securityDefinitions",
            "pathItems", "webhooks", "content", "encoding", "variables",
        ),
        NAMES,
    ),
    "paths": NAMES_EXT,
    "responses": NAMES_EXT,
    "callbacks": CALLBACKS,
    "links": ENTRIES,
}  # fmt: skip
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def bundle(
    document: JSON, source: str, diagnostics: Diagnostics, options: RefOptions = DEFAULT_REF_OPTIONS
) -> JSON:
    """`document` (loaded from `source`) with its references to other documents inlined."""
    if not isinstance(document, dict):
        return document  # not a spec: the caller says so
    sources = Sources(source, document, options)
    try:
        return _Bundler(document, sources, diagnostics).run()
    finally:
        sources.close()


def render(where: Where) -> str:
    tokens: list[str | int] = []
    while isinstance(where, tuple):
        where, token = where
        tokens.append(token)
    return pointer_join(where, *reversed(tokens))


class _Bundler:
    def __init__(self, document: dict[str, Any], sources: Sources, diagnostics: Diagnostics) -> None:
        self.document = document
        self.sources = sources
        self.diagnostics = diagnostics
        self.swagger = is_swagger2(document)
        self.done: dict[Key, JSON] = {}
        self.active: dict[Key, None] = {}  # targets being transformed, in order
        self.hoisted_refs: dict[Key, tuple[str, dict[str, str]]] = {}  # → name, its local `$ref`
        self.hoisted: dict[str, JSON] = {}  # name → transformed target
        self.names = set(_names(self._section(document)))
        self.reported: set[str] = set()
        is_31 = str(document.get("openapi", "")).startswith("3.1")
        self.ids = SchemaIds(document, as_uri(sources.root)) if is_31 else None

    def run(self) -> JSON:
        root = self.walk(self.document, self.sources.root, STRUCT, "#")
        if not self.hoisted:
            return root
        if self.swagger:
            return {**root, "definitions": {**_names(root.get("definitions")), **self.hoisted}}
        components = _names(root.get("components"))
        schemas = {**_names(components.get("schemas")), **self.hoisted}
        return {**root, "components": {**components, "schemas": schemas}}

    def _section(self, document: dict[str, Any]) -> JSON:
        if self.swagger:
            return document.get("definitions")
        return _names(document.get("components")).get("schemas")

    # The walk -------------------------------------------------------------------------------------

    def walk(self, node: JSON, doc: str, kind: int, where: Where) -> JSON:
        """`node` (in document `doc`) with its references to other documents inlined."""
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                return self.reference(node, ref, doc, kind, where)
            return self.members(node, doc, kind, where)
        if isinstance(node, list) and kind not in (ENTRIES, OPAQUE):
            items = [self.walk(item, doc, STRUCT, (where, index)) for index, item in enumerate(node)]
            return node if all(new is old for new, old in zip(items, node, strict=True)) else items
        return node

    def members(self, node: dict[str, Any], doc: str, kind: int, where: Where) -> dict[str, Any]:
        """`node` with its members walked (except `$ref`); the same object when none changed."""
        changed: dict[str, Any] | None = None
        for key, value in node.items():
            if key == "$ref" or not isinstance(value, dict | list):
                continue
            member = self.member_kind(kind, key, value)
            if member is None:
                continue
            new = self.walk(value, doc, member, (where, key))
            if new is not value:
                changed = changed if changed is not None else dict(node)
                changed[key] = new
        return node if changed is None else changed

    def member_kind(self, kind: int, key: str, value: JSON) -> int | None:
        """The kind of the member `key` of a node of `kind`; None: data, not searched."""
        if kind == NAMES:
            return STRUCT
        if kind == CALLBACKS:
            return NAMES_EXT
        if kind == ENTRIES:
            return OPAQUE
        if kind == OPAQUE or key.startswith("x-"):
            return None
        if kind == NAMES_EXT:
            return STRUCT
        if key in _DATA:
            return None
        if key == "examples":  # Example objects (OAS 3) or data (JSON Schema lists, Swagger 2.0)
            return ENTRIES if isinstance(value, dict) and not self.swagger else None
        return _MEMBERS.get(key, STRUCT)

    # References -----------------------------------------------------------------------------------

    def reference(self, node: dict[str, Any], ref: str, doc: str, kind: int, where: Where) -> JSON:
        uri, _, fragment = ref.partition("#")
        root = self.sources.root
        if not uri and doc == root and (not fragment or fragment.startswith("/")):
            return self.members(node, doc, kind, where)  # a local reference of the root: kept
        by_id = self.ids.local_pointer(ref, as_uri(doc)) if self.ids is not None else None
        if by_id is not None:  # an OAS 3.1 `$id`/`$anchor` reference into the root document
            return self._with_siblings(node, {"$ref": by_id}, doc, kind, where)
        try:
            pointer = unquote(fragment)
            if pointer and not pointer.startswith("/"):
                raise RefFailure(
                    f"'#{fragment}' names no `$anchor` of a schema with a known `$id`",
                    key=f"{doc}#{fragment}" if not uri else f"{uri}#{fragment}",
                )
            location = self.sources.locate(uri, doc) if uri else doc
            if location == root:
                target: JSON = {"$ref": f"#{fragment}"}
            else:
                target = self.target(location, pointer, kind)
        except RefFailure as failure:
            self.report(failure, ref, where)
            kept = self.members(node, doc, kind, where)
            if doc == root:
                return kept
            return {**kept, "$ref": self.unresolved(uri, fragment, failure.location, doc)}
        return self._with_siblings(node, target, doc, kind, where)

    def _with_siblings(self, node: dict[str, Any], target: JSON, doc: str, kind: int, where: Where) -> JSON:
        """The target of `node`'s reference, with the reference's siblings merged over it."""
        if len(node) == 1:
            return target
        siblings = self.members(node, doc, kind, where)
        if not isinstance(target, dict):
            return target
        return {**target, **{key: value for key, value in siblings.items() if key != "$ref"}}

    def target(self, location: str, pointer: str, kind: int) -> JSON:
        """The transformed node at `pointer` in the document at `location`."""
        key = (location, pointer, kind)
        if key in self.done:
            return self.done[key]
        if key in self.active:
            return self.hoist(key)
        name = self.sources.display(location)
        if len(self.active) >= MAX_NESTED_TARGETS:
            raise RefFailure(f"more than {MAX_NESTED_TARGETS} references nested in each other", location)
        node = self.find(self.sources.document(location), location, pointer)
        self.active[key] = None
        try:
            result = self.walk(node, location, kind, f"{name}#{pointer}")
        except RecursionError:
            raise RefFailure(f"{name!r} nests references too deeply", location) from None
        finally:
            del self.active[key]
        hoisted = self.hoisted_refs.get(key)
        if hoisted is not None:
            self.hoisted[hoisted[0]] = result
            result = hoisted[1]
        self.done[key] = result
        return result

    def find(self, document: JSON, location: str, pointer: str) -> JSON:
        try:
            return follow_pointer(document, pointer)
        except LookupError:
            place = f"{self.sources.display(location)}#{pointer}"
            raise RefFailure(f"nothing is at {place!r}", location, key=f"{location}#{pointer}") from None

    def hoist(self, key: Key) -> dict[str, str]:
        """The local reference standing for a target that refers to itself (named once)."""
        if key not in self.hoisted_refs:
            location, pointer, _ = key
            stem = PurePosixPath(urlsplit(location).path).stem if "://" in location else _stem(location)
            raw = unescape_token(pointer.rsplit("/", 1)[-1]) if pointer else stem
            base = _UNSAFE_NAME.sub("_", raw) or "Schema"
            name, number = base, 1
            while name in self.names:
                number += 1
                name = f"{base}_{number}"
            self.names.add(name)
            prefix = "#/definitions/" if self.swagger else "#/components/schemas/"
            self.hoisted_refs[key] = (name, {"$ref": prefix + name})
        return self.hoisted_refs[key][1]

    def unresolved(self, uri: str, fragment: str, location: str | None, doc: str) -> str:
        """A reference that could not be followed, as the root document would have to write it."""
        name = (uri or self.sources.display(doc)) if location is None else self.sources.display(location, uri)
        return f"{name}#{fragment}" if fragment else name

    def report(self, failure: RefFailure, ref: str, where: Where) -> None:
        if failure.key in self.reported:
            return
        self.reported.add(failure.key)
        self.diagnostics.warning(
            render(where),
            f"reference {ref!r} not followed: {failure.reason}; operations that need it are skipped",
        )


def _names(value: JSON) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _stem(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).stem
