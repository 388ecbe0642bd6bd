"""A body property that gives way to a parameter of the same name (`path_body` beside the path
parameter `path`) still goes out under its wire name: the exact request, from a generated tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

from .conftest import Make, Upstream, call, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

JUPYTER = Path(__file__).parents[1] / "tools" / "jupyter_server.yaml"


async def test_the_moved_body_property_is_sent_under_its_wire_name_beside_the_path_parameter(
    make_runtime: Make, upstream: Upstream
) -> None:
    generation = generate(str(JUPYTER), GeneratorOptions(dist_name="j", env_prefix="T"))
    tools = make_runtime(json.loads(generation.files["j/data/tool_data.json"]))
    result = await call(tools, "update_contents", {"path": "a/b.ipynb", "path_body": "c/d.ipynb"})
    assert not result.is_error, text_of(result)
    assert (upstream.last.method, upstream.last.target) == ("PATCH", "/api/v1/api/contents/a%2Fb.ipynb")
    assert upstream.last.body == b'{"path":"c/d.ipynb"}'
    await call(tools, "replace_contents", {"path": "x.txt", "path_body": "y.txt", "content": "hi"})
    assert (upstream.last.method, upstream.last.target) == ("PUT", "/api/v1/api/contents/x.txt")
    assert upstream.last.body == b'{"path":"y.txt","content":"hi"}'
