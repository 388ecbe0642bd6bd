"""The generated server's search index (`search_index.json`, docs/search-index.md) from the model.

The analyzer and the index layout live in the runtime's own module, `openapi2mcp_runtime/discovery/
search.py`: generation and the server read words the same way because it is one module.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any, NamedTuple

from openapi2mcp.model import ApiModel, JSONSchema, Tool
from openapi2mcp.tools.outputs import WRAP_KEY
from openapi2mcp_runtime.discovery import search as runtime_search

SEARCH_INDEX_FILE = "search_index.json"
SCHEMA_DEPTH = 3  # levels of nested properties whose words are indexed
_FOOTER = re.compile(r"(?:^|\n\n)HTTP: [A-Z]+ \S*(?:\n.*)?\Z", re.DOTALL)


def search_index_text(model: ApiModel) -> str:
    """The text of `search_index.json`: the same bytes for the same model, whatever the run."""
    search = runtime_search
    return str(search.index_text(search.build_index(documents(model, search))))


Fields = dict[str, str | list[str]]  # index field -> its text, or its texts (a schema's words)


def documents(model: ApiModel, search: ModuleType) -> list[tuple[str, str, Fields]]:
    """The documents of the index (`search.build_index`): per tool its name, toolset and fields."""
    about = {toolset.name: toolset.description for toolset in model.toolsets}
    readers = Readers(
        SchemaWords(names=False, descriptions=True), SchemaWords(names=True, descriptions=False)
    )
    return [
        (tool.name, tool.toolset, tool_fields(tool, search, about.get(tool.toolset, ""), readers))
        for tool in model.tools
    ]


class Readers(NamedTuple):
    """How the words of input and output schemas are read (output: names, not descriptions)."""

    inputs: SchemaWords
    outputs: SchemaWords


def tool_fields(
    tool: Tool, search: ModuleType, toolset_description: str = "", readers: Readers | None = None
) -> Fields:
    """The searchable text of a tool, by index field (search.FIELDS); `toolset_description` is the
    description of the spec's tag the tool's toolset is named after; `readers` are shared by the
    tools of a model (default: new ones)."""
    readers = readers or Readers(
        SchemaWords(names=False, descriptions=True), SchemaWords(names=True, descriptions=False)
    )
    names = [tool.name] + (
        [tool.operation_id] if tool.operation_id and tool.operation_id != tool.name else []
    )
    arguments = [parameter.argument for parameter in tool.parameters]
    if tool.body is not None:
        arguments += [field.argument for field in tool.body.fields]
    return {
        "name": " ".join(names),
        "title": tool.title,
        "tags": " ".join([*tool.tags, tool.toolset]),
        "path": tool.path,
        "verb": "" if _says_what_it_does(search, names) else method_verb(tool.method, tool.path),
        "params": " ".join(arguments),
        "description": _FOOTER.sub("", tool.description),
        "about": toolset_description,
        "schema": readers.inputs.of(tool.input_schema),
        "output": readers.outputs.of(_result_schema(tool)),
    }


def _result_schema(tool: Tool) -> JSONSchema:
    """The output schema, without the `{"result": ...}` object a non-object result is wrapped in."""
    schema = tool.output_schema or {}
    if not tool.output_wrapped:
        return schema
    wrapped: JSONSchema = schema.get("properties", {}).get(WRAP_KEY, {})
    return {key: value for key, value in schema.items() if key != "properties"} | wrapped


def schema_words(
    schema: JSONSchema, *, names: bool = True, descriptions: bool = True, depth: int = SCHEMA_DEPTH
) -> list[str]:
    """The words a JSON schema says about its data: property names (when `names`), descriptions
    (when `descriptions`) and string enum values, down to `depth` levels of properties, each string
    once; local `$ref`s (`#/$defs/...`) followed (not into themselves)."""
    return SchemaWords(names=names, descriptions=descriptions).of(schema, depth)


class SchemaWords:
    """`schema_words` for many schemas: the words of a subschema without `$ref`s are kept by object,
    so a component that schema conversion inlined into many tools (one Python object) is read once."""

    def __init__(self, *, names: bool, descriptions: bool) -> None:
        self.names, self.descriptions = names, descriptions
        # (id(node), depth) -> the node (kept alive: its id is not reused) and its words
        self.known: dict[tuple[int, int], tuple[Any, dict[str, None]]] = {}

    def of(self, schema: JSONSchema, depth: int = SCHEMA_DEPTH) -> list[str]:
        found: dict[str, None] = {}
        self._read(schema, schema, depth, found, frozenset())
        return list(found)

    def _read(
        self, node: Any, document: JSONSchema, depth: int, found: dict[str, None], refs: frozenset[str]
    ) -> bool:
        """Add the words of `node` (and of what it holds at its level: `$ref` target, `items`,
        `additionalProperties`, `anyOf`/`oneOf`/`allOf` branches) to `found`; whether a `$ref` was met
        (then the words depend on `document`, and are not kept)."""
        if not isinstance(node, dict):
            return False
        if (known := self.known.get((id(node), depth))) is not None and known[0] is node:
            found.update(known[1])
            return False
        words: dict[str, None] = {}
        if self.descriptions and isinstance(node.get("description"), str):
            words[node["description"]] = None
        words.update((value, None) for value in node.get("enum") or () if isinstance(value, str))
        ref = node.get("$ref")
        has_ref = isinstance(ref, str)
        if isinstance(ref, str) and ref.startswith("#/") and ref not in refs:
            self._read(_pointer(document, ref), document, depth, words, refs | {ref})
        same_level = [node.get("items"), node.get("additionalProperties")]
        for key in ("anyOf", "oneOf", "allOf"):
            same_level += node.get(key) or []
        properties = node.get("properties")
        below: dict[Any, Any] = properties if isinstance(properties, dict) and depth else {}
        if not below and not has_ref and not any(isinstance(child, dict) for child in same_level):
            found.update(words)  # a leaf: cheaper read again than kept
            return False
        if self.names:
            words.update((str(name), None) for name in below)
        for child in same_level:
            has_ref |= self._read(child, document, depth, words, refs)
        for child in below.values():
            has_ref |= self._read(child, document, depth - 1, words, refs)
        if not has_ref:
            self.known[(id(node), depth)] = (node, words)
        found.update(words)
        return has_ref


def _pointer(document: JSONSchema, ref: str) -> Any:
    node: Any = document
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node


def _says_what_it_does(search: ModuleType, names: list[str]) -> bool:
    """Whether the name holds a word of an action synonym group (create, get, list, update...)."""
    actions = search.action_terms()
    return any(term in actions for term in search.analyze(" ".join(names)))


def method_verb(method: str, path: str) -> str:
    """What a request of `method` on `path` usually does, in the words a user would search with."""
    method = method.upper()
    if method == "GET":
        return "get" if path.rstrip("/").endswith("}") else "list"
    return {"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}.get(method, "")
