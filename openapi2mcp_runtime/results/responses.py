"""How one HTTP answer becomes one MCP tool result (pure: no I/O). A result too long for the model
is trimmed (trimming.py; a JSON body cut at the byte cap is read up to the cut, json_prefix.py) and
stays a success. A 2xx answer that deviates from the tool's output schema (the API broke its own
schema, another root type, a text or binary body) stays a success too: its structuredContent leaves
the deviating values out and `_meta` lists them (conform.py), while the text carries the answer
whole. Only when not even that meets the schema (a stricter schema than the generator makes) is
the result an isError one that says the call DID succeed: MCP clients reject a non-conforming
success."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import mcp.types as types

from ..upstream.serialize import to_json
from . import conform as cf
from . import json_prefix
from . import trimming as trim

Fit = trim.Fit  # how results are fitted to PREFIX_MAX_RESULT_CHARS (runtime.py makes one per call)
json_path = trim.json_path

Errors = cf.Errors  # jsonschema's errors of a value against the tool's output schema
ERROR_BODY_CHARS = 2_000  # body text kept in an HTTP error result
# _meta: the result's JSON is the API's answer put in {"result": ...} (no object, or the tool wraps it)
FRAMED = "openapi2mcp/framed"
SUCCEEDED = "Note: the API call succeeded "  # an isError only because the data deviates (succeeded)
_MAX_PROBLEMS = 8
_DENIED = "The credentials set for this MCP server are missing, wrong or not allowed this."
_TEXTUAL = ("json", "xml", "yaml", "csv", "javascript", "x-www-form-urlencoded", "graphql")


@dataclass(frozen=True)
class Upstream:
    """One HTTP answer, cut at the size cap: `omitted` bytes were left out (or more)."""

    method: str
    url: str  # as shown in messages: API keys in the query are already hidden
    status: int
    reason: str
    headers: Mapping[str, str]  # case-insensitive (httpx.Headers) in the runtime
    body: bytes
    omitted: int = 0
    omitted_at_least: bool = False

    @property
    def mime(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def kind(self) -> str:
        """json, text, image, audio or binary."""
        mime = self.mime
        if mime in ("application/json", "text/json") or mime.endswith("+json"):
            return "json"
        if mime.startswith("image/") and "svg" not in mime:
            return "image"
        if mime.startswith("audio/"):
            return "audio"
        if mime.startswith("text/") or any(word in mime for word in _TEXTUAL) or "svg" in mime:
            return "text"
        if mime:
            return "binary"
        try:
            self.body.decode("utf-8")
        except UnicodeDecodeError:
            return "binary"
        return "text"

    def text(self) -> str:
        found = re.search(r"charset=\"?([\w.:-]+)", self.headers.get("content-type", ""), re.I)
        try:
            return self.body.decode(found.group(1) if found else "utf-8", errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


def error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def tool_result(
    answer: Upstream,
    server: str,
    tool: str,
    wrapped: bool,
    errors: Errors | None,
    cut_hint: str,
    fit: trim.Fit | None = None,
) -> types.CallToolResult:
    """The result for `answer`; `errors` checks a value against the output schema (None: the tool
    has none); `fit` trims what is too long for the model (trimming.py)."""
    if answer.status >= 400:
        return error_result(status_text(answer))
    status = f"HTTP {answer.status} {answer.reason}".strip()
    kind = answer.kind
    if not answer.body and not answer.omitted:
        location = answer.headers.get("location")
        text = f"{status} (empty response body)" + (f"; Location: {location}" if location else "")
        return _success(answer, text, {}, "the response body is empty", errors)
    if kind == "json" and not answer.omitted:
        try:
            value = json.loads(answer.body, parse_constant=_no_constant)
        except ValueError as error:
            return error_result(
                f"The API answered {status} with Content-Type {answer.mime}, but the body is not valid"
                f" JSON ({error}). This is a fault of the API; the body starts with: "
                + answer.text()[:500]
            )
        structured = _frame(value, wrapped, errors is not None)
        framed = structured is not value
        text = to_json(structured)
        if fit and (trimmed := trim.trim_json(structured, text, fit)):
            return _success(answer, trimmed.text, trimmed.value, "", errors, trimmed, framed)
        return _success(answer, text, structured, "", errors, framed=framed)
    body_cut = (
        trim.BodyCut(answer.omitted, answer.omitted_at_least, cut_hint) if answer.omitted else None
    )
    if (
        fit
        and kind == "json"
        and body_cut
        and (read := json_prefix.read_prefix(answer.body, fit.limit))
    ):
        value, unread = read
        if (framed := _frame(value, wrapped, errors is not None)) is not value:
            value, unread = framed, [("result", *path) for path in unread]
        trimmed = trim.trim_json(value, to_json(value), fit, body_cut, unread)
        assert trimmed is not None  # a cut body always has its note
        return _success(answer, trimmed.text, trimmed.value, "", errors, trimmed)
    if fit and kind in ("json", "text"):  # text, or a cut JSON body whose start is not a value
        text = answer.text()
        typed = errors is not None
        if not (trimmed := trim.trim_text(text, fit, body_cut)):
            return _success(
                answer, text, _frame(text, wrapped, typed), f"it is {answer.mime}", errors
            )
        why = "the response was cut" if body_cut else f"it is {answer.mime}"
        wrapper = None if kind == "json" else _frame(trimmed.value, wrapped, typed)
        return _success(answer, trimmed.text, wrapper, why, errors, trimmed)
    cut = (
        f"\n[Response cut: {answer.omitted:,}{' or more' if answer.omitted_at_least else ''} bytes"
        f" were left out ({cut_hint}). Narrow the request (filters, paging) to get the rest.]"
    )
    if answer.omitted:
        text = answer.text() if kind in ("json", "text") else f"{status}: a {answer.mime} body."
        return _success(answer, text + cut, None, "the response was cut", errors)
    if kind == "text":
        text = answer.text()
        framed = _frame(text, wrapped, errors is not None)
        return _success(answer, text, framed, f"it is {answer.mime}", errors)
    data = base64.b64encode(answer.body).decode()
    block: types.ContentBlock
    if kind == "image":
        block = types.ImageContent(data=data, mime_type=answer.mime)
    elif kind == "audio":
        block = types.AudioContent(data=data, mime_type=answer.mime)
    else:
        disposition = answer.headers.get("content-disposition", "")
        filename = re.search(r"filename=\"?([^\";]+)", disposition)
        scheme = re.sub(r"[^a-z0-9+.-]", "-", server.lower()).lstrip("0123456789+.-") or "api"
        uri = f"{scheme}://{quote(tool, safe='')}/{quote(filename[1] if filename else 'response')}"
        mime = answer.mime or "application/octet-stream"
        blob = types.BlobResourceContents(uri=uri, mime_type=mime, blob=data)
        block = types.EmbeddedResource(resource=blob)
    return _success(answer, block, None, f"it is {answer.mime or 'binary data'}", errors)


def _frame(value: Any, wrapped: bool, typed: bool) -> Any:
    """The answer as the tool's results carry it: in `result` when the output schema wraps it (or,
    without an output schema, when it is no object); a typed tool's other root is a deviation."""
    return {"result": value} if wrapped or not (typed or isinstance(value, dict)) else value


def _success(
    answer: Upstream,
    shown: str | types.ContentBlock,
    data: Any,
    not_json: str,
    errors: Errors | None,
    trimmed: trim.Trimmed | None = None,
    framed: bool = False,
) -> types.CallToolResult:
    """`data` is the answer's value as framed (None: no value), `not_json` "" for JSON, else why the
    data is not JSON; a `trimmed` result has its note as a second block and its `_meta`, a `framed`
    one (the API's JSON put in `{"result": ...}`) the FRAMED key."""
    block = types.TextContent(text=shown) if isinstance(shown, str) else shown
    blocks: list[types.ContentBlock] = [block]
    meta = dict(trimmed.meta) if trimmed else {}
    if framed:
        meta[FRAMED] = True
    if trimmed:
        blocks.append(types.TextContent(text=trimmed.note))
    if errors is None:
        structured = None if not_json else data
        return types.CallToolResult(
            content=blocks, structured_content=structured, _meta=meta or None
        )
    if (fitted := cf.conform(data, errors)) is not None:
        meta.update(fitted.meta or {})
        return types.CallToolResult(
            content=blocks, structured_content=fitted.value, _meta=meta or None
        )
    problem = first_problem(errors(data if isinstance(data, dict) else {}))
    part = "the part of it read before the cut" if trimmed and _was_cut(trimmed) else "its data"
    why = not_json or f"{part} does not match the tool's output schema ({problem})"
    note = (
        f"{SUCCEEDED}(HTTP {answer.status} {answer.reason}), but {why}; the result"
        " is given as plain content below and flagged as an error only because this tool declares an"
        " output schema. Do not repeat the call because of this note."
    )
    return types.CallToolResult(
        content=[types.TextContent(text=note), *blocks], is_error=True, _meta=meta or None
    )


def succeeded(result: types.CallToolResult) -> bool:
    """Whether the call succeeded: no isError, or one only because its data does not fit the
    tool's output schema (the data then follows the note, as plain content)."""
    first = result.content[0] if result.content else None
    return not result.is_error or (
        isinstance(first, types.TextContent) and first.text.startswith(SUCCEEDED)
    )


def _was_cut(trimmed: trim.Trimmed) -> bool:
    return "responseCut" in trimmed.meta[trim.META_KEY]


def status_text(answer: Upstream) -> str:
    status = f"HTTP {answer.status} {answer.reason}"
    lines = [f"The API answered {status} to {answer.method} {answer.url}."]
    if retry := answer.headers.get("retry-after"):
        lines.append(f"Retry-After: {retry} (wait that long before trying again).")
    if answer.status in (401, 403):
        lines.append(_DENIED)
    if not answer.body:
        lines.append("(empty response body)")
    elif answer.kind not in ("json", "text"):
        lines.append(f"(a {answer.mime} body of {len(answer.body) + answer.omitted:,} bytes)")
    else:
        text = answer.text()
        shortened = len(text) > ERROR_BODY_CHARS or answer.omitted
        more = f" [... shortened to {ERROR_BODY_CHARS:,} characters]" if shortened else ""
        lines.append(f"Response body: {text[:ERROR_BODY_CHARS]}{more}")
    return "\n".join(lines)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def first_problem(errors: Sequence[Any]) -> str | None:
    """`$.path: message` for the shallowest jsonschema error, or None."""
    if not errors:
        return None
    error = min(errors, key=lambda e: len(e.absolute_path))
    return f"{json_path(error.absolute_path)}: {short(error.message)}"


def argument_problems(tool: str, errors: Sequence[Any]) -> str | None:
    """None, or each bad argument (JSON path) with its rule, unknown ones with the valid names."""
    if not errors:
        return None
    lines = []
    ordered = sorted(errors, key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    for error in ordered[:_MAX_PROBLEMS]:
        where = json_path(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            schema = error.schema if isinstance(error.schema, dict) else {}
            known = list(schema.get("properties") or {})
            extra = ", ".join(repr(key) for key in error.instance if key not in known)
            what = "argument(s)" if where == "$" else f"propert(ies) in {where}"
            lines.append(f"- unknown {what} {extra}; valid: {', '.join(known) or '(none)'}")
        else:
            lines.append(f"- {where}: {short(error.message)} (rule: {error.validator})")
    if len(errors) > _MAX_PROBLEMS:
        lines.append(f"- ... and {len(errors) - _MAX_PROBLEMS} more")
    return f"Invalid arguments for tool '{tool}'; nothing was sent to the API.\n" + "\n".join(lines)
