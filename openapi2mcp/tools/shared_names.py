"""One argument name for one parameter across a whole API (issue 28, part 3).

Kubernetes' `connectCoreV1GetNamespacedPodProxyWithPath` has a path parameter `{path}` and a query
parameter `path`: the query one gives way there (`path_query`), so it is `path_query` in every
tool, also in `connectCoreV1GetNamespacedPodProxy`, which has only the query `path`.
"""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError
from openapi2mcp.load.refs import Resolver
from openapi2mcp.tools.inputs import operation_parameters
from openapi2mcp.tools.naming import giving_way
from openapi2mcp.tools.operations import iter_operations
from openapi2mcp.tools.path_keys import split_path_key


def moved_parameter_names(document: dict[str, Any], resolver: Resolver) -> frozenset[tuple[str, str]]:
    """The (argument name, location) of every path, query, header or cookie parameter that gives way
    to a parameter of another location in at least one operation of `document` (all of them, whatever
    the selectors keep). The operations are read as `build_inputs` reads them, into diagnostics that
    are dropped (mapping reports them); one that cannot be read is skipped here as it is there. A
    credential parameter (security.credential_slots) is not left out: at worst, needlessly moved."""
    quiet = Diagnostics()
    moved: set[tuple[str, str]] = set()
    for ref in iter_operations(document, resolver, quiet):
        try:
            key = split_path_key(ref.path, ref.pointer, quiet)
            parameters = operation_parameters(ref, resolver, quiet, key)
        except SpecError:
            continue
        moved |= giving_way([(parameter.name, parameter.location) for parameter in parameters])
    return frozenset(moved)
