"""Validate one operation object with openapi-pydantic (OAS 3.0 or 3.1 models)."""

from __future__ import annotations

from typing import Any

import pydantic
from openapi_pydantic.v3.v3_0 import Operation as Operation30
from openapi_pydantic.v3.v3_1 import Operation as Operation31

from openapi2mcp.diagnostics import SpecError, pointer_join

_SHOWN_ERRORS = 3


def check_operation(operation: dict[str, Any], pointer: str, document: dict[str, Any]) -> None:
    """Raise SpecError naming the first invalid places when the operation breaks the OpenAPI schema."""
    model = Operation31 if str(document.get("openapi", "")).startswith("3.1") else Operation30
    try:
        model.model_validate(operation)
    except pydantic.ValidationError as error:
        problems = error.errors(include_url=False, include_input=False)
        first = problems[0]
        where = pointer_join(pointer, *_location(first["loc"]))
        summary = "; ".join(
            f"{'/'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in problems[:_SHOWN_ERRORS]
        )
        more = f" (+{len(problems) - _SHOWN_ERRORS} more)" if len(problems) > _SHOWN_ERRORS else ""
        raise SpecError(where, f"invalid operation: {summary}{more}") from None


def _location(loc: tuple[int | str, ...]) -> list[int | str]:
    """Pydantic's location without union-branch labels (`Reference`, `Schema`, ...)."""
    return [part for part in loc if isinstance(part, int) or not part[:1].isupper()]
