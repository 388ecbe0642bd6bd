"""`openapi2mcp diff OLD NEW`: the tool changelog between two versions of an API, for CI and reviews.

Each side is an OpenAPI spec (a path or URL, generated in memory with the default options and
`--name-style`) or a generated package: its directory (the `<package>/tool_data.json` that the
`.openapi2mcp-manifest.json` lists, else the one `*/tool_data.json`) or that `tool_data.json` itself.
The comparison is `openapi2mcp.ci.changelog`; this module reads the sides and renders the result,
as text or Markdown. The command itself, its options and exit status, is `openapi2mcp/cli/diff.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

import typer

from openapi2mcp.ci.changelog import Change, Changelog, ToolChange, ToolSet
from openapi2mcp.ci.pairing import argument_places
from openapi2mcp.diagnostics import Level
from openapi2mcp.emit.listing import enforced_input
from openapi2mcp.emit.output import OutputError, read_manifest
from openapi2mcp.emit.render import TOOL_DATA_FILE, TOOL_DATA_PLACES, tool_data_path
from openapi2mcp.load.source import LoadError, is_url
from openapi2mcp.model import GeneratorOptions, NameStyle
from openapi2mcp.pipeline import generate


def load_side(source: str, name_style: NameStyle) -> ToolSet:
    """The tools of a spec, a generated package directory or a `tool_data.json` (LoadError if none)."""
    if not is_url(source):
        path = Path(source)
        if path.is_dir():
            return read_tool_data(find_tool_data(path))
        if path.name == TOOL_DATA_FILE:
            return read_tool_data(path)
    return _spec_tools(source, name_style)


def _spec_tools(source: str, name_style: NameStyle) -> ToolSet:
    """The tools of the `tool_data.json` that a generation with the default options renders."""
    options = GeneratorOptions(dist_name="api", env_prefix="API", name_style=name_style)
    generation = generate(source, options)
    skipped = generation.diagnostics.count(Level.ERROR)
    if skipped:
        noun = "operation" if skipped == 1 else "operations"
        typer.echo(
            f"openapi2mcp: {source}: {skipped} {noun} skipped with errors "
            "(`openapi2mcp generate` lists them); they count as absent",
            err=True,
        )
    return parse_tool_data(generation.files[tool_data_path(options.package_name)], Path(source))


def find_tool_data(directory: Path) -> Path:
    """The package's data file: the one the manifest lists, or the one `*/data/tool_data.json` (or
    `*/tool_data.json`, as packages were generated before data/)."""
    try:
        owned = read_manifest(directory)
    except OutputError:
        owned = None  # unreadable: look at the files themselves
    if owned is None:
        found = sorted(path for place in TOOL_DATA_PLACES for path in directory.glob(f"*/{place}"))
    else:
        found = sorted(directory / item for item in owned if _is_tool_data(PurePosixPath(item)))
    if len(found) == 1:
        return found[0]
    if not found:
        raise LoadError(f"{directory}: not a generated package (no <package>/{TOOL_DATA_FILE} in it)")
    shown = ", ".join(path.relative_to(directory).parts[0] for path in found)
    raise LoadError(f"{directory}: several packages ({shown}): name one's {TOOL_DATA_FILE} instead")


def _is_tool_data(path: PurePosixPath) -> bool:
    """Whether a manifest's `path` is an import package's tool data (`<package>/<place>`)."""
    return any(path.parts[1:] == PurePosixPath(place).parts for place in TOOL_DATA_PLACES)


def read_tool_data(path: Path) -> ToolSet:
    return parse_tool_data(tool_data_text(path), path)


def tool_data_text(path: Path) -> str:
    """The text of a `tool_data.json` file; LoadError when it cannot be read or is not UTF-8."""
    try:
        return path.read_text("utf-8")
    except OSError as error:
        raise LoadError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except ValueError as error:  # not UTF-8
        raise LoadError(f"{path}: not a {TOOL_DATA_FILE} file: {error}") from None


def parse_tool_data(text: str, path: Path) -> ToolSet:
    """The tools of a `tool_data.json` text (`path` names it in errors)."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise LoadError(f"{path}: not a {TOOL_DATA_FILE} file: {error}") from None
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list) or not all(_is_tool(tool) for tool in tools):
        raise LoadError(f'{path}: not a {TOOL_DATA_FILE} file (no "tools" list of named tools)')
    routes = data.get("routes")
    if not isinstance(routes, dict):
        return ToolSet(tuple(tools))
    places = {name: argument_places(route) for name, route in routes.items() if isinstance(route, dict)}
    enforced = tuple(_enforced(tool, routes.get(tool["name"])) for tool in tools)
    return ToolSet(enforced, _route_keys(routes), places)


def _enforced(tool: dict[str, Any], route: Any) -> dict[str, Any]:
    """The tool with the inputSchema its server enforces (the listed one closes no object, its
    route's `closed` names them: emit/listing.py), so that closing or opening one is a change."""
    closed = route.get("closed") if isinstance(route, dict) else None
    if not closed:
        return tool
    return tool | {"inputSchema": enforced_input(tool.get("inputSchema"), closed)}


def _is_tool(tool: Any) -> bool:
    return isinstance(tool, dict) and isinstance(tool.get("name"), str)


def _route_keys(routes: dict[str, Any]) -> dict[str, str]:
    return {
        name: _route_key(
            route["method"], route["path"], route.get("fixedQuery") or (), route.get("templatedQuery") or ()
        )
        for name, route in routes.items()
        if isinstance(route, dict)
        and isinstance(route.get("method"), str)
        and isinstance(route.get("path"), str)
    }


def _route_key(
    method: str, path: str, fixed_query: Iterable[Iterable[Any]], templated_query: Iterable[Any] = ()
) -> str:
    """`GET /pets/{petId}`; with a path key's fixed query `GET /items?view=full`, and its templated
    query pairs `GET /weather?units=si&city={city}` (fixed pairs first)."""
    pairs = ["=".join(str(part) for part in pair) for pair in fixed_query]
    query = "&".join(pairs + [f"{name}={{{name}}}" for name in templated_query])
    return f"{method.upper()} {path}" + (f"?{query}" if query else "")


def render_text(changelog: Changelog) -> str:
    """The summary line, then per tool a heading line and its changes as bullets."""
    lines = [changelog.summary()]
    if changelog.tools:
        lines.append("")
    for tool in changelog.tools:
        lines.append(_heading(tool, str))
        lines += [
            f"  - {'BREAKING ' if change.breaking else ''}{_where(change, str)}{change.text}"
            for change in tool.changes
        ]
    return "\n".join(lines)


def render_markdown(changelog: Changelog) -> str:
    """A pull-request comment: a heading, the summary, a table of the tools, a section per changed tool."""
    lines = ["## Tool changes", "", _escape(changelog.summary())]
    if changelog.tools:
        lines += ["", "| Tool | Change | Breaking changes |", "| --- | --- | ---: |"]
        lines += [
            f"| {_code(tool.name)} | {_kind(tool, _code)} | {tool.breaking_count} |"
            for tool in changelog.tools
        ]
    for tool in changelog.tools:
        if tool.changes:
            lines += ["", f"### {_heading(tool, _code)}", ""]
            lines += [_markdown_bullet(change) for change in tool.changes]
    return "\n".join(lines)


def _heading(tool: ToolChange, quote: Callable[[str], str]) -> str:
    mark = " (BREAKING)" if tool.kind in ("removed", "renamed") else ""
    return f"{quote(tool.name)}: {_kind(tool, quote)}{mark}"


def _kind(tool: ToolChange, quote: Callable[[str], str]) -> str:
    return f"renamed from {quote(tool.old_name)}" if tool.old_name is not None else tool.kind


def _where(change: Change, quote: Callable[[str], str]) -> str:
    """`argument body.zip: `, `output result[].id: `, `inputSchema: `; nothing for the tool itself."""
    if change.side == "tool":
        return ""
    if not change.path:
        return f"{change.side}Schema: "
    return f"{'argument' if change.side == 'input' else 'output'} {quote(change.path)}: "


def _markdown_bullet(change: Change) -> str:
    return f"- {'**BREAKING** ' if change.breaking else ''}{_where(change, _code)}{_escape(change.text)}"


def _code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _escape(text: str) -> str:
    """Text that Markdown shows as it is (values like `^[a-z]*$` hold its syntax)."""
    return "".join(f"\\{char}" if char in "\\`*_[]<|" else char for char in text)
