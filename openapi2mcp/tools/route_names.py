"""Tool names an agent would write, for operations whose operationId no person chose.

Without an operationId, a name is made from the method and the path: a verb and the resource
(`GET /api/kernels` → `list_kernels`, `POST /api/kernels/{kernel_id}/restart` → `restart_kernel`).
FastAPI's default operationIds (`read_item_items__item_id__get`: the route function's name, the
path and the method) read as the route function's name (`read_item`). Each such name comes with
longer forms, taken in turn only where the shorter one is another tool's too (`naming.choose_tool_names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

_TEMPLATE = re.compile(r"{([^{}]*)}")
_CUSTOM_METHOD = re.compile(r"(?P<head>.+):(?P<verb>[A-Za-z][A-Za-z0-9_-]*)")  # Google's `{name}:cancel`
# Leading segments that say where an API lives, not what a tool does: `/api`, `/rest`, `/v1`, `/2.0`
_PREFIX = re.compile(r"(?i)api|rest|v\d+(?:[a-z]+\d*)?(?:\.\d+)*|\d+(?:\.\d+)*")
_FASTAPI_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_ON_COLLECTION = {"get": "list", "post": "create", "put": "replace", "patch": "update", "delete": "delete"}
_ON_ONE = {**_ON_COLLECTION, "get": "get"}
# A last path segment that starts with one of these is what the call does: `/kernels/{id}/restart`
# fmt: off
ACTION_VERBS = frozenset((
    "accept", "activate", "add", "analyze", "apply", "approve", "archive", "assign", "attach",
    "authorize", "block", "calculate", "cancel", "capture", "check", "clone", "close", "complete",
    "confirm", "convert", "copy", "count", "create", "deactivate", "decline", "delete", "deploy",
    "detach", "disable", "download", "duplicate", "enable", "estimate", "evaluate", "execute", "export",
    "fetch", "finalize", "find", "follow", "generate", "get", "import", "interrupt", "invite", "join",
    "leave", "list", "lock", "login", "logout", "lookup", "merge", "move", "mute", "pause", "pin",
    "ping", "predict", "preview", "publish", "query", "reboot", "rebuild", "refresh", "refund",
    "register", "reject", "remove", "rename", "render", "renew", "reopen", "resend", "reset", "resize",
    "resolve", "restart", "restore", "resume", "retry", "revoke", "rollback", "rotate", "run", "search",
    "send", "set", "share", "shutdown", "star", "start", "stop", "submit", "subscribe", "suspend",
    "sync", "test", "transfer", "translate", "trash", "unarchive", "unassign", "unblock", "undelete",
    "unfollow", "unlock", "unmute", "unpin", "unpublish", "unstar", "unsubscribe", "update", "upload",
    "validate", "verify",
))
# fmt: on
# Words that are the same in the singular (or read wrong without their `s`)
_SAME_IN_SINGULAR = frozenset(
    ["contents", "data", "metadata", "media", "news", "series", "species", "status"]
)


@dataclass(frozen=True)
class RouteName:
    """A route's names, shortest first, and its depth (segments and fixed query pairs): when two
    routes would have the same name, the shallower one keeps it."""

    names: tuple[str, ...]
    depth: int


def route_name(method: str, path_key: str) -> RouteName:
    """`GET /api/contents/{path}` → get_contents; then `..._by_path` and `..._by_path_api` forms."""
    path, _, fragment = path_key.partition("#")
    path, _, query = path.partition("?")
    segments = [segment for segment in path.split("/") if segment]
    words, templates, prefix = _resource_words(method.lower(), segments)
    pairs = parse_qsl(f"{query}&{fragment}", keep_blank_values=True)
    qualifiers = [
        word for pair in pairs if not _TEMPLATE.fullmatch(pair[1]) for part in pair for word in _words(part)
    ]
    name = [*words, *qualifiers]
    by = ["by", *templates] if templates else []
    forms = ("_".join(name), "_".join(name + by), "_".join(name + by + prefix))
    depth = len(segments) + len(parse_qsl(query, keep_blank_values=True))
    return RouteName(tuple(dict.fromkeys(forms)), depth)


def fastapi_route_name(operation_id: str, method: str, path_key: str) -> str | None:
    """The route function's name when `operation_id` is what FastAPI's `generate_unique_id` makes of
    it (`{name}{path with every non-word character as _}_{method}`), else None."""
    suffix = re.sub(r"\W", "_", path_key) + "_" + method.lower()
    name = operation_id.removesuffix(suffix)
    if name == operation_id or method.lower() not in _FASTAPI_METHODS:
        return None
    return name if re.fullmatch(r"\w+", name) else None


def _resource_words(method: str, segments: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The name's words (verb first), the path parameters' words, and the leading prefix's words."""
    parts = [part for segment in segments for part in _parts(segment)]
    start = 0
    while start < len(parts) and parts[start][0] == "literal" and _PREFIX.fullmatch(parts[start][1]):
        start += 1
    prefix = [word for _, text in parts[:start] for word in _words(text)]
    parts = parts[start:]
    templates = [word for kind, text in parts if kind == "template" for word in _words(text)]
    context = _context_words(parts, len(parts) - 1)
    last_kind, last = parts[-1] if parts else ("template", "")
    last_words = _words(last) if last_kind != "template" else []
    if last_kind == "action" or (last_words and last_words[0] in ACTION_VERBS):
        return [*last_words[:1], *context, *last_words[1:]], templates, prefix
    if last_kind == "template" or not last_words:  # `{id}`, or a segment without ASCII words
        verb = _ON_ONE.get(method, method)
        resource = context
    else:
        plural = _is_plural(last_words[-1])
        verb = (_ON_COLLECTION if plural else _ON_ONE).get(method, method)
        if method == "post":
            last_words = [*last_words[:-1], _singular(last_words[-1])]
        resource = context + last_words
    if not resource:  # `/api`: the prefix is all there is
        return [verb, *(prefix or ["root"])], templates, []
    return [verb, *resource], templates, prefix


def _parts(segment: str) -> list[tuple[str, str]]:
    """A segment as ("literal", text), ("template", name) for each parameter, and ("action", verb)
    for a custom method (`{name}:cancel`, `things:batchGet`)."""
    custom = _CUSTOM_METHOD.fullmatch(segment)
    if custom and "{" not in custom["verb"]:
        return [*_parts(custom["head"]), ("action", custom["verb"])]
    names = _TEMPLATE.findall(segment)
    if names:
        return [("template", name) for name in names]
    return [("literal", segment)]


def _context_words(parts: list[tuple[str, str]], end: int) -> list[str]:
    """The words of the literal segments before `end`: one of a collection (a segment before a
    parameter) is singular, `carts/{cartId}` → cart."""
    words: list[str] = []
    for index, (kind, text) in enumerate(parts[:end]):
        if kind == "template":
            continue
        own = _words(text)
        followed_by_template = index + 1 < len(parts) and parts[index + 1][0] == "template"
        if own and followed_by_template:
            own[-1] = _singular(own[-1])
        words += own
    return words


def _words(text: str) -> list[str]:
    """Lower-case ASCII words: `billingAddress`, `billing-address`, `_billing.address` → billing, address."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", text)
    return [word.lower() for word in re.split(r"[^A-Za-z0-9]+", spaced) if word]


def _is_plural(word: str) -> bool:
    """`kernels`, `policies`; not `status`, `address`, `sms` or `tls` (three letters or fewer)."""
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
        and word not in _SAME_IN_SINGULAR
    )


def _singular(word: str) -> str:
    if not _is_plural(word):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    return word[:-1]
