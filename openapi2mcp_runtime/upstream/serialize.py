"""How one tool call's arguments become one HTTP request: OpenAPI parameter styles and bodies.

Pure functions over a route of `tool_data.json`, standard library only; the rules are the README's
"Requests" table (everything outside RFC 3986 unreserved percent-encoded, style delimiters literal).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

_RESERVED_KEPT = ":/?[]@!$'()*+,;="  # allowReserved: reserved characters sent literally (not # &)
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_QUOTED = str.maketrans({'"': "%22", "\r": "%0D", "\n": "%0A"})  # in a multipart part's name
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # never in a header value (tab is fine)


class ArgumentError(ValueError):
    """An argument that validates against the schema but cannot be sent (a tool error)."""


@dataclass(frozen=True, slots=True)
class Param:
    arg: str
    name: str
    location: str
    style: str | None = None
    explode: bool | None = None
    allow_reserved: bool = False
    content_type: str | None = None


@dataclass(frozen=True, slots=True)
class Body:
    media_type: str
    kind: str
    required: bool
    fields: tuple[Param, ...]  # location "body", or "file" for binary (base64) fields
    arg: str | None
    binary: bool


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str
    params: tuple[Param, ...]
    body: Body | None
    security: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]  # OR of AND of (scheme, scopes)
    wrapped: bool
    has_output_schema: bool
    fixed_query: tuple[tuple[str, str], ...] = ()  # from a path key like `/items?view=full`
    base_url: str | None = None  # the operation's own server, when it is not the API's
    long_running: Any = None  # its `longRunning` (long_running.LongRunning reads it)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Route:
        raw, body = data.get("body"), None
        if raw:
            fields = tuple(map(_param, raw.get("fields") or ()))
            media, kind, required = raw["mediaType"], raw["kind"], bool(raw.get("required"))
            body = Body(media, kind, required, fields, raw.get("arg"), bool(raw.get("binary")))
        return cls(
            str(data["method"]).upper(),
            data["path"],
            tuple(map(_param, data.get("params") or ())),
            body,
            tuple(
                tuple((use["scheme"], tuple(use.get("scopes") or ())) for use in alternative)
                for alternative in data.get("security") or ()
            ),
            bool(data.get("wrapped")),
            bool(data.get("hasOutputSchema")),
            tuple((str(k), str(v)) for k, v in data.get("fixedQuery") or ()),
            data.get("baseUrl") and str(data["baseUrl"]),
            data.get("longRunning"),
        )


def _param(raw: Mapping[str, Any]) -> Param:
    """A parameter, or a body field (location "body", or "file" for binary: base64)."""
    location = raw.get("in") or ("file" if raw.get("binary") else "body")
    style, explode, reserved = raw.get("style"), raw.get("explode"), bool(raw.get("allowReserved"))
    return Param(
        raw["arg"], raw["name"], location, style, explode, reserved, raw.get("contentType")
    )


@dataclass(slots=True)
class PreparedRequest:
    """A request before the base URL, static headers and credentials are added."""

    method: str
    path: str  # percent-encoded, starts with "/"
    query: list[str] = field(default_factory=list)  # encoded "name=value" pairs, in order
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)  # encoded "name=value" pairs
    body: bytes | None = None
    content_type: str | None = None

    def url(self, base_url: str) -> str:
        """The full URL; `base_url` keeps its own path (`https://h/api/v1` + `/items`)."""
        return base_url.rstrip("/") + self.path + ("?" + "&".join(self.query) if self.query else "")


def pct(text: str, keep: str = "") -> str:
    """Percent-encode everything outside unreserved (and `keep`), as UTF-8 (wire_bytes)."""
    return quote(wire_bytes(text), safe=keep)


def wire_bytes(text: str) -> bytes:
    """The bytes `text` stands for: its UTF-8, except that surrogate escapes (a header read with
    `surrogateescape`: a credential's bytes that are not UTF-8) are their raw bytes again."""
    return text.encode("utf-8", "surrogateescape")


def scalar(value: Any) -> str:
    """A primitive as text: `true`/`false`, JSON numbers, strings as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else to_json(value)


def to_json(value: Any) -> str:
    """Compact JSON text, UTF-8 characters kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def decode_base64(arg: str, value: Any) -> bytes:
    """A base64 (or base64url, padding optional) argument as bytes."""
    if not isinstance(value, str):
        raise ArgumentError(f"Argument '{arg}' must be a base64-encoded string")
    text = re.sub(r"\s+", "", value).replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ArgumentError(f"Argument '{arg}' must be base64-encoded bytes ({error})") from None


def _split(value: Any, encode: Callable[[str], str]) -> tuple[list[str], list[str] | None] | None:
    """Arrays → (items, None); objects → (k, v, k, v..., ["k=v", ...]); primitives → None."""
    if isinstance(value, list):
        return [encode(scalar(item)) for item in value], None
    if isinstance(value, dict):
        pairs = [(encode(str(k)), encode(scalar(v))) for k, v in value.items() if v is not None]
        return [x for pair in pairs for x in pair], [f"{k}={v}" for k, v in pairs]
    return None


def path_value(p: Param, value: Any) -> str:
    """simple (default), label or matrix style, encoded; never more than one segment."""
    style, explode, name = p.style or "simple", bool(p.explode), pct(p.name)
    split = None if p.content_type else _split(value, pct)
    if split is None:
        text = pct(to_json(value) if p.content_type else scalar(value))
        if style == "matrix":
            return f";{name}={text}" if text else f";{name}"
        return "." + text if style == "label" else text
    flat, pairs = split
    if style == "matrix":
        if not explode:
            return f";{name}=" + ",".join(flat)
        kvs = pairs if pairs is not None else [f"{name}={v}" for v in flat]
        return "".join(f";{kv}" for kv in kvs)
    tokens = pairs if explode and pairs is not None else flat
    return "." + ("." if explode else ",").join(tokens) if style == "label" else ",".join(tokens)


def query_pairs(p: Param, value: Any) -> list[str]:
    """form (default), spaceDelimited, pipeDelimited or deepObject style: encoded `k=v` pairs."""
    style = p.style or "form"
    explode = p.explode if p.explode is not None else style == "form"
    keep = _RESERVED_KEPT if p.allow_reserved else ""
    name = pct(p.name, "[]")
    if p.content_type:
        return [f"{name}={pct(to_json(value), keep)}"]
    if style == "deepObject" and isinstance(value, dict):
        return _deep(p.name, value, keep)
    split = _split(value, lambda text: pct(text, keep))
    if split is None:
        return [f"{name}={pct(scalar(value), keep)}"]
    flat, pairs = split
    if explode:
        return pairs if pairs is not None else [f"{name}={v}" for v in flat]
    delimiter = {"spaceDelimited": "%20", "pipeDelimited": "|"}.get(style, ",")
    return [f"{name}=" + delimiter.join(flat)]


def _deep(prefix: str, value: Mapping[str, Any], keep: str) -> list[str]:
    """deepObject: `filter[status]=open`; nested objects nest brackets, arrays repeat the key."""
    pairs: list[str] = []
    for key, item in value.items():
        name = f"{prefix}[{key}]"
        if isinstance(item, dict):
            pairs += _deep(name, item, keep)
        else:
            items = item if isinstance(item, list) else [item]
            pairs += [f"{pct(name, '[]')}={pct(scalar(x), keep)}" for x in items if x is not None]
    return pairs


def header_value(p: Param, value: Any) -> str:
    """simple style: `a,b` for arrays, `k,v` or `k=v` (explode) for objects; no control chars."""
    split = None if p.content_type else _split(value, str)
    if split is None:
        text = to_json(value) if p.content_type else scalar(value)
    else:
        text = ",".join(split[1] if p.explode and split[1] is not None else split[0])
    return checked_header(p.arg, text)


def checked_header(what: str, text: str) -> str:
    """`text` if it is a safe header value (no CR, LF or other control characters), trimmed."""
    if CONTROL_CHARS.search(text):
        raise ArgumentError(
            f"'{what}' is sent as an HTTP header value and must not contain "
            "control characters such as CR or LF"
        )
    return text.strip(" \t")


def build_request(route: Route, arguments: Mapping[str, Any]) -> PreparedRequest:
    """The request for schema-valid `arguments`; raises ArgumentError for unsendable values."""
    request = PreparedRequest(route.method, "")
    request.query += [f"{pct(name)}={pct(value)}" for name, value in route.fixed_query]
    path_values: dict[str, str] = {}
    for p in route.params:
        value = arguments.get(p.arg)
        if value is None:
            continue
        if p.location == "path":
            path_values[p.name] = path_value(p, value)
            if not path_values[p.name]:
                raise ArgumentError(f"Argument '{p.arg}' is a path segment and must not be empty")
        elif p.location == "query":
            request.query += query_pairs(p, value)
        elif p.location == "header":
            if value in ([], {}):
                continue  # an empty list or object has no simple-style text: the header is left out
            request.headers[p.name] = header_value(p, value)
        elif p.location == "cookie":  # form style, never allowReserved: `id=3,4,5` or exploded
            form = replace(p, style="form", explode=bool(p.explode), allow_reserved=False)
            request.cookies += query_pairs(form, value)

    def fill(match: re.Match[str]) -> str:
        if match.group(1) not in path_values:
            raise ArgumentError(f"Missing the path parameter '{match.group(1)}'")
        return path_values[match.group(1)]

    path = _TEMPLATE.sub(fill, route.path)
    segments = [s.replace(".", "%2E") if s and not s.strip(".") else s for s in path.split("/")]
    request.path = "/".join(segments) if path.startswith("/") else "/" + "/".join(segments)
    if route.body is not None:
        _add_body(request, route.body, arguments)
    return request


def _add_body(request: PreparedRequest, body: Body, arguments: Mapping[str, Any]) -> None:
    if body.arg is None:
        value: Any = {f.arg: arguments[f.arg] for f in body.fields if f.arg in arguments}
    else:
        value = arguments.get(body.arg)
    if not body.required and (value is None or (body.arg is None and not value)):
        return
    if value is None:
        raise ArgumentError(f"Argument '{body.arg}' (the request body) is required")
    media = body.media_type
    if body.kind == "json":
        if body.arg is None:  # the flattened fields under their wire names
            value = {f.name: value[f.arg] for f in body.fields if f.arg in value}
        request.body = to_json(value).encode()
        request.content_type = "application/json" if "*" in media else media
    elif body.kind == "form":
        request.body = "&".join(_form_pairs(body, value)).encode("ascii")
        request.content_type = media
    elif body.kind == "multipart":
        boundary = secrets.token_hex(16)
        request.body = _multipart(body, value, boundary)
        request.content_type = f"{media.split(';')[0]}; boundary={boundary}"
    elif body.kind == "binary" or body.binary:
        request.body = decode_base64(body.arg or "body", value)
        request.content_type = "application/octet-stream" if "*" in media else media
    else:
        request.body = scalar(value).encode()
        request.content_type = "text/plain" if "*" in media else media


def _fields(body: Body, value: Any) -> list[tuple[Param, Any]]:
    if body.arg is None:  # form and multipart leave out null fields (JSON sends them)
        return [(f, value[f.arg]) for f in body.fields if value.get(f.arg) is not None]
    if not isinstance(value, dict):
        raise ArgumentError(f"Argument '{body.arg}' must be an object for a {body.media_type} body")
    return [(Param(str(k), str(k), "body"), v) for k, v in value.items() if v is not None]


def _form_pairs(body: Body, value: Any) -> list[str]:
    pairs: list[str] = []
    for f, item in _fields(body, value):
        if f.location == "file":
            pairs.append(f"{pct(f.name)}={quote(decode_base64(f.arg, item), safe='')}")
        else:
            pairs += query_pairs(f, item)
    return pairs


def _multipart(body: Body, value: Any, boundary: str) -> bytes:
    out = bytearray()
    for f, item in _fields(body, value):
        for part in item if isinstance(item, list) else [item]:
            disposition = f'form-data; name="{f.name.translate(_QUOTED)}"'
            if f.location == "file":
                data = decode_base64(f.arg, part)
                disposition += f'; filename="{f.name.translate(_QUOTED)}"'
                content_type: str | None = f.content_type or "application/octet-stream"
            elif isinstance(part, dict | list) or "json" in (f.content_type or ""):
                data = to_json(part).encode()
                content_type = f.content_type or "application/json"
            else:
                data, content_type = scalar(part).encode(), f.content_type
            out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n".encode()
            if content_type:
                out += f"Content-Type: {content_type}\r\n".encode()
            out += b"\r\n" + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out)
