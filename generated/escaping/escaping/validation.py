"""The tools' JSON Schema checks: arguments (with `format`), structured results, and the results
hooks.py makes, each tool's validators compiled by jsonschema on first use."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import meta_tools as mt  # type: ignore[import-not-found,unused-ignore]
    import responses as res  # type: ignore[import-not-found,unused-ignore]
else:
    from . import meta_tools as mt
    from . import responses as res


def closed_again(schema: Mapping[str, Any], pointers: Sequence[str]) -> dict[str, Any]:
    """The listed inputSchema with `additionalProperties: false` back at each pointer (the listed
    form leaves it out for the clients' converters: the generator's emit/listing.py)."""
    whole = copy.deepcopy(dict(schema))
    for pointer in pointers:
        node: Any = whole
        for token in pointer.split("/")[1:]:
            key = token.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) else node[key]
        node["additionalProperties"] = False
    return whole


class Validation:
    """Checks against the schemas of `tools` (by name); "meta" checks a meta-tool's arguments.
    `closed`: by tool name, the objects of its listed inputSchema that are closed again."""

    def __init__(
        self,
        tools: Mapping[str, Mapping[str, Any]],
        closed: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self._tools, self._closed = tools, closed or {}
        self._validators: dict[tuple[str, str], Any] = {}

    def errors(self, name: str, kind: str, value: Any) -> list[Any]:
        """jsonschema's errors for the tool's input ("in", `format` too), output ("out") or a
        meta-tool's input ("meta")."""
        if (validator := self._validators.get((name, kind))) is None:
            import jsonschema  # type: ignore[import-untyped,unused-ignore]

            if kind == "meta":
                schema = mt.definition(name, "")["inputSchema"]
            else:
                tool = self._tools[name]
                schema = tool["inputSchema"] if kind == "in" else tool.get("outputSchema") or {}
                if kind == "in" and (pointers := self._closed.get(name)):
                    schema = closed_again(schema, pointers)
            cls = jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
            checker = cls.FORMAT_CHECKER if kind != "out" else None
            validator = self._validators[(name, kind)] = cls(schema, format_checker=checker)
        return list(validator.iter_errors(value))

    def output_problem(self, name: str, value: Any) -> str | None:
        return res.first_problem(self.errors(name, "out", value))

    def conformed(self, name: str, result: CallToolResult, how: str) -> CallToolResult:
        """A success of a tool with an output schema must carry conforming structured content
        (`how` the result was made in hooks.py, for the message)."""
        if result.is_error or "outputSchema" not in self._tools[name]:
            return result
        value = result.structured_content
        problem = "it has none" if value is None else self.output_problem(name, value)
        if problem is None:
            return result
        return res.error_result(
            f"The result of tool '{name}', {how} in hooks.py, does not match the tool's output schema"
            f" ({problem}). Fix hooks.py; the call itself was made."
        )
