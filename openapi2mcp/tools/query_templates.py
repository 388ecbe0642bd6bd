"""Query parameters named by a path key's templated query pairs: `/weather?city={city}`.

Vendors (weatherbit.io, clicksend.com, icons8.com...) tell operations on one URL apart by the query
names in the path key, and declare the templated values as path parameters, since the template
stands in the path key. Each such parameter is sent as the query parameter the pair names.
"""

from __future__ import annotations

from dataclasses import replace

from openapi2mcp.diagnostics import Diagnostics, SpecError
from openapi2mcp.tools.operations import OperationRef
from openapi2mcp.tools.parameters import RawParameter
from openapi2mcp.tools.path_keys import PathKey


def query_templates(
    ref: OperationRef, parameters: list[RawParameter], key: PathKey, diagnostics: Diagnostics
) -> list[RawParameter]:
    """`parameters` with those that the path key's templated query pairs name made the query
    parameters the pairs say. Each template needs one, declared `in: path` (preferred) or `in: query`;
    another query parameter of the same name is dropped with a warning."""
    if not key.templated_query:
        return parameters
    chosen = _chosen(ref, parameters, key)
    sent = ", ".join(f"{query} (from {{{template}}})" for query, template in key.templated_query)
    diagnostics.info(ref.pointer, f"path key {ref.path!r}: sends the query parameter(s) {sent}")
    taken = {parameter.name for parameter in chosen.values()}
    others = {p.name for n, p in enumerate(parameters) if n not in chosen and p.location == "query"}
    if twice := sorted(others & taken):
        message = f"query parameter(s) {twice} are also sent from the path key's templates; dropped"
        diagnostics.warning(ref.pointer, message)
    return [
        chosen.get(number, parameter)
        for number, parameter in enumerate(parameters)
        if number in chosen or parameter.location != "query" or parameter.name not in taken
    ]


def _chosen(ref: OperationRef, parameters: list[RawParameter], key: PathKey) -> dict[int, RawParameter]:
    """Position in `parameters` -> the parameter a template names, made its query parameter."""
    wanted = {template: query for query, template in key.templated_query}
    found: dict[str, int] = {}
    for location in ("path", "query"):
        for number, parameter in enumerate(parameters):
            if parameter.location == location and parameter.name in wanted:
                found.setdefault(parameter.name, number)
    if missing := sorted(set(wanted) - set(found)):
        raise SpecError(ref.pointer, f"query template(s) {missing} of {ref.path!r} are not declared")
    return {number: _as_query(parameters[number], wanted[name]) for name, number in found.items()}


def _as_query(parameter: RawParameter, name: str) -> RawParameter:
    if parameter.location == "query":
        return replace(parameter, name=name)
    return replace(parameter, name=name, location="query", style="form", explode=True)
