"""How the CLI prints a generation's diagnostics: grouped text, or GitHub Actions annotations.

- `text` (default, stderr): one group per kind of problem, errors first, with its count and its
  first `EXAMPLES` places (`--verbose`: all), each as `file:line:column: pointer`. A kind is the
  message with its quoted names and numbers left out (`header parameter '…' is ignored`).
  Coloured on a terminal only (`progress.on_terminal`).
- `github` (stdout, where the runner reads workflow commands): one `::error`, `::warning` or
  `::notice` command per diagnostic, with `file`, `line` and `col` in the spec, so a CI run marks
  the spec's lines; values escaped as GitHub's toolkit does (`%`, CR, LF; `:` and `,` in properties).
- `--quiet`: errors only.

Line numbers (`load/lines.py`) are looked up here, for the places printed only."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import typer

from openapi2mcp.cli.errors import fail
from openapi2mcp.diagnostics import Diagnostic, Diagnostics, Level, visible
from openapi2mcp.load.bundle_sources import DEFAULT_REF_OPTIONS, RefOptions
from openapi2mcp.load.lines import Location, locate

FORMATS = ("text", "github")
EXAMPLES = 3  # places shown per kind without --verbose
_LEVEL_ORDER = (Level.ERROR, Level.WARNING, Level.INFO)
_STYLES = {Level.ERROR: "bold red", Level.WARNING: "yellow", Level.INFO: "cyan"}
_COMMANDS = {Level.ERROR: "error", Level.WARNING: "warning", Level.INFO: "notice"}
# What varies within one kind: a quoted name or value (as `repr` writes it) and a number.
_VARYING = re.compile(
    r"(?<!\w)'(?:[^'\\]|\\.)*'(?!\w)"
    r'|(?<!\w)"(?:[^"\\]|\\.)*"(?!\w)'
    r"|(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])"
)


@dataclass(frozen=True)
class Display:
    """The diagnostics options of a command: `--diagnostics-format`, `--quiet`, `--verbose`."""

    format: str = "text"
    quiet: bool = False
    verbose: bool = False


def display_options(diagnostics_format: str, quiet: bool, verbose: bool) -> Display:
    """The checked options (exit 2 for an unknown format)."""
    if diagnostics_format not in FORMATS:
        fail(f"--diagnostics-format {diagnostics_format!r}: choose 'text' or 'github'")
    return Display(diagnostics_format, quiet, verbose)


@dataclass
class Group:
    """The diagnostics of one level and kind, in the order they were found."""

    level: Level
    kind: str
    items: list[Diagnostic] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The message when all say the same, else the kind (`…` where they differ)."""
        first = self.items[0].message
        return first if all(item.message == first for item in self.items) else self.kind


def kind_of(message: str) -> str:
    """`header parameter 'Accept' is ignored` → `header parameter '…' is ignored`."""
    return _VARYING.sub(_placeholder, message)


def _placeholder(match: re.Match[str]) -> str:
    quote = match.group()[0]
    return f"{quote}…{quote}" if quote in "'\"" else "…"


def grouped(diagnostics: Iterable[Diagnostic], levels: Sequence[Level] = _LEVEL_ORDER) -> list[Group]:
    """Groups by level (errors first) and kind, each level's groups in order of first appearance;
    a diagnostic said again (a path item's parameter, for each of its operations) counts once."""
    groups: dict[tuple[Level, str], Group] = {}
    for item in dict.fromkeys(diagnostics):
        if item.level in levels:
            key = (item.level, kind_of(item.message))
            groups.setdefault(key, Group(*key)).items.append(item)
    return sorted(groups.values(), key=lambda group: _LEVEL_ORDER.index(group.level))


def shown_items(groups: Sequence[Group], verbose: bool) -> list[Diagnostic]:
    return [item for group in groups for item in (group.items if verbose else group.items[:EXAMPLES])]


Segments = list[tuple[str, str]]  # (text, rich style or "") of one printed line


def text_lines(groups: Sequence[Group], places: dict[str, Location], verbose: bool) -> list[Segments]:
    """The text report: a group of one is one line; a larger one a title line and its places."""
    lines: list[Segments] = []
    for group in groups:
        level = (group.level.value, _STYLES[group.level])
        if len(group.items) == 1:
            item = group.items[0]
            lines.append([level, (": ", ""), *_place(item, places), (": " + item.message, "")])
            continue
        lines.append([level, (f": {group.title} ({len(group.items)} places)", "")])
        own_messages = group.title != group.items[0].message
        shown = group.items if verbose else group.items[:EXAMPLES]
        for item in shown:
            message = [(": " + item.message, "")] if own_messages else []
            lines.append([("  ", ""), *_place(item, places), *message])
        if len(shown) < len(group.items):
            lines.append([(f"  … {len(group.items) - len(shown)} more (--verbose lists them all)", "dim")])
    return [[(visible(text), style) for text, style in line] for line in lines]


def _place(item: Diagnostic, places: dict[str, Location]) -> Segments:
    where = places.get(item.pointer)
    if where is None or where.line is None:  # a URL's spec, or the whole document (`#`)
        return [(item.pointer, "dim")]
    position = "".join(f":{number}" for number in (where.line, where.column) if number is not None)
    return [(where.file + position, "bold"), (": ", ""), (item.pointer, "dim")]


def github_lines(items: Iterable[Diagnostic], places: dict[str, Location]) -> list[str]:
    """`::warning file=F,line=L,col=C,title=POINTER::message`, one per diagnostic."""
    lines = []
    for item in items:
        where = places.get(item.pointer)
        properties: list[tuple[str, object]] = []
        if where is not None:
            properties = [("file", where.file), ("line", where.line), ("col", where.column)]
        properties.append(("title", item.pointer))
        shown = ",".join(
            f"{key}={escape_property(visible(str(value)))}" for key, value in properties if value is not None
        )
        lines.append(f"::{_COMMANDS[item.level]} {shown}::{escape_data(visible(item.message))}")
    return lines


def escape_data(text: str) -> str:
    """A workflow command's message, as GitHub's toolkit escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: the message's escapes, and `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def print_diagnostics(
    diagnostics: Diagnostics,
    source: str,
    display: Display,
    refs: RefOptions = DEFAULT_REF_OPTIONS,
    styled: bool = False,
    strict: bool = False,
) -> None:
    """Print the diagnostics as `display` says; `styled`: coloured, for a terminal. With `strict`
    (warnings fail the run) `--quiet` keeps the warnings too."""
    failing = (Level.ERROR, Level.WARNING) if strict else (Level.ERROR,)
    groups = grouped(diagnostics, failing if display.quiet else _LEVEL_ORDER)
    if not groups:
        return
    if display.format == "github":
        items = [item for group in groups for item in group.items]
        for command in github_lines(items, locate(source, (item.pointer for item in items), refs)):
            typer.echo(command)
        return
    places = locate(source, (item.pointer for item in shown_items(groups, display.verbose)), refs)
    lines = text_lines(groups, places, display.verbose)
    if not styled:
        for segments in lines:
            typer.echo("".join(text for text, _ in segments), err=True)
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for segments in lines:
        console.print(Text.assemble(*segments))
