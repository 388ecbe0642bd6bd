"""Size the tool definitions for MCP clients (the pipeline's step between mapping and rendering).

Each inputSchema is kept within `SizeLimits.input_schema` and each outputSchema within
`SizeLimits.output_schema` (with `output_schemas="compact"`; "full" keeps them whole, "none" drops
them) by `compact_sizes.Ladder`. When the whole tools/list is still over `SizeLimits.tools_list`, the
output limit is tightened first (a model needs the arguments more than the shape of the answer),
then the largest input limit that fits is searched for; a limit only touches the tools over it, so
small tools keep everything. The tools' `_meta` (where each comes from in the spec) is worth less to a
model than its schemas: when it would make the limits tighter, it is left out of every tool instead.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections import Counter
from collections.abc import Sequence

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.fit.compact import AS_IS, PLANS, Shrinker
from openapi2mcp.fit.sizes import Ladder, Sizer
from openapi2mcp.model import TOOL_META_KEY, ApiModel, JSONSchema, SizeLimits, Tool
from openapi2mcp.schemas.converter import schema_size

_BASE_INPUT_LIMIT = 16 * 1024  # where tightening starts when inputs have no limit of their own
_BASE_OUTPUT_LIMIT = 4 * 1024
_SMALLEST = 1  # a limit no schema fits: every schema takes its plan ladder's last form
_ROOT_ONLY: JSONSchema = {"type": "object"}  # an outputSchema that not even the last plan fits
_ROOT_ONLY_SIZE = schema_size(_ROOT_ONLY)
_META_MEMBER = len(',"_meta":')  # `_meta` is the last member of a tool's wire form, never the first


@dataclasses.dataclass(frozen=True)
class _Sized:
    """One tool's definition without its schemas (in bytes), and its schemas' ladders."""

    tool: Tool
    frame: int
    inputs: Ladder
    outputs: Ladder | None
    meta: int  # bytes of the frame that `_meta` takes

    def input_size(self, limit: int) -> int:
        return self.inputs.sizes[self.inputs.fit(limit)]

    def output_form(self, limit: int) -> int | None:
        """The plan index of the outputSchema within `limit`; None: only `_ROOT_ONLY` fits."""
        assert self.outputs is not None
        index = self.outputs.fit(limit)
        return None if 0 < limit < self.outputs.sizes[index] else index


class _StepSum:
    """The sum over ladders of the size each takes under one limit, for any limit in O(log n).

    Under a limit > 0 a ladder takes the largest of its running-minimum sizes within the limit (the
    first plan that fits; see `Ladder.fit`), or its fallback when none is: a step function of the
    limit. The steps of all ladders, sorted with their prefix sums, give the sum at once; the limit
    search of `_choose_limits` asks for it about 20 times over thousands of tools."""

    def __init__(self, ladders: Sequence[tuple[Ladder, int]]) -> None:
        """`ladders`: each ladder with its size when no form fits the limit."""
        self._whole = sum(ladder.sizes[AS_IS] for ladder, _ in ladders)
        self._base = sum(fallback for _, fallback in ladders)
        steps: list[tuple[int, int]] = []  # (limit from which the size changes, the change)
        for ladder, fallback in ladders:
            previous = fallback
            for size in sorted(set(itertools.accumulate(ladder.sizes, min))):
                steps.append((size, size - previous))
                previous = size
        steps.sort()
        self._limits = [limit for limit, _ in steps]
        self._sums = [0, *itertools.accumulate(change for _, change in steps)]

    def at(self, limit: int) -> int:
        if limit <= 0:
            return self._whole
        return self._base + self._sums[bisect.bisect_right(self._limits, limit)]


@dataclasses.dataclass(frozen=True)
class _Totals:
    """Bytes of the tools/list result `{"tools":[...]}` of sized tools, under any pair of limits."""

    frames: int
    inputs: _StepSum
    outputs: _StepSum

    @classmethod
    def of(cls, sized: Sequence[_Sized]) -> _Totals:
        inputs = _StepSum([(item.inputs, item.inputs.sizes[-1]) for item in sized])
        outputs = _StepSum([(item.outputs, _ROOT_ONLY_SIZE) for item in sized if item.outputs is not None])
        return cls(_frames(sized), inputs, outputs)

    def framing(self, sized: Sequence[_Sized]) -> _Totals:
        """The totals of `sized`: tools with the same ladders as these, in other frames."""
        return dataclasses.replace(self, frames=_frames(sized))

    def __call__(self, input_limit: int, output_limit: int) -> int:
        return self.frames + self.inputs.at(input_limit) + self.outputs.at(output_limit)


def _frames(sized: Sequence[_Sized]) -> int:
    return len('{"tools":[]}') + max(len(sized) - 1, 0) + sum(item.frame for item in sized)


def fit_tools(model: ApiModel, limits: SizeLimits, diagnostics: Diagnostics) -> ApiModel:
    """`model` with every tool's schemas within `limits` (see the module docstring)."""
    sizer = Sizer()
    sized = [_sized(tool, limits, sizer) for tool in model.tools]
    totals = _Totals.of(sized)
    input_limit, output_limit = _choose_limits(totals, limits)
    without_meta = [_without_meta(item) for item in sized]
    meta_less = totals.framing(without_meta)
    if (chosen := _choose_limits(meta_less, limits)) != (input_limit, output_limit):
        sized, totals, (input_limit, output_limit) = without_meta, meta_less, chosen
        diagnostics.info(
            "#",
            f"the tools' _meta ({TOOL_META_KEY}) is left out: tools/list would fit its "
            f"{limits.tools_list:,}-byte budget with it only by cutting schemas further",
        )
    shrinker = Shrinker()
    tools = tuple(_fitted(item, input_limit, output_limit, shrinker) for item in sized)
    _report(sized, totals, limits, input_limit, output_limit, diagnostics)
    return dataclasses.replace(model, tools=tools)


def _report(
    sized: Sequence[_Sized],
    totals: _Totals,
    limits: SizeLimits,
    input_limit: int,
    output_limit: int,
    diagnostics: Diagnostics,
) -> None:
    """One info for the whole list (what was compacted, how, the sizes); a warning for each limit
    that could not be met."""
    plans = Counter(PLANS[item.inputs.fit(input_limit)].what for item in sized)
    plans.pop(PLANS[AS_IS].what, None)
    outputs = sum(item.outputs is not None and item.outputs.fit(output_limit) != AS_IS for item in sized)
    total, whole = totals(input_limit, output_limit), totals(0, 0)
    if plans or outputs:
        how = "; ".join(f"{count:,} {what}" for what, count in sorted(plans.items(), key=lambda p: -p[1]))
        diagnostics.info(
            "#",
            f"{sum(plans.values()):,} of {len(sized):,} inputSchemas compacted to fit {input_limit:,} bytes"
            + (f" ({how})" if how else "")
            + (f", {outputs:,} outputSchemas to fit {output_limit:,} bytes" if outputs else "")
            + f": tools/list is {total:,} bytes instead of {whole:,}"
            + (f" (budget {limits.tools_list:,})" if limits.tools_list else "")
            + "; the API checks what was left out",
        )
    _warn_unmet(sized, limits, input_limit, total, diagnostics)


def _warn_unmet(
    sized: Sequence[_Sized], limits: SizeLimits, input_limit: int, total: int, diagnostics: Diagnostics
) -> None:
    over = [item for item in sized if 0 < limits.input_schema < item.input_size(input_limit)]
    if over:
        largest = max(over, key=lambda item: item.input_size(input_limit))
        diagnostics.warning(
            "#",
            f"{len(over):,} inputSchemas are over {limits.input_schema:,} bytes even with each argument "
            f"cut to its type (the largest: {largest.tool.name}, {largest.input_size(input_limit):,} "
            "bytes): some MCP clients drop such tools",
        )
    if 0 < limits.tools_list < total:
        diagnostics.warning(
            "#",
            f"tools/list is {total:,} bytes with every schema at its smallest, over the "
            f"{limits.tools_list:,}-byte budget: some MCP clients refuse it; select fewer operations",
        )


def _sized(tool: Tool, limits: SizeLimits, sizer: Sizer) -> _Sized:
    if limits.output_schemas == "none":
        tool = dataclasses.replace(tool, output_schema=None)
    has_output = tool.output_schema is not None
    wire = dataclasses.replace(tool, input_schema={}, output_schema={} if has_output else None).wire()
    frame = schema_size(wire) - (4 if has_output else 2)  # without the `{}` stand-ins
    meta = _META_MEMBER + schema_size(wire["_meta"]) if "_meta" in wire else 0
    outputs = Ladder(tool.output_schema, sizer) if tool.output_schema is not None else None
    return _Sized(tool, frame, Ladder(tool.input_schema, sizer), outputs, meta)


def _without_meta(item: _Sized) -> _Sized:
    tool = dataclasses.replace(item.tool, with_meta=False)
    return dataclasses.replace(item, tool=tool, frame=item.frame - item.meta, meta=0)


def _choose_limits(total: _Totals, limits: SizeLimits) -> tuple[int, int]:
    """The user's (input, output) limits if tools/list fits with them; else output limits a quarter
    and a sixteenth of theirs; else those and the largest input limit that fits (or the smallest
    forms of everything)."""
    input_limit, output_limit = limits.input_schema, limits.output_schema
    if limits.output_schemas != "compact":
        output_limit = 0
    if limits.tools_list <= 0 or total(input_limit, output_limit) <= limits.tools_list:
        return input_limit, output_limit
    if limits.output_schemas == "compact":
        for shift in (2, 4):
            output_limit = (limits.output_schema or _BASE_OUTPUT_LIMIT) >> shift
            if total(input_limit, output_limit) <= limits.tools_list:
                return input_limit, output_limit
    low, high = _SMALLEST, input_limit or _BASE_INPUT_LIMIT  # the largest fitting limit is in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if total(middle, output_limit) <= limits.tools_list else (low, middle)
    return low, output_limit


def _fitted(item: _Sized, input_limit: int, output_limit: int, shrinker: Shrinker) -> Tool:
    tool = item.tool
    input_schema = shrinker.root(tool.input_schema, item.inputs.fit(input_limit))
    if item.outputs is None or tool.output_schema is None:
        return dataclasses.replace(tool, input_schema=input_schema)
    output_index = item.output_form(output_limit)
    output_schema = _ROOT_ONLY if output_index is None else shrinker.root(tool.output_schema, output_index)
    return dataclasses.replace(tool, input_schema=input_schema, output_schema=output_schema)
