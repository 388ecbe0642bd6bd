"""The `api` module's stub (`api.pyi`) from the tools' JSON Schemas: one keyword-only function per
tool, a TypedDict per object with properties (stub_types.py makes the types), the tool's description
as the docstring. The sandbox's type checker (ty) reads it and refuses a program that calls a tool
wrongly before anything is sent.

Decisions:
- Results: the outputSchema is tolerant (the generator's converter: no `required`, `null` allowed
  everywhere, `integer` widened to `number`). So a result's TypedDicts are `total=False` (ty reads
  `p["key"]` of one without complaint; a missing key raises KeyError when run, `.get` is the careful
  read), None is left out of its types (else ty refuses `p["name"].upper()` and `p["tags"][0]`), and
  its numbers are `int` (ty takes an int wherever a float is expected; `float` would refuse
  `range(r["pages"])` or an id passed on to the next call). The module's docstring says so.
- Names: the tool's name as an identifier (`_` for other characters; `t` before a leading digit or
  underscore, as the sandbox hides `_` names; `_` after a keyword or a name the stub needs), then
  `_2`, `_3`... when taken (by another function, or by a TypedDict: the function gives way); an
  argument's likewise (a property that already is an identifier keeps its name). A `$defs` object
  is a TypedDict named after its definition, any other after the function and its path
  (`CreatePetOwner`, `...Item` for array items, `...Value` for map values, `...Result` for the
  return). Identical definitions share a name (compared as graphs, so recursion is fine), different
  ones get `_2`, `_3`... A TypedDict the same as one written before but for its wanted name (an
  incident listed and the incident an update returns) is written as an alias of it in
  describe_tools' answer (`UpdateIncidentResultIncident = ListIncidentsResultIncidentsItem`): each
  keeps a name that says where it is, and the reader sees it is the same. The module the type
  checker reads writes each in full, so that its messages name a function's own types. A
  TypedDict whose keys would not work as class attributes (not identifiers, keywords, or a name
  its types use: `str: int` would retype `name: str`) is written functionally.
- Size: TypedDicts nest at most 4 levels (deeper objects are `dict[str, Any]`), and a function's
  snippet (its TypedDicts and its def with the docstring, as describe_tools gives it) stays within
  `STUB_CHARS`: past it, a tool description of over `DESCRIPTION_CHARS` is cut to that first
  (types serve the checker, and such a description is mostly a reference table: DigitalOcean's
  droplet actions), then they nest one level less, down to none, then Literals of over
  `FEW_LITERALS` values become their type, then the arguments' descriptions are cut to 60
  characters, then left out. Measured on the corpus' nine largest specs (stripe,
  kubernetes, cloudflare, openai...; 5,567 tools, whole schemas): unguarded, snippets run up to
  186,000 characters (a kubernetes CRD), p99 20,000; at 6,000 characters (about 1,500 tokens),
  91% keep all four levels, p50 is 1,700 and p90 4,800 (4,000 would keep 80%, 8,000 95%).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .stub_text import (
    Argument,
    class_text,
    def_text,
    identifier,
    shortened,
    unique,
    unique_names,
)
from .stub_types import (
    HOLE,
    Limits,
    Made,
    SchemaTypes,
    Shape,
    TooLarge,
    listed,
    mapped,
    pascal,
)

STUB_CHARS = 6_000
DESCRIPTION_CHARS = 1_000  # a longer tool description is cut to this before the types shrink
FEW_LITERALS = 12
ARG_CHARS = (150, 60, 0)  # an argument's description in `Args:`, in turn (0: left out)
STAGES = (
    *(Limits(depth, None, ARG_CHARS[0]) for depth in (4, 3, 2, 1, 0)),
    *(Limits(0, FEW_LITERALS, chars) for chars in ARG_CHARS),
)
HEADER = '''"""This API's functions. Call each with keyword arguments; it returns the API's JSON answer.
An API error raises OSError ("The API answered HTTP 404 ..."); api.last_error() then gives it.
Results are typed as documented, but a key may be missing (read it with .get() when unsure) and a
value None; their numbers are typed int, though the API may send a float. Where the API sends what
a stub does not say, annotate the value Any (from typing import Any) or add `# type: ignore`."""

from typing import {imports}

class ApiError(TypedDict):
    tool: str
    status: int | None
    message: str
    body: Any

def last_error() -> ApiError | None:
    """The last API error this program caught (None before any)."""
'''
TYPING = ("Any", "Literal", "NotRequired", "TypedDict")
RESERVED = frozenset(
    {*TYPING, "ApiError", "last_error", "str", "int", "float", "bool", "list", "dict"}
)


@dataclass(frozen=True)
class Function:
    name: str  # the Python identifier the program calls: api.<name>(...)
    tool: str  # the MCP tool it calls
    keywords: Mapping[str, str]  # every keyword argument -> the tool's argument name


@dataclass(frozen=True)
class Module:
    text: str  # the whole api.pyi
    functions: Mapping[str, Function]  # by Python name


def function_names(tool_names: Sequence[str]) -> dict[str, str]:
    """Each tool's Python function name over the whole API: given to module_stub and described,
    every part of it (the tools a program names, those described) keeps the same names."""
    names = unique_names(list(tool_names), set(RESERVED), True)
    return dict(zip(tool_names, names, strict=True))


def module_stub(
    tools: Sequence[Mapping[str, Any]], names: Mapping[str, str] | None = None
) -> Module:
    """The `api` module's stub for these tools, in their order (`names`: their function names,
    from function_names; else made here, a function giving way to a TypedDict of its name)."""
    built = _Built(tools, names)
    body = "".join(f"\n{block}\n" for blocks in built.parts() for block in blocks)
    imports = [name for name in TYPING if name in ("Any", "TypedDict") or f"{name}[" in body]
    functions = {
        draft.name: Function(draft.name, draft.tool, draft.keywords) for draft in built.drafts
    }
    return Module(HEADER.format(imports=", ".join(imports)) + body, functions)


def described(
    tools: Sequence[Mapping[str, Any]],
    names: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> list[str]:
    """describe_tools' answer, a part a tool: the TypedDicts and functions as module_stub writes
    them (without its header), but a TypedDict the same as one written before is an alias of it;
    each function after its note as a comment (none for '' or past `notes`). A part holds the
    TypedDicts first used by its function: the parts up to any one read on their own."""
    return ["\n\n".join(blocks) for blocks in _Built(tools, names).parts(notes, aliases=True)]


@dataclass(frozen=True)
class _Draft:
    """One tool's function before its TypedDicts are named across the module."""

    name: str
    tool: str
    description: str
    keywords: dict[str, str]
    arguments: list[Argument]
    returns: str
    shapes: list[Shape]
    limits: Limits

    def reachable(self) -> list[int]:
        """The TypedDicts the function uses, as its text first refers to each."""
        order: dict[int, None] = {}

        def visit(text: str) -> None:
            for match in HOLE.finditer(text):
                index = int(match.group(1))
                if index not in order:
                    order[index] = None
                    for _, field_type, _ in self.shapes[index].fields:
                        visit(field_type)

        for text in [*(argument.type for argument in self.arguments), self.returns]:
            visit(text)
        return list(order)


class _Built:
    """The tools' functions drafted (each within the size guard) and their TypedDicts named."""

    def __init__(
        self, tools: Sequence[Mapping[str, Any]], given: Mapping[str, str] | None = None
    ) -> None:
        tool_names = [str(tool.get("name", "")) for tool in tools]
        if given is not None:  # the functions keep their names: the TypedDicts give way
            self.drafts = [
                _fitted(tool, given[name]) for tool, name in zip(tools, tool_names, strict=True)
            ]
            self.names = _class_names(self.drafts, {*RESERVED, *given.values()})
        else:
            self._name_drafts(tools, tool_names)

    def _name_drafts(self, tools: Sequence[Mapping[str, Any]], tool_names: list[str]) -> None:
        """Each tool's function and TypedDicts named here: a function named like a TypedDict gives
        way."""
        wanted = unique_names(tool_names, set(RESERVED), True)
        drafts = [_fitted(tool, name) for tool, name in zip(tools, wanted, strict=True)]
        self.names = _class_names(drafts, set(RESERVED))
        classes = set(self.names.values())
        taken = classes | set(wanted)
        self.drafts = [
            replace(draft, name=unique(draft.name, taken)) if draft.name in classes else draft
            for draft in drafts
        ]

    def parts(self, notes: Sequence[str] = (), aliases: bool = False) -> list[list[str]]:
        """The module's body, a part a function: the TypedDicts it uses not written yet (with
        `aliases`, one the same as a TypedDict written but for its name as an alias of it), then
        the function after its note."""
        twins = _equivalent(self.drafts, _reachable(self.drafts), False) if aliases else None
        parts, written, first = [], set[str](), dict[int, str]()
        for index, draft in enumerate(self.drafts):
            blocks = []
            for shape in draft.reachable():
                if (name := self.names[index, shape]) in written:
                    continue
                written.add(name)
                canonical = name if twins is None else first.setdefault(twins[index, shape], name)
                if canonical != name:
                    blocks.append(f"{name} = {canonical}")
                else:
                    fields = draft.shapes[shape].fields
                    blocks.append(class_text(name, fields, self.name_of(index)))
            note = notes[index] if index < len(notes) else ""
            blocks.append(f"# {note}\n{self.function(index)}" if note else self.function(index))
            parts.append(blocks)
        return parts

    def function(self, index: int) -> str:
        return _def_text(self.drafts[index], self.name_of(index))

    def name_of(self, index: int) -> Callable[[int], str]:
        return lambda shape: self.names[index, shape]


def _fitted(tool: Mapping[str, Any], name: str) -> _Draft:
    """The tool's function at the first stage whose snippet fits in STUB_CHARS (else the last),
    its description cut to DESCRIPTION_CHARS first when it is longer and the whole does not fit."""
    told = tool.get("description")
    if isinstance(told, str) and len(told) > DESCRIPTION_CHARS:
        if (draft := _fits(tool, name, STAGES[0])) is not None:
            return draft
        tool = {**tool, "description": shortened(told, DESCRIPTION_CHARS)}
    for limits in STAGES[:-1]:
        if (draft := _fits(tool, name, limits)) is not None:
            return draft
    return _draft(tool, name, STAGES[-1], Made())


def _fits(tool: Mapping[str, Any], name: str, limits: Limits) -> _Draft | None:
    """The function at `limits`, or None when its snippet is over STUB_CHARS."""
    told = tool.get("description")
    room = STUB_CHARS - len(told) if isinstance(told, str) else STUB_CHARS
    try:
        draft = _draft(tool, name, limits, Made(limit=room))
    except TooLarge:
        return None
    return draft if _size(draft) <= STUB_CHARS else None


def _size(draft: _Draft) -> int:
    """The snippet's characters, with room for a `_NN` suffix on each TypedDict's name."""
    room: Callable[[int], str] = lambda index: f"{draft.shapes[index].base}_99"  # noqa: E731
    classes = [
        class_text(room(index), draft.shapes[index].fields, room) for index in draft.reachable()
    ]
    return sum(len(text) + 2 for text in classes) + len(_def_text(draft, room))


def _draft(tool: Mapping[str, Any], name: str, limits: Limits, made: Made) -> _Draft:
    schema, output, description = (
        tool.get("inputSchema"),
        tool.get("outputSchema"),
        tool.get("description"),
    )
    inputs = SchemaTypes(schema, limits, False, made)
    root = inputs.merged(schema, ()) if isinstance(schema, dict) else {}
    properties, required = mapped(root.get("properties")), listed(root.get("required"))
    keywords = dict(zip(unique_names(list(properties), set()), properties, strict=True))
    base, arguments = pascal(name), []
    for keyword_name, key in keywords.items():
        told = mapped(properties[key]).get("description")
        text = inputs.text(properties[key], base + pascal(key), 0)
        arguments.append(
            Argument(keyword_name, text, key in required, told if isinstance(told, str) else "")
        )
    returns = "Any"
    if isinstance(output, dict):
        wrapped = mapped(output.get("properties")).get("result") if tool.get("wrapped") else output
        returns = SchemaTypes(output, limits, True, made).text(wrapped, base + "Result", 0)
    text = description if isinstance(description, str) else ""
    return _Draft(
        name, str(tool.get("name", "")), text, keywords, arguments, returns, made.shapes, limits
    )


def _reachable(drafts: Sequence[_Draft]) -> list[tuple[int, int]]:
    """Every TypedDict the functions use, as (function, index)."""
    return [
        (function, index) for function, draft in enumerate(drafts) for index in draft.reachable()
    ]


def _class_names(drafts: Sequence[_Draft], taken: set[str]) -> dict[tuple[int, int], str]:
    """A name for each TypedDict used, by (function, index): equivalent ones with the same wanted
    name share it."""
    keys = _reachable(drafts)
    classes = _equivalent(drafts, keys, by_name=True)
    named: dict[int, str] = {}
    for function, index in keys:
        number = classes[function, index]
        if number not in named:
            wanted = identifier(drafts[function].shapes[index].base, RESERVED, True)
            named[number] = unique(wanted, taken)
    return {key: named[classes[key]] for key in keys}


def _equivalent(
    drafts: Sequence[_Draft], keys: Sequence[tuple[int, int]], by_name: bool
) -> dict[tuple[int, int], int]:
    """The TypedDicts `keys` numbered so that equivalent ones (same keys, in any order, same types;
    with `by_name`, the same wanted name too) share a number: a partition of the graph, refined
    until stable."""
    classes, count = dict.fromkeys(keys, 0), 1

    def signature(key: tuple[int, int]) -> tuple[Any, ...]:
        shape = drafts[key[0]].shapes[key[1]]
        refer = lambda match: f"\x00{classes[key[0], int(match.group(1))]}\x00"  # noqa: E731
        fields = sorted((k, HOLE.sub(refer, text), required) for k, text, required in shape.fields)
        return classes[key], shape.base if by_name else "", tuple(fields)

    while True:
        numbers: dict[tuple[Any, ...], int] = {}
        refined = {key: numbers.setdefault(signature(key), len(numbers)) for key in keys}
        if len(numbers) == count:
            return refined
        classes, count = refined, len(numbers)


def _def_text(draft: _Draft, name_of: Callable[[int], str]) -> str:
    arguments, returns, limits = draft.arguments, draft.returns, draft.limits
    return def_text(draft.name, arguments, returns, draft.description, limits.arg_chars, name_of)
