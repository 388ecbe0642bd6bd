"""The options of `generate` (and of `inspect`, which shares those that change the tools), declared
once: a command takes one as `parameter: NameStyleOption = "portable"`. Their values are checked
and merged with the config file's (`config.py`) by `resolve.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from openapi2mcp.config import CONFIG_FILE, PYPROJECT, PYPROJECT_TABLE
from openapi2mcp.tools.selectors import SELECTOR_FORMS

OutOption = Annotated[
    Path | None, typer.Option("--out", "-o", help="Output directory of the package", show_default=False)
]
NameOption = Annotated[str | None, typer.Option("--name", help="Distribution name, e.g. petstore")]
EnvPrefixOption = Annotated[str | None, typer.Option(help="Prefix of environment variables (default: NAME)")]
NameStyleOption = Annotated[
    str, typer.Option(help="Tool names: 'portable' [A-Za-z0-9_-]{1,64} or 'mcp' [A-Za-z0-9_.-]{1,128}")
]
ServerVarOption = Annotated[
    list[str] | None,
    typer.Option(help="NAME=VALUE: a server URL variable's value instead of its default (repeatable)"),
]
StrictOption = Annotated[
    bool, typer.Option(help="Fail (exit 2, nothing written) on any error or warning diagnostic")
]
AllowRemoteRefsOption = Annotated[
    bool, typer.Option(help="Fetch http(s) documents that the spec's $refs name")
]
RefRootOption = Annotated[
    Path | None,
    typer.Option(metavar="DIR", help="Let $refs read files under DIR too, not only the spec's directory"),
]
InputSchemaLimitOption = Annotated[
    int, typer.Option(metavar="BYTES", help="Compact any inputSchema larger than this (0: no limit)")
]
OutputSchemasOption = Annotated[
    str, typer.Option(help="'compact' (at most --output-schema-limit bytes each), 'full' or 'none'")
]
OutputSchemaLimitOption = Annotated[
    int, typer.Option(metavar="BYTES", help="Compact any outputSchema larger than this (0: no limit)")
]
ToolsListLimitOption = Annotated[
    int,
    typer.Option(metavar="BYTES", help="Compact schemas further until tools/list fits in this (0: no limit)"),
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option(metavar="SELECTOR", help=f"Only operations matching one of these ({SELECTOR_FORMS})"),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(metavar="SELECTOR", help="Leave out operations matching any of these (wins over --include)"),
]
OverlayOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="FILE", help="OpenAPI Overlay 1.0 document applied to the spec (repeatable, in order)"
    ),
]
BundleOption = Annotated[
    bool,
    typer.Option(help="Also write an MCPB manifest.json and pack OUT into OUT/NAME.mcpb with the mcpb CLI"),
]
ModelsOption = Annotated[
    bool,
    typer.Option(help="Also write models.py: pydantic classes of each tool's arguments and result"),
]
RuntimeOption = Annotated[
    str,
    typer.Option(
        help="'vendored': the runtime copied into the package (standalone); 'package': a dependency on"
        " openapi2mcp-runtime, so upgrading it fixes every such server"
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help=f"TOML file of options (default: {CONFIG_FILE}, else tool.{PYPROJECT_TABLE} of {PYPROJECT})",
    ),
]
ProfileOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAME", help="Apply the config file's profiles.NAME table on top of its other options"
    ),
]

QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print errors only; the exit status tells the rest")
]
VerboseOption = Annotated[
    bool, typer.Option("--verbose", "-v", help="List every place of each kind of diagnostic, not the first 3")
]
DiagnosticsFormatOption = Annotated[
    str,
    typer.Option(
        metavar="FORMAT",
        help="'text' (grouped, on stderr) or 'github' (GitHub Actions annotations of the spec's lines, "
        "on stdout)",
    ),
]
