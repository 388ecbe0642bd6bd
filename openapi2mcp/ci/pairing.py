"""Which tools, and which arguments, of two versions of an API are the same one (for `changelog.py`).

A tool is the same when its route (`METHOD path`) is, whatever its name; an argument is the same
when its place on the wire is (`query dryRun`, `body dryRun`, the whole `body`), whatever its name:
Kubernetes' `dryRun_query` that became `dryRun` is one renamed argument.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

WireTool = dict[str, Any]


def previous_names(
    old_names: Iterable[str],
    old_routes: Mapping[str, str],
    new_names: Iterable[str],
    new_routes: Mapping[str, str],
) -> dict[str, str]:
    """NEW name → OLD name of the same tool: the OLD tool with the same route, else the one with the
    same name that no route matched. A name that went to another route (a new shallower route took
    `get_build` from `GET /build/{project}`) thus stays with its route. A route several tools share
    on either side (AWS's `/#Action=AssumeRole` paths are all `GET /`, told apart by a query value)
    names none of them: those are paired by name."""
    old_by_route = _unique_routes(old_routes)
    new_by_route = _unique_routes(new_routes)
    new_names = list(new_names)
    previous = {
        name: old_by_route[route]
        for name in new_names
        if (route := new_routes.get(name)) in new_by_route and route in old_by_route
    }
    taken = set(previous.values())
    for name in set(old_names) & set(new_names):
        if name not in previous and name not in taken:
            previous[name] = name
    return previous


def _unique_routes(routes: Mapping[str, str]) -> dict[str, str]:
    """Route → the one tool name on it, for the routes only one tool has."""
    counts = Counter(routes.values())
    return {route: name for name, route in routes.items() if counts[route] == 1}


def argument_places(route: Mapping[str, Any]) -> dict[str, str]:
    """Each argument of a `tool_data.json` route → its place: `path id`, `body id` or `body` (whole)."""
    places: dict[str, str] = {}
    for parameter in _dicts(route.get("params")):
        if isinstance(parameter.get("arg"), str):
            places[parameter["arg"]] = f"{parameter.get('in')} {parameter.get('name')}"
    body = route.get("body")
    if isinstance(body, dict):
        for body_field in _dicts(body.get("fields")):
            if isinstance(body_field.get("arg"), str):
                places[body_field["arg"]] = f"body {body_field.get('name')}"
        if isinstance(body.get("arg"), str):
            places[body["arg"]] = "body"
    return places


def renamed_arguments(old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, str]:
    """NEW argument → OLD argument, for each place whose argument has a name the other side lacks."""
    old_by_place = {place: argument for argument, place in old.items()}
    return {
        argument: old_by_place[place]
        for argument, place in new.items()
        if place in old_by_place and argument not in old and old_by_place[place] not in new
    }


def with_new_argument_names(tool: WireTool, renamed: Mapping[str, str]) -> WireTool:
    """The OLD tool with its renamed arguments under their NEW names (properties, required,
    dependentRequired), so that the schema comparison sees each as the same argument."""
    schema = tool.get("inputSchema")
    if not renamed or not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return tool
    new_name = {old: new for new, old in renamed.items()}

    def rename(names: Any) -> Any:
        return [new_name.get(name, name) for name in names] if isinstance(names, list) else names

    moved: dict[str, Any] = {**schema, "properties": _renamed_keys(schema["properties"], new_name)}
    if "required" in schema:
        moved["required"] = rename(schema["required"])
    if isinstance(schema.get("dependentRequired"), dict):
        moved["dependentRequired"] = {
            new_name.get(key, key): rename(value) for key, value in schema["dependentRequired"].items()
        }
    return {**tool, "inputSchema": moved}


def _renamed_keys(mapping: dict[str, Any], new_name: Mapping[str, str]) -> dict[str, Any]:
    return {new_name.get(key, key): value for key, value in mapping.items()}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
