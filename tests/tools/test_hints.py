"""Tool annotations (issue 2): from the HTTP verb, overridable with `x-mcp.annotations`."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import Annotations, GeneratorOptions
from openapi2mcp.tools.hints import annotations_for
from openapi2mcp.tools.mapper import map_document

OK = {"200": {"description": "ok"}}

# verb → (readOnlyHint, destructiveHint, idempotentHint), as issue 2 lists them
EXPECTED = {
    "get": (True, False, True),
    "head": (True, False, True),
    "options": (True, False, True),
    "post": (False, False, False),
    "put": (False, True, True),
    "patch": (False, True, False),
    "delete": (False, True, True),
}


def wire_annotations(method: str, x_mcp: Any = None) -> tuple[dict[str, Any], list[tuple[Level, str]]]:
    operation: dict[str, Any] = {"operationId": "op", "summary": "Do it", "responses": OK}
    if x_mcp is not None:
        operation["x-mcp"] = x_mcp
    document = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": {"/a": {method: operation}},
    }
    diagnostics = Diagnostics()
    model = map_document(document, GeneratorOptions("t", "T"), diagnostics)
    (tool,) = model.tools
    return tool.wire()["annotations"], [(d.level, d.pointer) for d in diagnostics]


def wired(read_only: bool, destructive: bool, idempotent: bool) -> dict[str, Any]:
    """The tool's annotations on the wire with these hints: its title, and open world."""
    return {
        "title": "Do it",
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": True,
    }


@pytest.mark.parametrize("method", list(EXPECTED))
def test_annotations_follow_the_http_verb_and_are_open_world(method: str) -> None:
    annotations, diagnostics = wire_annotations(method)
    assert annotations == wired(*EXPECTED[method])
    assert diagnostics == []


def test_x_mcp_annotations_override_each_hint_and_keep_the_others() -> None:
    annotations, diagnostics = wire_annotations("delete", {"annotations": {"destructiveHint": False}})
    assert annotations == wired(read_only=False, destructive=False, idempotent=True)
    assert diagnostics == []


def test_x_mcp_annotations_can_set_all_four_hints() -> None:
    override = {
        "readOnlyHint": True,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    annotations, _ = wire_annotations("post", {"annotations": override})
    assert annotations == {"title": "Do it", **override}


def test_a_post_that_only_searches_can_be_marked_read_only() -> None:
    annotations, _ = wire_annotations("post", {"annotations": {"readOnlyHint": True}})
    assert annotations["readOnlyHint"] is True


def test_unknown_or_non_boolean_override_keys_are_ignored_with_a_warning_each() -> None:
    annotations, diagnostics = wire_annotations(
        "get", {"annotations": {"readOnlyHint": "no", "sideEffects": True, "idempotentHint": False}}
    )
    assert annotations == wired(read_only=True, destructive=False, idempotent=False)
    assert diagnostics == [(Level.WARNING, "#/paths/~1a/get"), (Level.WARNING, "#/paths/~1a/get")]


def test_x_mcp_annotations_that_are_not_an_object_are_ignored_with_a_warning() -> None:
    annotations, diagnostics = wire_annotations("put", {"annotations": ["readOnlyHint"]})
    assert annotations == wired(read_only=False, destructive=True, idempotent=True)
    assert diagnostics == [(Level.WARNING, "#/paths/~1a/put")]


def test_the_annotations_title_is_the_x_mcp_title_when_given() -> None:
    annotations, _ = wire_annotations("get", {"title": "Find things"})
    assert annotations["title"] == "Find things"


def test_annotations_for_returns_the_model_value_the_wire_form_is_built_from() -> None:
    diagnostics = Diagnostics()
    assert annotations_for("patch", "Rename", {"openWorldHint": False}, "#/x", diagnostics) == Annotations(
        title="Rename", read_only=False, destructive=True, idempotent=False, open_world=False
    )
    assert list(diagnostics) == []
