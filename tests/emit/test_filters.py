"""The escaping filters: every spec string reaches a generated file through one of them."""

from __future__ import annotations

import ast
import itertools
import re
import tomllib
from collections.abc import Callable

import pytest

from openapi2mcp.emit.filters import (
    env_comment,
    hint_labels,
    md_cell,
    md_code,
    md_inline,
    pyrepr,
    pystr_body,
    tomlkey,
    tomlstr,
)
from openapi2mcp.model import Annotations

HOSTILE = [
    'triple """ double',
    "triple ''' single",
    '"""',
    "'''",
    'ends with a quote"',
    "ends with a backslash\\",
    "back\\slash \\n not a newline \\x00 \\u1234",
    "line one\nline two\r\nline three\rfour",
    "tab\tand\vvertical\fform",
    "{{ 7*7 }} {% raw %} {# c #} ${HOME} $(id) `rm -rf /`",
    '"""; import os; os.system(\'echo pwned\'); """',
    "<script>alert(1)</script> | pipe | and ** bold ** _under_ [link](x)",
    "unicode: é ß 漢字 \u2028 line sep \u2029 para sep \x85 nel",
    "emoji 🐶 outside the BMP \U0001d518",
    "control \x01\x1b[31m\x7f",
    "",
    " ",
]
HOSTILE_IDS = [f"h{index}" for index in range(len(HOSTILE))]
NUL = "nul \x00 inside"


def one_line(value: str) -> str:
    """What a docstring keeps of spec text: one line, control characters read as spaces."""
    return " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", value).split())


# ---------------------------------------------------------------------------------------------
# pyrepr


@pytest.mark.parametrize("value", [*HOSTILE, NUL], ids=[*HOSTILE_IDS, "nul"])
def test_pyrepr_of_any_string_re_parses_to_the_same_string(value: str) -> None:
    assert ast.literal_eval(pyrepr(value)) == value


@pytest.mark.parametrize("value", [*HOSTILE, NUL], ids=[*HOSTILE_IDS, "nul"])
def test_pyrepr_of_any_string_is_one_line_of_compilable_python(value: str) -> None:
    literal = pyrepr(value)
    assert "\n" not in literal and "\r" not in literal
    namespace: dict[str, object] = {}
    exec(compile(f"X = {literal}\n", "generated.py", "exec"), namespace)
    assert namespace["X"] == value


@pytest.mark.parametrize("value", [None, True, False, 0, -7, 2**70, 1.5, -0.0, 1e300])
def test_pyrepr_of_other_scalars_re_parses_to_the_same_value(value: object) -> None:
    parsed = ast.literal_eval(pyrepr(value))
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_pyrepr_refuses_a_float_that_has_no_python_literal(value: float) -> None:
    with pytest.raises(TypeError, match="cannot write"):
        pyrepr(value)


@pytest.mark.parametrize(
    "value", [[1], {"a": 1}, (1,), b"x", object()], ids=["list", "dict", "tuple", "bytes", "object"]
)
def test_pyrepr_refuses_non_scalars(value: object) -> None:
    with pytest.raises(TypeError, match="scalars only"):
        pyrepr(value)


# ---------------------------------------------------------------------------------------------
# pystr_body (inside a """ docstring)


def docstring_module(value: str) -> str:
    return f'"""{pystr_body(value)}"""\n\nX = 1\n'


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_pystr_body_inside_a_docstring_compiles_and_round_trips_the_one_line_text(value: str) -> None:
    source = docstring_module(value)
    tree = ast.parse(source)
    assert ast.get_docstring(tree, clean=False) == one_line(value)
    compile(source, "generated.py", "exec")


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_pystr_body_is_a_single_line(value: str) -> None:
    body = pystr_body(value)
    assert not re.search(r"[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", body)


def test_pystr_body_cannot_close_the_docstring_early() -> None:
    source = docstring_module('x"""\nimport os\nos.system("echo pwned")\n"""')
    tree = ast.parse(source)
    assert [type(node).__name__ for node in tree.body] == ["Expr", "Assign"]


def test_pystr_body_with_a_nul_character_still_compiles() -> None:
    source = docstring_module(NUL)
    compile(source, "generated.py", "exec")
    assert ast.get_docstring(ast.parse(source), clean=False) is not None


# ---------------------------------------------------------------------------------------------
# TOML


@pytest.mark.parametrize(
    "value",
    [v for v in HOSTILE if "🐶" not in v] + [NUL],
    ids=[i for v, i in zip(HOSTILE, HOSTILE_IDS, strict=True) if "🐶" not in v] + ["nul"],
)
def test_tomlstr_parses_with_tomllib_to_the_same_string(value: str) -> None:
    assert tomllib.loads(f"key = {tomlstr(value)}\n") == {"key": value}


def test_tomlstr_of_a_character_outside_the_basic_plane_parses_with_tomllib() -> None:
    value = "emoji 🐶 outside the BMP \U0001d518"
    assert tomllib.loads(f"key = {tomlstr(value)}\n") == {"key": value}


@pytest.mark.parametrize(("key", "expected"), [("petstore", "petstore"), ("my-api_2", "my-api_2")])
def test_tomlkey_keeps_bare_keys_bare(key: str, expected: str) -> None:
    assert tomlkey(key) == expected


@pytest.mark.parametrize("key", ["a.b", "with space", 'q"uote', "é", ""])
def test_tomlkey_quotes_other_keys_and_they_parse_back(key: str) -> None:
    assert tomllib.loads(f"{tomlkey(key)} = 1\n") == {key: 1}


# ---------------------------------------------------------------------------------------------
# Markdown


def unescaped_pipes(cell: str) -> list[int]:
    """Positions of `|` not directly preceded by a backslash (GFM splits table cells there)."""
    return [
        index for index, char in enumerate(cell) if char == "|" and (index == 0 or cell[index - 1] != "\\")
    ]


@pytest.mark.parametrize(
    "value", [*HOSTILE, "a\\|b", "|", "||", "\\|"], ids=[*HOSTILE_IDS, "bs-pipe", "p", "pp", "bsp"]
)
@pytest.mark.parametrize("cell_filter", [md_cell, md_code], ids=["md_cell", "md_code"])
def test_markdown_cells_never_hold_an_unescaped_pipe_or_a_line_break(
    cell_filter: Callable[[str], str], value: str
) -> None:
    cell = cell_filter(value)
    assert unescaped_pipes(cell) == []
    assert not re.search(r"[\n\r\x0b\x0c\x85\u2028\u2029]", cell)


def test_md_inline_escapes_markup_characters() -> None:
    assert (
        md_inline("a|b *c* _d_ `e` [f](g) <h> \\") == "a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) \\<h\\> \\\\"
    )


def test_md_code_cannot_close_its_code_span() -> None:
    assert "`" not in md_code("a `b` c")


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_markdown_cells_render_as_one_table_cell(value: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark").enable("table")
    row = f"| {md_cell(value)} | `{md_code(value)}` | end |"
    tokens = parser.parse(f"| a | b | c |\n|---|---|---|\n{row}\n")
    cells = [token.content for before, token in itertools.pairwise(tokens) if before.type == "td_open"]
    assert len(cells) == 3
    assert cells[2] == "end"


def test_env_comment_is_one_line() -> None:
    assert env_comment("a\nb\r\nc  d\u2028e") == "a b c d e"


@pytest.mark.parametrize(
    ("hints", "label"),
    [
        ((True, False, True), "read-only"),
        ((False, False, False), "non-destructive"),
        ((False, True, True), "destructive, idempotent"),
        ((False, True, False), "destructive"),
        ((False, False, True), "non-destructive, idempotent"),
    ],
)
def test_hint_labels_summarize_the_annotations(hints: tuple[bool, bool, bool], label: str) -> None:
    read_only, destructive, idempotent = hints
    assert hint_labels(Annotations("t", read_only, destructive, idempotent)) == label
