"""Path keys that carry more than a path: `/items?view=full` or `/#Action=AssumeRole`.

Vendors distinguish operations on one URL this way. A fragment is never sent over HTTP, so it is
dropped; a query part becomes fixed query pairs sent before the tool's own query parameters.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from openapi2mcp.diagnostics import Diagnostics, SpecError


def split_path_key(
    key: str, pointer: str, diagnostics: Diagnostics
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The path template and the fixed query pairs of a path key."""
    without_fragment, _, fragment = key.partition("#")
    path, _, query = without_fragment.partition("?")
    if fragment:
        diagnostics.info(pointer, f"path key {key!r}: the fragment '#{fragment}' is not sent over HTTP")
    if "{" in query or "}" in query:
        raise SpecError(pointer, f"path key {key!r}: a template in the query part is not supported")
    pairs = tuple(parse_qsl(query, keep_blank_values=True))
    if pairs:
        diagnostics.info(pointer, f"path key {key!r}: sends the fixed query {query!r} with every call")
    return path or "/", pairs
