"""The command line's typer app: `openapi2mcp generate|inspect|diff`, and the console script.

Each command is a module of this package (`generate.py`, `inspect.py`, `diff.py`); this one only
registers them and turns a bug of openapi2mcp itself into one clear line (exit 3)."""

from __future__ import annotations

import gc
import os

import typer

from openapi2mcp.cli.diff import diff_command
from openapi2mcp.cli.generate import generate_command
from openapi2mcp.cli.inspect import inspect_command

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate MCP tool servers from OpenAPI.",
)

EXIT_INTERNAL = 3
DEBUG_VARIABLE = "OPENAPI2MCP_DEBUG"


@app.callback()
def _root() -> None:
    """Generate MCP tool servers from OpenAPI descriptions."""


# In this order in `--help`.
app.command("diff")(diff_command)
app.command("inspect")(inspect_command)
app.command("generate")(generate_command)


def main() -> None:
    """The console script: a generator bug is one clear line (the traceback with OPENAPI2MCP_DEBUG=1)."""
    # No cycle collection in this short process: generation pauses the collector anyway, and resuming
    # it afterwards would make its first collection walk every object of the run (a tenth of a second
    # after a large spec) for the little cyclic garbage there is.
    collecting = gc.isenabled()
    gc.disable()
    try:
        app()
    except Exception as error:  # a bug in openapi2mcp itself, not in the user's input
        if os.environ.get(DEBUG_VARIABLE):
            raise
        typer.echo(
            f"openapi2mcp: internal error: {type(error).__name__}: {error}\n"
            f"This is a bug in openapi2mcp; nothing was written. Rerun with {DEBUG_VARIABLE}=1 "
            "for the traceback and report it with the spec.",
            err=True,
        )
        raise SystemExit(EXIT_INTERNAL) from None
    finally:
        # The process ends next: its last cycle collection need not walk every live object (a tenth
        # of a second after a large spec); what is left is freed with the process.
        gc.freeze()
        if collecting:  # as it was for a caller in the same process (tests)
            gc.enable()
