"""The file, line and column of each diagnostic's JSON pointer, for messages and CI annotations.

Only called when diagnostics are printed, with the pointers printed: nothing of it runs on the
path of a generation. A pointer into a multi-file spec goes through the `$ref`s that the bundler
inlined: where its node is not in the root file, the walk goes on in the file the `$ref` names
(the same reach rules as the bundler, `bundle_sources.Sources`), at the `$ref`'s fragment. Remote
documents are not fetched again: a pointer into one stays at the `$ref` that names it. Best effort:
a file that cannot be read or walked gives the deepest place found before it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from openapi2mcp.load.bundle_sources import DEFAULT_REF_OPTIONS, RefFailure, RefOptions, Sources
from openapi2mcp.load.limits import MAX_TEXT_BYTES
from openapi2mcp.load.lines_walk import Reached, walk
from openapi2mcp.load.refs import unescape_token
from openapi2mcp.load.source import is_url

MAX_FILES = 64  # files read to place one printout's pointers


@dataclass(frozen=True)
class Location:
    """Where a pointer's node is written: `file` as shown to the user (relative to the working
    directory when under it), 1-based `line` and `column` (None: the file as a whole)."""

    file: str
    line: int | None = None
    column: int | None = None


def locate(
    source: str, pointers: Iterable[str], options: RefOptions = DEFAULT_REF_OPTIONS
) -> dict[str, Location]:
    """The location of each pointer (`#/paths/~1pets/get`) of the spec read from `source`; none for
    a spec read from a URL."""
    wanted = sorted(set(pointers))
    if is_url(source) or not wanted:
        return {}
    sources = Sources(source, None, options)
    shown = _shown(source)
    found: dict[str, Location] = {}
    queue: dict[str, list[tuple[tuple[str, ...], str]]] = {sources.root: [(_tokens(p), p) for p in wanted]}
    names = {sources.root: shown}
    for _ in range(MAX_FILES):
        if not queue:
            break
        path, requests = queue.popitem()
        reached = _walk_file(path, [tokens for tokens, _ in requests])
        for (_, pointer), place in zip(requests, reached, strict=True):
            if place.line is not None or pointer not in found:  # keep the `$ref` over a whole file
                found[pointer] = Location(names[path], place.line, place.column)
            target = _follow(sources, place, path)
            if target is not None:
                names.setdefault(target[0], _shown(target[0]))
                queue.setdefault(target[0], []).append((target[1], pointer))
    return found


def _walk_file(path: str, requests: list[tuple[str, ...]]) -> list[Reached]:
    """The requests walked in a regular file (a FIFO would wait forever) within the loader's size."""
    nowhere = [Reached(None, None) for _ in requests]
    if not any(requests) or not os.path.isfile(path):
        return nowhere
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_TEXT_BYTES + 1)
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return nowhere
    return nowhere if len(raw) > MAX_TEXT_BYTES else walk(text, requests)


def _follow(sources: Sources, place: Reached, base: str) -> tuple[str, tuple[str, ...]] | None:
    """The file and tokens where a pointer goes on, when it left this file by a `$ref`."""
    if not place.rest or place.ref is None or place.ref.startswith("#"):
        return None
    uri, _, fragment = place.ref.partition("#")
    try:
        location = sources.locate(uri, base)
    except RefFailure:
        return None
    if is_url(location):
        return None
    return location, (*_tokens("#" + unquote(fragment)), *place.rest)


def _tokens(pointer: str) -> tuple[str, ...]:
    """`#/a~1b/0` → ("a/b", "0"); `#` → ()."""
    path = pointer[1:] if pointer.startswith("#") else pointer
    return tuple(unescape_token(token) for token in path.split("/")[1:])


def _shown(path: str) -> str:
    """A path relative to the working directory when it lies under it (as CI annotations want)."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive (Windows)
        return path
    return absolute if relative.startswith(os.pardir) else relative
