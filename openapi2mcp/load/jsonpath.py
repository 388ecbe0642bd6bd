"""The JSONPath (RFC 9535) subset that Overlay targets use, with the parent of every node found.

Supported: `$`; `.name`, `['name']`, `["name"]`; `.*`, `[*]`; `[0]`, `[-1]`; unions
(`['get','put']`); recursive descent `..name`, `..*`, `..[...]`; filters `[?(...)]` and `[?...]`
with `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, parentheses, existence tests (`[?@.deprecated]`)
and literals ('string', "string", numbers, true, false, null); the queries in a filter are singular
(`@`, `@.a.b`, `@['a'][0]`, or from the root `$...`). A `.name` may also hold `-` and `$` and start
with a digit (`.x-mcp`, `.$ref`, `.200`). Not supported (a `JsonPathError`): slices, functions
(`length()`, `match()`...), wildcards and descent inside filters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

JSON = Any
Key = str | int


class JsonPathError(ValueError):
    """A JSONPath this module cannot read: the message says where and why."""


@dataclass(frozen=True)
class Node:
    """A value found, with the container it sits in (`None` for the root) and its path from the root."""

    value: JSON
    parent: dict[str, JSON] | list[JSON] | None
    path: tuple[Key, ...]

    @property
    def key(self) -> Key:
        return self.path[-1]

    def render(self) -> str:
        """The normalized path (`$['paths']['/pets'][0]`)."""
        return "$" + "".join(f"[{part}]" if isinstance(part, int) else f"[{part!r}]" for part in self.path)


_NOTHING = object()  # what a filter query yields when it selects no node
Filter = Callable[[JSON, JSON], Any]  # (root, current) → a value or _NOTHING, or a truth value


@dataclass(frozen=True)
class _Selector:
    kind: str  # "name", "index", "wildcard", "filter"
    name: str = ""
    index: int = 0
    test: Filter | None = None


@dataclass(frozen=True)
class _Segment:
    descendant: bool
    selectors: tuple[_Selector, ...]


@dataclass(frozen=True)
class JsonPath:
    text: str
    segments: tuple[_Segment, ...]

    def find(self, root: JSON) -> list[Node]:
        """The nodes selected, in document order."""
        nodes = [Node(root, None, ())]
        for segment in self.segments:
            inputs = (
                [found for node in nodes for found in _descendants(node)] if segment.descendant else nodes
            )
            nodes = [child for node in inputs for child in _select(node, segment.selectors, root)]
        return nodes


def compile_path(text: str) -> JsonPath:
    """Read a JSONPath query; raise JsonPathError for anything outside the supported subset."""
    parser = _Parser(text)
    parser.expect("$")
    segments = parser.segments()
    if not parser.at_end():
        parser.fail("unexpected")
    return JsonPath(text, segments)


def _children(node: Node) -> Iterator[Node]:
    value = node.value
    if isinstance(value, dict):
        for key, child in value.items():
            yield Node(child, value, (*node.path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield Node(child, value, (*node.path, index))


def _descendants(node: Node) -> Iterator[Node]:
    """The node itself, then every node below it (pre-order)."""
    yield node
    for child in _children(node):
        yield from _descendants(child)


def _select(node: Node, selectors: tuple[_Selector, ...], root: JSON) -> Iterator[Node]:
    value = node.value
    for selector in selectors:
        if selector.kind == "name":
            if isinstance(value, dict) and selector.name in value:
                yield Node(value[selector.name], value, (*node.path, selector.name))
        elif selector.kind == "index":
            if isinstance(value, list) and -len(value) <= selector.index < len(value):
                index = selector.index % len(value)
                yield Node(value[index], value, (*node.path, index))
        elif selector.kind == "wildcard":
            yield from _children(node)
        else:
            test = selector.test
            assert test is not None
            yield from (child for child in _children(node) if test(root, child.value) is True)


# ---------------------------------------------------------------------------------------------
# Parsing

_NAME = re.compile(r"[A-Za-z0-9_$\-\u0080-\U0010ffff]+")
_FUNCTION = re.compile(r"[a-z][a-z0-9_]*\s*\(")
_BLANKS = re.compile(r"[ \t\n\r]*")
_INTEGER = re.compile(r"-?\d+")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\", "'": "'", '"': '"'}
_LITERALS = {"true": True, "false": False, "null": None}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def fail(self, problem: str) -> NoReturn:
        where = self.text[self.position : self.position + 1] or "end"
        raise JsonPathError(f"JSONPath {self.text!r}: {problem} {where!r} at position {self.position}")

    def at_end(self) -> bool:
        return self.position >= len(self.text)

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.position)

    def take(self, token: str) -> bool:
        if self.peek(token):
            self.position += len(token)
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.take(token):
            self.fail(f"expected {token!r}, found")

    def spaces(self) -> None:
        self.match(_BLANKS)

    def match(self, pattern: re.Pattern[str]) -> str | None:
        found = pattern.match(self.text, self.position)
        if found is None:
            return None
        self.position = found.end()
        return found.group()

    def segments(self, singular: bool = False) -> tuple[_Segment, ...]:
        segments: list[_Segment] = []
        while True:
            start = self.position
            if self.peek(".."):
                if singular:
                    self.fail("recursive descent is not supported in a filter:")
                self.position += 2
                segments.append(_Segment(True, self.bracket() if self.peek("[") else (self.dotted(),)))
            elif self.take("."):
                segments.append(_Segment(False, (self.dotted(),)))
            elif self.peek("["):
                segments.append(_Segment(False, self.bracket()))
            else:
                return tuple(segments)
            selectors = segments[-1].selectors
            if singular and (len(selectors) > 1 or selectors[0].kind not in ("name", "index")):
                self.position = start
                self.fail("a query in a filter takes one name or index per step:")

    def dotted(self) -> _Selector:
        if self.take("*"):
            return _Selector("wildcard")
        name = self.match(_NAME)
        if name is None:
            self.fail("expected a name, found")
        return _Selector("name", name=name)

    def bracket(self) -> tuple[_Selector, ...]:
        self.expect("[")
        selectors = [self.selector()]
        self.spaces()
        while self.take(","):
            selectors.append(self.selector())
            self.spaces()
        self.expect("]")
        return tuple(selectors)

    def selector(self) -> _Selector:
        self.spaces()
        if self.peek("'") or self.peek('"'):
            return _Selector("name", name=self.string())
        if self.take("*"):
            return _Selector("wildcard")
        if self.take("?"):
            self.spaces()
            return _Selector("filter", test=self.logical_or())
        integer = self.match(_INTEGER)
        if integer is None:
            self.fail("expected a name, an index, '*' or a filter, found")
        self.spaces()
        if self.peek(":"):
            self.fail("slices are not supported:")
        return _Selector("index", index=int(integer))

    def string(self) -> str:
        quote = self.text[self.position]
        self.position += 1
        chars: list[str] = []
        while not self.take(quote):
            if self.at_end():
                self.fail("unterminated string at")
            char = self.text[self.position]
            self.position += 1
            if char == "\\":
                chars.append(self.escape())
            else:
                chars.append(char)
        return "".join(chars)

    def escape(self) -> str:
        char = self.text[self.position : self.position + 1]
        if char == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", self.text[self.position + 1 : self.position + 5]):
            self.position += 5
            return chr(int(self.text[self.position - 4 : self.position], 16))
        if char not in _ESCAPES:
            self.fail("invalid escape")
        self.position += 1
        return _ESCAPES[char]

    # Filters: each parse method returns a function (root, current) → value.

    def logical_or(self) -> Filter:
        terms = [self.logical_and()]
        while self.take("||"):
            terms.append(self.logical_and())
        if len(terms) == 1:
            return terms[0]
        return lambda root, current: any(term(root, current) is True for term in terms)

    def logical_and(self) -> Filter:
        terms = [self.unary()]
        while self.take("&&"):
            terms.append(self.unary())
        if len(terms) == 1:
            return terms[0]
        return lambda root, current: all(term(root, current) is True for term in terms)

    def unary(self) -> Filter:
        self.spaces()
        if self.take("!"):
            operand = self.unary()
            return lambda root, current: operand(root, current) is not True
        if self.take("("):
            inner = self.logical_or()
            self.spaces()
            self.expect(")")
            self.spaces()
            return inner
        return self.comparison()

    def comparison(self) -> Filter:
        left, left_is_query = self.operand()
        self.spaces()
        operator = next((op for op in _COMPARISONS if self.take(op)), None)
        if operator is None:
            if not left_is_query:
                self.fail("a literal alone is not a test; expected a comparison before")
            return lambda root, current: left(root, current) is not _NOTHING
        self.spaces()
        right, _ = self.operand()
        self.spaces()
        return lambda root, current: _compare(operator, left(root, current), right(root, current))

    def operand(self) -> tuple[Filter, bool]:
        if self.peek("@") or self.peek("$"):
            relative = self.take("@")
            if not relative:
                self.expect("$")
            segments = self.segments(singular=True)
            return _singular_query(segments, relative), True
        if self.peek("'") or self.peek('"'):
            return _constant(self.string()), False
        for word, value in _LITERALS.items():
            if self.take(word):
                return _constant(value), False
        if _FUNCTION.match(self.text, self.position):
            self.fail("functions are not supported:")
        number = self.match(_NUMBER)
        if number is None:
            self.fail("expected '@', '$' or a literal, found")
        return _constant(float(number) if any(char in number for char in ".eE") else int(number)), False


def _constant(value: JSON) -> Filter:
    return lambda root, current: value


def _singular_query(segments: tuple[_Segment, ...], relative: bool) -> Filter:
    def evaluate(root: JSON, current: JSON) -> JSON:
        value = current if relative else root
        for segment in segments:
            selector = segment.selectors[0]
            if selector.kind == "name" and isinstance(value, dict) and selector.name in value:
                value = value[selector.name]
            elif selector.kind == "index" and isinstance(value, list):
                if not -len(value) <= selector.index < len(value):
                    return _NOTHING
                value = value[selector.index]
            else:
                return _NOTHING
        return value

    return evaluate


def _compare(operator: str, left: JSON, right: JSON) -> bool:
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    if operator in ("<", "<="):
        return _less(left, right) or (operator == "<=" and _equal(left, right))
    return _less(right, left) or (operator == ">=" and _equal(left, right))


def _is_number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(left: JSON, right: JSON) -> bool:
    """RFC 9535 equality: numbers by value, booleans are not numbers, containers deeply."""
    if _is_number(left) and _is_number(right):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_equal(value, right[key]) for key, value in left.items())
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_equal, left, right))
    return bool(left is right or left == right)


def _less(left: JSON, right: JSON) -> bool:
    if _is_number(left) and _is_number(right):
        return bool(left < right)
    return isinstance(left, str) and isinstance(right, str) and left < right
