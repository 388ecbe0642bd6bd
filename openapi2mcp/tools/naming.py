"""Tool and argument names: sanitized to a portable character set, bounded, unique and stable."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openapi2mcp.model import NameStyle

_TOOL_UNSAFE = {"portable": re.compile(r"[^A-Za-z0-9_-]"), "mcp": re.compile(r"[^A-Za-z0-9_.-]")}
_TOOL_MAX = {"portable": 64, "mcp": 128}
_ARGUMENT_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
ARGUMENT_MAX = 64
_HASH_LENGTH = 8


def short_hash(text: str) -> str:
    """A short stable hash (hex) of `text`, the same on every machine and run."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_LENGTH]


def shorten(name: str, limit: int, seed: str) -> str:
    """Keep `name` if it fits, else a readable head plus `_` and a hash of `seed`."""
    if len(name) <= limit:
        return name
    head = name[: limit - _HASH_LENGTH - 1].rstrip("_-.")
    return f"{head}_{short_hash(seed)}"


def tool_name(raw: str, style: NameStyle = "portable") -> str:
    """Sanitize an operationId (or a derived name) into a tool name of the chosen style."""
    cleaned = _TOOL_UNSAFE[style].sub("_", raw) or "tool"
    return shorten(cleaned, _TOOL_MAX[style], raw)


def unique_tool_names(candidates: Sequence[tuple[str, str]], style: NameStyle = "portable") -> list[str]:
    """Make names unique: every member of a clash gets a suffix hashed from its own identity.

    `candidates` are (name, identity) pairs; identity (`METHOD path`) is unique per operation, so
    the result does not depend on the order of the spec.
    """
    limit = _TOOL_MAX[style]
    names = [name for name, _ in candidates]
    for _ in range(4):
        groups: dict[str, list[int]] = defaultdict(list)
        for index, name in enumerate(names):
            groups[name].append(index)
        clashing = [indexes for indexes in groups.values() if len(indexes) > 1]
        if not clashing:
            return names
        for indexes in clashing:
            for index in indexes:
                identity = candidates[index][1]
                suffix = f"_{short_hash(identity)}"
                names[index] = names[index][: limit - len(suffix)] + suffix
    raise ValueError("tool names are still not unique after hashing; identities must be unique")


@dataclass(frozen=True)
class NameChoice:
    """The names a tool may take, best first: one for a name a person chose (an operationId, an
    `x-mcp` name); for a derived one (from the route, or a framework's operationId) longer forms too."""

    names: tuple[str, ...]
    identity: str  # `METHOD path-key`, unique in the spec
    derived: bool = False
    depth: int = 0  # a derived name's route depth: of routes that would share a name, the shallowest keeps it


def choose_tool_names(choices: Sequence[NameChoice], style: NameStyle = "portable") -> list[str]:
    """One name per tool, unique. A derived name gives way to a chosen one; of derived names alike, the
    shallowest route keeps its name (all take their next form when several are as shallow). What is
    still shared then (chosen names alike) gets `unique_tool_names`' hashes. Nothing depends on the
    order of the spec, and a new operation renames only tools that would share a name with it."""
    ladders = [
        (*choice.names, f"{choice.names[-1]}_{short_hash(choice.identity)}")
        if choice.derived
        else choice.names
        for choice in choices
    ]
    chosen = {choice.names[0] for choice in choices if not choice.derived}
    level = [0] * len(choices)
    moved = True
    while moved:
        moved = False
        groups: dict[str, list[int]] = defaultdict(list)
        for index, ladder in enumerate(ladders):
            groups[ladder[level[index]]].append(index)
        for name, indexes in groups.items():
            for index in _giving_way(name, indexes, choices, chosen):
                if level[index] + 1 < len(ladders[index]):
                    level[index] += 1
                    moved = True
    names = [tool_name(ladder[at], style) for ladder, at in zip(ladders, level, strict=True)]
    return unique_tool_names(list(zip(names, (c.identity for c in choices), strict=True)), style)


def _giving_way(name: str, indexes: list[int], choices: Sequence[NameChoice], chosen: set[str]) -> list[int]:
    """Which of the tools that `name` would be (at `indexes`) take their next form."""
    derived = [index for index in indexes if choices[index].derived]
    if name in chosen:
        return derived
    if len(derived) < 2:
        return []
    shallowest = min(choices[index].depth for index in derived)
    keepers = [index for index in derived if choices[index].depth == shallowest]
    return derived if len(keepers) > 1 else [index for index in derived if index not in keepers]


def argument_name(raw: str) -> str:
    """An argument name in `[A-Za-z0-9_.-]{1,64}`; unchanged when it already fits."""
    cleaned = _ARGUMENT_UNSAFE.sub("_", raw) or "_"
    return shorten(cleaned, ARGUMENT_MAX, raw)


# Which argument keeps a name that several share: a path parameter names the resource that every
# operation of its path shares, so it keeps its name first; a body property always gives way.
_KEEPS_NAME_FIRST = ("path", "query", "header", "cookie", "body")


def giving_way(entries: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (argument name, location) of each parameter among `entries` (raw name, location; no body)
    that gives way to a parameter of another location, earlier in `_KEEPS_NAME_FIRST`."""
    named = [(argument_name(raw), _KEEPS_NAME_FIRST.index(location), location) for raw, location in entries]
    best: dict[str, int] = {}
    for name, rank, _ in named:
        best[name] = min(best.get(name, rank), rank)
    return {(name, location) for name, rank, location in named if rank > best[name]}


def resolve_argument_clashes(
    entries: Sequence[tuple[str, str]], moved: frozenset[tuple[str, str]] = frozenset()
) -> list[str]:
    """Name each (raw name, location) entry. Of entries that share a name, the one in the first
    location of `_KEEPS_NAME_FIRST` keeps it and the others get `_{location}`; when several share
    that first location, all of them get it. A parameter whose (argument name, location) is in
    `moved` (`shared_names.py`: it gives way in some tool of the API) gets `_{location}` even where
    nothing clashes, so a parameter has one argument name in every tool of an API, whatever the
    bodies hold; a body property sharing its name still gives way.

    A second round disambiguates what is still equal (two parameters that sanitize alike, a suffixed
    name that another argument has) with a hash of the raw name and location, sparing the one
    entry that kept its own name, if there is one.
    """
    base = [argument_name(raw) for raw, _ in entries]
    ranks = [_KEEPS_NAME_FIRST.index(location) for _, location in entries]
    best: dict[str, int] = {}
    for name, rank in zip(base, ranks, strict=True):
        best[name] = min(best.get(name, rank), rank)
    at_best = _counts(name for name, rank in zip(base, ranks, strict=True) if rank == best[name])
    kept = {
        index
        for index, (name, rank) in enumerate(zip(base, ranks, strict=True))
        if rank == best[name] and at_best[name] == 1 and (name, entries[index][1]) not in moved
    }
    names = [
        name if index in kept else _suffixed(name, f"_{location}")
        for index, (name, (_, location)) in enumerate(zip(base, entries, strict=True))
    ]
    groups: dict[str, list[int]] = defaultdict(list)
    for index, name in enumerate(names):
        groups[name].append(index)
    for indexes in groups.values():
        moved_here = [index for index in indexes if index not in kept] if len(indexes) > 1 else []
        for index in moved_here:  # a group holds at most one kept name: it stays
            raw, location = entries[index]
            names[index] = _suffixed(names[index], f"_{short_hash(raw + ' ' + location)}")
    return names


def _counts(names: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for name in names:
        counts[name] += 1
    return counts


def _suffixed(name: str, suffix: str) -> str:
    return name[: ARGUMENT_MAX - len(suffix)] + suffix


def humanize(name: str) -> str:
    """`listPets` → `List pets`, `get_/pets/{id}` → `Get pets id`."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    words = [word for word in re.split(r"[^A-Za-z0-9]+", spaced) if word]
    if not words:
        return name
    text = " ".join(word if word.isupper() and len(word) > 1 else word.lower() for word in words)
    return text[0].upper() + text[1:]


def env_token(text: str) -> str:
    """Upper-case with every non-alphanumeric turned to `_` (env-variable names)."""
    return re.sub(r"[^A-Za-z0-9]", "_", text).upper()
