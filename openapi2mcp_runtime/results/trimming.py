"""Results an agent can read: a tool result's JSON trimmed to PREFIX_MAX_RESULT_CHARS characters
(arrays from the end, long strings cut, optional properties of a huge object from the end, never
what the output schema requires), plain text cut, and the note and `_meta[META_KEY]` that say
what was left out and how to page.

Deterministic, and fast: a value is measured as its compact JSON text (`serialize.to_json`); the
trimmer enters only what must shrink, sizing each child of a container it enters once (an array's
items only until its budget is spent), so a 1 MB value costs about two serializations of it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..upstream import serialize as ser
from .trim_values import Trimmer, flat
from .trim_values import to_json as _json

META_KEY = "openapi2mcp/trimmed"  # the result's _meta key describing a trimmed result
NOTE_RESERVE = 1_000  # characters of the limit kept for the note (the JSON gets the rest)
_NAMED = 3  # cuts of each kind named in the note (up to _LISTED in _meta)
_LISTED = 50
_PAGING = re.compile(  # argument names, lower-cased, without `_`, `-`, `.`, `[`, `]`, `$`
    r"page(number|no|size|token|cursor|after|before)?|nextpagetoken|perpage|(next)?cursor|limit"
    r"|offset|skip|top|after|before|startingafter|endingbefore|nexttoken|continuation(token)?"
    r"|marker|max(results|items)|start(index)?"
)


class Limits(Protocol):
    """What `Fit.of` reads of the runtime's Settings."""

    @property
    def prefix(self) -> str: ...
    @property
    def max_result_chars(self) -> int: ...


@dataclass(frozen=True)
class Fit:
    """How one tool's results are fitted: the limit, the output schema, the paging arguments."""

    limit: int
    setting: str  # the variable's name, for the note
    schema: Mapping[str, Any] | None = None
    paging: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Limits, route: ser.Route, schema: Mapping[str, Any] | None) -> Fit:
        return cls(
            settings.max_result_chars, f"{settings.prefix}_MAX_RESULT_CHARS", schema, paging(route)
        )


@dataclass(frozen=True)
class BodyCut:
    """The body was cut at PREFIX_MAX_RESPONSE_BYTES: `omitted` bytes (or more) were not read."""

    omitted: int
    at_least: bool
    setting: str  # e.g. "API_MAX_RESPONSE_BYTES=1000000"


@dataclass(frozen=True)
class Trimmed:
    value: Any  # the structured content (for plain text: the text)
    text: str  # what the first content block shows: the value's JSON, or the cut text
    note: str  # the second content block
    meta: dict[str, Any]  # the result's _meta


def paging(route: ser.Route) -> tuple[str, ...]:
    """The arguments of the operation's query parameters and body fields named like paging ones."""
    fields = route.body.fields if route.body else ()
    return tuple(
        param.arg
        for param in (*route.params, *fields)
        if param.location in ("query", "body")
        and _PAGING.fullmatch(re.sub(r"[_.\[\]$-]", "", param.name.lower()))
    )


def json_path(parts: Sequence[Any]) -> str:
    """`$.filter.status`, `$.tags[0]`, `$['odd name']`."""
    return "$" + "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" if re.fullmatch(r"\w+", p) else f"[{p!r}]"
        for p in parts
    )


# ---- results -----------------------------------------------------------------------------------


def trim_json(
    value: Any,
    text: str,
    fit: Fit,
    cut: BodyCut | None = None,
    unread: Iterable[tuple[Any, ...]] = (),
) -> Trimmed | None:
    """`value` (whose JSON is `text`) within the limit; None when it fits and the body was whole.
    `unread`: the arrays the cut body left open (their total is unknown)."""
    if len(text) <= fit.limit and cut is None:
        return None
    budget = fit.limit - NOTE_RESERVE if fit.limit > 2 * NOTE_RESERVE else fit.limit // 2
    trimmer = Trimmer(fit.schema, set(unread))
    schemas = flat([fit.schema], fit.schema)
    trimmed, shown = value, text
    if len(text) > budget:
        trimmed = trimmer.fit(value, schemas, budget, len(text), ())[0]
        shown = _json(trimmed)
    recorded = {path for path, _, _ in trimmer.arrays}
    for path in dict.fromkeys(unread):  # open arrays the trimmer did not enter: all read is shown
        if path not in recorded and (length := _length(trimmed, path)) is not None:
            trimmer.arrays.append((path, length, None))
    cuts = {
        kind: [{"path": json_path(p), "kept": kept, "total": total} for p, kept, total in entries]
        for kind, entries in (
            ("arrays", trimmer.arrays),
            ("strings", trimmer.strings),
            ("properties", trimmer.objects),
        )
    }
    original = None if cut else len(text)
    return _result(trimmed, shown, fit, cut, original, cuts)


def _length(value: Any, path: tuple[Any, ...]) -> int | None:
    """The length of the array at `path`; None if trimming left it out."""
    for part in path:
        if (isinstance(value, dict) and part in value) or (
            isinstance(value, list) and part < len(value)
        ):
            value = value[part]
        else:
            return None
    return len(value) if isinstance(value, list) else None


def trim_text(text: str, fit: Fit, cut: BodyCut | None = None) -> Trimmed | None:
    """Plain text cut to the limit (less the note's reserve); None when it fits and is whole."""
    if len(text) <= fit.limit and cut is None:
        return None
    budget = fit.limit - NOTE_RESERVE if fit.limit > 2 * NOTE_RESERVE else fit.limit // 2
    shown = text if len(text) <= fit.limit else text[:budget]
    strings = [{"path": "$", "kept": len(shown), "total": len(text)}] if shown != text else []
    cuts: dict[str, list[dict[str, Any]]] = {"arrays": [], "strings": strings, "properties": []}
    return _result(shown, shown, fit, cut, None if cut else len(text), cuts)


def _result(
    value: Any,
    shown: str,
    fit: Fit,
    cut: BodyCut | None,
    original: int | None,
    cuts: Mapping[str, list[dict[str, Any]]],
) -> Trimmed:
    listed = {kind: entries[:_LISTED] for kind, entries in cuts.items()}
    meta: dict[str, Any] = {
        "originalChars": original,
        "shownChars": len(shown),
        "limit": fit.limit,
        "setting": fit.setting,
        **listed,
        "unlisted": sum(len(entries) - len(listed[kind]) for kind, entries in cuts.items()),
        "paging": list(fit.paging),
    }
    if cut:
        meta["responseCut"] = {
            "omittedBytes": cut.omitted,
            "atLeast": cut.at_least,
            "setting": cut.setting,
        }
    return Trimmed(
        value, shown, _note(fit, cut, original, cuts)[: NOTE_RESERVE - 1], {META_KEY: meta}
    )


def _note(
    fit: Fit, cut: BodyCut | None, original: int | None, cuts: Mapping[str, list[dict[str, Any]]]
) -> str:
    parts = []
    if cut:
        parts.append(
            f"The API answered successfully, but its response was too long: {cut.omitted:,}"
            f"{' or more' if cut.at_least else ''} bytes were left out ({cut.setting}); shown is"
            " what was read before the cut."
        )
    arrays, strings, objects = cuts["arrays"], cuts["strings"], cuts["properties"]
    if original is not None:
        parts.append(f"Trimmed to fit {fit.setting}={fit.limit:,} (the result had {original:,}).")
    elif strings or objects or any(entry["total"] is not None for entry in arrays):
        parts.append(f"What was read was trimmed to fit {fit.setting}={fit.limit:,}.")
    left = [
        f"items of {a['path']} after the first {a['kept']:,}"
        + ("" if a["total"] is None else f" (of {a['total']:,})")
        for a in arrays[:_NAMED]
    ]
    left += [f"{s['total'] - s['kept']:,} characters of {s['path']}" for s in strings[:_NAMED]]
    left += [f"{o['total'] - o['kept']:,} properties of {o['path']}" for o in objects[:_NAMED]]
    if left:
        unnamed = len(arrays) + len(strings) + len(objects) - len(left)
        parts.append(f"Left out: {'; '.join(left)}{f'; {unnamed} more' if unnamed else ''}.")
    if fit.paging:
        parts.append(f"To get the rest, page with this tool's arguments {', '.join(fit.paging)}.")
    else:
        parts.append("This operation has no paging arguments: narrow the request to get the rest.")
    return "[" + " ".join(parts) + " The call succeeded: repeating it unchanged gives the same.]"
