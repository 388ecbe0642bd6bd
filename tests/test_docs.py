"""The manual: the site builds with `mkdocs build --strict` (every link between pages and every
anchor checked; the references made from the code by scripts/mkdocs_hooks.py), the README stays a
short front page whose links resolve, and the hand-written tables that list what the code declares
(generate's options, the generated server's variables) and the output the README shows name
exactly what the code has."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import typer.main
from markdown.extensions.toc import slugify
from test_cli import run

from openapi2mcp.emit.variables import variables
from openapi2mcp.tools.naming import env_token

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
README_MAX_LINES = 250
# The README's two commands of a fresh machine: `.ci/run` runs the second (`bash scripts/test ...`).
FRESH_CLONE = (
    "bash scripts/demo    # generate a server from specs/petstore.yaml, install it, run it against a"
    " mock API\n"
    "bash scripts/test    # the whole test suite (unit, golden, end to end with real processes)\n"
)
# The tour of the README and of Getting started: this command, then what it prints.
TOUR = ("petstore.yaml", "-o", "petstore-mcp", "--name", "petstore-mcp", "--env-prefix", "PETSTORE")
CODE_SPAN = re.compile(r"`([^`]+)`")


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", REPO / "scripts" / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def section(page: Path, heading: str) -> str:
    """The text under `heading` (a whole heading line) up to the next heading of its level or above."""
    text = page.read_text("utf-8")
    level = heading.split(" ")[0]
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", text[start:], re.M)]
    return text[start : start + ends[0]] if ends else text[start:]


def first_column(markdown: str) -> list[str]:
    """The code spans in the first column of the tables in `markdown`."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")][1:]
    return [span for row in rows for span in CODE_SPAN.findall(row.split(" | ")[0])]


def test_the_site_builds_strictly_with_the_references_made_from_the_code(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice about MkDocs 2.0, not ours
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    site = tmp_path / "site"
    assert "openapi2mcp generate" in (site / "reference" / "cli" / "index.html").read_text("utf-8")
    assert "{PREFIX}_LISTED_SCHEMAS" in (site / "reference" / "environment" / "index.html").read_text("utf-8")
    assert (site / "benchmarks" / "index.html").is_file()


def test_every_page_of_docs_is_in_the_nav() -> None:
    nav = (REPO / "mkdocs.yml").read_text("utf-8").split("\nnav:\n", 1)[1]
    listed = set(re.findall(r":\s+(\S+\.md)$", nav, re.M))
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert pages <= listed, sorted(pages - listed)
    assert listed - pages == set(hooks().made_pages()) | {"benchmarks.md"}


def test_the_readme_is_a_short_front_page_with_the_two_commands() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert f"```\n{FRESH_CLONE}```" in text
    assert "bash scripts/test" in (REPO / ".ci" / "run").read_text("utf-8")


@pytest.mark.parametrize("page", [README, *sorted(DOCS.rglob("*.md"))], ids=lambda p: p.name)
def test_relative_links_reach_a_file_and_its_heading(page: Path) -> None:
    """What mkdocs checks in docs/, for the README too (read on GitHub, outside the site); a link
    shown as code is no link."""
    prose = CODE_SPAN.sub("", re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S))
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_file() or (page.parent == DOCS and path in made_pages()), target
        if anchor and linked.is_file():
            assert anchor in anchors(linked), f"{page.name}: {target}"


def made_pages() -> set[str]:
    return {*hooks().made_pages(), "benchmarks.md"}


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S)
    headings = re.findall(r"^#{1,6} (.+)$", text, re.M)
    return {slugify(heading.replace("`", ""), "-") for heading in headings}


def test_the_option_table_of_generating_names_every_option_of_generate() -> None:
    command = typer.main.get_command(hooks().typer_app()).commands["generate"]  # type: ignore[attr-defined]
    declared = {"SPEC"} | {name for p in command.params if p.param_type_name == "option" for name in p.opts}
    table = first_column(section(DOCS / "generating.md", "## Options"))
    listed = {
        word for span in table for word in span.replace(",", " ").split() if word[0] == "-" or word == "SPEC"
    }
    assert listed == declared


def test_the_settings_table_names_every_variable_the_generator_lists() -> None:
    """`docs/server.md`'s table against `variables.variables` (what the generated README lists): the
    settings by name, the credentials by form (`{PREFIX}_{SCHEME}_KEY`)."""
    made = hooks()
    schemes = made.example_schemes()
    listed = variables(made.example_model(made.EXAMPLE_SERVER, schemes), made.PREFIX)
    base = {f"{made.PREFIX}_{env_token(scheme.key)}" for scheme in schemes}  # a scheme's variables' start
    declared = {v.name for v in listed if not any(v.name.startswith(b + "_") for b in base)}
    declared |= {
        "{PREFIX}_{SCHEME}" + v.name.removeprefix(b)
        for v in listed
        for b in base
        if v.name.startswith(b + "_")
    }
    documented: set[str] = set()
    for span in first_column(section(DOCS / "server.md", "## Settings: environment variables")):
        if span.startswith("_"):  # `{PREFIX}_{SCHEME}_USERNAME`, `_PASSWORD`: a scheme's, shortened
            span = "{PREFIX}_{SCHEME}" + span
        if span.startswith("{PREFIX}_"):
            documented.add(span)
    assert documented == declared


@pytest.mark.parametrize("page", [README, DOCS / "getting-started.md"], ids=lambda p: p.name)
def test_the_tour_shows_what_generate_prints(page: Path, tmp_path: Path) -> None:
    shutil.copy(REPO / "specs" / "petstore.yaml", tmp_path / "petstore.yaml")
    result = run("generate", *TOUR, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    command = "openapi2mcp generate " + " ".join(TOUR)
    text = page.read_text("utf-8")
    assert command in text
    shown = text.split("`generate` ends with what the server needs and how to add it to Claude Code:\n")[1]
    assert shown.split("```")[1].lstrip("\n") == result.stderr
