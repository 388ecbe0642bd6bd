"""Validate one operation object with openapi-pydantic (OAS 3.0 or 3.1 models).

openapi-pydantic is imported on the first check, not with this module: building its models is a
tenth of a large spec's generation, which `concurrent_validation.py` runs in another process.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from openapi2mcp.diagnostics import SpecError, pointer_join

if TYPE_CHECKING:
    import pydantic
    from pydantic_core import ErrorDetails

_SHOWN_ERRORS = 3
_REFERENCE_BRANCH = "Reference"


def check_operation(operation: dict[str, Any], pointer: str, document: dict[str, Any]) -> None:
    """Raise SpecError naming the first invalid places when the operation breaks the OpenAPI schema."""
    is_31 = str(document.get("openapi", "")).startswith("3.1")
    model, validation_error = _models(is_31)
    try:
        model.model_validate(operation)
    except validation_error as error:
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


@functools.cache
def _models(is_31: bool) -> tuple[type[pydantic.BaseModel], type[pydantic.ValidationError]]:
    """openapi-pydantic's Operation model for the version, and the error its validation raises."""
    import pydantic
    from openapi_pydantic.v3 import v3_0, v3_1

    return (v3_1.Operation if is_31 else v3_0.Operation), pydantic.ValidationError


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
