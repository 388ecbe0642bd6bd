"""MkDocs hooks (`hooks:` of mkdocs.yml): the pages of the site that are made, not written, so that
they cannot drift from what they describe.

- `reference/cli.md`: every command, argument and option of the `openapi2mcp` typer app, with the
  help text, default and usage line the code declares (what `--help` prints).
- `reference/environment.md`: the generated server's variables as `openapi2mcp.emit.variables.variables`
  lists them, the function every generated README and `.env.example` is made from.
- `benchmarks.md`: `benchmarks/README.md`, its lists written as Python-Markdown reads them.

They are made in memory at every build (nothing is written to docs/); `mkdocs serve` rebuilds them
when the code changes. tests/test_docs.py builds the site with --strict."""

from __future__ import annotations

import html
import inspect
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
import typer.main
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.variables import Variable, variables
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import ApiModel, SecurityScheme
from openapi2mcp.tools.security import map_schemes

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks" / "README.md"
PROGRAM = "openapi2mcp"
PREFIX = "{PREFIX}"  # the package's --env-prefix, as the manual writes it

# The example spec of the environment-variable reference: an absolute server, one security scheme
# of each kind the generator reads credentials for, and a relative server for the second meaning of
# the base URL (a service that serves its own spec).
EXAMPLE_SERVER = "https://api.example.com/v1"
RELATIVE_SERVER = "/api/v2"
EXAMPLE_SCHEMES: dict[str, dict[str, Any]] = {
    "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "bearer": {"type": "http", "scheme": "bearer"},
    "basic": {"type": "http", "scheme": "basic"},
    "service": {
        "type": "oauth2",
        "flows": {"clientCredentials": {"tokenUrl": "https://auth.example.com/token", "scopes": {}}},
    },
    "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://auth.example.com/.well-known/openid"},
}
SCHEME_KINDS = {
    "api_key": "apiKey in a header (in a query or a cookie: the same variable)",
    "bearer": "http bearer",
    "basic": "http basic",
    "service": "oauth2 with a client-credentials flow (other flows: the token only)",
    "oidc": "openIdConnect",
}


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """`mkdocs serve` rebuilds when what the made pages come from changes."""
    config.watch.extend(str(ROOT / path) for path in ("openapi2mcp", "templates", "benchmarks/README.md"))
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for src_uri, text in made_pages().items():
        files.append(File.generated(config, src_uri, content=text))
    benchmarks = python_markdown_lists(BENCHMARKS.read_text(encoding="utf-8"))
    files.append(File.generated(config, "benchmarks.md", content=benchmarks))
    return files


def made_pages() -> dict[str, str]:
    return {"reference/cli.md": cli_reference(), "reference/environment.md": environment_reference()}


# Markdown


def text(value: str) -> str:
    """Plain text for Markdown (a table cell too): code spans kept, other markup characters escaped."""
    parts = value.split("`")
    for index in range(0, len(parts), 2):  # outside the code spans
        escaped = html.escape(parts[index], quote=False)
        parts[index] = re.sub(r"([\\*_\[\]|])", r"\\\1", escaped)
    return "`".join(parts)


def code(value: str) -> str:
    fence = "``" if "`" in value else "`"
    return f"{fence}{value}{fence}"


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


LIST_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s")


def python_markdown_lists(markdown: str) -> str:
    """GitHub's lists as Python-Markdown reads them: a blank line before a list that follows a
    paragraph (else the items are the paragraph's text), and the indentation inside a list doubled
    (Python-Markdown nests blocks 4 spaces deep, GitHub 2). For a page written for GitHub, such as
    benchmarks/README.md; the pages of docs/ are written for the site."""
    out: list[str] = []
    in_list = in_fence = loose = False  # loose: the current item has a blank line, so blocks of its own
    previous = ""
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("```") and indent == 0:
            in_fence = not in_fence
        if in_fence or (stripped.startswith("```") and indent == 0):
            out.append(line)
        elif not stripped:
            loose = in_list
            out.append(line)
        elif indent == 0 and LIST_ITEM.match(line):
            if (loose or not in_list) and previous.strip():  # else the item is read as the text before
                out.append("")
            in_list, loose = True, False
            out.append(line)
        elif indent == 0:
            in_list = in_list and bool(previous.strip())  # a line right after an item continues it
            out.append(line)
        else:
            out.append(" " * (2 * indent) + stripped if in_list else line)
        previous = line
    return "\n".join(out)


# The command line


def typer_app() -> typer.Typer:
    """The `openapi2mcp` app: `app` of openapi2mcp/cli.py (of its module `app` once the CLI is a
    package, whose `__init__` imports nothing)."""
    from openapi2mcp.cli import app  # here: it imports all of the generator

    found = app if isinstance(app, typer.Typer) else getattr(app, "app", None)
    assert isinstance(found, typer.Typer), found
    return found


def cli_reference() -> str:
    group = typer.main.get_command(typer_app())
    root = typer.Context(group, info_name=PROGRAM)
    names = list(getattr(group, "commands", {}))
    names.sort(key=lambda name: name != "generate")  # generate first, the others as declared
    lines = [
        "# Command-line reference",
        "",
        "Made from the `openapi2mcp` typer app (`openapi2mcp/cli.py`) each time this site is built: every",
        "command, argument and option with the help text and default the code declares, as `--help`",
        "prints them. What the options do, in full: [Generating](../generating.md#options),",
        "[Regenerating in CI](../ci.md) (`diff`) and",
        "[The tool contract](../tool-contract.md#what-clients-make-of-it-inspect) (`inspect`). The generated",
        "server's own flags (`--transport`, `--mode`, `--toolsets`, ...) are in each package's README and",
        "its `--help`.",
        "",
        f"## `{PROGRAM}`",
        "",
        *_command(group, root, PROGRAM),
        "",
        *table(
            ("command", "what it does"),
            [(f"[`{name}`](#{PROGRAM}-{name})", text(_summary(group, name))) for name in names],
        ),
    ]
    for name in names:
        command = group.commands[name]  # type: ignore[attr-defined]
        context = typer.Context(command, info_name=name, parent=root)
        lines += ["", f"## `{PROGRAM} {name}`", "", *_command(command, context, f"{PROGRAM} {name}")]
    return "\n".join(lines) + "\n"


def _summary(group: Any, name: str) -> str:
    help_text = inspect.cleandoc(group.commands[name].help or "")
    return help_text.split("\n\n")[0].replace("\n", " ")


def _command(command: Any, context: Any, path: str) -> list[str]:
    help_text = inspect.cleandoc(command.help or "")
    lines = [text(paragraph.replace("\n", " ")) + "\n" for paragraph in help_text.split("\n\n") if paragraph]
    usage = " ".join(command.collect_usage_pieces(context))
    lines += ["```", f"Usage: {path} {usage}".rstrip(), "```", ""]
    rows = []
    parameters = [*command.params]
    help_option = command.get_help_option(context)
    if help_option is not None:
        parameters.append(help_option)
    for parameter in parameters:
        record = parameter.get_help_record(context)
        if record is None:
            continue
        names, meaning = record
        rows.append((code(names), text(meaning)))
    if rows:
        lines += table(("argument or option", "meaning"), rows)
    return lines


# The environment variables


def example_schemes() -> tuple[SecurityScheme, ...]:
    document = {"components": {"securitySchemes": EXAMPLE_SCHEMES}}
    diagnostics = Diagnostics()
    schemes = map_schemes(document, Resolver(document), PREFIX, diagnostics)
    assert not diagnostics.items, diagnostics.items
    return tuple(schemes.values())


def example_model(server: str, schemes: tuple[SecurityScheme, ...] = ()) -> ApiModel:
    return ApiModel(
        title="Example",
        version="1",
        description="",
        default_base_url=server,
        security_schemes=schemes,
        tools=(),
    )


def environment_reference() -> str:
    schemes = example_schemes()
    listed = variables(example_model(EXAMPLE_SERVER, schemes), PREFIX)
    relative = {variable.name: variable for variable in variables(example_model(RELATIVE_SERVER), PREFIX)}
    credentials = {name: scheme for scheme in schemes for name in scheme.env.values()}
    settings = [variable for variable in listed if variable.name not in credentials]
    rows = []
    for variable in settings:
        rows.append(_variable_row(variable))
        other = relative.get(variable.name)
        if other is not None and other.meaning != variable.meaning:
            rows.append(_variable_row(other, f" (the spec's server is relative: `{RELATIVE_SERVER}`)"))
    lines = [
        "# Environment variables",
        "",
        "Made from `variables()` of `openapi2mcp/emit/variables.py` each time this site is built: the list",
        "every generated package's README and `.env.example` are written from, so this page says what",
        "the generator writes. `{PREFIX}` is the package's `--env-prefix` (default: its name upper-cased,",
        "other characters turned to `_`). What each setting does, in full, and the variables read by",
        "`httpx2` (proxies, CA files): [Settings](../server.md#settings-environment-variables).",
        "",
        f"The meanings are those of an example spec whose first server is `{EXAMPLE_SERVER}`; the base",
        "URL's second row is that of a spec whose server is a relative path (a service that serves its own",
        'spec). "HTTP only": read only with `--transport http`; client set-ups and bundles leave them out.',
        "",
        "## Settings",
        "",
        *table(("variable", "meaning", "read"), rows),
        "",
        "## Credentials",
        "",
        "One set per security scheme of the spec: `{PREFIX}_{SCHEME}_...`, SCHEME being the scheme's key",
        "upper-cased with every character but letters and digits turned to `_`. For the example spec's",
        "schemes:",
        "",
        *table(
            ("variable", "meaning", "scheme"),
            [
                (
                    code(name),
                    text(_meaning(listed, name)),
                    text(f"`{scheme.key}`: {SCHEME_KINDS[scheme.key]}"),
                )
                for name, scheme in credentials.items()
            ],
        ),
    ]
    return "\n".join(lines) + "\n"


def _variable_row(variable: Variable, note: str = "") -> tuple[str, str, str]:
    read = "HTTP only" if variable.http_only else "stdio and HTTP"
    return code(variable.name) + note, text(variable.meaning), read


def _meaning(listed: list[Variable], name: str) -> str:
    return next(variable.meaning for variable in listed if variable.name == name)
