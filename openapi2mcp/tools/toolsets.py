"""Toolsets (issue 15): every tool belongs to exactly one, a name of `[a-z0-9_-]{1,64}`.

A tool's toolset is, the first that applies:

1. `toolset` of a config-file override of its operation (the last override that sets it);
2. the config file's `toolsets` table, selector → name: the first selector (in the file's order)
   that matches the operation (the selectors of `--include`/`--exclude`, tools/selectors.py);
3. `x-mcp: {toolset: NAME}` on the operation in the spec (an invalid NAME is a `warning`, ignored);
4. the operation's first tag, lower-cased, every character outside `[a-z0-9_-]` replaced by `_`,
   cut to 64 characters; a tag with no letter or digit left (`!!`, `""`) counts as no tag;
5. `untagged`.

A toolset's description is that of the spec's first top-level tag with a description whose name
gives the toolset's name (4.), on one line; else empty. `default-toolsets` names the toolsets a
server enables when none are chosen (all when not given); a name that no tool has is an `error`
and left out (when none is left: all). A `toolsets` selector that places no tool (every generated
operation it matches, if any, was placed by an override or an earlier selector) is a `warning`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, pointer_join
from openapi2mcp.model import Tool, ToolOverride, Toolset
from openapi2mcp.schemas.prose import plain_links
from openapi2mcp.tools.selectors import POINTER, Operation, SelectorError, parse

UNTAGGED = "untagged"
NAME_RULE = "[a-z0-9_-], 1 to 64 characters"
_NAME = re.compile(r"[a-z0-9_-]{1,64}")
_OUTSIDE = re.compile(r"[^a-z0-9_-]")
_LETTER_OR_DIGIT = re.compile(r"[a-z0-9]")


class ToolsetError(ValueError):
    """A `toolsets` rule or `default-toolsets` name that cannot be used; the message says which."""


def is_toolset_name(name: object) -> bool:
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def tag_toolset(tag: str) -> str | None:
    """The toolset a tag names (None: no letter or digit is left of it)."""
    name = _OUTSIDE.sub("_", tag.lower())[:64]
    return name if _LETTER_OR_DIGIT.search(name) else None


def rule_problem(selector: str, name: str) -> str | None:
    """What is wrong with one `toolsets` entry (None: nothing)."""
    try:
        parse(selector)
    except SelectorError as error:
        return str(error)
    return None if is_toolset_name(name) else f"{selector!r} = {name!r}: not a toolset name ({NAME_RULE})"


def default_problem(name: str) -> str | None:
    """What is wrong with one `default-toolsets` name (None: nothing)."""
    return None if is_toolset_name(name) else f"{name!r}: not a toolset name ({NAME_RULE})"


def validate_toolsets(rules: Iterable[tuple[str, str]], defaults: Iterable[str]) -> None:
    """Raise ToolsetError for the first unusable `toolsets` entry or `default-toolsets` name."""
    for selector, name in rules:
        if problem := rule_problem(selector, name):
            raise ToolsetError(f"toolsets: {problem}")
    for name in defaults:
        if problem := default_problem(name):
            raise ToolsetError(f"default-toolsets: {problem}")


class ToolsetRules:
    """The config file's `toolsets` table, applied per operation (and what it matched so far)."""

    def __init__(self, rules: Iterable[tuple[str, str]]) -> None:
        """Raise SelectorError for a selector that cannot be read."""
        self.rules = [(parse(selector), name) for selector, name in rules]
        self.matched: set[str] = set()  # selector texts

    def toolset(
        self, ref: Operation, pointer: str, overrides: Sequence[ToolOverride], diagnostics: Diagnostics
    ) -> str:
        """The operation's toolset (see the module docstring)."""
        chosen = [override.toolset for override in overrides if override.toolset is not None]
        if chosen:
            return chosen[-1]
        for selector, name in self.rules:
            if selector.matches(ref):
                self.matched.add(selector.text)
                return name
        x_mcp = ref.operation.get("x-mcp")
        if isinstance(x_mcp, dict) and "toolset" in x_mcp:
            if is_toolset_name(x_mcp["toolset"]):
                return str(x_mcp["toolset"])
            diagnostics.warning(
                pointer_join(pointer, "x-mcp", "toolset"),
                f"x-mcp toolset {x_mcp['toolset']!r} is not a toolset name ({NAME_RULE}); ignored",
            )
        tags = ref.operation.get("tags")
        first = next((tag for tag in tags if isinstance(tag, str)), None) if isinstance(tags, list) else None
        return (tag_toolset(first) if first is not None else None) or UNTAGGED

    def warn_unmatched(self, diagnostics: Diagnostics) -> None:
        for selector, name in self.rules:
            if selector.text not in self.matched:
                diagnostics.warning(
                    POINTER,
                    f"toolsets selector {selector.text!r} (→ {name!r}) places no tool: "
                    "no generated operation is left to it by the overrides and earlier selectors",
                )


def summarize(
    tools: Iterable[Tool], document: dict[str, Any], defaults: Sequence[str], diagnostics: Diagnostics
) -> tuple[Toolset, ...]:
    """Every toolset of `tools` in order of first appearance, with its description and default."""
    names = list(dict.fromkeys(tool.toolset for tool in tools))
    unknown = [name for name in dict.fromkeys(defaults) if name not in names]
    if unknown:
        diagnostics.error(
            "#",
            f"default-toolsets: no tool is in {', '.join(map(repr, unknown))}; "
            f"the toolsets are: {', '.join(names) or '(none)'}",
        )
    enabled = (set(defaults) & set(names)) or set(names)
    descriptions = _tag_descriptions(document)
    return tuple(Toolset(name, descriptions.get(name, ""), name in enabled) for name in names)


def _tag_descriptions(document: dict[str, Any]) -> dict[str, str]:
    """Toolset name → the description of the first top-level tag that names it."""
    found: dict[str, str] = {}
    tags = document.get("tags")
    for tag in tags if isinstance(tags, list) else ():
        if not isinstance(tag, dict) or not isinstance(tag.get("name"), str):
            continue
        name, description = tag_toolset(tag["name"]), tag.get("description")
        if name is not None and name not in found and isinstance(description, str) and description.strip():
            found[name] = " ".join(plain_links(description).split())
    return found
