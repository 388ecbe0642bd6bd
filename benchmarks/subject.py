"""What the benchmark runs: a generated package for a spec, its environment, and the tool it calls.

The call benchmarks need one tool that works against the fixed-JSON upstream: a GET tool without required
arguments whose output schema accepts the upstream's body (a minimal instance of that schema)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PACKAGE_NAME = "bench"  # the generated import package; env prefix BENCH


@dataclass(frozen=True)
class Subject:
    spec: Path
    out: Path  # the generated project (holds the `bench` package)
    tool: str  # the tool the call benchmarks call
    operation: tuple[str, str]  # its METHOD and path (to find a peer's tool)
    body: bytes  # the upstream's fixed answer, accepted by the tool's output schema
    tool_data: dict[str, Any] = field(repr=False, compare=False)  # the package's tool_data.json

    def command(self) -> list[str]:
        return [sys.executable, "-m", PACKAGE_NAME]

    def env(self, base_url: str) -> dict[str, str]:
        """The server's environment: the upstream as base URL, a dummy value for every credential, the
        static mode (issue 6's limits are the static list's: `auto` would list cloudflare dynamically;
        benchmarks/discovery.py measures that mode), and no other setting of the runtime's."""
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(self.out), "BENCH_BASE_URL": base_url}
        env["BENCH_MODE"] = "static"
        for scheme in self.tool_data.get("securitySchemes", {}).values():
            for variable in (scheme.get("env") or {}).values():
                env[variable] = "bench-credential"
        return env


def prepare(spec: Path, out: Path) -> Subject:
    """The subject of `spec`, whose package (`bench`) was generated into `out` (the generation
    benchmark leaves it there)."""
    data = json.loads((out / PACKAGE_NAME / "data" / "tool_data.json").read_bytes())
    for tool, body in _candidates(data):
        route = data["routes"][tool["name"]]
        operation = (route["method"], route["path"])
        return Subject(spec, out, tool["name"], operation, json.dumps(body).encode(), data)
    raise RuntimeError(f"{spec}: no GET tool without required arguments to call")


def operation_id(spec: Path, method: str, path: str) -> str | None:
    """The operationId of METHOD path in the spec (for a peer that names tools after it)."""
    from openapi2mcp.load.source import load_source

    document, _ = load_source(str(spec))
    paths = document.get("paths") if isinstance(document, dict) else None
    item = paths.get(path) if isinstance(paths, dict) else None
    operation = item.get(method.lower()) if isinstance(item, dict) else None
    found = operation.get("operationId") if isinstance(operation, dict) else None
    return found if isinstance(found, str) else None


def _candidates(data: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], Any]]:
    """GET tools without required arguments, with a body their output schema accepts (a tool whose
    result is wrapped, `{"result": ...}`, gets the inner value as its body)."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    for tool in data["tools"]:
        route = data["routes"].get(tool["name"])
        if not route or route["method"] != "GET" or tool["inputSchema"].get("required"):
            continue
        schema = tool.get("outputSchema") or {"type": "object"}
        wrapped = bool(route.get("wrapped"))
        inner = schema.get("properties", {}).get("result", {}) if wrapped else schema
        body = minimal_instance(inner)
        if Draft202012Validator(schema).is_valid({"result": body} if wrapped else body):
            yield tool, body


def minimal_instance(schema: Any, depth: int = 0) -> Any:
    """A small value of `schema`: required properties only, first branches, lower bounds."""
    if not isinstance(schema, dict) or depth > 12:
        return {}
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return minimal_instance(schema[key][0], depth + 1)
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: minimal_instance(properties.get(name), depth + 1) for name in schema.get("required", [])
        }
    if kind == "array":
        return [minimal_instance(schema.get("items"), depth + 1) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "x" * schema.get("minLength", 1)
