"""Which operations become tools: `--include` / `--exclude` selectors, applied before mapping.

A selector is `KIND:VALUE`:

- `tag:NAME`: the operation lists the tag NAME (case-insensitive);
- `op:OPERATION_ID`: the operationId, exactly (case-sensitive);
- `path:GLOB`: the spec's path key (`/pets/{id}`, as written, query part included) matches GLOB:
  `*` is any run of characters but `/`, `?` one character but `/`, `**` anything including `/`,
  and `/**` zero or more whole segments (`/pets/**` is `/pets`, `/pets/{id}`, `/pets/{id}/photos`,
  never `/petstore`); everything else stands for itself (`{id}` too);
- `method:VERB`: the HTTP method (case-insensitive; get, put, post, delete, options, head, patch, trace).

Blanks around KIND and VALUE are ignored. An operation is generated when no include is given or
it matches ANY include, and it matches NO exclude. `x-mcp: false` operations are left out before
selection. One `info` says how many operations the selectors left out; a selector that matches no
operation is a `warning` (a typo).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import METHOD_ORDER

Kind = Literal["tag", "op", "path", "method"]
_KINDS: dict[str, Kind] = {"tag": "tag", "op": "op", "path": "path", "method": "method"}
_GLOB_TOKENS = re.compile(r"(/\*\*(?=/|$)|\*\*|\*|\?)")
_GLOB_REGEX = {"/**": "(?:/.*)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
POINTER = "#/paths"
SELECTOR_FORMS = "tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB"  # for messages and --help


class SelectorError(ValueError):
    """A selector that cannot be read; the message names it and says what is expected."""


class Operation(Protocol):
    """What selection looks at (the mapper's `OperationRef` is one)."""

    @property
    def path(self) -> str: ...

    @property
    def method(self) -> str: ...

    @property
    def operation(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Selector:
    text: str  # as the user wrote it
    kind: Kind
    value: str
    glob: re.Pattern[str] | None = None  # path selectors only

    def matches(self, operation: Operation) -> bool:
        if self.kind == "method":
            return operation.method.lower() == self.value.lower()
        if self.kind == "op":
            return operation.operation.get("operationId") == self.value
        if self.kind == "tag":
            wanted = self.value.casefold()
            tags = operation.operation.get("tags")
            return isinstance(tags, list) and any(
                isinstance(tag, str) and tag.casefold() == wanted for tag in tags
            )
        assert self.glob is not None
        return self.glob.fullmatch(operation.path) is not None


def parse(text: str) -> Selector:
    """Read one selector (`tag:pets`); raise SelectorError when it is not one."""
    kind, colon, raw_value = text.partition(":")
    chosen, value = _KINDS.get(kind.strip().lower()), raw_value.strip()
    if not colon or chosen is None:
        raise SelectorError(f"selector {text!r}: use {SELECTOR_FORMS} (e.g. tag:pets, path:/pets/**)")
    if not value:
        raise SelectorError(f"selector {text!r}: nothing after '{kind}:'")
    if chosen == "method" and value.lower() not in METHOD_ORDER:
        raise SelectorError(f"selector {text!r}: not an HTTP method; choose one of {', '.join(METHOD_ORDER)}")
    if chosen == "path":
        return Selector(text, chosen, value, glob_pattern(value))
    return Selector(text, chosen, value)


def parse_all(texts: Iterable[str]) -> tuple[Selector, ...]:
    """Each selector once, in order; raise SelectorError at the first that cannot be read."""
    return tuple(parse(text) for text in dict.fromkeys(texts))


def glob_pattern(glob: str) -> re.Pattern[str]:
    """The regular expression of a path glob (see the module docstring), for `fullmatch`."""
    parts = _GLOB_TOKENS.split(glob)
    regex = "".join(_GLOB_REGEX[part] if index % 2 else re.escape(part) for index, part in enumerate(parts))
    return re.compile(regex, re.DOTALL)


class Selection:
    """The include and exclude selectors of a run, and what they matched so far."""

    def __init__(self, include: Iterable[str], exclude: Iterable[str]) -> None:
        """Raise SelectorError for a selector that cannot be read."""
        self.includes, self.excludes = parse_all(include), parse_all(exclude)
        self.matched: set[str] = set()  # selector texts
        self.seen = self.not_included = self.excluded = 0

    def keeps(self, operation: Operation) -> bool:
        """Whether to generate `operation` (counted for `report`)."""
        hits = [selector for selector in (*self.includes, *self.excludes) if selector.matches(operation)]
        self.matched.update(selector.text for selector in hits)
        self.seen += 1
        if self.includes and not any(hit in self.includes for hit in hits):
            self.not_included += 1
            return False
        if any(hit in self.excludes for hit in hits):
            self.excluded += 1
            return False
        return True

    def report(self, diagnostics: Diagnostics) -> None:
        """A `warning` per selector that matched nothing, then an `info` with the counts (when there
        are selectors)."""
        if not self.includes and not self.excludes:
            return
        for role, selectors in (("include", self.includes), ("exclude", self.excludes)):
            for selector in selectors:
                if selector.text not in self.matched:
                    diagnostics.warning(POINTER, f"{role} selector {selector.text!r} matches no operation")
        kept = self.seen - self.not_included - self.excluded
        diagnostics.info(
            POINTER,
            f"selectors: {kept} of {self.seen} operations kept "
            f"({self.not_included} matched no include, {self.excluded} matched an exclude)",
        )
