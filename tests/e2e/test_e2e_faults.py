"""Issue 16, retries and records end to end: the generated petstore server over stdio (the mcp
client) against the fault-injecting upstream of tests/runtime: a 503 then a reset body are retried
to a success, an HTML error page is an isError result, the next call works, and the audit log has
one line per call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Packages
from mcp_support import run_async, stdio_session, text_of
from module_files import import_file

pytestmark = pytest.mark.e2e


def _fault_module() -> Any:
    return import_file("fault_upstream", "runtime/fault_upstream.py")


def test_faults_through_a_generated_server_over_stdio(packages: Packages, tmp_path: Path) -> None:
    petstore = packages.get("petstore.yaml")
    log = tmp_path / "audit.jsonl"
    with _fault_module().fault_upstream() as faults:
        env = petstore.env(faults.url, TIMEOUT="10", AUDIT_LOG=str(log))

        async def body() -> list[Any]:
            async with stdio_session(petstore.command, env=env, errlog=tmp_path / "stderr.txt") as client:
                faults.script("status:503", "reset_mid_body")
                retried = await client.call_tool("get_health", {})
                faults.script("html_500")
                failed = await client.call_tool("get_health", {})
                faults.script()
                fine = await client.call_tool("get_health", {})
                return [retried, failed, fine]

        retried, failed, fine = run_async(body)
    assert not retried.is_error and retried.meta["openapi2mcp/attempts"] == 3, text_of(retried)
    assert text_of(retried).endswith("The API was tried 3 times.")
    assert failed.is_error and "HTTP 500 Internal Server Error" in text_of(failed)
    assert not fine.is_error and fine.meta["openapi2mcp/attempts"] == 1
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["tool"], x["session"], x["status"], x["attempts"], x["outcome"]) for x in lines] == [
        ("get_health", "stdio", 200, 3, "ok"),
        ("get_health", "stdio", 500, 1, "error"),
        ("get_health", "stdio", 200, 1, "ok"),
    ]
