"""Tool and argument names: sanitized to a portable character set, bounded, unique and stable."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

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
    """Sanitize an operationId (or `{method}_{path}`) into a tool name of the chosen style."""
    cleaned = _TOOL_UNSAFE[style].sub("_", raw) or "tool"
    return shorten(cleaned, _TOOL_MAX[style], raw)


def fallback_raw_name(method: str, path: str) -> str:
    """The raw name of an operation without an operationId: `get_/pets/{id}`."""
    return f"{method.lower()}_{path}"


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


def argument_name(raw: str) -> str:
    """An argument name in `[A-Za-z0-9_.-]{1,64}`; unchanged when it already fits."""
    cleaned = _ARGUMENT_UNSAFE.sub("_", raw) or "_"
    return shorten(cleaned, ARGUMENT_MAX, raw)


def resolve_argument_clashes(entries: Sequence[tuple[str, str]]) -> list[str]:
    """Name each (raw name, location) entry; names shared by several entries get `_{location}`.

    A second round disambiguates what is still equal (two parameters that sanitize alike) with a
    hash of the raw name and location.
    """
    base = [argument_name(raw) for raw, _ in entries]
    counts = _counts(base)
    names = [
        name if counts[name] == 1 else _suffixed(name, f"_{location}")
        for name, (_, location) in zip(base, entries, strict=True)
    ]
    counts = _counts(names)
    return [
        name if counts[name] == 1 else _suffixed(name, f"_{short_hash(raw + ' ' + location)}")
        for name, (raw, location) in zip(names, entries, strict=True)
    ]


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
