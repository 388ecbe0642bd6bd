"""budget.py: each schema within its limit, and the whole tools/list within its budget."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostic, Diagnostics, Level
from openapi2mcp.fit.budget import _fitted, _sized, _Totals, _without_meta, fit_tools
from openapi2mcp.fit.compact import PLANS, Shrinker
from openapi2mcp.fit.sizes import Sizer
from openapi2mcp.model import ApiModel, GeneratorOptions, SizeLimits
from openapi2mcp.tools.mapper import map_document

WORDS = "Lorem ipsum dolor sit amet consectetur. " * 8


def big_object(width: int, depth: int) -> dict[str, Any]:
    """An object `depth` levels deep with `width` described properties per level."""
    if depth == 0:
        return {"type": "string", "description": WORDS}
    return {
        "type": "object",
        "description": WORDS,
        "properties": {f"p{index}": big_object(width, depth - 1) for index in range(width)},
    }


def document(tools: int, width: int = 3, depth: int = 3) -> dict[str, Any]:
    """`tools` POST operations, each with a JSON body `big_object(width, depth)` and an object response."""
    response = {"content": {"application/json": {"schema": big_object(width, depth)}}, "description": "ok"}
    operation = {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": big_object(width, depth)}},
        },
        "responses": {"200": response},
    }
    paths = {f"/items{index}": {"post": {"operationId": f"op{index}", **operation}} for index in range(tools)}
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths}


def fitted(spec: dict[str, Any], limits: SizeLimits) -> tuple[ApiModel, ApiModel, list[Diagnostic]]:
    """The model as mapped, the model fitted to `limits`, and the fitting's diagnostics."""
    options = GeneratorOptions(dist_name="t", env_prefix="T")
    model = map_document(spec, options, Diagnostics())
    diagnostics = Diagnostics()
    return model, fit_tools(model, limits, diagnostics), list(diagnostics)


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def tools_list_size(model: ApiModel) -> int:
    return size({"tools": [tool.wire() for tool in model.tools]})


def test_tools_within_every_limit_are_left_exactly_as_they_are() -> None:
    before, after, diagnostics = fitted(document(3, width=2, depth=1), SizeLimits())
    assert after == before
    assert diagnostics == []


def test_an_input_schema_over_its_limit_takes_the_first_plan_that_fits_and_others_stay_whole() -> None:
    spec = document(1, width=4, depth=3)
    spec["paths"]["/small"] = {"get": {"operationId": "small", "responses": {"204": {"description": "none"}}}}
    limits = SizeLimits(input_schema=4000, tools_list=0, output_schemas="full")
    before, after, diagnostics = fitted(spec, limits)
    big, small = after.tools
    assert size(before.tools[0].input_schema) > 4000 >= size(big.input_schema)
    expected = next(
        Shrinker().root(before.tools[0].input_schema, index)
        for index in range(len(PLANS))
        if size(Shrinker().root(before.tools[0].input_schema, index)) <= 4000
    )
    assert big.input_schema == expected
    assert big.output_schema == before.tools[0].output_schema  # --output-schemas full
    assert small == before.tools[1]
    [note] = diagnostics
    assert note.level == Level.INFO and note.pointer == "#"
    assert note.message.startswith("1 of 2 inputSchemas compacted to fit 4,000 bytes (1 ")


def test_the_whole_tools_list_is_brought_within_its_budget_outputs_first() -> None:
    spec = document(40)
    before, _, _ = fitted(spec, SizeLimits(input_schema=0, tools_list=0, output_schemas="full"))
    whole = tools_list_size(before)
    budget = whole // 2
    _, after, diagnostics = fitted(spec, SizeLimits(input_schema=0, output_schema=0, tools_list=budget))
    assert tools_list_size(after) <= budget
    assert all(size(tool.output_schema) <= 1024 for tool in after.tools)
    [note] = diagnostics
    assert (
        f"tools/list is {tools_list_size(after):,} bytes instead of {whole:,} (budget {budget:,})"
        in note.message
    )


def test_inputs_are_compacted_only_as_far_as_the_budget_needs() -> None:
    spec = document(40)
    inputs = {}
    for budget in (100_000, 60_000, 30_000):
        _, after, _ = fitted(spec, SizeLimits(tools_list=budget))
        assert tools_list_size(after) <= budget
        inputs[budget] = size([tool.input_schema for tool in after.tools])
    assert inputs[100_000] > inputs[60_000] > inputs[30_000]


def test_a_budget_nothing_can_meet_is_a_warning_with_every_schema_at_its_smallest() -> None:
    _, after, diagnostics = fitted(document(5), SizeLimits(tools_list=100))
    assert all(tool.output_schema == {"type": "object"} for tool in after.tools)
    assert all(tool.input_schema["properties"]["p0"] == {"type": "object"} for tool in after.tools)
    warning = diagnostics[-1]
    assert warning.level == Level.WARNING
    assert warning.message.endswith(
        "over the 100-byte budget: some MCP clients refuse it; select fewer operations"
    )


def test_output_schemas_none_drops_them_and_full_keeps_them_whole() -> None:
    _, none, _ = fitted(document(2), SizeLimits(output_schemas="none"))
    assert all(tool.output_schema is None for tool in none.tools)
    before, full, _ = fitted(document(2), SizeLimits(output_schemas="full", output_schema=10, tools_list=0))
    assert [tool.output_schema for tool in full.tools] == [tool.output_schema for tool in before.tools]


def test_the_arguments_and_what_is_required_never_change() -> None:
    before, after, _ = fitted(document(5), SizeLimits(tools_list=100))
    for old, new in zip(before.tools, after.tools, strict=True):
        assert new.input_schema["properties"].keys() == old.input_schema["properties"].keys()
        assert new.input_schema.get("required") == old.input_schema.get("required")
        assert (new.parameters, new.body) == (old.parameters, old.body)


def test_meta_is_left_out_rather_than_cutting_schemas_for_it() -> None:
    spec = document(6, width=2, depth=2)
    for index, item in enumerate(spec["paths"].values()):
        item["post"]["tags"] = [f"a-long-tag-name-{index}-" + "x" * 200]
    whole = tools_list_size(fitted(spec, SizeLimits(output_schemas="full"))[1])
    meta = sum(size(tool.wire()["_meta"]) for tool in fitted(spec, SizeLimits())[0].tools)
    # a budget the schemas meet whole only without _meta
    limits = SizeLimits(output_schemas="full", tools_list=whole - meta)
    before, after, diagnostics = fitted(spec, limits)
    assert [tool.input_schema for tool in after.tools] == [tool.input_schema for tool in before.tools]
    assert all("_meta" not in tool.wire() for tool in after.tools)
    assert tools_list_size(after) <= limits.tools_list
    assert any("_meta (openapi2mcp/operation) is left out" in d.message for d in diagnostics)
    # with room for it, _meta stays
    roomy = fitted(spec, SizeLimits(output_schemas="full", tools_list=whole))[1]
    assert all("_meta" in tool.wire() for tool in roomy.tools)


@pytest.mark.parametrize("with_meta", [True, False])
def test_the_precomputed_totals_equal_the_sum_of_each_tools_size_under_every_limit(with_meta: bool) -> None:
    spec = document(6, width=3, depth=3)
    spec["paths"]["/small"] = {"get": {"operationId": "small", "responses": {"204": {"description": "none"}}}}
    spec["paths"]["/items2"]["post"]["requestBody"]["content"]["application/json"]["schema"] = big_object(
        5, 2
    )
    model = map_document(spec, GeneratorOptions(dist_name="t", env_prefix="T"), Diagnostics())
    sizer = Sizer()
    sized = [_sized(tool, SizeLimits(), sizer) for tool in model.tools]
    totals = _Totals.of(sized)
    if not with_meta:
        sized = [_without_meta(item) for item in sized]
        totals = totals.framing(sized)
    limits = sorted({0, 1, 2, 100, 256, 1000, 4096, 10**6} | {s for item in sized for s in item.inputs.sizes})
    for input_limit in limits:
        for output_limit in (0, 1, 64, 256, 1024, 4096):
            wires = [_fitted(item, input_limit, output_limit, Shrinker()).wire() for item in sized]
            assert totals(input_limit, output_limit) == size({"tools": wires}), (input_limit, output_limit)
