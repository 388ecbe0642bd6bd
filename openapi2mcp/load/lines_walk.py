"""Where JSON pointers land in a spec's text: line and column, read only when diagnostics are shown.

One pass over the text follows every requested pointer at once (a trie of their tokens); what no
pointer enters is skipped (JSON: by the C decoder; YAML: by libyaml's events, counted by depth) and
the pass stops as soon as every pointer's node is found. A pointer whose node is not in this text
(it goes on through a `$ref` to another document, or into something the loader made) reaches its
deepest node here, with the tokens still to follow and that node's `$ref`, if any, for `lines.py`.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Skips a value: objects are not built (half the time of `json.loads`); a string comes back whole.
_SKIPPER = json.JSONDecoder(object_pairs_hook=len)  # a C function: no Python call per object


@dataclass(frozen=True)
class Reached:
    """The deepest node of a pointer found in one text: 1-based line and column (None: the whole
    document), the tokens not followed below it, and its `$ref` string when it has one."""

    line: int | None
    column: int | None
    rest: tuple[str, ...] = ()
    ref: str | None = None


@dataclass
class _Trie:
    children: dict[str, _Trie] = field(default_factory=dict)
    ends: int = 0  # requested pointers that end here
    position: tuple[int, int] | None = None  # (line, column) once the node is seen
    ref: str | None = None


class _Done(Exception):
    """Every requested node is found: the rest of the text need not be read."""


def walk(text: str, requests: Sequence[tuple[str, ...]]) -> list[Reached]:
    """For each request (a pointer's unescaped tokens), the deepest node of it found in `text`
    (JSON, else YAML); a text that cannot be read this way reaches only the document itself."""
    root = _Trie()
    for tokens in requests:
        node = root
        for token in tokens:
            node = node.children.setdefault(token, _Trie())
        node.ends += 1
    root.position = (0, 0)
    pending = sum(_ends(root)) - root.ends
    if pending:
        try:
            if text.lstrip()[:1] in ("{", "["):
                _JsonWalk(text, pending).value(_skip_space(text, 0), root)
            else:
                raise ValueError("not JSON")
        except _Done:
            pass
        except (ValueError, RecursionError):
            _walk_yaml(text, root, pending)
    return [_reached(root, tokens) for tokens in requests]


def _ends(node: _Trie) -> list[int]:
    counts = [node.ends]
    for child in node.children.values():
        counts.extend(_ends(child))
    return counts


def _reached(root: _Trie, tokens: tuple[str, ...]) -> Reached:
    node, depth = root, 0
    for token in tokens:
        child = node.children[token]
        if child.position is None:
            break
        node, depth = child, depth + 1
    line, column = node.position or (0, 0)
    rest = tokens[depth:]
    return Reached(line or None, column or None, rest, node.ref if rest else None)


def _skip_space(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


class _JsonWalk:
    """Follows the trie through JSON text; values no pointer enters are skipped by `raw_decode`."""

    def __init__(self, text: str, pending: int) -> None:
        self.text = text
        self.pending = pending
        self._newlines = [match.start() for match in re.finditer("\n", text)]

    def seen(self, node: _Trie, index: int) -> None:
        line = bisect_right(self._newlines, index - 1)
        start = self._newlines[line - 1] + 1 if line else 0
        node.position = (line + 1, index - start + 1)
        self.pending -= node.ends
        if self.pending <= 0:
            raise _Done

    def value(self, index: int, node: _Trie) -> int:
        """Read the value at `index` (with the trie node of its pointer); return where it ends."""
        first = self.text[index]
        if first == "{":
            return self._object(index + 1, node)
        if first == "[":
            return self._array(index + 1, node)
        return _SKIPPER.raw_decode(self.text, index)[1]

    def _object(self, index: int, node: _Trie) -> int:
        text = self.text
        index = _skip_space(text, index)
        if text[index] == "}":
            return index + 1
        while True:
            if text[index] != '"':
                raise ValueError("a key expected")
            key, after = scanstring(text, index + 1)
            colon = _skip_space(text, after)
            if text[colon] != ":":
                raise ValueError("':' expected")
            start = _skip_space(text, colon + 1)
            child = node.children.get(key)
            if child is not None:
                self.seen(child, index)
                end = self.value(start, child)
            else:
                found, end = _SKIPPER.raw_decode(text, start)
                if key == "$ref" and isinstance(found, str):
                    node.ref = found
            index = _skip_space(text, end)
            if text[index] == "}":
                return index + 1
            if text[index] != ",":
                raise ValueError("',' expected")
            index = _skip_space(text, index + 1)

    def _array(self, index: int, node: _Trie) -> int:
        text = self.text
        index = _skip_space(text, index)
        if text[index] == "]":
            return index + 1
        position = 0
        while True:
            child = node.children.get(str(position))
            if child is not None:
                self.seen(child, index)
                end = self.value(index, child)
            else:
                end = _SKIPPER.raw_decode(text, index)[1]
            index = _skip_space(text, end)
            if text[index] == "]":
                return index + 1
            if text[index] != ",":
                raise ValueError("',' expected")
            index, position = _skip_space(text, index + 1), position + 1


def _walk_yaml(text: str, root: _Trie, pending: int) -> None:
    import yaml

    try:
        from yaml._yaml import CParser

        events: Any = CParser(text)
        next_event = events.get_event
    except ImportError:  # PyYAML without libyaml
        next_event = iter(yaml.parse(text)).__next__
    walker = _YamlWalk(next_event, pending)
    try:
        for _ in range(2):  # the stream's and the document's start
            next_event()
        walker.value(next_event(), root)
    except (_Done, yaml.YAMLError, StopIteration, RecursionError):
        pass


class _YamlWalk:
    """Follows the trie through libyaml's events; an alias is not entered."""

    def __init__(self, next_event: Any, pending: int) -> None:
        from yaml import events

        self.next = next_event
        self.pending = pending
        self._events = events

    def seen(self, node: _Trie, event: Any) -> None:
        node.position = (event.start_mark.line + 1, event.start_mark.column + 1)
        self.pending -= node.ends
        if self.pending <= 0:
            raise _Done

    def value(self, event: Any, node: _Trie) -> None:
        if isinstance(event, self._events.MappingStartEvent):
            self._mapping(node)
        elif isinstance(event, self._events.SequenceStartEvent):
            self._sequence(node)

    def _mapping(self, node: _Trie) -> None:
        scalar, end = self._events.ScalarEvent, self._events.MappingEndEvent
        while not isinstance(key := self.next(), end):
            if not isinstance(key, scalar):
                self._skip(key)
            value = self.next()
            child = node.children.get(key.value) if isinstance(key, scalar) else None
            if child is not None:
                self.seen(child, key)
                self.value(value, child)
                continue
            if isinstance(key, scalar) and key.value == "$ref" and isinstance(value, scalar):
                node.ref = value.value
            self._skip(value)

    def _sequence(self, node: _Trie) -> None:
        position = 0
        while not isinstance(item := self.next(), self._events.SequenceEndEvent):
            child = node.children.get(str(position))
            if child is not None:
                self.seen(child, item)
                self.value(item, child)
            else:
                self._skip(item)
            position += 1

    def _skip(self, event: Any) -> None:
        """Consume the rest of the node that starts with `event`."""
        depth = 1 if isinstance(event, self._events.CollectionStartEvent) else 0
        while depth:
            event = self.next()
            if isinstance(event, self._events.CollectionStartEvent):
                depth += 1
            elif isinstance(event, self._events.CollectionEndEvent):
                depth -= 1
