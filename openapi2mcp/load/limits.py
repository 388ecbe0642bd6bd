"""How much a spec document may make the loader build: checked while it is parsed, before any work
grows with it (a spec is untrusted input).

Measured over the 62 real-world specs of the corpus (2,974 files, `bash scripts/spec-sizes`): at most
327,924 nodes, 3,257,718 characters and 4.2 MB of text (cloudflare.json), 30 levels of nesting
(pagerduty.json), and no YAML alias at all. The limits leave a wide margin over that (15, 8, 20 and
30 times); 256 levels (a schema nested about 120 deep) keeps the recursive stages after the loader
inside Python's recursion limit:

- `MAX_NODES`: mappings, sequences and scalars (keys included), counted as after alias expansion.
- `MAX_ALIAS_NODES`: the nodes that YAML aliases repeat, in all (a "billion laughs" is refused at
  the alias that would cross it, after building at most this many).
- `MAX_DEPTH`: mappings and sequences nested in one another.
- `MAX_SCALAR_CHARS`: characters of all keys and scalars, counted as after alias expansion.
- `MAX_TEXT_BYTES`: the size of one document's text, checked before it is parsed.

The YAML reader (`yaml_data.py`) counts as it builds, and names the line where a limit is crossed.
JSON is bounded by its text's separators and measured a level at a time (`check_json`); the YAML
that only PyYAML's or ruamel's loader reads is measured by `check_data` before `to_json` copies it
(those loaders make an alias a shared object: each is measured once, and counted where repeated).
"""

from __future__ import annotations

import sys
from typing import Any

MAX_NODES = 5_000_000
MAX_ALIAS_NODES = 1_000_000
MAX_DEPTH = 256
MAX_SCALAR_CHARS = 64 * 1024 * 1024
MAX_TEXT_BYTES = 128 * 1024 * 1024


class LimitError(Exception):
    """A document goes past one of the limits; `line` (1-based) where it did, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def too_many_nodes(line: int | None = None) -> LimitError:
    return LimitError(f"the document would build more than {MAX_NODES:,} nodes (the limit)", line)


def too_many_alias_nodes(line: int | None = None) -> LimitError:
    return LimitError(f"alias expansion would build more than {MAX_ALIAS_NODES:,} nodes (the limit)", line)


def too_deep(depth: int, line: int | None = None, *, at_least: bool = False) -> LimitError:
    levels = f"at least {depth:,}" if at_least else f"{depth:,}"
    return LimitError(f"nested {levels} levels deep, more than the limit of {MAX_DEPTH}", line)


def too_many_chars(line: int | None = None) -> LimitError:
    return LimitError(
        f"keys and scalars would hold more than {MAX_SCALAR_CHARS:,} characters (the limit)", line
    )


def too_long(size: int, unit: str = "characters") -> LimitError:
    return LimitError(f"the text is {size:,} {unit} long, more than the limit of {MAX_TEXT_BYTES:,}")


def is_number_too_long(error: ValueError) -> bool:
    """Python refuses to convert an integer of more digits than `sys.get_int_max_str_digits()`."""
    return "integer string conversion" in str(error)


def number_too_long() -> LimitError:
    return LimitError(f"a number has more than {sys.get_int_max_str_digits():,} digits, Python's limit")


def check_text(text: str) -> None:
    if len(text) > MAX_TEXT_BYTES:  # characters: at least as many bytes
        raise too_long(len(text))


Size = tuple[int, int, int]  # nodes, characters, levels of nesting (below a container, in `_Measure`)


class _Measure:
    """Sizes of a parsed document's subtrees; each container (shared or not) measured once."""

    def __init__(self) -> None:
        self._sizes: dict[int, Size] = {}
        self._open: set[int] = set()
        self._repeated = 0  # the nodes of containers met again: what YAML aliases repeat

    def container(self, node: dict[Any, Any] | list[Any], depth: int) -> Size:
        if depth > MAX_DEPTH:
            raise too_deep(depth)
        key = id(node)
        size = self._sizes.get(key)
        if size is not None:
            if depth + size[2] > MAX_DEPTH:
                raise too_deep(depth + size[2])
            self._repeated += size[0]
            if self._repeated > MAX_ALIAS_NODES:
                raise too_many_alias_nodes()
            return size
        if key in self._open:
            raise LimitError("a YAML alias refers to a node that contains it: it would expand forever")
        self._open.add(key)
        nodes, chars, height = 1, 0, 0
        if isinstance(node, dict):
            nodes += len(node)
            chars += sum(len(name) for name in node if isinstance(name, str))
            values: Any = node.values()
        else:
            values = node
        for value in values:
            if isinstance(value, (dict, list)):
                inner_nodes, inner_chars, inner_height = self.container(value, depth + 1)
                nodes, chars, height = nodes + inner_nodes, chars + inner_chars, max(height, inner_height + 1)
            else:
                nodes += 1
                if isinstance(value, str):
                    chars += len(value)
        if nodes > MAX_NODES:
            raise too_many_nodes()
        if chars > MAX_SCALAR_CHARS:
            raise too_many_chars()
        self._open.discard(key)
        self._sizes[key] = size = (nodes, chars, height)
        return size


def check_json(data: Any, text: str) -> None:
    """LimitError when JSON data (`text` parsed) is past a limit: nodes and characters are bounded by
    counting the text's separators (exactly measured only past that), levels by one pass a level."""
    nodes_at_most = 1 + 2 * text.count(":") + text.count(",") + text.count("[")
    if nodes_at_most > MAX_NODES or len(text) > MAX_SCALAR_CHARS:
        check_data(data)
        return
    level: list[Any] = [data] if isinstance(data, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise too_deep(depth)
        below: list[Any] = []
        for node in level:
            values = node.values() if type(node) is dict else node
            below += [value for value in values if type(value) is dict or type(value) is list]
        level = below


def check_data(data: Any) -> None:
    """LimitError when parsed data (JSON, or YAML with aliases as shared objects) is past a limit."""
    measure(data)


def measure(data: Any) -> Size:
    """Nodes, characters and levels of nesting of parsed data (LimitError past a limit)."""
    if isinstance(data, (dict, list)):
        nodes, chars, below = _Measure().container(data, 1)
        return nodes, chars, below + 1
    if isinstance(data, str) and len(data) > MAX_SCALAR_CHARS:
        raise too_many_chars()
    return 1, len(data) if isinstance(data, str) else 0, 0
