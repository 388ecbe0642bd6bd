"""Path keys that carry more than a path: `/items?view=full`, `/weather?city={city}` or
`/#Action=AssumeRole`.

Vendors distinguish operations on one URL this way. A fragment is never sent over HTTP, so it is
dropped; a query part becomes fixed query pairs sent before the tool's own query parameters, and a
pair whose whole value is a template (`city={city}`) names a query parameter: the parameter the
template names (declared `in: path`, as the template stands in the path key, or `in: query`) is
sent as the query parameter `city` (`tools/inputs.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from openapi2mcp.diagnostics import Diagnostics, SpecError

_WHOLE_TEMPLATE = re.compile(r"{([^{}]+)}")


@dataclass(frozen=True)
class PathKey:
    """A path key read: the path template, the fixed query pairs, and the templated ones."""

    path: str
    fixed_query: tuple[tuple[str, str], ...] = ()
    templated_query: tuple[tuple[str, str], ...] = ()  # (query name, template name): `city={city}`


def split_path_key(key: str, pointer: str, diagnostics: Diagnostics) -> PathKey:
    """The path template, fixed query pairs and templated query pairs of a path key."""
    without_fragment, _, fragment = key.partition("#")
    path, _, query = without_fragment.partition("?")
    if fragment:
        diagnostics.info(pointer, f"path key {key!r}: the fragment '#{fragment}' is not sent over HTTP")
    fixed: list[tuple[str, str]] = []
    templated: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        whole = _WHOLE_TEMPLATE.fullmatch(value)
        if whole and not {"{", "}"} & set(name) and name not in templated:
            templated[name] = whole.group(1)
        elif whole or "{" in name + value or "}" in name + value:
            rule = "a template may only be a whole value, `name={parameter}`, each name once"
            raise SpecError(
                pointer, f"path key {key!r}: the query pair '{name}={value}' is not supported ({rule})"
            )
        else:
            fixed.append((name, value))
    if fixed:
        sent = "&".join(f"{name}={value}" for name, value in fixed) if templated else query
        diagnostics.info(pointer, f"path key {key!r}: sends the fixed query {sent!r} with every call")
    return PathKey(path or "/", tuple(fixed), tuple(templated.items()))
