"""The inspect report as readable text: a header, tables, the client findings, the advice."""

from __future__ import annotations

from typing import Any

from openapi2mcp.report.advice import Choice
from openapi2mcp.report.clients import Finding
from openapi2mcp.report.document import Report, plural
from openapi2mcp.report.estimate import BYTES_PER_TOKEN
from openapi2mcp.report.measure import Group, Measurement

LISTED = 10  # names shown in one line or list before "and N more"
TOOLSETS_SHOWN = 10  # rows of the toolset table (the largest)


def to_text(result: Report) -> str:
    m = result.measurement
    lines = [
        f"{result.source} ({result.kind}): {_count(m.all)} in {len(m.toolsets):,} "
        f"{plural(len(m.toolsets), 'toolset')}",
        f"tools/list: {m.all.bytes:,} bytes, about {m.all.tokens:,} tokens "
        f"(estimate: ceil(bytes / {BYTES_PER_TOKEN}))",
        f"default toolsets: {_defaults(m)}",
        "",
        *_toolsets(m),
        "",
        *_table(
            ("largest tools", "toolset", "bytes", "tokens", "inputSchema"),
            [(t.name, t.toolset, t.bytes, t.tokens, t.input_schema_bytes) for t in m.largest],
        ),
        "",
        "clients:",
    ]
    for finding in result.findings:
        lines += _finding(finding)
    lines += ["", f"recommended mode: {result.advice.mode} ({result.advice.reason})"]
    lines.append("recommended toolsets (static mode):")
    lines += [
        f"  {choice.budget.label} ({', '.join(choice.budget.clients)}): {_advice(choice)}"
        for choice in result.advice.choices
    ]
    return "\n".join(lines)


def _defaults(m: Measurement) -> str:
    sizes = f"{_count(m.default)}, {m.default.bytes:,} bytes, about {m.default.tokens:,} tokens"
    if len(m.default.names) == len(m.toolsets):
        return f"all ({sizes})"
    return f"{_names(m.default.names)} ({sizes})"


def _toolsets(m: Measurement) -> list[str]:
    """The largest toolsets first (ties in tools/list order)."""
    largest = sorted(m.toolsets, key=lambda toolset: -toolset.group.bytes)
    rows = [
        (t.name, "yes" if t.default else "no", len(t.group.tools), t.group.bytes, t.group.tokens)
        for t in largest[:TOOLSETS_SHOWN]
    ]
    table = _table(("toolset", "default", "tools", "bytes", "tokens"), rows)
    if len(largest) > TOOLSETS_SHOWN:
        table.append(
            f"... and {len(largest) - TOOLSETS_SHOWN:,} smaller toolsets (--format json lists them all)"
        )
    return table


def _finding(finding: Finding) -> list[str]:
    lines = [f"  {finding.client.name}: {'ok' if finding.ok else 'PROBLEM'}: {finding.text}"]
    lines += [f"    - {name}" for name in finding.tools[:LISTED]]
    if len(finding.tools) > LISTED:
        lines.append(f"    - ... and {len(finding.tools) - LISTED:,} more (--format json lists them all)")
    return [*lines, f"    rule: {finding.client.rule}", f"    source: {finding.client.source}"]


def _advice(choice: Choice) -> str:
    sizes = f"{_count(choice.group)}, about {choice.group.tokens:,} tokens"
    if choice.is_default:
        return f"the default toolsets fit ({sizes})"
    if not choice.group.names:
        return "no default toolset fits alone: use the dynamic mode (or --tools NAME,...)"
    return f"{choice.flag} ({sizes})"


def _names(names: tuple[str, ...]) -> str:
    if not names:
        return "none"
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED:,} more" if len(names) > LISTED else "")


def _count(group: Group) -> str:
    return f"{len(group.tools):,} {plural(len(group.tools), 'tool')}"


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    """Columns of numbers right-aligned (thousands separated), the others left-aligned."""
    text = [header, *(tuple(f"{v:,}" if isinstance(v, int) else str(v) for v in row) for row in rows)]
    widths = [max(len(row[i]) for row in text) for i in range(len(header))]
    numeric = [i > 0 and all(isinstance(row[i], int) for row in rows) for i in range(len(header))]
    return [
        "  ".join(
            cell.rjust(w) if n else cell.ljust(w) for cell, w, n in zip(row, widths, numeric, strict=True)
        ).rstrip()
        for row in text
    ]
