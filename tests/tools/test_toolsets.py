"""Toolsets (issue 15, generator side): each tool's toolset from its first tag, `x-mcp`, the config
file's overrides and `toolsets` table, in that order of precedence reversed; the summary with
descriptions and defaults; and the checks on the names."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import ApiModel, GeneratorOptions, ToolOverride, Toolset
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.overrides import OverrideError, validate_overrides
from openapi2mcp.tools.toolsets import ToolsetError, tag_toolset, validate_toolsets

OK = {"200": {"description": "ok"}}


def operation(operation_id: str, *tags: Any, **extra: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "responses": OK, **({"tags": list(tags)} if tags else {}), **extra}


def spec(**paths: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "https://zoo.example.com"}],
        "tags": [
            {"name": "Pet Store", "description": "Everything\n  about pets."},
            {"name": "pet_store", "description": "Not this one: the first tag naming a toolset wins."},
            {"name": "stores"},
        ],
        "paths": {f"/{path}": item for path, item in paths.items()},
    }


ZOO = spec(
    pets={"get": operation("listPets", "Pet Store", "stores"), "post": operation("addPet", "pet_store")},
    stores={"get": operation("listStores", "stores"), "delete": operation("closeStore")},
    misc={"get": operation("ping", "!!", "ops"), "put": operation("odd", "Ops", "pets")},
)


def run(document: dict[str, Any], **options: Any) -> tuple[ApiModel, list[tuple[Level, str, str]]]:
    diagnostics = Diagnostics()
    chosen = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", **options)
    model = map_document(document, chosen, diagnostics)
    found = [(d.level, d.pointer, d.message) for d in diagnostics if d.level != Level.INFO]
    return model, found


def toolsets_of(document: dict[str, Any], **options: Any) -> dict[str, str]:
    model, diagnostics = run(document, **options)
    assert diagnostics == []
    return {tool.name: tool.toolset for tool in model.tools}


@pytest.mark.parametrize(
    ("tag", "toolset"),
    [
        ("pets", "pets"),
        ("Pet Store", "pet_store"),
        ("user-accounts_v2", "user-accounts_v2"),
        ("Ünïcode/Tags", "_n_code_tags"),
        ("x" * 70, "x" * 64),
        ("!!", None),
        ("--", None),
        ("", None),
    ],
)
def test_a_tag_names_its_toolset_lower_cased_with_other_characters_as_underscores(
    tag: str, toolset: str | None
) -> None:
    assert tag_toolset(tag) == toolset


def test_each_tool_is_in_its_first_usable_tag_or_untagged() -> None:
    assert toolsets_of(ZOO) == {
        "listPets": "pet_store",
        "addPet": "pet_store",
        "listStores": "stores",
        "closeStore": "untagged",
        "ping": "untagged",  # "!!" has no letter or digit: no tag (the next tag is not used)
        "odd": "ops",
    }


def test_the_summary_lists_toolsets_in_order_with_the_first_tag_description() -> None:
    model, _ = run(ZOO)
    assert model.toolsets == (
        Toolset("pet_store", "Everything about pets.", True),
        Toolset("stores", "", True),
        Toolset("untagged", "", True),
        Toolset("ops", "", True),
    )


def test_x_mcp_toolset_replaces_the_tag_and_a_bad_one_is_a_warning_and_ignored() -> None:
    document = spec(
        pets={
            "get": operation("listPets", "pets", **{"x-mcp": {"toolset": "reading"}}),
            "post": operation("addPet", "pets", **{"x-mcp": {"toolset": "Writing"}}),
        }
    )
    model, diagnostics = run(document)
    assert {tool.name: tool.toolset for tool in model.tools} == {"listPets": "reading", "addPet": "pets"}
    assert diagnostics == [
        (
            Level.WARNING,
            "#/paths/~1pets/post/x-mcp/toolset",
            "x-mcp toolset 'Writing' is not a toolset name ([a-z0-9_-], 1 to 64 characters); ignored",
        )
    ]


def test_the_config_table_wins_over_x_mcp_in_order_and_an_override_wins_over_both() -> None:
    document = spec(
        pets={
            "get": operation("listPets", "pets", **{"x-mcp": {"toolset": "reading"}}),
            "post": operation("addPet", "pets"),
            "delete": operation("dropPet", "pets"),
        },
        stores={"get": operation("listStores", "stores", **{"x-mcp": {"toolset": "reading"}})},
    )
    rules = (("method:post", "writing"), ("tag:PETS", "animals"), ("tag:pets", "never"))
    overrides = (
        ToolOverride("dropPet", toolset="first"),
        ToolOverride("DELETE /pets", toolset="danger"),  # the last override that sets it
        ToolOverride("dropPet", title="Drop"),
    )
    model, diagnostics = run(document, toolsets=rules, overrides=overrides)
    assert {tool.name: tool.toolset for tool in model.tools} == {
        "listPets": "animals",
        "addPet": "writing",
        "dropPet": "danger",
        "listStores": "reading",
    }
    assert diagnostics == [
        (
            Level.WARNING,
            "#/paths",
            "toolsets selector 'tag:pets' (→ 'never') places no tool: "
            "no generated operation is left to it by the overrides and earlier selectors",
        )
    ]


def test_default_toolsets_mark_the_defaults_and_an_unknown_one_is_an_error_naming_the_known() -> None:
    model, diagnostics = run(ZOO, default_toolsets=("stores", "pets", "ops", "nope"))
    assert [(toolset.name, toolset.default) for toolset in model.toolsets] == [
        ("pet_store", False),
        ("stores", True),
        ("untagged", False),
        ("ops", True),
    ]
    assert diagnostics == [
        (
            Level.ERROR,
            "#",
            "default-toolsets: no tool is in 'pets', 'nope'; "
            "the toolsets are: pet_store, stores, untagged, ops",
        )
    ]


def test_when_no_default_toolset_exists_every_toolset_is_a_default() -> None:
    model, diagnostics = run(ZOO, default_toolsets=("nope",))
    assert all(toolset.default for toolset in model.toolsets)
    assert [level for level, _, _ in diagnostics] == [Level.ERROR]


@pytest.mark.parametrize(
    ("rules", "defaults", "message"),
    [
        ((("tag:pets", "Pets"),), (), "toolsets: 'tag:pets' = 'Pets': not a toolset name"),
        ((("tags:pets", "pets"),), (), "toolsets: selector 'tags:pets': use tag:NAME"),
        ((("tag:pets", "x" * 65),), (), "toolsets: 'tag:pets' = '" + "x" * 65 + "': not a toolset name"),
        ((), ("pets", ""), "default-toolsets: '': not a toolset name ([a-z0-9_-], 1 to 64 characters)"),
    ],
)
def test_bad_toolsets_options_are_refused_before_anything_is_read(
    rules: tuple[tuple[str, str], ...], defaults: tuple[str, ...], message: str
) -> None:
    with pytest.raises(ToolsetError) as raised:
        validate_toolsets(rules, defaults)
    assert str(raised.value).startswith(message)
    options = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", toolsets=rules, default_toolsets=defaults)
    with pytest.raises(ToolsetError):
        generate("does-not-exist.yaml", options)


def test_an_override_toolset_must_be_a_toolset_name() -> None:
    validate_overrides([ToolOverride("listPets", toolset="a-b_9")], "portable")
    with pytest.raises(OverrideError) as raised:
        validate_overrides([ToolOverride("listPets", toolset="a.b")], "mcp")
    assert str(raised.value) == (
        "override 'listPets': toolset 'a.b' is not a toolset name ([a-z0-9_-], 1 to 64 characters)"
    )
