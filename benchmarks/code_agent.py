"""The scripted agent of the code-mode benchmark (benchmarks/code_mode.py): an `mcp.Client` over
stdio (protocol 2025-11-25) that counts what enters an agent's context: the tools/list answer once
per task (what clients give the model of it: each tool's name, description and inputSchema), then
for every tools/call its arguments' JSON and its result's text content, in UTF-8 bytes and in
tokens (`TOKENIZER`). The tasks' scripts read each result as an agent would: they parse its text."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import mcp.types as types

READ_TIMEOUT = 60.0  # seconds for one MCP request
TRIMMED = "openapi2mcp/trimmed"  # the _meta key of a result the server trimmed (results/trimming.py)
# What of a tool the client libraries we test put before the model (openai-agents, langchain-mcp-adapters,
# pydantic-ai by default, google-genai; Claude Code's API request too): not its title, annotations or
# outputSchema, which they keep for themselves.
MODEL_FIELDS = {"name", "description", "input_schema"}  # inputSchema on the wire
# The tokenizer of OpenAI's GPT-4o, 4.1 and later models; bpe-openai builds it in, where tiktoken
# would download its tables. (Anthropic publishes none for its current models.)
TOKENIZER = "o200k_base"


class TaskFailed(RuntimeError):
    """A tool answered an error where the script expected a result, or a script's check failed."""


@dataclass
class Ledger:
    """What one task's run put into the agent's context, in UTF-8 bytes, and in tokens."""

    listed: int = 0  # the tools/list answer: each tool's MODEL_FIELDS
    arguments: int = 0  # every tools/call's arguments, as JSON
    results: int = 0  # every tools/call result's text content
    calls: int = 0  # tools/call requests (search, describe, call_tool or run_code)
    api_calls: int = 0  # the API calls made: call_tool's, or as run_code's answer counts them
    preamble: int = 0  # the total once tools/list, search_tools and describe_tools are counted
    by_tool: dict[str, int] = field(default_factory=dict)  # arguments and results, by tool called
    tokens: int = 0  # all of it (tools/list, arguments, results), in tokens

    @property
    def work(self) -> int:
        """What the task's calls cost after discovery (tools/list, search, describe)."""
        return self.total - self.preamble

    @property
    def total(self) -> int:
        return self.listed + self.arguments + self.results


def model_view(tools: Sequence[types.Tool]) -> str:
    """The tools as a model is given them: MODEL_FIELDS of each, compact JSON."""
    return json.dumps(
        [tool.model_dump(by_alias=True, exclude_none=True, include=MODEL_FIELDS) for tool in tools],
        ensure_ascii=False,
        separators=(",", ":"),
    )


@cache
def _encoding() -> Any:
    import bpe_openai  # type: ignore[import-untyped]  # (no py.typed)

    return bpe_openai.get_encoding(TOKENIZER)


def tokens(text: str) -> int:
    """The tokens `text` takes in a model's context (`TOKENIZER`; text that looks like a special
    token is counted as text)."""
    return len(_encoding().encode_ordinary(text))


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


class Agent:
    """One task's run on one session: every request counted in `ledger`."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.ledger = Ledger()

    async def list_tools(self) -> list[str]:
        listed = await self.client.list_tools(cache_mode="refresh")
        view = model_view(listed.tools)
        self.ledger.listed += len(view.encode())
        self.ledger.tokens += tokens(view)
        return [tool.name for tool in listed.tools]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        arguments_json = json.dumps(arguments, ensure_ascii=False)
        result: types.CallToolResult = await self.client.call_tool(name, dict(arguments))
        text = text_of(result)
        sent, received = len(arguments_json.encode()), len(text.encode())
        ledger = self.ledger
        ledger.tokens += tokens(arguments_json) + tokens(text)
        ledger.calls, ledger.arguments, ledger.results = (
            ledger.calls + 1,
            ledger.arguments + sent,
            ledger.results + received,
        )
        ledger.by_tool[name] = ledger.by_tool.get(name, 0) + sent + received
        return result

    async def search(self, query: str) -> list[str]:
        """search_tools: the names it found (dynamic mode answers JSON; code mode a line a tool,
        `name (api.function): description [toolset]`, then the count)."""
        result = await self.call("search_tools", {"query": query})
        if result.structured_content is not None:
            return [tool["name"] for tool in result.structured_content["tools"]]
        *lines, _count = text_of(result).split("\n")
        return [re.split(r": | \(api\.| \[", line, maxsplit=1)[0] for line in lines]

    async def find(self, queries: Sequence[str], tools: Sequence[str]) -> None:
        """Search with each query until every one of `tools` was found (an agent searches again
        only for what it has not found yet), then describe `tools`."""
        found: set[str] = set()
        for query in queries:
            found.update(await self.search(query))
            if found.issuperset(tools):
                break
        if missing := [tool for tool in tools if tool not in found]:
            raise TaskFailed(f"search_tools {list(queries)} did not find {missing}")
        asked = list(tools)
        while asked:  # describe_tools names the tools past MAX_RESULT_CHARS: ask again for those
            described = await self.call("describe_tools", {"names": asked})
            if described.is_error:
                raise TaskFailed(f"describe_tools: {text_of(described)[:300]}")
            asked = not_described(described)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Dynamic mode's call_tool: the result's text, parsed as JSON where it is."""
        result = await self.call("call_tool", {"name": name, "arguments": dict(arguments)})
        self.ledger.api_calls += 1
        text = text_of(result)
        if result.is_error:
            raise TaskFailed(f"call_tool {name} {dict(arguments)}: {text[:400]}")
        if result.meta and TRIMMED in result.meta:  # no API of the set pages: the agent cannot go on
            raise TaskFailed(f"call_tool {name}: the result was trimmed ({len(text):,} characters)")
        try:
            return json.loads(text) if text else None
        except ValueError:
            return text

    async def run_code(self, program: str) -> Any:
        """Code mode's run_code: the program's result."""
        result = await self.call("run_code", {"code": program})
        if result.is_error:
            raise TaskFailed(f"run_code: {text_of(result)[:1500]}")
        answer = (
            json.loads(result.content[0].text) if isinstance(result.content[0], types.TextContent) else {}
        )
        self.ledger.api_calls += int(answer.get("calls") or 0)
        return answer.get("result")


def not_described(result: types.CallToolResult) -> list[str]:
    """The tools a describe_tools answer left for another call: dynamic mode names them in
    `not_described`, code mode in a last comment (`# Not described, ... (N characters): a, b. Ask...`)."""
    if result.structured_content is not None:
        return list(result.structured_content.get("not_described") or [])
    left = re.search(
        r"^# Not described, [^\n]*? characters\): (.*)\. Ask describe_tools", text_of(result), re.M
    )
    return left.group(1).split(", ") if left else []


def server_env(out: Path, mode: str, settings: Mapping[str, str]) -> dict[str, str]:
    """The generated server's environment: the package on PYTHONPATH, the mode, the settings."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(out),
        "BENCH_MODE": mode,
        **settings,
    }


@asynccontextmanager
async def session(out: Path, package: str, env: Mapping[str, str], errlog: Path) -> AsyncIterator[Any]:
    """An `mcp.Client` over stdio on `python -m PACKAGE` (its stderr appended to `errlog`)."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", package], env=dict(env), cwd=out)
    with open(errlog, "a") as err:
        transport = stdio_client(params, errlog=err)
        async with Client(transport, mode="legacy", read_timeout_seconds=READ_TIMEOUT) as client:
            yield client
