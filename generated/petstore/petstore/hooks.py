"""Your code around the tools of this MCP server (the rules: the README's "Hooks" section).

openapi2mcp created this file once and never overwrites it: it is yours (delete it and the next
generation writes this template again). The examples below are off: remove their leading `# `.
"""

from __future__ import annotations

from .hooks_api import Call, HookError, Hooks, ModelMismatch, Request, Result  # noqa: F401

hooks = Hooks()

# Every tool: a header on each request (the final URL, params, headers and body are all yours).
#
# @hooks.before_request()
# def add_trace_id(call: Call, request: Request) -> None:
#     request.headers["X-Trace-Id"] = f"mcp-{call.tool}"
#     request.params.append(("source", "mcp"))

# One tool (or several names): change its result; error results only with errors=True.
#
# @hooks.after_result("listPets")
# async def add_note(call: Call, result: Result) -> None:
#     if result.data is not None:
#         result.data["note"] = "checked by hooks.py"

# Typed arguments and results: generate with --models, then use the classes of models.py
# (`<Tool>Args`, `<Tool>Result`); a value that does not fit fails the call with pydantic's reason.
#
# from .models import ListPetsArgs, ListPetsResult
#
# @hooks.before_request("listPets")
# def typed_arguments(call: Call, request: Request) -> None:
#     arguments = call.arguments_as(ListPetsArgs)  # attributes with the spec's types
#     call.state["arguments"] = arguments
#
# @hooks.after_result("listPets")
# def typed_result(call: Call, result: Result) -> None:
#     data = result.data_as(ListPetsResult)  # change it, then write it back:
#     result.data = data.model_dump(mode="json", by_alias=True, exclude_unset=True)

# A tool of your own, listed after the generated ones (sync tools run in a worker thread).
#
# @hooks.tool(
#     name="echo",
#     description="Returns its text.",
#     input_schema={
#         "type": "object",
#         "properties": {"text": {"type": "string"}},
#         "required": ["text"],
#         "additionalProperties": False,
#     },
#     annotations={"readOnlyHint": True, "openWorldHint": False},
# )
# async def echo(arguments: dict[str, object], call: Call) -> dict[str, object]:
#     return {"text": arguments["text"]}  # or `await call.call_tool(...)` for a generated tool

# The HTTP client (one httpx2.AsyncClient), before it is made: its keyword arguments are yours.
#
# @hooks.http_client()
# def log_requests(options: dict[str, object]) -> None:
#     import sys
#
#     async def log(request: object) -> None:
#         print("->", request, file=sys.stderr)  # stdout carries the MCP messages on stdio
#
#     options["event_hooks"] = {"request": [log]}
