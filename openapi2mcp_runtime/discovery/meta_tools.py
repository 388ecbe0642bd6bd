"""The tools that stand for the API's tools: the dynamic mode's `search_tools`, `describe_tools` and
`call_tool`, code mode's `run_code` (code_mode/), and `--dynamic-toolsets`' `list_toolsets` and
`enable_toolsets` (the package README).
The runtime answers `call_tool` and `enable_toolsets` (they change what happens); this module
defines every meta-tool and answers the ones that only read."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cached_property
from typing import Any

import mcp.types as types

from ..results import responses as res
from . import search
from .listing import listed
from .views import View, with_closest

SEARCH, DESCRIBE, CALL, RUN_CODE = "search_tools", "describe_tools", "call_tool", "run_code"
LIST_TOOLSETS, ENABLE_TOOLSETS = "list_toolsets", "enable_toolsets"
DYNAMIC = (SEARCH, DESCRIBE, CALL)
CODE = (SEARCH, DESCRIBE, RUN_CODE)
MAX_PROGRAM_CHARS = 20_000
ON_DEMAND = (LIST_TOOLSETS, ENABLE_TOOLSETS)
OVERVIEW_BYTES = 3_000  # search_tools' description: the toolsets overview stops here (JSON, UTF-8)
DESCRIBED_OVERVIEW_BYTES = 1_200  # ... and gives the toolsets' descriptions only if all fit in this
_READS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
_STRING = {"type": "string"}
_NAMES = {"type": "array", "items": _STRING, "minItems": 1, "maxItems": 20}


def _object(properties: Mapping[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(required)}


_FOUND = _object(
    {
        "name": _STRING,
        "title": _STRING,
        "description": _STRING,
        "toolset": _STRING,
        "annotations": {"type": "object"},
    },
    ["name", "description"],
)
_SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
    SEARCH: (
        _object(
            {
                "query": {
                    **_STRING,
                    "description": "What you want to do, in your own words; empty to list the"
                    " tools (of `toolset`) in the API's order.",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "toolset": {**_STRING, "description": "Search or list only this toolset."},
            },
            ["query"],
        ),
        _object(
            {"tools": {"type": "array", "items": _FOUND}, "total": {"type": "integer"}},
            ["tools", "total"],
        ),
    ),
    DESCRIBE: (
        _object({"names": _NAMES}, ["names"]),
        _object(
            {
                "tools": {"type": "array", "items": {"type": "object"}},
                "fitted": {"type": "array", "items": _STRING},
                "not_described": {"type": "array", "items": _STRING},
                "note": _STRING,
            },
            ["tools"],
        ),
    ),
    CALL: (
        _object(
            {
                "name": {**_STRING, "description": "The tool's name, from search_tools."},
                "arguments": {
                    "type": "object",
                    "description": "As describe_tools' inputSchema says.",
                },
            },
            ["name", "arguments"],
        ),
        None,  # the result is the called tool's own
    ),
    RUN_CODE: (
        _object(
            {
                "code": {
                    **_STRING,
                    "maxLength": MAX_PROGRAM_CHARS,
                    "description": "The Python program.",
                }
            },
            ["code"],
        ),
        _object(
            {"result": {}, "printed": _STRING, "calls": {"type": "integer"}},
            ["result", "printed", "calls"],
        ),
    ),
    LIST_TOOLSETS: (
        _object({}, []),
        _object({"toolsets": {"type": "array", "items": {"type": "object"}}}, ["toolsets"]),
    ),
    ENABLE_TOOLSETS: (
        _object({"toolsets": {**_NAMES, "maxItems": 100}}, ["toolsets"]),
        _object(
            {"enabled": {"type": "array", "items": _STRING}, "added": {"type": "integer"}},
            ["enabled", "added"],
        ),
    ),
}
DESCRIPTIONS = {
    DESCRIBE: "The full definitions (input and output schemas) of up to 20 tools named by search_tools.",
    CALL: "Call one of this API's tools by name, with arguments as describe_tools gives its inputSchema.",
    LIST_TOOLSETS: "This server's toolsets: name, description, number of tools, and whether enabled.",
    ENABLE_TOOLSETS: "Enable toolsets by name: their tools are added to your tool list.",
}


def definition(
    name: str,
    description: str,
    read_only: bool = True,
    answers_text: bool = False,
) -> dict[str, Any]:
    """A meta-tool as tools/list shows it; with `answers_text`, without an outputSchema (code
    mode's search_tools and describe_tools answer text for the model to read)."""
    input_schema, output_schema = _SCHEMAS[name]
    output_schema = None if answers_text else output_schema
    hints = _READS if read_only else {**_READS, "readOnlyHint": False, "destructiveHint": True}
    if name in (CALL, RUN_CODE):
        hints = {**hints, "idempotentHint": read_only, "openWorldHint": True}
    title = name.replace("_", " ").capitalize()
    wire: dict[str, Any] = {"name": name, "title": title, "description": description}
    wire["inputSchema"] = input_schema
    if output_schema is not None:
        wire["outputSchema"] = output_schema
    return wire | {"annotations": {"title": title, **hints}}


def wire_bytes(text: str) -> int:
    """The bytes `text` takes inside a JSON string as sent (UTF-8, escapes counted): a toolset
    described in Japanese takes three bytes a character, a quote two."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def one_line(text: str, limit: int = 200) -> str:
    """The first line of `text`, cut at a word before `limit` characters."""
    line = (text or "").strip().split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[:limit].rsplit(" ", 1)[0].rstrip(",.;:") + "…"


class Details:
    """`tool_details.json`: per tool the schemas size fitting cut, whole; objects they share are
    written once in `shared` and referred to as `{"$shared": N}` (docs/tool-data.md)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.tools: Mapping[str, Any] = data.get("tools") or {}
        self.sharing = "shared" in data  # a file written without the table has no markers
        self.shared: Sequence[Any] = data.get("shared") or ()
        self.expanded: dict[int, Any] = {}

    def whole(self, name: str, exact: bool = False) -> Mapping[str, Any]:
        """The tool's whole schemas by key (`inputSchema`, `outputSchema`); {} when none was cut.
        `exact`: the inputSchema closed again where its `closed` pointers say (listing.py)."""
        found = self.tools.get(name) or {}
        schemas = dict(self._expand(found) if self.sharing else found)
        return listed(schemas, schemas.pop("closed", ()), exact)

    def _expand(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._expand(item) for item in node]
        if not isinstance(node, dict):
            return node
        if len(node) == 1 and type(node.get("$shared")) is int:
            number = node["$shared"]
            if number not in self.expanded:
                self.expanded[number] = self._expand(self.shared[number])
            return self.expanded[number]
        return {key: self._expand(value) for key, value in node.items()}


class Catalog:
    """What the meta-tools read: the API's tools (as listed), their toolsets, and two files loaded
    on first use: `tool_details.json` (the schemas size fitting cut) and `search_index.json`."""

    def __init__(
        self,
        tools: Mapping[str, dict[str, Any]],
        toolset_of: Mapping[str, str | None],
        toolsets: Mapping[str, Mapping[str, Any]],
        folder: str | os.PathLike[str],
        extra_tools: Sequence[Mapping[str, Any]] = (),
        exact: bool = False,  # PREFIX_LISTED_SCHEMAS=exact (listing.py)
    ) -> None:
        self.tools, self.toolset_of, self.toolsets = tools, toolset_of, toolsets
        self.folder, self.extra_tools, self.exact = folder, extra_tools, exact

    @cached_property
    def details(self) -> Details:
        path = os.path.join(self.folder, "tool_details.json")
        try:
            with open(path, "rb") as file:
                return Details(json.load(file))
        except FileNotFoundError:  # an older package: the listed schemas are the whole ones
            return Details({})

    @cached_property
    def index(self) -> search.SearchIndex:
        path = os.path.join(self.folder, "search_index.json")
        return search.SearchIndex.load(path, extra_tools=self.extra_tools)

    def toolsets_in(self, names: Collection[str]) -> dict[str, int]:
        """The toolsets of `names`, in the data's order, with how many of `names` each has."""
        counts: dict[str, int] = {name: 0 for name in self.toolsets}
        for name in names:
            toolset = self.toolset_of.get(name)
            if toolset is not None:
                counts[toolset] = counts.get(toolset, 0) + 1
        return {name: count for name, count in counts.items() if count}

    def dynamic_tools(self, view: View) -> list[dict[str, Any]]:
        return [
            definition(SEARCH, self.search_description(view)),
            definition(DESCRIBE, DESCRIPTIONS[DESCRIBE]),
            definition(CALL, DESCRIPTIONS[CALL], read_only=view.read_only),
        ]

    def search_description(
        self,
        view: View,
        then: str = "then describe_tools for their inputs and call_tool to run one",
    ) -> str:
        """search_tools' description: what to do with what it finds (`then`), and the toolsets."""
        counts = self.toolsets_in(view.names)
        head = f"Find this API's tools ({len(view.names)}) by what you want to do; {then}." + (
            " Read-only: only tools that change nothing." if view.read_only else ""
        )
        if not counts:
            return head
        shown, rest = self._overview(counts, OVERVIEW_BYTES - wire_bytes(head))
        more = f"; and {rest} smaller toolsets" if rest else ""
        return f"{head} Toolsets (pass one as `toolset` to search or list only it): {shown}{more}."

    def _overview(self, counts: Mapping[str, int], budget: int) -> tuple[str, int]:
        """The toolsets, largest first, as fully as `budget` bytes allow: each with its count and the
        start of its description while they all fit in DESCRIBED_OVERVIEW_BYTES; else each with its
        count (a whole map of the API beats half of it described); else the largest that fit. The
        text, and how many toolsets it leaves out."""
        ordered = sorted(counts.items(), key=lambda item: -item[1])
        described = [f"{name} ({count}{self._blurb(name)})" for name, count in ordered]
        if wire_bytes("; ".join(described)) <= min(budget, DESCRIBED_OVERVIEW_BYTES):
            return "; ".join(described), 0
        parts: list[str] = []
        size = -len("; ")
        for name, count in ordered:
            size += len("; ") + wire_bytes(part := f"{name} ({count})")
            if size > budget:
                break
            parts.append(part)
        return "; ".join(parts), len(ordered) - len(parts)

    def _blurb(self, toolset: str) -> str:
        words = one_line(str(self.toolsets[toolset].get("description") or ""), 60)
        return f": {words}" if words else ""

    def search(self, arguments: Mapping[str, Any], view: View) -> types.CallToolResult:
        toolset = arguments.get("toolset")
        if toolset is not None and toolset not in (sets := self.toolsets_in(view.names)):
            return res.error_result(
                f"Unknown toolset {with_closest(str(toolset), sets, quoted=True)}; toolsets:"
                f" {', '.join(sets)}"
            )
        limit = int(arguments.get("limit", 10))
        names, total = self.index.search(
            str(arguments["query"]), limit=limit, names=view.names, toolset=toolset
        )
        found = [self._found(name) for name in names]
        return structured({"tools": found, "total": total})

    def _found(self, name: str) -> dict[str, Any]:
        """A tool found: its name, title (unless the one-line description or the name says it
        already: the summary usually is both), description, toolset and hints (without their
        title, the title again)."""
        tool = self.tools[name]
        annotations = tool.get("annotations") or {}
        title = tool.get("title") or annotations.get("title") or name
        hints = {key: value for key, value in annotations.items() if key != "title"}
        description = one_line(str(tool.get("description") or ""))
        entry = {"name": name, **({"title": title} if title not in (description, name) else {})}
        entry["description"] = description
        if (toolset := self.toolset_of.get(name)) is not None:
            entry["toolset"] = toolset
        return entry | {"annotations": hints}

    def describe(
        self, arguments: Mapping[str, Any], view: View, limit: int, setting: str
    ) -> types.CallToolResult:
        """The tools named, whole, as many in the order asked as `limit` characters of text hold
        (the first whatever its size); the others in `not_described`. A tool whose whole schemas
        alone pass `limit` comes as tools/list gives it, named in `fitted`. A note says why."""
        names = list(dict.fromkeys(arguments["names"]))
        if unknown := [name for name in names if name not in view.names]:
            return res.error_result(unknown_tools(unknown, view.names))
        forms = [self._form(name, limit) for name in names]
        tools, sizes = [form[0] for form in forms], [form[1] for form in forms]
        fitted = [name for name, form in zip(names, forms, strict=True) if form[2]]
        limited = f"{setting} ({limit:,} characters)"

        def answer(kept: int) -> dict[str, Any]:
            shown = [name for name in fitted if name in names[:kept]]
            return _answer(tools[:kept], shown, names[kept:], limited)

        kept = most_that_fit(
            len(tools), lambda kept: _text_len(answer(kept), sizes[:kept]) <= limit
        )
        return structured(answer(kept))

    def _form(self, name: str, limit: int) -> tuple[dict[str, Any], int, bool]:
        """The tool whole, or as listed (True) when the listing cut its schemas and its whole
        answer alone would pass `limit`; and its characters as JSON."""
        whole = {**self.tools[name], **self.details.whole(name, self.exact)}
        size = len(json.dumps(whole, ensure_ascii=False))
        if name not in self.details.tools or _text_len({"tools": []}, [size]) <= limit:
            return whole, size, False
        return dict(self.tools[name]), len(json.dumps(self.tools[name], ensure_ascii=False)), True

    def list_toolsets(self, view: View, enabled: Collection[str]) -> types.CallToolResult:
        toolsets = [
            {
                "name": name,
                "description": one_line(str(self.toolsets[name].get("description") or "")),
                "tools": count,
                "enabled": name in enabled,
            }
            for name, count in self.toolsets_in(view.names).items()
        ]
        return structured({"toolsets": toolsets})


def most_that_fit(count: int, fits: Callable[[int], bool]) -> int:
    """The most of `count` parts, in order, whose answer `fits`; at least one (describe_tools)."""
    return next((kept for kept in range(count, 1, -1) if fits(kept)), 1)


def _answer(
    tools: list[dict[str, Any]], fitted: list[str], left: list[str], limit: str
) -> dict[str, Any]:
    """describe_tools' answer: `tools`, the names of those `fitted` and of those `left` for another
    call, and a note on both (`limit`: the setting and its value)."""
    notes = {
        "fitted": f"Fitted as tools/list gives them, their whole schemas being over {limit}.",
        "not_described": f"Not described, to stay within {limit}: ask describe_tools for them"
        " in another call.",
    }
    named = {key: names for key, names in (("fitted", fitted), ("not_described", left)) if names}
    said = {"note": " ".join(notes[key] for key in named)} if named else {}
    return {"tools": tools, **named, **said}


def _text_len(answer: Mapping[str, Any], sizes: Sequence[int]) -> int:
    """The characters of `answer` as JSON text (`structured`), its tools' own given by `sizes`."""
    separators = 2 * (len(sizes) - 1)  # ", " between the tools
    return len(json.dumps({**answer, "tools": []}, ensure_ascii=False)) + sum(sizes) + separators


def unknown_tools(names: Sequence[str], offered: Collection[str]) -> str:
    """Names that are not offered, each with the closest offered names."""
    parts = [with_closest(name, offered, quoted=True) for name in names[:20]]
    return f"Unknown tool(s): {'; '.join(parts)}. Find tools with search_tools."


def structured(value: dict[str, Any]) -> types.CallToolResult:
    """A success whose text is its structured content as JSON."""
    text = json.dumps(value, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=value)


def not_offered(name: str, tool: Mapping[str, Any] | None, view: View) -> str:
    """Why call_tool cannot run `name` (`tool`: its definition, None when there is no such tool)."""
    if tool is None:
        return unknown_tools([name], view.names)
    if view.read_only and (tool.get("annotations") or {}).get("readOnlyHint") is not True:
        return f"Tool '{name}' may change data and this server is read-only: nothing was sent to the API."
    return f"Tool '{name}' is not offered here (toolsets or tools narrow this server): nothing was sent."
