"""How every command of the CLI fails on bad input: one `openapi2mcp: error:` line, exit 2."""

from __future__ import annotations

from typing import NoReturn

import typer

EXIT_INPUT = 2


def fail(message: str) -> NoReturn:
    typer.echo(f"openapi2mcp: error: {message}", err=True)
    raise typer.Exit(EXIT_INPUT)
