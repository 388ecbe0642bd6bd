"""Validate one operation object with openapi-pydantic (OAS 3.0 or 3.1 models)."""

from __future__ import annotations

from typing import Any

import pydantic
from openapi_pydantic.v3.v3_0 import Operation as Operation30
from openapi_pydantic.v3.v3_1 import Operation as Operation31
from pydantic_core import ErrorDetails

from openapi2mcp.diagnostics import SpecError, pointer_join

_SHOWN_ERRORS = 3
_REFERENCE_BRANCH = "Reference"


def check_operation(operation: dict[str, Any], pointer: str, document: dict[str, Any]) -> None:
    """Raise SpecError naming the first invalid places when the operation breaks the OpenAPI schema."""
    is_31 = str(document.get("openapi", "")).startswith("3.1")
    model = Operation31 if is_31 else Operation30
    try:
        model.model_validate(operation)
    except pydantic.ValidationError as error:
        problems = _relevant(error.errors(include_url=False), is_31)
        if not problems:
            return
        where = pointer_join(pointer, *_location(problems[0]["loc"]))
        summary = "; ".join(
            f"{'/'.join(str(part) for part in _location(problem['loc']))}: {problem['msg']}"
            for problem in problems[:_SHOWN_ERRORS]
        )
        more = f" (+{len(problems) - _SHOWN_ERRORS} more)" if len(problems) > _SHOWN_ERRORS else ""
        raise SpecError(where, f"invalid operation: {summary}{more}") from None


def _relevant(problems: list[ErrorDetails], is_31: bool) -> list[ErrorDetails]:
    """Drop what is not a real problem: the `$ref` branch of a union, and 3.1 boolean schemas.

    openapi-pydantic tries "Reference | Schema" for every schema and reports both branches; the
    Reference branch's complaint (a missing `$ref`) only restates the other. JSON Schema 2020-12,
    hence OAS 3.1, allows `true`/`false` as schemas, which openapi-pydantic 0.6.0 rejects.
    """
    kept = [problem for problem in problems if _REFERENCE_BRANCH not in problem["loc"]]
    if is_31:
        kept = [problem for problem in kept if not isinstance(problem.get("input"), bool)]
    return kept


def _location(loc: tuple[int | str, ...]) -> list[int | str]:
    """Pydantic's location without union-branch labels (`Schema`, `bool`, ...)."""
    return [part for part in loc if isinstance(part, int) or not (part[:1].isupper() or part == "bool")]
