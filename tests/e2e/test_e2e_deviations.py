"""Issue 28, a success is never an error, end to end: a server generated from a Jupyter-like spec,
run over stdio with the official `mcp` client in both protocol eras (which validates
structuredContent against the listed outputSchema), against a recording upstream that answers as
the real Jupyter Server does: a folder's `content` is an array where the spec says string. The
call is a success, its text is the answer whole and `_meta` names `/content`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Generated, Packages, dump
from mcp_support import CLIENT_MODES, run_async, stdio_session, text_of
from recording_upstream import RecordingUpstream, Reply

pytestmark = pytest.mark.e2e

STRING = {"type": "string"}
MODEL = {
    "type": "object",
    "required": ["name", "path", "type", "content", "format"],
    "properties": {"name": STRING, "path": STRING, "type": STRING, "content": STRING, "format": STRING},
}
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Contents", "version": "1"},
    "servers": [{"url": "http://localhost:8888"}],
    "paths": {
        "/api/contents/{path}": {
            "get": {
                "operationId": "getContents",
                "parameters": [{"name": "path", "in": "path", "required": True, "schema": STRING}],
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": MODEL}}}
                },
            }
        },
        "/api/sessions": {
            "get": {
                "operationId": "listSessions",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"type": "array", "items": MODEL}}},
                    }
                },
            }
        },
    },
}
FOLDER = {
    "name": "notebooks",
    "path": "notebooks",
    "type": "directory",
    "format": "json",
    "content": [{"name": "a.ipynb", "path": "notebooks/a.ipynb", "type": "notebook", "content": None}],
}
SESSIONS = [{"name": "a.ipynb", "path": 7, "type": "notebook"}, "gone"]
KEY = "openapi2mcp/deviations"


@pytest.fixture(scope="module")
def contents(packages: Packages, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    spec = tmp_path_factory.mktemp("deviations") / "contents.json"
    spec.write_text(json.dumps(SPEC), "utf-8")
    return packages.get(spec)


@pytest.mark.parametrize("mode", list(CLIENT_MODES))
@pytest.mark.representative(mode="legacy")  # (CI's second pass: tests/conftest.py)
def test_a_real_answer_off_the_spec_is_a_conforming_success_through_the_mcp_client(
    contents: Generated, tmp_path: Path, mode: str
) -> None:
    routes: dict[str, Any] = {
        "/api/contents/": Reply(body=json.dumps(FOLDER).encode()),
        "/api/sessions": Reply(body=json.dumps(SESSIONS).encode()),
    }
    with RecordingUpstream(routes=routes) as upstream:
        env = contents.env(upstream.url)

        async def body() -> tuple[Any, Any]:
            async with stdio_session(
                contents.command, env=env, mode=CLIENT_MODES[mode][0], errlog=tmp_path / "err"
            ) as client:  # the client raises on structuredContent that misses the outputSchema
                folder = await client.call_tool("getContents", {"path": "notebooks"})
                return folder, await client.call_tool("listSessions", {})

        folder, sessions = run_async(body)
    assert not folder.is_error, dump(folder.model_dump())
    assert json.loads(text_of(folder)) == FOLDER
    assert folder.structured_content == {k: v for k, v in FOLDER.items() if k != "content"}
    assert folder.meta[KEY] == {"leftOut": ["/content"], "nulled": [], "unlisted": 0}
    assert not sessions.is_error, dump(sessions.model_dump())
    assert json.loads(text_of(sessions)) == {"result": SESSIONS}
    assert sessions.structured_content == {"result": [{"name": "a.ipynb", "type": "notebook"}, None]}
    assert sessions.meta[KEY] == {"leftOut": ["/result/0/path"], "nulled": ["/result/1"], "unlisted": 0}
