"""The inspect report as one JSON document (keys documented in the README), and `generate`'s
one-line summary; `text.py` renders it as text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openapi2mcp.report.advice import Advice, Choice, advise, mode
from openapi2mcp.report.clients import Finding, findings
from openapi2mcp.report.estimate import BYTES_PER_TOKEN, MAX_LIST_TOKENS
from openapi2mcp.report.measure import Group, Measurement

REPORT_FORMAT = 1


@dataclass(frozen=True)
class Report:
    source: str
    kind: str  # "spec" or "package"
    measurement: Measurement
    findings: tuple[Finding, ...]
    advice: Advice


def report(source: str, kind: str, measurement: Measurement) -> Report:
    return Report(source, kind, measurement, findings(measurement), advise(measurement))


def summary(measurement: Measurement) -> str:
    """`generate`'s line: tools, toolsets, estimated tokens, recommended mode."""
    whole, default = measurement.all, measurement.default
    line = (
        f"{len(whole.tools):,} {plural(len(whole.tools), 'tool')} in {len(measurement.toolsets):,} "
        f"{plural(len(measurement.toolsets), 'toolset')}, tools/list about {whole.tokens:,} tokens"
    )
    if len(default.tools) != len(whole.tools):
        line += f" ({len(default.tools):,} in the default toolsets: about {default.tokens:,})"
    return line + f"; recommended mode: {mode(measurement)}"


def to_json(result: Report) -> dict[str, Any]:
    m = result.measurement
    return {
        "format": REPORT_FORMAT,
        "source": result.source,
        "kind": result.kind,
        "bytesPerToken": BYTES_PER_TOKEN,
        "tools": len(m.all.tools),
        "toolsList": _size(m.all),
        "default": {"toolsets": list(m.default.names), "tools": len(m.default.tools), **_size(m.default)},
        "toolsets": [
            {
                "name": toolset.name,
                "default": toolset.default,
                "description": toolset.description,
                "tools": len(toolset.group.tools),
                **_size(toolset.group),
            }
            for toolset in m.toolsets
        ],
        "largestTools": [
            {
                "name": tool.name,
                "toolset": tool.toolset,
                "bytes": tool.bytes,
                "tokens": tool.tokens,
                "inputSchemaBytes": tool.input_schema_bytes,
            }
            for tool in m.largest
        ],
        "clients": [
            {
                "id": finding.client.id,
                "client": finding.client.name,
                "rule": finding.client.rule,
                "source": finding.client.source,
                "ok": finding.ok,
                "finding": finding.text,
                "tools": list(finding.tools),
            }
            for finding in result.findings
        ],
        "recommendation": {
            "mode": result.advice.mode,
            "maxListTokens": MAX_LIST_TOKENS,
            "reason": result.advice.reason,
            "toolsets": [_choice(choice) for choice in result.advice.choices],
        },
    }


def _size(group: Group) -> dict[str, int]:
    return {"bytes": group.bytes, "tokens": group.tokens}


def _choice(choice: Choice) -> dict[str, Any]:
    return {
        "budget": choice.budget.label,
        "limit": choice.budget.limit,
        "unit": choice.budget.unit,
        "clients": list(choice.budget.clients),
        "isDefault": choice.is_default,
        "toolsets": list(choice.group.names),
        "tools": len(choice.group.tools),
        **_size(choice.group),
        "flag": choice.flag,
    }


def plural(count: int, noun: str) -> str:
    return noun if count == 1 else noun + "s"
