"""Links relative to a vendor's docs site keep their text only, and a paragraph that only pointed at
one is left out (schemas/prose.py), in every piece of prose a tool carries: its description, its
arguments', its schemas' and its toolset's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.schemas.prose import plain_links
from openapi2mcp.tools.mapper import map_document


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("See the [API Concepts](../../api-reference/a4-concepts#incidents).", "See the API Concepts."),
        ("A [guide](/docs/guides/vision 'Vision') and [types](#types)", "A guide and types"),
        ("![diagram](img/flow.png) then [x]()", "diagram then x"),
        ("[ranges](/docs/a_(b)_c) ok", "ranges ok"),  # one level of parentheses in a target
        ('An <a href="/docs/connect">Connect</a> account', "An Connect account"),
        ("<A class='l' HREF='accounts#x'>connected\naccount</A>", "connected\naccount"),
        ("[site](https://example.com/docs) [mail](mailto:a@b.c) [cdn](//cdn.example.com/x)", None),
        ('<a href="https://stripe.com/docs">Stripe</a>', None),
        ("[this] (spaced) and [not](a link) are no links", None),
        ("no links at all: a[0] (b)", None),
        (
            "Lists.\n\nFor more information see the [API Concepts Document](../a4)\n\nScoped OAuth",
            "Lists.\n\nScoped OAuth",
        ),
        ("Lists.\n\nSee [pagination](#pagination).", "Lists."),
        ('Lists.\n \nFor more details, please refer to <a href="/docs/x">the docs</a>.', "Lists."),
        ("Lists.\n\nSee the [guide](/docs/x) for the limits.", "Lists.\n\nSee the guide for the limits."),
        ("Lists.\n\nSee the [guide](https://example.com/docs).", None),  # it still points somewhere
        ("For more information see the [Concepts](../a4)", "For more information see the Concepts"),
    ],
)
def test_a_relative_link_keeps_its_text_a_paragraph_pointing_at_one_goes_an_absolute_one_stays(
    text: str, plain: str | None
) -> None:
    assert plain_links(text) == (text if plain is None else plain)


@pytest.mark.timeout(20)  # a gross guard: each takes well under a second; a backtracking pattern never ends
@pytest.mark.parametrize("unit", ['<a href="x">', '<a href="', "[a](", "![", "[x]((", "See [x](\n\n"])
def test_a_hostile_description_is_read_in_one_pass(unit: str) -> None:
    """100,000 links that never close (the first form of the HTML pattern took 20 s for 500)."""
    text = unit * 100_000
    assert plain_links(text) == text


def test_every_description_a_tool_carries_loses_its_relative_targets() -> None:
    linked = "Read [the concepts](../concepts#ids) or [the site](https://example.com/x)."
    kept = "Read the concepts or [the site](https://example.com/x)."
    item = {
        "type": "object",
        "description": linked,
        "properties": {"id": {"type": "string", "description": linked}},
    }
    json_body = {"application/json": {"schema": item}}
    text_body = {"text/plain": {"schema": {"type": "string"}}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "tags": [{"name": "items", "description": linked}],
        "paths": {
            "/items": {
                "post": {
                    "operationId": "addItem",
                    "tags": ["items"],
                    "summary": "Add an [item](/docs/items)",
                    "description": f"{linked}\n\nFor more information see the [API Concepts](../a4)",
                    "parameters": [
                        {"name": "dry", "in": "query", "description": linked, "schema": {"type": "boolean"}}
                    ],
                    "requestBody": {"content": json_body},
                    "responses": {"200": {"description": "ok", "content": json_body}},
                }
            },
            "/notes": {
                "post": {
                    "operationId": "addNote",
                    "tags": ["items"],
                    "requestBody": {"description": linked, "content": text_body},
                    "responses": {"204": {"description": "ok"}},
                }
            },
        },
    }
    options = GeneratorOptions(dist_name="t", env_prefix="T")
    data = tool_data(map_document(document, options, Diagnostics()), options, generator="g")
    item_tool, note_tool = data["tools"]
    assert item_tool["title"] == "Add an item"
    assert item_tool["description"] == f"Add an item\n\n{kept}\n\nHTTP: POST /items"
    assert item_tool["inputSchema"]["properties"]["dry"]["description"] == kept
    assert item_tool["inputSchema"]["properties"]["id"]["description"] == kept
    assert item_tool["outputSchema"]["description"] == kept
    assert item_tool["outputSchema"]["properties"]["id"]["description"] == kept
    assert note_tool["inputSchema"]["properties"]["body"]["description"] == kept
    assert data["toolsets"]["items"]["description"] == kept
    assert "../concepts" not in json.dumps(data)
