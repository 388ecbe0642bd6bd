"""Load a spec document (path or http(s) URL, YAML or JSON) into plain JSON-compatible data, within
the limits of `limits.py` (a document past one is a `LoadError` naming the limit)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from openapi2mcp.load.limits import (
    MAX_TEXT_BYTES,
    LimitError,
    check_data,
    check_json,
    check_text,
    is_number_too_long,
    number_too_long,
    too_deep,
    too_long,
)

JSON = Any
_FETCH_TIMEOUT_SECONDS = 30.0
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class LoadError(Exception):
    """The spec cannot be read at all: the message names the file and, where known, the line."""


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def load_source(source: str) -> tuple[JSON, str]:
    """Read a path or URL; return the parsed document and the text's name for messages."""
    if is_url(source):
        return parse_text(_fetch(source), source), source
    path = Path(source)
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise LoadError(f"{source}: cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise LoadError(f"{source}: {too_long(path.stat().st_size, 'bytes').message}")
    return parse_text(_decode(raw, source), source), source


def _fetch(url: str) -> str:
    import httpx  # here: a tenth of a second of start-up that only a URL needs

    try:
        response = httpx.get(url, timeout=_FETCH_TIMEOUT_SECONDS, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise LoadError(f"{url}: cannot fetch the spec: {exc}") from None
    if response.status_code >= 400:
        raise LoadError(f"{url}: cannot fetch the spec: HTTP {response.status_code}")
    return _decode(response.content, url)


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{name}: not UTF-8 text (byte {exc.start}): {exc.reason}") from None


def parse_text(text: str, name: str) -> JSON:
    """Parse JSON or YAML text; YAML that PyYAML rejects is retried with a YAML 1.2 parser."""
    try:
        check_text(text)
        return _parse(text, name)
    except LimitError as exc:
        where = f"{name}:{exc.line}" if exc.line is not None else name
        raise LoadError(f"{where}: {exc.message}") from None


def _parse(text: str, name: str) -> JSON:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if not name.lower().endswith((".yaml", ".yml")):
                raise LoadError(f"{name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except ValueError as exc:
            if is_number_too_long(exc):
                raise number_too_long() from None
            raise
        except RecursionError:  # the C decoder stops at Python's recursion limit, well past MAX_DEPTH
            raise too_deep(sys.getrecursionlimit(), at_least=True) from None
        else:
            check_json(data, text)
            return _without_lone_surrogates(data) if _SURROGATE_ESCAPE.search(text) else data
    return _parse_yaml(text, name)


def _parse_yaml(text: str, name: str) -> JSON:
    """PyYAML (read the 1.2 way), then ruamel.yaml; then both again with forbidden characters escaped."""
    import yaml  # here: JSON specs do without its import

    from openapi2mcp.load.yaml_data import load_yaml, to_json

    first_error: Exception
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        first_error = exc
    except ValueError as exc:  # a scalar PyYAML cannot construct (`0b_`): YAML 1.2 may read it
        if is_number_too_long(exc):
            raise number_too_long() from None
        first_error = exc
    if getattr(first_error, "problem", None) == _LIBYAML_TOO_DEEP:  # ruamel would only take longer
        mark = getattr(first_error, "problem_mark", None)
        raise too_deep(_LIBYAML_MAX_DEPTH, mark.line + 1 if mark else None, at_least=True)
    data = _parse_yaml_1_2(text)
    if data is None and _DISALLOWED.search(text):
        escaped = _DISALLOWED.sub(_escaped, text)
        try:
            return load_yaml(escaped)  # JSON-ready already
        except (yaml.YAMLError, ValueError):
            data = _parse_yaml_1_2(escaped)
    if data is None:
        where, problem = _yaml_position(first_error), _yaml_problem(first_error)
        raise LoadError(f"{name}:{where} invalid YAML: {problem}")
    check_data(data)  # before `to_json` copies what aliases share
    return to_json(data)


_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"  # libyaml's own limit, past ours
_LIBYAML_MAX_DEPTH = 1000

# Control characters YAML forbids in a stream but JSON strings allow (vendors' YAML has them).
_DISALLOWED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    """`\\x9f`: the same character again inside a double-quoted scalar, visible text elsewhere."""
    return f"\\x{ord(match.group()):02x}"


def _parse_yaml_1_2(text: str) -> JSON | None:
    """ruamel.yaml reads YAML 1.2 that PyYAML (YAML 1.1) rejects; None when it fails too."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    parser = YAML(typ="safe", pure=True)
    try:
        return parser.load(text)
    except (YAMLError, ValueError):
        return None


def _yaml_position(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return ""
    return f"{mark.line + 1}:{mark.column + 1}:"


def _yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    return str(problem) if problem else str(exc).splitlines()[0]


def _without_lone_surrogates(node: JSON) -> JSON:
    """JSON may escape half a UTF-16 pair (`\\ud800`), which no file can hold: make it U+FFFD."""
    if isinstance(node, str):
        return node.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(node, dict):
        return {_without_lone_surrogates(key): _without_lone_surrogates(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_without_lone_surrogates(item) for item in node]
    return node
