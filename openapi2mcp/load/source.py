"""Load a spec document (path or http(s) URL, YAML or JSON) into plain JSON-compatible data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

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
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"{source}: cannot read the file: {exc.strerror or exc}") from None
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
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(text)
            return _without_lone_surrogates(data) if _SURROGATE_ESCAPE.search(text) else data
        except json.JSONDecodeError as exc:
            if not name.lower().endswith((".yaml", ".yml")):
                raise LoadError(f"{name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    return _parse_yaml(text, name)


def _parse_yaml(text: str, name: str) -> JSON:
    """PyYAML (read the 1.2 way), then ruamel.yaml; then both again with forbidden characters escaped."""
    import yaml  # here: JSON specs do without its import

    from openapi2mcp.load.yaml_data import load_yaml, to_json

    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        first_error = exc
    data = _parse_yaml_1_2(text)
    if data is None and _DISALLOWED.search(text):
        escaped = _DISALLOWED.sub(_escaped, text)
        try:
            return load_yaml(escaped)  # JSON-ready already
        except yaml.YAMLError:
            data = _parse_yaml_1_2(escaped)
    if data is None:
        where, problem = _yaml_position(first_error), _yaml_problem(first_error)
        raise LoadError(f"{name}:{where} invalid YAML: {problem}")
    return to_json(data)


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


def _yaml_position(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return ""
    return f"{mark.line + 1}:{mark.column + 1}:"


def _yaml_problem(exc: yaml.YAMLError) -> str:
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
