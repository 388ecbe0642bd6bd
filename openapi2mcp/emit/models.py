"""`models.py` of a generated package (opt-in: `--models`): pydantic v2 classes of each tool's
arguments (`<Tool>Args`, from its inputSchema) and structured result (`<Tool>Result`, from its
outputSchema), for typed hooks (`call.arguments_as(ListPetsArgs)`, `result.data_as(ListPetsResult)`).

datamodel-code-generator (the `models` extra) runs in-process on one JSON Schema document whose
`$defs` hold every tool's schemas under the class names of `class_names`; a tool schema's own
`$defs` are hoisted beside it as `<Tool>Args<Def>`. Nested classes are named after their parent
(`ListPetsResultResult`), so adding a tool never renames another tool's classes. A schema the
generator fails on is found by bisection and left out with a warning; the others are generated
together once more. The output is checked to be declarations only (`check_declarations`): spec
text reaches it only as escaped string literals.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import ApiModel, Tool

MODELS_FILE = "models.py"
GENERATOR = "datamodel_code_generator"
INSTALL_HINT = "pip install 'openapi2mcp[models]'"
_LOCAL_DEFS = "#/$defs/"
_POINTER = "#/x-mcp/models"  # where the diagnostics of models.py point (no spec node is at fault)
_DOCSTRING = '''"""Pydantic v2 classes of each tool's arguments and structured result, for hooks.py:
`call.arguments_as(<Tool>Args)` and `result.data_as(<Tool>Result)` (the README's "Hooks").
Imported only by the hooks that use it, never by the server.
"""'''
# What models.py may import from and call: anything else means the output is not what we expect.
_MODULES = frozenset(
    {
        "__future__",
        "enum",
        "typing",
        "typing_extensions",
        "pydantic",
        "datetime",
        "decimal",
        "uuid",
        "ipaddress",
    }
)
_CALLS = frozenset(
    {"Field", "ConfigDict", "StringConstraints", "TypeAliasType", "constr", "conint", "confloat", "conlist"}
)
# pydantic types that need a package the generated server does not install (email-validator)
_NEEDS_EXTRAS = frozenset({"EmailStr", "NameEmail"})
# formats whose pydantic type needs such a package: plain strings instead
_TYPE_MAPPINGS = ["email=string", "idn-email=string"]


class ModelsUnavailable(Exception):
    """datamodel-code-generator (the `models` extra) is not installed."""


def require_generator() -> None:
    """ModelsUnavailable, saying how to install it, when datamodel-code-generator is missing."""
    if importlib.util.find_spec(GENERATOR) is None:
        raise ModelsUnavailable(
            f"needs datamodel-code-generator, the `models` extra of openapi2mcp: {INSTALL_HINT}"
        )


@dataclass(frozen=True)
class Unit:
    """One class to generate: a tool's arguments or result, with its hoisted `$defs`."""

    tool: str
    name: str  # the class name
    schemas: dict[str, Any]  # class name → JSON Schema, `name` first


def class_stem(tool_name: str) -> str:
    """`repos_get`, `repos.get`, `reposGet` → `ReposGet`; a stem starting with a digit gets `Tool`."""
    stem = "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", tool_name))
    return stem if stem[:1].isalpha() else f"Tool{stem}"


def class_names(tools: Iterable[Tool]) -> dict[str, tuple[str, str]]:
    """Tool name → (arguments class, result class), unique: a clash adds 2, 3, ... in tool order."""
    taken: set[str] = set()
    names = {}
    for tool in tools:
        stem = base = class_stem(tool.name)
        number = 1
        while f"{stem}Args" in taken or f"{stem}Result" in taken:
            number += 1
            stem = f"{base}{number}"
        taken.update((f"{stem}Args", f"{stem}Result"))
        names[tool.name] = (f"{stem}Args", f"{stem}Result")
    return names


def units(model: ApiModel) -> list[Unit]:
    """Every class to generate, in tool order (arguments, then result)."""
    names = class_names(model.tools)
    taken = {name for pair in names.values() for name in pair}
    found = []
    for tool in model.tools:
        args, result = names[tool.name]
        found.append(Unit(tool.name, args, _hoisted(args, tool.input_schema, taken)))
        if tool.output_schema is not None:
            found.append(Unit(tool.name, result, _hoisted(result, tool.output_schema, taken)))
    return found


def _hoisted(name: str, schema: Mapping[str, Any], taken: set[str]) -> dict[str, Any]:
    """`schema` as `name` (without `$schema`), its own `$defs` beside it as `<name><Def>`."""
    top = {key: value for key, value in schema.items() if key not in ("$schema", "$defs")}
    defs = schema.get("$defs")
    if not isinstance(defs, dict) or not defs:
        return {name: top}
    renamed = {}
    for key in defs:
        new = base = f"{name}{class_stem(key)}"
        number = 1
        while new in taken:
            number += 1
            new = f"{base}{number}"
        taken.add(new)
        renamed[key] = new
    hoisted = {name: _with_refs(top, renamed)}
    hoisted.update({renamed[key]: _with_refs(value, renamed) for key, value in defs.items()})
    return hoisted


def _with_refs(node: Any, renamed: Mapping[str, str]) -> Any:
    """A copy of `node` whose `#/$defs/<key>...` references name the hoisted definitions."""
    if isinstance(node, list):
        return [_with_refs(item, renamed) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: _with_refs(value, renamed) for key, value in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_LOCAL_DEFS):
        token, slash, rest = ref[len(_LOCAL_DEFS) :].partition("/")
        key = token.replace("~1", "/").replace("~0", "~")
        if key in renamed:
            copy["$ref"] = f"{_LOCAL_DEFS}{renamed[key]}{slash}{rest}"
    return copy


def foreign_ref(unit: Unit) -> str | None:
    """The first `$ref` of `unit` that does not name one of its own (hoisted) definitions."""
    pending: list[Any] = list(unit.schemas.values())
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not _names_own(ref, unit.schemas):
                return ref
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return None


def _names_own(ref: str, names: Mapping[str, Any]) -> bool:
    """`#/$defs/<one of names>` or a node below it."""
    return ref.startswith(_LOCAL_DEFS) and ref[len(_LOCAL_DEFS) :].partition("/")[0] in names


def models_text(model: ApiModel, header_comment: str, diagnostics: Diagnostics) -> str:
    """The text of models.py (not yet black-formatted); schemas that cannot be generated are left
    out, each with a warning."""
    require_generator()
    wanted, failed = [], []
    for unit in units(model):
        if ref := foreign_ref(unit):  # it would name another tool's class, or nothing
            failed.append((unit, f"$ref {ref!r} names none of the schema's own $defs"))
        else:
            wanted.append(unit)
    try:
        text = _generate(wanted, header_comment)
    except Exception:  # datamodel-code-generator raises many kinds of errors: find the culprits
        failed += _failing(wanted, header_comment)
        wanted = [unit for unit in wanted if all(unit is not bad for bad, _ in failed)]
        try:  # what passed alone and in halves, together
            text = _generate(wanted, header_comment)
        except Exception as error:
            diagnostics.error(_POINTER, f"{MODELS_FILE}: left without classes ({_reason(error)})")
            return _generate([], header_comment)
    for unit, reason in failed:
        diagnostics.warning(
            _POINTER,
            f"{MODELS_FILE}: no class {unit.name} for tool {unit.tool!r}: "
            f"its schema cannot be generated ({reason})",
        )
    if problem := check_declarations(text):
        diagnostics.error(_POINTER, f"{MODELS_FILE}: left without classes: the generated code {problem}")
        return _generate([], header_comment)
    defined = _class_names_in(text)
    for unit in wanted:
        if unit.name not in defined:
            diagnostics.warning(_POINTER, f"{MODELS_FILE}: class {unit.name} (tool {unit.tool!r}) is missing")
    return text


def _failing(wanted: list[Unit], header: str) -> list[tuple[Unit, str]]:
    """The units the generator fails on alone, by bisection."""
    try:
        _generate(wanted, header)
        return []
    except Exception as error:  # datamodel-code-generator raises many kinds of errors
        if len(wanted) == 1:
            return [(wanted[0], _reason(error))]
    middle = len(wanted) // 2
    return _failing(wanted[:middle], header) + _failing(wanted[middle:], header)


def _reason(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


def _generate(chosen: list[Unit], header: str) -> str:
    """datamodel-code-generator's module for `chosen` (deterministic: no timestamp, document order)."""
    from datamodel_code_generator import InputFileType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import Formatter

    if not chosen:  # (the generator refuses a document without classes)
        return f"{header}\n{_DOCSTRING}\n"
    defs = {name: schema for unit in chosen for name, schema in unit.schemas.items()}
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its deprecation notices are for its command-line users
        text = generate(
            json.dumps(document),
            input_file_type=InputFileType.JsonSchema,
            output_model_type=DataModelType.PydanticV2BaseModel,
            target_python_version=PythonVersion.PY_311,
            custom_file_header=f"{header}\n{_DOCSTRING}",
            disable_timestamp=True,
            formatters=[Formatter.ISORT],  # then black, as every generated file (emit/formatting.py)
            skip_root_model=True,
            parent_scoped_naming=True,
            field_constraints=True,
            use_annotated=True,
            type_mappings=_TYPE_MAPPINGS,
        )
    if not isinstance(text, str):
        raise TypeError(f"datamodel-code-generator returned {type(text).__name__}, not one module")
    return text


def check_declarations(source: str) -> str | None:
    """None when `source` only imports from `_MODULES` and declares classes, calling only `_CALLS`;
    else what it does besides."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return f"is not valid Python ({error.msg}, line {error.lineno})"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            return f"imports {node.names[0].name} (line {node.lineno})"
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] not in _MODULES:
            return f"imports from {node.module} (line {node.lineno})"
        if isinstance(node, ast.ImportFrom) and (extra := {a.name for a in node.names} & _NEEDS_EXTRAS):
            return (
                f"imports {min(extra)}, which needs a package the server does not have (line {node.lineno})"
            )
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _CALLS):
            return f"calls {ast.unparse(node.func)[:60]} (line {node.lineno})"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return f"defines a function (line {node.lineno})"
    return None


def _class_names_in(source: str) -> set[str]:
    return {node.name for node in ast.parse(source).body if isinstance(node, ast.ClassDef)}
