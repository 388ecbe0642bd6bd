"""`generate --bundle`: an MCP Bundle (MCPB) manifest at the root of the package, and its packing
into `OUT/NAME.mcpb` by the official CLI (`mcpb pack`, npm package `@anthropic-ai/mcpb`).

The manifest follows MCPB manifest_version 0.3 (the schema in the CLI's package,
`dist/mcpb-manifest-v0.3.schema.json`; required: name, version, description, author, server): a
`python` server started as `python3 -m PACKAGE` (`python` on Windows) with the bundle's directory
and its `lib/` on PYTHONPATH (`pip install --target lib .` there makes the bundle carry its
dependencies for one platform); one `user_config` entry per variable of the stdio server, each
passed to it as `${user_config.KEY}` (blank means unset to the server; credentials are
`sensitive`); the tools with their descriptions shortened.

Packing is the CLI's: a zip of the directory less its ignore patterns and `.mcpbignore`. Without
the CLI on PATH the manifest is still written and `pack_bundle` says how to pack it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi2mcp.emit.client_setup import ClientSetup, ClientVariable
from openapi2mcp.model import ApiModel, Tool

MANIFEST_FILE = "manifest.json"
IGNORE_FILE = ".mcpbignore"
MANIFEST_VERSION = "0.3"
PACKAGE_VERSION = "0.1.0"  # as templates/package/pyproject.toml.jinja
AUTHOR = "openapi2mcp"
DESCRIPTION_CHARS = 200
PACK_TIMEOUT = 300  # seconds
# Not for the bundle: the generator's own records, the container files, virtual environments, build
# output.
IGNORED = (
    ".openapi2mcp-manifest.json",
    "Dockerfile",
    ".dockerignore",
    "__pycache__/",
    "*.pyc",
    ".venv/",
    "venv/",
    "build/",
    "dist/",
    "*.egg-info/",
)
_BOOLEAN_SUFFIXES = ("_READ_ONLY", "_DYNAMIC_TOOLSETS")


def bundle_files(model: ApiModel, setup: ClientSetup) -> dict[str, str]:
    """`manifest.json` and `.mcpbignore`, by path relative to the output directory."""
    text = json.dumps(manifest(model, setup), indent=2, ensure_ascii=False) + "\n"
    return {MANIFEST_FILE: text, IGNORE_FILE: "\n".join(IGNORED) + "\n"}


def manifest(model: ApiModel, setup: ClientSetup) -> dict[str, Any]:
    env = {variable.name: f"${{user_config.{variable.key}}}" for variable in setup.variables}
    paths = {"posix": "${__dirname}/lib:${__dirname}", "win32": "${__dirname}/lib;${__dirname}"}
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": setup.name,
        "display_name": model.title or setup.name,
        "version": PACKAGE_VERSION,
        "description": f"MCP tool server for {model.title}",
        "author": {"name": AUTHOR},
        "server": {
            "type": "python",
            "entry_point": f"{setup.package}/__main__.py",
            "mcp_config": {
                "command": "python3",
                "args": ["-m", setup.package],
                "env": {"PYTHONPATH": paths["posix"], **env},
                "platform_overrides": {
                    "win32": {"command": "python", "env": {"PYTHONPATH": paths["win32"], **env}}
                },
            },
        },
        "tools": [{"name": tool.name, "description": short_description(tool)} for tool in model.tools],
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"python": ">=3.11"}},
        "user_config": {variable.key: user_config(variable) for variable in setup.variables},
    }


def user_config(variable: ClientVariable) -> dict[str, Any]:
    """A required entry has no default (the bundle does not start without it); an optional one
    defaults to its spec default or blank (unset: the server's own default)."""
    boolean = variable.name.endswith(_BOOLEAN_SUFFIXES)
    entry: dict[str, Any] = {
        "type": "boolean" if boolean else "string",
        "title": variable.name,
        "description": variable.meaning,
        "required": variable.required,
    }
    if variable.secret:
        entry["sensitive"] = True
    if not variable.required:
        entry["default"] = False if boolean else variable.default
    return entry


def short_description(tool: Tool) -> str:
    """The first paragraph of the tool's description (its title without one), on one line, at
    most DESCRIPTION_CHARS characters, cut at a word."""
    paragraph = tool.description.strip().split("\n\n", 1)[0] if tool.description.strip() else tool.title
    text = " ".join(paragraph.split())
    if len(text) <= DESCRIPTION_CHARS:
        return text
    cut = text[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0]
    return cut + "…"


@dataclass(frozen=True)
class Packed:
    """What `pack_bundle` did: the bundle written, or why not."""

    bundle: Path | None
    message: str


class PackError(Exception):
    """The MCPB CLI refused the package or failed; the message has its output."""


def pack_bundle(out: Path, name: str, cli: str | None = None) -> Packed:
    """Pack `out` into `out/NAME.mcpb` with the MCPB CLI (`cli`, default `mcpb` on PATH)."""
    found = cli or shutil.which("mcpb")
    target = out / f"{name}.mcpb"
    if found is None:
        how = f"npx @anthropic-ai/mcpb pack {out} {target}"
        return Packed(
            None, f"the MCPB CLI (mcpb) is not on PATH: {MANIFEST_FILE} is written; pack with `{how}`"
        )
    try:
        run = subprocess.run(
            [found, "pack", str(out), str(target)],
            capture_output=True,
            text=True,
            timeout=PACK_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PackError(f"mcpb pack could not run: {error}") from None
    if run.returncode != 0 or not target.is_file():
        output = (run.stdout + run.stderr).strip()
        raise PackError(f"mcpb pack failed (exit {run.returncode}): {output}")
    return Packed(target, f"bundle packed: {target}")
