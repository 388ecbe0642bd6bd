"""`openapi2mcp diff OLD NEW`: which tools changed between two versions of an API, for CI and reviews.

Reading each side (a spec, a generated package or its `tool_data.json`) and rendering the changelog
are `openapi2mcp/ci/diff.py`; the comparison is `ci/changelog.py`. Exit status: 1 when a change
breaks clients, 0 otherwise, 2 when a side cannot be read.
"""

from __future__ import annotations

from typing import Annotated, cast, get_args

import typer

from openapi2mcp.ci.changelog import compare
from openapi2mcp.ci.diff import load_side, render_markdown, render_text
from openapi2mcp.cli.errors import fail
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import NameStyle

EXIT_COMPATIBLE, EXIT_BREAKING = 0, 1
FORMATS = ("text", "markdown")
_SIDE_HELP = "OpenAPI spec (file or URL), generated package directory or its tool_data.json"


def diff_command(
    old: Annotated[str, typer.Argument(help=f"The earlier version: {_SIDE_HELP}")],
    new: Annotated[str, typer.Argument(help=f"The later version: {_SIDE_HELP}")],
    output_format: Annotated[
        str, typer.Option("--format", help="'text', or 'markdown' for a pull-request comment")
    ] = "text",
    name_style: Annotated[
        str, typer.Option(help="Tool names of a spec side: 'portable' or 'mcp' (as `generate`)")
    ] = "portable",
) -> None:
    """Show which tools were added, removed, renamed or changed from OLD to NEW.

    Exit status 1 when a change breaks clients, 0 otherwise, 2 when OLD or NEW cannot be read."""
    if output_format not in FORMATS:
        fail(f"--format {output_format!r}: choose 'text' or 'markdown'")
    if name_style not in get_args(NameStyle):
        fail(f"--name-style {name_style!r}: choose 'portable' or 'mcp'")
    style = cast(NameStyle, name_style)
    try:
        changelog = compare(load_side(old, style), load_side(new, style))
    except LoadError as error:
        fail(str(error))
    except RecursionError:  # only a pathological tool_data.json nests this deep
        fail("the tool schemas are nested too deeply to compare")
    typer.echo(render_markdown(changelog) if output_format == "markdown" else render_text(changelog))
    raise typer.Exit(EXIT_BREAKING if changelog.breaking_count else EXIT_COMPATIBLE)
