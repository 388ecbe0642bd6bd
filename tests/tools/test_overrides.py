"""Per-operation overrides from the config file (issue 5): each field, how they meet `x-mcp`, the
warning for an override that matches nothing, and the validation the CLI turns into exit 2."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import Annotations, GeneratorOptions, NameStyle, Tool, ToolOverride
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.overrides import OverrideError, merged_x_mcp, validate_overrides
from openapi2mcp.tools.selectors import SelectorError

OK = {"200": {"description": "ok"}}


def document(**extra_get: Any) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "https://zoo.example.com"}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "summary": "List pets",
                    "description": "All of them.",
                    "responses": OK,
                    **extra_get,
                },
                "post": {"responses": OK},
            },
        },
    }


def run(
    *overrides: ToolOverride, spec: dict[str, Any] | None = None, **options: Any
) -> tuple[dict[str, Tool], list[tuple[Level, str, str]]]:
    diagnostics = Diagnostics()
    chosen = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", overrides=overrides, **options)
    model = map_document(spec or document(), chosen, diagnostics)
    return {tool.name: tool for tool in model.tools}, [(d.level, d.pointer, d.message) for d in diagnostics]


def sha8(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def tool_of(*overrides: ToolOverride, spec: dict[str, Any] | None = None, method: str = "GET") -> Tool:
    tools, diagnostics = run(*overrides, spec=spec)
    assert diagnostics == []
    return next(tool for tool in tools.values() if tool.method == method)


def test_without_overrides_the_tool_is_what_the_spec_says() -> None:
    tool = tool_of()
    assert (tool.name, tool.title, tool.description) == (
        "listPets",
        "List pets",
        "List pets\n\nAll of them.\n\nHTTP: GET /pets",
    )
    assert tool.annotations == Annotations("List pets", read_only=True, destructive=False, idempotent=True)


# ---------------------------------------------------------------------------------------------
# Each field


def test_the_name_override_replaces_the_operation_id_as_given() -> None:
    assert tool_of(ToolOverride("listPets", name="find-pets_2")).name == "find-pets_2"


def test_the_title_override_is_the_title_of_the_tool_and_of_its_annotations() -> None:
    tool = tool_of(ToolOverride("listPets", title="Find  pets\nnow"))
    assert (tool.title, tool.annotations.title) == ("Find pets now", "Find pets now")
    assert tool.description == "List pets\n\nAll of them.\n\nHTTP: GET /pets"


def test_the_description_override_replaces_summary_and_description_but_keeps_the_http_footer() -> None:
    tool = tool_of(ToolOverride("listPets", description="  Pets in the zoo.\n\nPaged.  "))
    assert tool.description == "Pets in the zoo.\n\nPaged.\n\nHTTP: GET /pets"
    assert tool.title == "List pets"


def test_annotation_overrides_merge_over_the_ones_the_verb_implies() -> None:
    tool = tool_of(
        ToolOverride("listPets", annotations=(("openWorldHint", False), ("idempotentHint", False)))
    )
    assert tool.annotations == Annotations(
        "List pets", read_only=True, destructive=False, idempotent=False, open_world=False
    )


def test_an_operation_can_be_named_by_method_and_path_with_the_method_in_any_case() -> None:
    for reference in ("POST /pets", "post /pets", "Post  /pets "):
        tool = tool_of(
            ToolOverride(reference, name="addPet", annotations=(("idempotentHint", True),)), method="POST"
        )
        assert (tool.name, tool.annotations.idempotent) == ("addPet", True)


def test_a_method_and_path_reference_needs_the_path_key_exactly_as_the_spec_writes_it() -> None:
    tools, diagnostics = run(ToolOverride("GET /pets/", name="x"))
    assert sorted(tools) == ["create_pet", "listPets"]
    assert diagnostics == [
        (
            Level.WARNING,
            "#/paths",
            "override 'GET /pets/' matches no operation "
            "(give an operationId or 'METHOD /path' as the spec writes them)",
        )
    ]


def test_an_override_with_no_field_changes_nothing() -> None:
    assert tool_of(ToolOverride("listPets")) == tool_of()


def test_several_overrides_of_one_operation_apply_in_order() -> None:
    tool = tool_of(
        ToolOverride("listPets", name="first", title="Kept", annotations=(("readOnlyHint", False),)),
        ToolOverride("GET /pets", name="second", annotations=(("destructiveHint", True),)),
    )
    assert (tool.name, tool.title) == ("second", "Kept")
    assert (tool.annotations.read_only, tool.annotations.destructive) == (False, True)


# ---------------------------------------------------------------------------------------------
# With x-mcp


X_MCP = {
    "name": "spec_name",
    "title": "Spec title",
    "description": "Spec text.",
    "annotations": {"destructiveHint": True, "idempotentHint": False},
}


def test_overrides_win_over_the_specs_x_mcp_field_by_field() -> None:
    tool = tool_of(
        ToolOverride("listPets", name="mine", annotations=(("idempotentHint", True),)),
        spec=document(**{"x-mcp": X_MCP}),
    )
    assert (tool.name, tool.title, tool.description) == (
        "mine",
        "Spec title",
        "Spec text.\n\nHTTP: GET /pets",
    )
    assert tool.annotations == Annotations("Spec title", read_only=True, destructive=True, idempotent=True)


def test_the_title_and_description_overrides_win_over_x_mcp() -> None:
    override = ToolOverride("listPets", title="Mine", description="My text.")
    tool = tool_of(override, spec=document(**{"x-mcp": X_MCP}))
    assert (tool.name, tool.title, tool.description) == ("spec_name", "Mine", "My text.\n\nHTTP: GET /pets")


def test_merged_x_mcp_puts_the_overrides_fields_over_the_spec_object_without_changing_it() -> None:
    x_mcp = {"name": "a", "annotations": {"readOnlyHint": False}, "x-other": 1}
    merged = merged_x_mcp(x_mcp, [ToolOverride("op", title="T", annotations=(("openWorldHint", False),))])
    assert merged == {
        "name": "a",
        "title": "T",
        "annotations": {"readOnlyHint": False, "openWorldHint": False},
        "x-other": 1,
    }
    assert x_mcp == {"name": "a", "annotations": {"readOnlyHint": False}, "x-other": 1}


def test_merged_x_mcp_replaces_annotations_that_are_not_an_object() -> None:
    merged = merged_x_mcp({"annotations": "bad"}, [ToolOverride("op", annotations=(("readOnlyHint", True),))])
    assert merged == {"annotations": {"readOnlyHint": True}}


def test_an_override_cannot_bring_back_an_x_mcp_false_operation_and_warns() -> None:
    tools, diagnostics = run(ToolOverride("listPets", name="back"), spec=document(**{"x-mcp": False}))
    assert sorted(tools) == ["create_pet"]
    assert diagnostics == [
        (Level.INFO, "#/paths/~1pets/get", "x-mcp: false: left out"),
        (
            Level.WARNING,
            "#/paths",
            "override 'listPets' matches no operation "
            "(give an operationId or 'METHOD /path' as the spec writes them)",
        ),
    ]


def test_an_override_of_an_operation_the_selectors_leave_out_is_not_a_warning() -> None:
    tools, diagnostics = run(ToolOverride("listPets", name="x"), exclude=("op:listPets",))
    assert sorted(tools) == ["create_pet"]
    assert [level for level, _, _ in diagnostics] == [Level.INFO]


def test_each_override_that_matches_nothing_is_a_warning_and_the_others_apply() -> None:
    tools, diagnostics = run(
        ToolOverride("listpets", name="a"),
        ToolOverride("listPets", name="b"),
        ToolOverride("PUT /pets", name="c"),
    )
    assert sorted(tools) == ["b", "create_pet"]
    assert [message.split(" matches")[0] for _, _, message in diagnostics] == [
        "override 'listpets'",
        "override 'PUT /pets'",
    ]


def test_an_override_name_that_clashes_with_another_override_is_made_unique_like_any_clash() -> None:
    tools, diagnostics = run(ToolOverride("listPets", name="same"), ToolOverride("POST /pets", name="same"))
    expected = {f"same_{sha8(identity)}": identity.split()[0] for identity in ("GET /pets", "POST /pets")}
    assert {name: tool.method for name, tool in tools.items()} == expected
    assert [level for level, _, _ in diagnostics] == [Level.WARNING, Level.WARNING]


def test_an_override_name_keeps_a_name_that_a_derived_name_has_and_the_derived_one_gives_way() -> None:
    tools, diagnostics = run(ToolOverride("listPets", name="create_pet"))
    expected = {"create_pet": "GET", f"create_pet_{sha8('POST /pets')}": "POST"}
    assert {name: tool.method for name, tool in tools.items()} == expected
    assert diagnostics == []


# ---------------------------------------------------------------------------------------------
# Validation


@pytest.mark.parametrize(
    ("override", "style", "message"),
    [
        (
            ToolOverride("listPets", name="find.pets"),
            "portable",
            "override 'listPets': name 'find.pets' is not a valid tool name "
            "(--name-style portable: [A-Za-z0-9_-], at most 64 characters)",
        ),
        (
            ToolOverride("listPets", name="a" * 65),
            "portable",
            f"override 'listPets': name {'a' * 65!r} is not a valid tool name "
            "(--name-style portable: [A-Za-z0-9_-], at most 64 characters)",
        ),
        (
            ToolOverride("listPets", name="find pets"),
            "mcp",
            "override 'listPets': name 'find pets' is not a valid tool name "
            "(--name-style mcp: [A-Za-z0-9_.-], at most 128 characters)",
        ),
        (
            ToolOverride("listPets", name=""),
            "mcp",
            "override 'listPets': name '' is not a valid tool name "
            "(--name-style mcp: [A-Za-z0-9_.-], at most 128 characters)",
        ),
        (ToolOverride("listPets", title=" "), "portable", "override 'listPets': the title is blank"),
        (
            ToolOverride("listPets", description=""),
            "portable",
            "override 'listPets': the description is blank",
        ),
        (
            ToolOverride("GET /pets", annotations=(("readOnly", True),)),
            "portable",
            "override 'GET /pets': unknown annotation 'readOnly'; "
            "choose from readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
        ),
        (
            ToolOverride("x", annotations=(("readOnlyHint", "yes"),)),  # type: ignore[arg-type]
            "portable",
            "override 'x': annotation 'readOnlyHint' must be true or false, not 'yes'",
        ),
        (ToolOverride("  "), "portable", "override: give the operation as an operationId or 'METHOD /path'"),
    ],
)
def test_validate_overrides_rejects_what_cannot_be_applied(
    override: ToolOverride, style: NameStyle, message: str
) -> None:
    with pytest.raises(OverrideError) as caught:
        validate_overrides([ToolOverride("ok", name="fine"), override], style)
    assert str(caught.value) == message


def test_validate_overrides_accepts_names_of_the_chosen_style_and_every_hint() -> None:
    hints = (
        ("readOnlyHint", True),
        ("destructiveHint", False),
        ("idempotentHint", True),
        ("openWorldHint", False),
    )
    validate_overrides([ToolOverride("a", name="find.pets", annotations=hints)], "mcp")
    validate_overrides([ToolOverride("a", name="a" * 64, title="T", description="D")], "portable")


def test_override_error_is_a_value_error() -> None:
    assert issubclass(OverrideError, ValueError)


def test_generate_checks_overrides_and_selectors_before_reading_the_spec(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.yaml")
    with pytest.raises(OverrideError):
        generate(missing, GeneratorOptions("zoo", "ZOO", overrides=(ToolOverride("a", name="a b"),)))
    with pytest.raises(SelectorError):
        generate(missing, GeneratorOptions("zoo", "ZOO", include=("tags:x",)))
