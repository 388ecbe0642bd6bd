"""The `api` stub's Python text (stubs.py puts it together): identifiers made of names, TypedDicts
in class or functional syntax, keyword-only functions with their docstrings. Types come as text
with holes (stub_types.hole) that a `name_of` function fills with the TypedDicts' names."""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .stub_types import HOLE, quoted

LINE = 100  # a longer signature or functional TypedDict is written one item a line
_NOT_NAME = re.compile(r"[^0-9A-Za-z_]")
_WORDS = re.compile(r'"(?:[^"\\]|\\.)*"|([A-Za-z_]\w*)')  # the names in a type, not in its strings
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff]")


@dataclass(frozen=True)
class Argument:
    keyword: str
    type: str  # with holes for TypedDicts
    required: bool
    description: str


def class_text(
    name: str, fields: list[tuple[str, str, bool]], name_of: Callable[[int], str]
) -> str:
    """A TypedDict in class syntax, or functionally when a key cannot be an attribute."""
    total = any(required for _, _, required in fields)
    options = "" if total else ", total=False"
    typed = _field_texts(fields, name_of, total)
    words = {word for _, text in typed for word in _WORDS.findall(text) if word}
    if all(_attribute(key) and key not in words for key, _ in typed):
        return "\n".join(
            [f"class {name}(TypedDict{options}):", *(f"    {key}: {text}" for key, text in typed)]
        )
    items = [f"{quoted(key)}: {text}" for key, text in typed]
    line = f'{name} = TypedDict("{name}", {{{", ".join(items)}}}{options})'
    if len(line) <= LINE:
        return line
    return "\n".join(
        [f'{name} = TypedDict("{name}", {{', *(f"    {item}," for item in items), f"}}{options})"]
    )


def _field_texts(
    fields: list[tuple[str, str, bool]], name_of: Callable[[int], str], total: bool
) -> list[tuple[str, str]]:
    """Each field's key and type (NotRequired when not required in a TypedDict that is total)."""
    texts = [(key, filled(field_type, name_of), required) for key, field_type, required in fields]
    return [
        (key, text if required or not total else f"NotRequired[{text}]")
        for key, text, required in texts
    ]


def _attribute(key: str) -> bool:
    """Whether `key` can be a TypedDict's field in class syntax (no mangling `__x`, ASCII only)."""
    return (
        key.isascii()
        and key.isidentifier()
        and not keyword.iskeyword(key)
        and not key.startswith("__")
    )


def def_text(
    name: str,
    arguments: Sequence[Argument],
    returns: str,
    description: str,
    arg_chars: int,
    name_of: Callable[[int], str],
) -> str:
    """A keyword-only function with its docstring (the types' holes filled by `name_of`)."""
    typed = [
        f"{a.keyword}: {filled(a.type, name_of)}{'' if a.required else ' = ...'}" for a in arguments
    ]
    returns = filled(returns, name_of)
    head = f"def {name}({'*, ' if typed else ''}{', '.join(typed)}) -> {returns}:"
    if len(head) > LINE and typed:
        head = "\n".join(
            [f"def {name}(", "    *,", *(f"    {a}," for a in typed), f") -> {returns}:"]
        )
    described = [(a.keyword, a.description) for a in arguments]
    return f"{head}\n{_docstring(description, described, arg_chars)}"


def _docstring(description: str, arguments: list[tuple[str, str]], chars: int) -> str:
    """The description verbatim, then `Args:`, each argument's description on one line."""
    lines = (
        [line.rstrip() for line in _escaped(description.strip()).split("\n")]
        if description.strip()
        else []
    )
    described = [(name, _cut(text, chars)) for name, text in arguments if chars and text.strip()]
    if described:
        lines += ["", "Args:"] if lines else ["Args:"]
        lines += [f"    {name}: {_escaped(text)}" for name, text in described]
    if not lines:
        return "    ..."
    if len(lines) == 1 and not lines[0].endswith('"'):
        return f'    """{lines[0]}"""'
    return '    """' + "\n".join(f"    {line}" if line else "" for line in lines)[4:] + '\n    """'


def _escaped(text: str) -> str:
    """`text` safe inside a triple-quoted docstring: backslashes doubled, `\"\"\"` broken up, control
    characters and lone surrogates escaped."""
    text = (
        text.replace("\r\n", "\n")
        .replace("\r", "\n")
        .replace("\\", "\\\\")
        .replace('"""', '\\"\\"\\"')
    )
    return _UNPRINTABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _cut(text: str, limit: int) -> str:
    """`text` on one line, cut at a word before `limit` characters."""
    return shortened(" ".join(text.split()), limit)


def shortened(text: str, limit: int) -> str:
    """`text` (its lines kept) cut at a word before `limit` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1].rsplit(None, 1)[0].rstrip(",.;:") + "…"


def filled(text: str, name_of: Callable[[int], str]) -> str:
    return HOLE.sub(lambda match: name_of(int(match.group(1))), text)


def identifier(text: str, reserved: frozenset[str], hidden_underscore: bool) -> str:
    """`text` as a Python identifier (before it is made unique)."""
    name = _NOT_NAME.sub("_", text)
    name = (name.strip("_") if name != text else name) or "t"
    if name[0].isdigit() or (hidden_underscore and name[0] == "_"):
        name = "t" + name
    return name + "_" if keyword.iskeyword(name) or name in reserved else name


def unique_names(
    texts: Sequence[str], taken: set[str], hidden_underscore: bool = False
) -> list[str]:
    """Each text as an identifier not in `taken` (which gets them all): a text that already is one
    keeps it, the others take the first free of `name`, `name_2`, `name_3`..."""
    forms = [identifier(text, frozenset(taken), hidden_underscore) for text in texts]
    kept = {
        form for form, text in zip(forms, texts, strict=True) if form == text and form not in taken
    }
    taken |= kept
    names = []
    for form, text in zip(forms, texts, strict=True):
        if form == text and form in kept:
            kept.discard(form)
            names.append(form)
        else:
            names.append(unique(form, taken))
    return names


def unique(wanted: str, taken: set[str]) -> str:
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}_{number}"
    taken.add(name)
    return name
