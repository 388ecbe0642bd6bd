"""JSON values whose repeated objects are written once (`tool_details.json`, docs/tool-data.md).

Schema conversion inlines a component wherever it is used, as one Python object: Kubernetes' whole
schemas are 36 MB as JSON trees but 24,000 distinct objects. `share_repeats` writes each object met
more than once into a table and puts `{"$shared": N}` in its places; the runtime's
`meta_tools.Details` puts them back. Only identity counts: equal objects built apart stay apart.
"""

from __future__ import annotations

from collections import Counter
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
    counts = _references(values)
    numbers: dict[int, int] = {}
    table: list[Any] = []

    def encode(node: Any) -> Any:
        if isinstance(node, list):
            return [encode(item) for item in node]
        if not isinstance(node, dict):
            return node
        if counts[id(node)] == 1:
            return {key: encode(value) for key, value in node.items()}
        if (number := numbers.get(id(node))) is None:
            number = numbers[id(node)] = len(table)
            table.append(None)
            table[number] = {key: encode(value) for key, value in node.items()}
        return {MARKER: number}

    return [encode(value) for value in values], table


def _references(values: list[Any]) -> Counter[int]:
    """How many times each object (by identity) is reached; the inside of a repeat is walked once."""
    counts: Counter[int] = Counter()
    pending = list(values)
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending += node
        elif isinstance(node, dict):
            if is_marker(node):
                raise MarkerCollision(f"an object {node} of the data reads as a marker")
            counts[id(node)] += 1
            if counts[id(node)] == 1:
                pending += node.values()
    return counts
