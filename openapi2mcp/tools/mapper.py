"""Map each operation of a loaded OAS 3.x document to a `Tool`, or to diagnostics."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import ApiModel, GeneratorOptions, Icon, SecurityScheme, Tool, ToolOverride
from openapi2mcp.schemas.converter import SchemaConverter
from openapi2mcp.schemas.prose import plain_links
from openapi2mcp.tools.hints import annotations_for
from openapi2mcp.tools.icons import api_icons
from openapi2mcp.tools.inputs import build_inputs
from openapi2mcp.tools.long_running import CancelReference, detect, with_cancels
from openapi2mcp.tools.naming import NameChoice, choose_tool_names, humanize, tool_name
from openapi2mcp.tools.operations import OperationRef, iter_operations
from openapi2mcp.tools.outputs import build_output
from openapi2mcp.tools.overrides import OverrideIndex, merged_x_mcp
from openapi2mcp.tools.path_keys import split_path_key
from openapi2mcp.tools.route_names import fastapi_route_name, route_name
from openapi2mcp.tools.security import credential_slots, map_requirements, map_schemes
from openapi2mcp.tools.selectors import Selection
from openapi2mcp.tools.servers import default_base_url, own_base_url
from openapi2mcp.tools.shared_names import moved_parameter_names
from openapi2mcp.tools.toolsets import ToolsetRules, summarize
from openapi2mcp.tools.validation import check_operation

_DESCRIPTION_LIMIT = 4000


def map_document(
    document: dict[str, Any],
    options: GeneratorOptions,
    diagnostics: Diagnostics,
    source: str = "",
    on_operation: Callable[[], None] | None = None,
    validate: bool = True,
) -> ApiModel:
    """The whole model: API metadata, security schemes and one tool per usable operation that the
    options' selectors keep (with their overrides applied), each in its toolset. Raise SelectorError
    for a selector that cannot be read. `on_operation` is called as each operation is reached.
    `validate=False` maps each operation without checking it against the OpenAPI schema first: only
    for operations already known valid (`concurrent_validation.py`)."""
    resolver = Resolver(document)
    version = str(document.get("openapi", "3.0"))
    converter = SchemaConverter(resolver, diagnostics, openapi_version=version)
    schemes = map_schemes(document, resolver, options.env_prefix, diagnostics)
    server_variables = dict(options.server_variables)
    base_url = default_base_url(document, source, diagnostics, server_variables)
    toolsets = ToolsetRules(options.toolsets)
    context = _Context(
        document,
        resolver,
        converter,
        schemes,
        options,
        diagnostics,
        base_url,
        source,
        server_variables,
        toolsets,
        api_icons(document, options.icons, diagnostics),
        validate,
        moved_parameter_names(document, resolver),
    )
    selection, overrides = Selection(options.include, options.exclude), OverrideIndex(options.overrides)
    tools: list[tuple[Tool, NameChoice]] = []
    cancels: dict[str, CancelReference] = {}  # by the tool's pointer
    for ref in iter_operations(document, resolver, diagnostics):
        if on_operation is not None:
            on_operation()
        its_overrides = overrides.matching(ref)  # also for operations left out: not "unmatched"
        if not selection.keeps(ref):
            continue
        try:
            tool, choice, cancel = _map_operation(ref, context, its_overrides)
        except SpecError as error:
            where = "" if error.pointer.startswith(ref.pointer) else f" {ref.method.upper()} {ref.path}"
            diagnostics.error(error.pointer, f"{error.message}; operation{where} skipped")
        except RecursionError:  # a schema nested hundreds of levels deep (or a chain of files)
            diagnostics.error(ref.pointer, "a schema is nested too deeply to convert; operation skipped")
        else:
            tools.append((tool, choice))
            if cancel is not None:
                cancels[tool.pointer] = cancel
    selection.report(diagnostics)
    overrides.warn_unmatched(diagnostics)
    toolsets.warn_unmatched(diagnostics)
    unique = with_cancels(
        _with_unique_names(tools, options, diagnostics), cancels, document, resolver, diagnostics
    )
    raw_info = document.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    return ApiModel(
        title=str(info.get("title") or options.dist_name),
        version=str(info.get("version") or "0.0.0"),
        description=str(info.get("description") or ""),
        default_base_url=base_url,
        security_schemes=tuple(schemes.values()),
        tools=unique,
        toolsets=summarize(unique, document, options.default_toolsets, diagnostics),
    )


@dataclass(frozen=True)
class _Context:
    """What mapping one operation needs from the whole document."""

    document: dict[str, Any]
    resolver: Resolver
    converter: SchemaConverter
    schemes: dict[str, SecurityScheme]
    options: GeneratorOptions
    diagnostics: Diagnostics
    base_url: str
    source: str
    server_variables: dict[str, str]  # --server-var
    toolsets: ToolsetRules
    icons: tuple[Icon, ...]  # every tool's
    validate: bool  # check each operation against the OpenAPI schema (openapi-pydantic) first
    moved: frozenset[tuple[str, str]]  # parameters named `{name}_{location}` in every tool (shared_names.py)


def _map_operation(
    ref: OperationRef, context: _Context, overrides: tuple[ToolOverride, ...]
) -> tuple[Tool, NameChoice, CancelReference | None]:
    """The operation's tool, its name choices and, when it is long-running, the operation that cancels
    it as given (resolved once every tool is named)."""
    diagnostics, options = context.diagnostics, context.options
    key = split_path_key(ref.path, ref.pointer, diagnostics)
    if context.validate:
        check_operation(ref.operation, ref.pointer, context.document)
    operation = ref.operation
    x_mcp = merged_x_mcp(_x_mcp(operation, ref.pointer, diagnostics), overrides)
    operation_id = operation.get("operationId") if isinstance(operation.get("operationId"), str) else None
    choice = _name_choice(ref, x_mcp.get("name"), operation_id, options)
    name = choice.names[0]
    summary = plain_links(_text(operation.get("summary")))
    title = _text(x_mcp.get("title")) or summary or humanize(name)
    raw_security = operation["security"] if "security" in operation else context.document.get("security")
    security_pointer = pointer_join(ref.pointer, "security")
    security = map_requirements(raw_security, context.schemes, security_pointer, diagnostics)
    credentials = credential_slots(security, context.schemes)
    inputs = build_inputs(
        ref, context.resolver, context.converter, diagnostics, key, credentials, context.moved
    )
    output = build_output(
        operation.get("responses"), ref.pointer, context.resolver, context.converter, diagnostics
    )
    long_running = detect(ref, x_mcp, context.resolver, diagnostics)
    tool = Tool(
        name=name,
        title=title,
        description=_description(x_mcp, summary, operation, ref, inputs.body_note),
        method=ref.method.upper(),
        path=key.path,
        pointer=ref.pointer,
        operation_id=operation_id,
        parameters=inputs.parameters,
        body=inputs.body,
        input_schema=inputs.schema,
        output_schema=output.schema,
        output_wrapped=output.wrapped,
        annotations=annotations_for(ref.method, title, x_mcp.get("annotations"), ref.pointer, diagnostics),
        security=security,
        tags=tuple(str(tag) for tag in operation.get("tags") or () if isinstance(tag, str)),
        fixed_query=key.fixed_query,
        templated_query=tuple(name for name, _ in key.templated_query),
        base_url=own_base_url(
            ref.path_item,
            operation,
            ref.pointer,
            context.base_url,
            context.source,
            diagnostics,
            context.server_variables,
        ),
        toolset=context.toolsets.toolset(ref, ref.pointer, overrides, diagnostics),
        icons=context.icons,
        long_running=long_running.long_running if long_running else None,
    )
    return tool, choice, long_running.cancel if long_running else None


def _name_choice(
    ref: OperationRef, chosen: Any, operation_id: str | None, options: GeneratorOptions
) -> NameChoice:
    """An `x-mcp` name or a person's operationId, else names derived from FastAPI's default
    operationId (the route function's name, then the id) or from the route (`route_names.py`)."""
    identity = f"{ref.method.upper()} {ref.path}"  # the path key: unique in the spec
    if chosen:
        return NameChoice((tool_name(str(chosen), options.name_style),), identity)
    if not operation_id:  # none, or an empty one
        route = route_name(ref.method, ref.path)
        names = tuple(tool_name(name, options.name_style) for name in route.names)
        return NameChoice(names, identity, derived=True, depth=route.depth)
    own = tool_name(operation_id, options.name_style)
    function = fastapi_route_name(operation_id, ref.method, ref.path)
    if function is None:
        return NameChoice((own,), identity)
    depth = route_name(ref.method, ref.path).depth
    return NameChoice((tool_name(function, options.name_style), own), identity, True, depth)


def _x_mcp(operation: dict[str, Any], pointer: str, diagnostics: Diagnostics) -> dict[str, Any]:
    value = operation.get("x-mcp")
    if value is None or value is True:
        return {}
    if not isinstance(value, dict):
        diagnostics.warning(pointer_join(pointer, "x-mcp"), "x-mcp must be an object or false; ignored")
        return {}
    return value


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _description(
    x_mcp: dict[str, Any], summary: str, operation: dict[str, Any], ref: OperationRef, body_note: str
) -> str:
    override = x_mcp.get("description")
    if isinstance(override, str) and override.strip():
        parts = [override.strip()]
    else:
        detail = operation.get("description")
        parts = [
            part for part in (summary, plain_links(detail.strip()) if isinstance(detail, str) else "") if part
        ]
        if len(parts) == 2 and parts[1].startswith(parts[0]):
            parts = [parts[1]]
    text = "\n\n".join(parts)
    if len(text) > _DESCRIPTION_LIMIT:
        text = text[: _DESCRIPTION_LIMIT - 1].rstrip() + "…"
    footer = f"HTTP: {ref.method.upper()} {ref.path}" + (f"\n{body_note}" if body_note else "")
    return f"{text}\n\n{footer}" if text else footer


def _with_unique_names(
    tools: list[tuple[Tool, NameChoice]], options: GeneratorOptions, diagnostics: Diagnostics
) -> tuple[Tool, ...]:
    names = choose_tool_names([choice for _, choice in tools], options.name_style)
    shared = Counter(tool.name for tool, choice in tools if not choice.derived)
    for (tool, choice), name in zip(tools, names, strict=True):
        if not choice.derived and name != tool.name:
            diagnostics.warning(
                tool.pointer,
                f"tool name {tool.name!r} is shared by {shared[tool.name]} operations; this one is {name!r}",
            )
    return tuple(
        tool if tool.name == name else dataclasses.replace(tool, name=name)
        for (tool, _), name in zip(tools, names, strict=True)
    )
