"""limits.py through parse_text: every limit refused with the file, the line where known, the limit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from openapi2mcp.load import limits, yaml_data
from openapi2mcp.load.source import LoadError, load_source, parse_text

ALIASES = "alias expansion would build more than 1,000,000 nodes"


def laughs(levels: int = 9, first: str = "") -> str:
    """The "billion laughs": each level a list of nine aliases of the level before it."""
    lines = ["openapi: 3.0.3", *([first] if first else [])]
    lines.append("x-a: &a [" + ", ".join(["lol"] * 9) + "]")
    for level in range(1, levels):
        name, before = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"x-{name}: &{name} [" + ", ".join([f"*{before}"] * 9) + "]")
    lines.append(f"info: {{title: t, version: '1', description: *{chr(ord('a') + levels - 1)}}}")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_its_line_quickly() -> None:
    started = time.process_time()  # CPU time: a busy host does not inflate it
    with pytest.raises(LoadError, match=rf"^spec\.yaml:8: {ALIASES}"):
        parse_text(laughs(), "spec.yaml")
    assert time.process_time() - started < 2.0  # about 0.3 s


def test_an_alias_bomb_pyyamls_loader_reads_is_refused_before_it_is_copied() -> None:
    with pytest.raises(LoadError, match=rf"^spec\.yaml: {ALIASES}"):
        parse_text(laughs(first="x-tagged: !!map {a: 1}"), "spec.yaml")  # a tag only PyYAML reads


def test_a_few_aliases_still_load_as_copies() -> None:
    data = parse_text(laughs(levels=3), "spec.yaml")
    assert data["info"]["description"] == [[["lol"] * 9] * 9] * 9


@pytest.mark.parametrize("text", ["a: &x\n  b: *x\n", "t: !!map {}\na: &x\n  b: *x\n"])
def test_an_alias_inside_its_own_anchor_is_refused(text: str) -> None:
    with pytest.raises(LoadError, match="alias refers to a node that contains it"):
        parse_text(text, "r.yaml")


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        # which stops first, libyaml's scanner (its own limit, 1,000) or our count, depends on the build
        (
            "deep.yaml",
            "a: 1\nx: " + "[" * 20_000 + "]" * 20_000 + "\n",
            "deep.yaml:2: nested (at least 1,000|257)",
        ),
        ("deep.yaml", "a: 1\nx: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n", "deep.yaml:2: nested 257"),
        ("deep.yaml", "x:\n" + "".join(f"{' ' * i}- \n" for i in range(0, 300)), "deep.yaml:257: nested 257"),
        ("deep.json", '{"x": ' + "[" * 20_000 + "]" * 20_000 + "}", "deep.json: nested at least"),
        ("deep.json", '{"x": ' + "[" * 400 + "]" * 400 + "}", "deep.json: nested 257"),
    ],
)
def test_deep_nesting_is_refused_by_depth_at_load(name: str, text: str, where: str) -> None:
    started = time.process_time()
    with pytest.raises(LoadError, match=rf"^{where}.*more than the limit of 256$"):
        parse_text(text, name)
    assert time.process_time() - started < 1.0


def test_an_alias_that_would_nest_too_deep_is_refused() -> None:
    text = "a: &x " + "[" * 200 + "]" * 200 + "\nb: " + "[" * 100 + "*x" + "]" * 100 + "\n"
    with pytest.raises(LoadError, match=r"^d\.yaml:2: nested 301 levels deep"):
        parse_text(text, "d.yaml")


def test_nesting_at_the_limit_loads() -> None:
    assert parse_text("x: " + "[" * 255 + "]" * 255 + "\n", "d.yaml")["x"]
    assert parse_text('{"x": ' + "[" * 255 + "]" * 255 + "}", "d.json")["x"]
    assert parse_text("x: " + "[" * 255 + "]" * 255 + "\n!!str y: 1\n", "d.yaml")["x"]  # PyYAML's loader


def test_too_many_nodes_and_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (limits, yaml_data):
        monkeypatch.setattr(module, "MAX_NODES", 1000)
        monkeypatch.setattr(module, "MAX_SCALAR_CHARS", 10_000)
    many = "[" + ", ".join(["1"] * 1000) + "]"
    with pytest.raises(LoadError, match=r"^n\.yaml:1: the document would build more than 1,000 nodes"):
        parse_text(f"x: {many}\n", "n.yaml")
    with pytest.raises(LoadError, match=r"^n\.json: the document would build more than 1,000 nodes"):
        parse_text(f'{{"x": {many}}}', "n.json")
    long, chars = "y" * 10_001, "keys and scalars would hold more than 10,000 characters"
    with pytest.raises(LoadError, match=rf"^c\.yaml:2: {chars}"):
        parse_text(f"a: b\nx: {long}\n", "c.yaml")
    with pytest.raises(LoadError, match=rf"^c\.json: {chars}"):
        parse_text(f'{{"x": "{long}"}}', "c.json")


def test_a_file_past_the_text_limit_is_not_parsed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("openapi2mcp.load.source.MAX_TEXT_BYTES", 100)
    monkeypatch.setattr(limits, "MAX_TEXT_BYTES", 100)
    spec = tmp_path / "big.yaml"
    spec.write_text("x: " + "a" * 200 + "\n")
    with pytest.raises(LoadError, match=r"big\.yaml: the text is 204 bytes long, more than the limit of 100"):
        load_source(str(spec))


@pytest.mark.parametrize(("name", "text"), [("i.json", '{"x": 1%s}'), ("i.yaml", "x: 1%s\n")])
def test_a_number_python_will_not_convert_is_a_load_error(name: str, text: str) -> None:
    with pytest.raises(LoadError, match=r": a number has more than 4,300 digits, Python's limit$"):
        parse_text(text % ("0" * 5000), name)
