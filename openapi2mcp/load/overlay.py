"""OpenAPI Overlay documents (`--overlay`): changes applied to the loaded spec before anything else.

An overlay (`overlay: 1.0.x`; 1.1.x without `copy` is read too) lists `actions`, applied in order,
each to the result of the previous one; overlays apply in the order given, to the root document
as loaded (before other files are bundled and before a Swagger 2.0 spec is converted). Each action
has a `target` (a JSONPath, RFC 9535, read by `python-jsonpath`, which also takes names with `-`
such as `$.paths.*.get.x-mcp`) and `update` or `remove: true`:

- `remove: true` removes every node the target selects from the object or array holding it;
- `update` on an object merges recursively: a property only in the update is added, objects in
  both merge, arrays in both are concatenated, anything else is replaced by the update's value;
- `update` on an array appends the value (an array value: each of its items);
- `update` on a primitive value (Overlay 1.1) replaces it with the update's primitive value.

A target that selects nothing is a `warning` (the action changes nothing). A file that cannot be
read, is not an overlay, or has an invalid action raises OverlayError (a LoadError: exit 2), as
does an update whose value does not fit the node it targets. `info` and `extends` are not checked.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.source import LoadError, load_source

if TYPE_CHECKING:  # imported where used: a run without overlays does not pay its 40 ms
    import jsonpath

JSON = Any
Key = str | int
_VERSION = re.compile(r"1\.[01]\.\d+")
_ACTION_FIELDS = frozenset({"target", "description", "update", "remove"})


class OverlayError(LoadError):
    """An overlay that cannot be applied: the message names the file, the action and the problem."""


@dataclass(frozen=True)
class Target:
    """A compiled JSONPath target."""

    text: str
    path: jsonpath.JSONPath | jsonpath.CompoundJSONPath


@dataclass(frozen=True)
class Node:
    """A node a target selects, with the container it sits in (`None` for the root) and its path."""

    value: JSON
    parent: dict[str, JSON] | list[JSON] | None
    path: tuple[Key, ...]

    @property
    def key(self) -> Key:
        return self.path[-1]

    def render(self) -> str:
        """The normalized path (`$['paths']['/pets'][0]`)."""
        return "$" + "".join(f"[{part}]" if isinstance(part, int) else f"[{part!r}]" for part in self.path)


@dataclass(frozen=True)
class Action:
    where: str  # `overlay.yaml#/actions/0`, for messages
    target: Target
    update: JSON
    remove: bool


def apply_overlays(document: JSON, sources: Sequence[str], diagnostics: Diagnostics) -> JSON:
    """The document with every overlay applied (a changed copy; the same object when there is none)."""
    if not sources:
        return document
    result = copy.deepcopy(document)
    for source in sources:
        try:
            data, name = load_source(source)
        except LoadError as error:
            raise OverlayError(f"overlay {error}") from None
        result = apply_actions(result, read_overlay(data, name), diagnostics)
    return result


def read_overlay(data: JSON, name: str) -> tuple[Action, ...]:
    """The actions of a parsed overlay document; raise OverlayError when it is not a valid one."""
    if not isinstance(data, dict):
        raise OverlayError(f"{name}: not an Overlay document (the top level is not a mapping)")
    version = data.get("overlay")
    if not isinstance(version, str):
        raise OverlayError(f"{name}: not an Overlay document (no `overlay: 1.0.0` version field)")
    if not _VERSION.fullmatch(version):
        raise OverlayError(f"{name}: Overlay {version} is not supported (1.0.x and 1.1.x are)")
    actions = data.get("actions")
    if not isinstance(actions, list) or not actions:
        raise OverlayError(f"{name}: `actions` must be a non-empty list of actions")
    return tuple(_read_action(action, f"{name}#/actions/{index}") for index, action in enumerate(actions))


def _read_action(action: JSON, where: str) -> Action:
    if not isinstance(action, dict):
        raise OverlayError(f"{where}: an action must be a mapping with `target` and `update` or `remove`")
    if "copy" in action:
        raise OverlayError(f"{where}: `copy` (Overlay 1.1) is not supported; use `update`")
    unknown = sorted(key for key in action if key not in _ACTION_FIELDS and not str(key).startswith("x-"))
    if unknown:
        raise OverlayError(f"{where}: unknown field {unknown[0]!r} (an action has target, update, remove)")
    target = action.get("target")
    if not isinstance(target, str):
        raise OverlayError(f"{where}: `target` must be a JSONPath string such as \"$.paths['/pets']\"")
    path = compile_target(target, where)
    remove = action.get("remove", False)
    if not isinstance(remove, bool):
        raise OverlayError(f"{where}: `remove` must be true or false, not {remove!r}")
    if not remove and "update" not in action:
        raise OverlayError(f"{where}: the action has neither `update` nor `remove: true`")
    if remove and target.strip() == "$":
        raise OverlayError(f"{where}: `remove` cannot remove the root `$`")
    return Action(where, path, action.get("update"), remove)


def apply_actions(document: JSON, actions: Sequence[Action], diagnostics: Diagnostics) -> JSON:
    """Apply actions in order, changing `document` in place; the result (the root is never replaced)."""
    for action in actions:
        nodes = _distinct(select(action.target, document, action.where))
        if not nodes:
            diagnostics.warning(
                action.where, f"target {action.target.text!r} selects nothing; the action changed nothing"
            )
        elif action.remove:
            _remove(nodes)
        else:
            for node in nodes:
                _update(node, action)
    return document


def compile_target(text: str, where: str) -> Target:
    """The compiled JSONPath; OverlayError naming the action, the problem and where it is."""
    import jsonpath

    try:
        return Target(text, jsonpath.compile(text))
    except jsonpath.JSONPathError as error:
        raise OverlayError(f"{where}: target {text!r}: {_problem(error)}") from None


def select(target: Target, document: JSON, where: str) -> list[Node]:
    """The nodes `target` selects in `document`, in document order, each with its container."""
    import jsonpath

    try:
        matches = list(target.path.finditer(document))
    except jsonpath.JSONPathError as error:
        raise OverlayError(f"{where}: target {target.text!r}: {_problem(error)}") from None
    return [_node(document, tuple(match.parts), target, where) for match in matches]


def _node(document: JSON, path: tuple[Key, ...], target: Target, where: str) -> Node:
    """The node at `path`, walked from the root: its container is what updates and removals change."""
    container: JSON = None
    current = document
    for key in path:
        fits = isinstance(current, dict) and key in current
        if not fits and not (isinstance(current, list) and isinstance(key, int) and key < len(current)):
            raise OverlayError(f"{where}: target {target.text!r} selects something that is not a node")
        container, current = current, current[key]
    return Node(current, container, path)


def _problem(error: jsonpath.JSONPathError) -> str:
    """The library's message without its multi-line drawing, with the column it points at."""
    token = error.token
    if token is None:
        return str(error.message)
    return f"{error.message} at " + (f"position {token.index}" if token.index >= 0 else "the end")


def _distinct(nodes: list[Node]) -> list[Node]:
    """Each node once (a union like `['a','a']` selects one twice)."""
    return list({node.path: node for node in nodes}.values())


def _remove(nodes: list[Node]) -> None:
    """Remove nodes from their parents; array items from the last index down, so indexes stay valid."""
    for node in sorted(nodes, key=lambda node: node.key if isinstance(node.key, int) else -1, reverse=True):
        container: Any = node.parent  # never None: the root cannot be removed (`_read_action`)
        del container[node.key]


def _update(node: Node, action: Action) -> None:
    target, update = node.value, action.update
    if isinstance(target, dict) and isinstance(update, dict):
        _merge(target, update)
    elif isinstance(target, list):
        target.extend(copy.deepcopy(update) if isinstance(update, list) else [copy.deepcopy(update)])
    elif not isinstance(target, dict) and not isinstance(update, dict | list) and node.parent is not None:
        _replace(node, update)
    else:
        raise OverlayError(
            f"{action.where}: `update` is {_kind(update)} but the target {node.render()} is {_kind(target)}"
            " (an object merges into an object, anything is appended to an array,"
            " a primitive replaces a primitive)"
        )


def _replace(node: Node, value: JSON) -> None:
    container: Any = node.parent  # its key came from its own items: it fits
    container[node.key] = value


def _merge(target: dict[str, JSON], update: dict[str, JSON]) -> None:
    for key, value in update.items():
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            _merge(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            current.extend(copy.deepcopy(value))
        else:
            target[key] = copy.deepcopy(value)


def _kind(value: JSON) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "null" if value is None else f"a {type(value).__name__} value"
