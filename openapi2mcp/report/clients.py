"""What the main clients do with a tools/list, each rule with where it is documented.

The count rules apply to what a server lists in static mode when no toolset is chosen (its default
toolsets); the per-tool rules (names, schema size) to every tool, since any may be chosen."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from openapi2mcp.report.measure import Measurement

OPENAI_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
CLAUDE_INPUT_SCHEMA_BYTES = 16 * 1024
REQUEST_TOOLS = 128  # VS Code and the OpenAI API
CURSOR_TOOLS = 40
CLAUDE_CODE_RESULT_TOKENS = 25_000


@dataclass(frozen=True)
class Client:
    id: str
    name: str
    rule: str  # the limit, in a few words
    source: str  # where it is documented


@dataclass(frozen=True)
class Finding:
    client: Client
    ok: bool
    text: str
    tools: tuple[str, ...] = ()  # the tools that break a per-tool rule


VSCODE = Client(
    "vscode",
    "VS Code",
    f"at most {REQUEST_TOOLS} tools per chat request (the user must deselect the rest)",
    'VS Code docs, "Use MCP servers in VS Code" (https://code.visualstudio.com/docs/copilot/customization/mcp-servers)',
)
OPENAI = Client(
    "openai",
    "OpenAI API",
    f"at most {REQUEST_TOOLS} tools per request; names ^[a-zA-Z0-9_-]{{1,64}}$",
    'OpenAI API docs, "Function calling" (https://platform.openai.com/docs/guides/function-calling)',
)
CURSOR = Client(
    "cursor",
    "Cursor",
    f"tool selection degrades past about {CURSOR_TOOLS} active tools",
    'Cursor docs, "Model Context Protocol (MCP)", and the Cursor forum',
)
CLAUDE_AI = Client(
    "claude-ai",
    "claude.ai / Claude Desktop",
    f"drops a tool whose inputSchema is over {CLAUDE_INPUT_SCHEMA_BYTES // 1024} KiB",
    "observed (no published limit); generate's --input-schema-limit (16 KiB by default) keeps under it",
)
CLAUDE_CODE = Client(
    "claude-code",
    "Claude Code",
    f"defers tool definitions to its tool search; cuts a tool result at {CLAUDE_CODE_RESULT_TOKENS:,} "
    "tokens (MAX_MCP_OUTPUT_TOKENS)",
    'Claude Code docs, "MCP" (https://code.claude.com/docs/en/mcp)',
)
CLIENTS = (VSCODE, OPENAI, CURSOR, CLAUDE_AI, CLAUDE_CODE)


def findings(measurement: Measurement) -> tuple[Finding, ...]:
    """One finding per client of `CLIENTS`, in that order."""
    checks: dict[str, Callable[[Measurement], Finding]] = {
        VSCODE.id: lambda m: _count(VSCODE, m, REQUEST_TOOLS, "the user must deselect"),
        OPENAI.id: _openai,
        CURSOR.id: lambda m: _count(CURSOR, m, CURSOR_TOOLS, "tool selection degrades with"),
        CLAUDE_AI.id: _claude_ai,
        CLAUDE_CODE.id: _claude_code,
    }
    return tuple(checks[client.id](measurement) for client in CLIENTS)


def _listed(measurement: Measurement) -> str:
    count = len(measurement.default.tools)
    return f"{count:,} {_tools(count)} listed (the default toolsets, static mode)"


def _count(client: Client, measurement: Measurement, limit: int, consequence: str) -> Finding:
    count = len(measurement.default.tools)
    if count <= limit:
        return Finding(client, True, f"{_listed(measurement)}: within {limit}")
    return Finding(
        client, False, f"{_listed(measurement)}: over {limit}; {consequence} {count - limit:,} more"
    )


def _openai(measurement: Measurement) -> Finding:
    count = len(measurement.default.tools)
    bad = tuple(tool.name for tool in measurement.all.tools if not OPENAI_NAME.fullmatch(tool.name))
    problems = []
    if count > REQUEST_TOOLS:
        problems.append(f"over {REQUEST_TOOLS}: a request with all of them is refused")
    if bad:
        problems.append(f"{len(bad):,} {_tools(len(bad))} named outside ^[a-zA-Z0-9_-]{{1,64}}$ (refused)")
    text = f"{_listed(measurement)}: " + ("; ".join(problems) if problems else f"within {REQUEST_TOOLS}")
    return Finding(OPENAI, not problems, text + ("" if bad else "; every name is valid"), bad)


def _claude_ai(measurement: Measurement) -> Finding:
    big = tuple(
        tool.name for tool in measurement.all.tools if tool.input_schema_bytes > CLAUDE_INPUT_SCHEMA_BYTES
    )
    if not big:
        return Finding(CLAUDE_AI, True, f"every inputSchema is within {CLAUDE_INPUT_SCHEMA_BYTES:,} bytes")
    over = f"{CLAUDE_INPUT_SCHEMA_BYTES:,} bytes"
    text = f"{len(big):,} {_tools(len(big))} with an inputSchema over {over} (dropped)"
    return Finding(CLAUDE_AI, False, text, big)


def _claude_code(measurement: Measurement) -> Finding:
    tokens = measurement.default.tokens
    return Finding(
        CLAUDE_CODE,
        True,
        f"the listed tools' definitions (about {tokens:,} tokens) wait in its tool search (on by default) "
        "until needed; "
        f"keep each result under {CLAUDE_CODE_RESULT_TOKENS:,} tokens",
    )


def _tools(count: int) -> str:
    return "tool" if count == 1 else "tools"
