"""What every client script shares (it runs in the client's own venv, with the standard library
and that client only): the job it is given and the report it prints.

Job (a JSON file, the first argument): `{"servers": {SPEC: {"command": PATH, "sessions": {LABEL:
ENV, ...}}}, "errlog": PATH}`: for each server, one session per label (static, dynamic), the server
started by the client library over stdio with ENV; one after the other, so that the library is
imported once for all. Report (the second argument, JSON): per server and label, `listed` (tool
names as tools/list gave them), `converted` (names of the library's tool objects), `failed`
({name: error}) and, for openai-agents, `strict` (names) and `not_strict` ({name: why}); or
`{"error": TEXT}` when the session itself failed; and its `seconds`. In dynamic mode, `called`: the
text of `search_tools`' result, called through the library's own path (`CALL_TOOL`)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Convert = Callable[[str, Mapping[str, str], str], Awaitable[dict[str, Any]]]


SESSION_TIMEOUT = 300.0  # seconds for one session: start, list, convert, stop
# What a failed session raises: anyio's task groups wrap errors in an ExceptionGroup.
FAILURES = (ExceptionGroup, OSError, RuntimeError, ValueError, TypeError, AttributeError, KeyError)


async def session(convert: Convert, command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    start = time.monotonic()
    try:
        report = await asyncio.wait_for(convert(command, env, errlog), SESSION_TIMEOUT)
    except (TimeoutError, AssertionError, *FAILURES) as error:
        report = {"error": error_text(error)}
    return report | {"seconds": round(time.monotonic() - start, 2)}


def main(convert: Convert) -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        job = json.load(handle)

    async def run() -> dict[str, Any]:
        report: dict[str, Any] = {}
        for name, server in job["servers"].items():
            sessions = server["sessions"].items()
            report[name] = {
                label: await session(convert, server["command"], env, job["errlog"])
                for label, env in sessions
            }
        return report

    report = asyncio.run(run())
    with open(sys.argv[2], "w", encoding="utf-8") as handle:
        json.dump(report, handle)


# The call each library makes through its own path where the server is in dynamic mode: the
# search is answered by the server itself (harmless, nothing reaches the API).
CALL_TOOL, CALL_ARGUMENTS = "search_tools", {"query": ""}  # (empty: the first tools)


def error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:500]
