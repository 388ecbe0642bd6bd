"""JSON values whose repeated objects are written once (`tool_details.json`, docs/tool-data.md).

Schema conversion inlines a component wherever it is used, as one Python object: Kubernetes' whole
schemas are 36 MB as JSON trees but 24,000 distinct objects. `share_repeats` writes each object met
more than once into a table and puts `{"$shared": N}` in its places; the runtime's
`meta_tools.Details` puts them back. Only identity counts: equal objects built apart stay apart.
Values are JSON as the model holds it: plain dicts, lists (or tuples) and scalars (exact types are
tested, for speed: anything else is written as it is, unshared).
"""

from __future__ import annotations

from typing import Any

MARKER = "$shared"


class MarkerCollision(Exception):
    """A value holds an object that reads as a marker: it cannot be written with sharing."""


def is_marker(node: dict[str, Any]) -> bool:
    """Whether `node` reads as a reference to the table (the runtime's test, `meta_tools.Details`)."""
    return len(node) == 1 and type(node.get(MARKER)) is int


def share_repeats(values: list[Any]) -> tuple[list[Any], list[Any]]:
    """`values` with each object they reach more than once replaced by a marker, and the table of
    those objects (each one's own repeats replaced too), numbered in first-met order. Raise
    MarkerCollision when some object of `values` reads as a marker."""
    repeated = _repeated(values)
    numbers: dict[int, int] = {}
    table: list[Any] = []

    def encode(node: Any) -> Any:
        kind = type(node)
        if kind is list or kind is tuple:
            return [encode(item) for item in node]
        if kind is not dict:
            return node
        if id(node) not in repeated:
            return {key: encode(value) for key, value in node.items()}
        if (number := numbers.get(id(node))) is None:
            number = numbers[id(node)] = len(table)
            table.append(None)
            table[number] = {key: encode(value) for key, value in node.items()}
        return {MARKER: number}

    return [encode(value) for value in values], table


def _repeated(values: list[Any]) -> set[int]:
    """The ids of the objects reached more than once; the inside of a repeat is walked once."""
    seen: set[int] = set()
    repeated: set[int] = set()
    pending = list(values)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is list or kind is tuple:
            pending += node
        elif kind is dict:
            if id(node) in seen:
                repeated.add(id(node))
                continue
            if len(node) == 1 and is_marker(node):
                raise MarkerCollision(f"an object {node} of the data reads as a marker")
            seen.add(id(node))
            pending += node.values()
    return repeated
