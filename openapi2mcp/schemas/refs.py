"""Reference bookkeeping of the schema converter: cycles, the expansion path, cuts and cache keys.

The reference graph (which `$ref`s the target of a `$ref` mentions) is split into strongly
connected components with Tarjan's algorithm, run lazily from each reference not seen yet; a
component is a reference cycle, or one reference outside any cycle. Along the current path every
reference being expanded is counted. A reference is cut when it is already expanded `ref_limit`
times on the path or, in the fallback mode `scc_once`, when any member of its cycle is.

The expansion of a reference depends only on the settings of the run and on the counts of the
references of its own cycle on the path: a reference outside the cycle cannot be met again below
it. `cache_key` holds exactly that, so the converter's cache is exact (a result never depends on
which conversions ran before).

A `#/$defs/...` reference that does not resolve in the document names a local definition of the
tool's own schema (JSON Schema 2020-12 `$defs`, hoisted to the root by the caller): it is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from openapi2mcp.diagnostics import SpecError
from openapi2mcp.load.refs import JSON, Resolver, unescape_token
from openapi2mcp.schemas.keywords import Schema, as_list

MAX_NESTED_REFS = 24
LOCAL_DEFS = "#/$defs/"


class OverBudget(Exception):
    """A conversion grew past its budget; it is done again with tighter limits."""


class RefPath:
    """The references being expanded on the current conversion path, and when to cut one."""

    def __init__(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._scc: dict[str, str] = {}  # ref → the ref naming its strongly connected component
        self._counts: dict[str, int] = {}  # refs being expanded → times on the current path
        self._local: dict[str, bool] = {}
        self.configure(ref_limit=1, scc_once=False, limited=False)

    def configure(self, *, ref_limit: int, scc_once: bool, limited: bool) -> None:
        """The cut rule of the next run; `limited` runs stop past `MAX_NESTED_REFS` nested refs."""
        self._ref_limit, self._scc_once, self._limited = ref_limit, scc_once, limited

    def is_local_def(self, ref: JSON) -> bool:
        """True for a `#/$defs/...` reference that names nothing in the document."""
        if not isinstance(ref, str) or not ref.startswith(LOCAL_DEFS):
            return False
        if ref not in self._local:
            try:
                self._resolver.lookup(ref, ref)
                self._local[ref] = False
            except SpecError:
                self._local[ref] = True
        return self._local[ref]

    def deref(self, node: JSON, where: str) -> tuple[JSON, str]:
        """`Resolver.deref`, except that a reference to a local definition is returned as it is."""
        if isinstance(node, dict) and self.is_local_def(node.get("$ref")):
            return node, where
        return self._resolver.deref(node, where)

    def push(self, ref: str) -> None:
        self._counts[ref] = self._counts.get(ref, 0) + 1
        if self._limited and sum(self._counts.values()) > MAX_NESTED_REFS:
            self.pop(ref)
            raise OverBudget

    def pop(self, ref: str) -> None:
        self._counts[ref] -= 1
        if not self._counts[ref]:
            del self._counts[ref]

    @contextmanager
    def entered(self, ref: str) -> Iterator[None]:
        self.push(ref)
        try:
            yield
        finally:
            self.pop(ref)

    def must_cut(self, ref: str) -> bool:
        cycle = self._scc_of(ref)
        if self._scc_once:
            return any(self._scc[other] == cycle for other in self._counts)
        return self._counts.get(ref, 0) >= self._ref_limit

    def cache_key(self, ref: str, context: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the expansion of `ref` depends on: `context` (the caller's), the cut rule, the cycle."""
        cycle = self._scc_of(ref)
        state = tuple(sorted((other, n) for other, n in self._counts.items() if self._scc[other] == cycle))
        return (*context, self._ref_limit, self._scc_once, ref, state)

    def cut(self, ref: str, target: JSON) -> tuple[Schema, bool]:
        """What stands for `ref` where the recursion is cut, and whether its target allows null."""
        note = f"Recursive reference to {unescape_token(ref.rsplit('/', 1)[-1])}; the recursion is cut here."
        nullable = isinstance(target, dict) and (
            target.get("nullable") is True or "null" in as_list(target.get("type"))
        )
        if self._objectish(target, ref, 0):
            return {"type": "object", "description": note}, nullable
        return {"description": note}, nullable

    def _objectish(self, node: JSON, pointer: str, depth: int) -> bool:
        if not isinstance(node, dict) or depth > 3:
            return False
        if "object" in as_list(node.get("type")) or "properties" in node or "additionalProperties" in node:
            return True
        branches = node.get("allOf")
        return isinstance(branches, list) and any(
            self._objectish(*self.deref(branch, pointer), depth + 1) for branch in branches
        )

    def _scc_of(self, root: str) -> str:
        """Tarjan's algorithm over the reference graph, run from each reference not seen yet."""
        if root in self._scc:
            return self._scc[root]
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        work: list[tuple[str, Iterator[str]]] = []

        def enter(ref: str) -> None:
            index[ref] = low[ref] = len(index)
            stack.append(ref)
            work.append((ref, self._edges(ref)))

        enter(root)
        while work:
            ref, edges = work[-1]
            for nxt in edges:
                if nxt not in self._scc and nxt not in index:
                    enter(nxt)
                    break
                if nxt not in self._scc:  # on the stack: part of the current component
                    low[ref] = min(low[ref], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[ref])
                if low[ref] == index[ref]:
                    while (member := stack.pop()) != ref:
                        self._scc[member] = ref
                    self._scc[ref] = ref
        return self._scc[root]

    def _edges(self, ref: str) -> Iterator[str]:
        try:
            target = self._resolver.lookup(ref, ref)
        except SpecError:  # reported where the conversion meets it
            return iter(())
        return iter(dict.fromkeys(refs_in(target)))


def refs_in(node: JSON) -> Iterator[str]:
    """Every `$ref` string anywhere below `node`."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                yield item["$ref"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
