"""YAML text to JSON-compatible data, read the YAML 1.2 way, fast.

`load_yaml(text)` is `to_json(yaml.load(text, Loader=StringDateLoader))`. PyYAML's loader spends
most of its time in Python, building a node for every value and resolving it; here the data is
built straight from libyaml's parse events instead, with the same resolvers and constructors, when
the text uses only untagged mappings, sequences and scalars (anchors and aliases included), as
specs do. Anything else (a tag other than `!!str`, a merge key `<<`, several documents, a parse
error) is left to PyYAML's own loader, so the result and every error stay exactly PyYAML's.

Both ways keep to the limits of `limits.py`: the events are counted as the data is built (an alias
counts the size of what it repeats, checked before it is copied), and PyYAML's data is measured
before `to_json` copies what its aliases share. A limit crossed raises `LimitError`.
"""

from __future__ import annotations

import datetime
import functools
import re
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import ScalarNode

from openapi2mcp.load.limits import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_NODES,
    MAX_SCALAR_CHARS,
    Size,
    check_data,
    too_deep,
    too_many_alias_nodes,
    too_many_chars,
    too_many_nodes,
)

JSON = Any


class StringDateLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader read the YAML 1.2 way: dates stay strings, `no`/`off` are not booleans."""


# YAML 1.1 only: dates, yes/no/on/off booleans, and `=` as a "value" key (`example: =` is a string).
_YAML_11_ONLY = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:value"}
StringDateLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _YAML_11_ONLY]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# YAML 1.2 (what OpenAPI recommends): only true/false are booleans; `on`, `no`, `off` stay strings.
StringDateLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)

_EventParser: Any
try:
    from yaml._yaml import CParser as _EventParser
except ImportError:  # PyYAML built without libyaml: its pure-Python loader reads everything
    _EventParser = None

_STR = "tag:yaml.org,2002:str"
_BUILT = {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float")}  # and str
_UNTAGGED = (None, "!")
_NODES = (ScalarEvent, MappingStartEvent, SequenceStartEvent)
_OPEN = object()  # an anchored mapping or sequence whose end is not read yet
_ELSEWHERE = object()  # a plain scalar that only PyYAML's loader reads the same way (`<<`, `0b_`)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()  # its scalar constructors keep no state


class _Unsupported(Exception):
    """The text needs PyYAML's whole loader."""


def load_yaml(text: str) -> JSON:
    """`to_json(yaml.load(text, Loader=StringDateLoader))`: the same data or the same exception;
    `LimitError` for a document past a limit of `limits.py`."""
    if _EventParser is not None:
        try:
            return _EventBuilder(_EventParser(text)).document()
        except (_Unsupported, yaml.YAMLError):
            pass  # PyYAML's loader reads it again: the same data, or the same error
    data = yaml.load(text, Loader=StringDateLoader)
    check_data(data)  # before `to_json` copies what aliases share
    return to_json(data)


class _EventBuilder:
    """One document's data from a libyaml parser's events, counted against the limits."""

    def __init__(self, parser: Any) -> None:
        self._next = parser.get_event
        self._anchors: dict[str, Any] = {}
        self._sizes: dict[str, Size] = {}  # an anchored node's nodes, characters and levels
        self._nodes = self._chars = self._alias_nodes = 0
        self._reach = 0  # the deepest level of mappings and sequences built so far

    def document(self) -> JSON:
        if type(self._next()) is not StreamStartEvent or type(self._next()) is not DocumentStartEvent:
            raise _Unsupported  # no document at all
        data = self._value(self._next(), 0)
        if type(self._next()) is not DocumentEndEvent or type(self._next()) is not StreamEndEvent:
            raise _Unsupported  # more than one document
        return data

    def _value(self, event: Any, depth: int) -> JSON:
        kind = type(event)
        if kind is AliasEvent:
            target = self._anchors.get(event.anchor, _OPEN)
            if target is _OPEN:
                raise _Unsupported  # undefined, or a recursive alias
            self._repeat(self._sizes[event.anchor], depth, event)
            return to_json(target)  # each occurrence its own copy, as `to_json` made them
        if kind not in _NODES:
            raise _Unsupported
        if event.anchor in self._anchors:
            raise _Unsupported  # a duplicate anchor is PyYAML's error
        if event.tag not in _UNTAGGED and not (kind is ScalarEvent and event.tag == _STR):
            raise _Unsupported
        anchor = event.anchor
        if anchor is not None:
            self._anchors[anchor] = _OPEN
            start, reach = (self._nodes, self._chars), self._reach
            self._reach = depth
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise too_many_nodes(event.start_mark.line + 1)
        if kind is ScalarEvent:
            value = self._scalar(event)
        else:
            if depth >= MAX_DEPTH:
                raise too_deep(depth + 1, event.start_mark.line + 1)
            self._reach = max(self._reach, depth + 1)
            value = self._mapping(depth + 1) if kind is MappingStartEvent else self._sequence(depth + 1)
        if anchor is not None:
            self._anchors[anchor] = value
            self._sizes[anchor] = (self._nodes - start[0], self._chars - start[1], self._reach - depth)
            self._reach = max(self._reach, reach)
        return value

    def _repeat(self, size: Size, depth: int, event: Any) -> None:
        """Count what an alias repeats, before it is copied."""
        nodes, chars, levels = size
        line = event.start_mark.line + 1
        if depth + levels > MAX_DEPTH:
            raise too_deep(depth + levels, line)
        self._alias_nodes += nodes
        if self._alias_nodes > MAX_ALIAS_NODES:
            raise too_many_alias_nodes(line)
        self._nodes += nodes
        self._chars += chars
        self._reach = max(self._reach, depth + levels)
        if self._nodes > MAX_NODES:
            raise too_many_nodes(line)
        if self._chars > MAX_SCALAR_CHARS:
            raise too_many_chars(line)

    def _mapping(self, depth: int) -> dict[str, JSON]:
        """Keys as PyYAML's dict has them (`1` and `1.0` are one key), then made strings."""
        mapping: dict[Any, JSON] = {}
        keys_are_strings = True
        while type(event := self._next()) is not MappingEndEvent:
            key = self._value(event, depth)
            if isinstance(key, (dict, list)):
                raise _Unsupported  # unhashable: PyYAML's error
            keys_are_strings = keys_are_strings and type(key) is str
            mapping[key] = self._value(self._next(), depth)
        return mapping if keys_are_strings else {json_key(key): value for key, value in mapping.items()}

    def _sequence(self, depth: int) -> list[JSON]:
        sequence: list[JSON] = []
        while type(event := self._next()) is not SequenceEndEvent:
            sequence.append(self._value(event, depth))
        return sequence

    def _scalar(self, event: Any) -> JSON:
        self._chars += len(event.value)
        if self._chars > MAX_SCALAR_CHARS:
            raise too_many_chars(event.start_mark.line + 1)
        if not event.implicit[0]:  # quoted, a block scalar, or tagged `!` or `!!str`: a string
            return event.value
        value = _plain(event.value)
        if value is _ELSEWHERE:
            raise _Unsupported
        return value


@functools.lru_cache(maxsize=16_384)  # keys and small values repeat: `type`, `string`, `200`, `true`
def _plain(text: str) -> JSON:
    """A plain scalar's value: `Resolver.resolve` then `SafeConstructor`, as PyYAML does."""
    resolvers = StringDateLoader.yaml_implicit_resolvers
    candidates = resolvers.get(text[0] if text else "", []) + resolvers.get(None, [])
    tag = next((tag for tag, regexp in candidates if regexp.match(text)), _STR)
    if tag == _STR:
        return text
    if tag not in _BUILT:
        return _ELSEWHERE  # the merge key `<<`
    try:
        return StringDateLoader.yaml_constructors[tag](_CONSTRUCTOR, ScalarNode(tag, text))
    except ValueError:  # `0b_`: PyYAML's loader raises it, but only after reading the whole text
        return _ELSEWHERE


def to_json(node: JSON) -> JSON:
    """Make YAML data JSON-compatible: string keys, ISO dates, no sets or bytes."""
    if isinstance(node, dict):
        return {json_key(key): to_json(value) for key, value in node.items()}
    if isinstance(node, list):
        return [to_json(item) for item in node]
    if isinstance(node, datetime.date | datetime.datetime):
        return node.isoformat()
    if isinstance(node, bytes):
        return node.decode("latin-1")
    if isinstance(node, set | frozenset | tuple):
        return [to_json(item) for item in node]
    return node


def json_key(key: object) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, datetime.date):
        return key.isoformat()
    return key if isinstance(key, str) else str(key)
