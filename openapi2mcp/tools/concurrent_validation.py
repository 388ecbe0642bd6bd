"""Map operations while a forked child validates them with openapi-pydantic.

Checking each operation against the OpenAPI schema (openapi-pydantic's models, imported only for
it) costs a large spec a tenth of its generation, and its outcome depends only on the document. With
a second core (`background.can_fork`), a child forked from the generator checks every operation the
mapping will reach while the parent maps them without checking. When the child finds them all valid
(the usual case), the parent's result is what mapping with the checks gives, and is kept. Otherwise
the parent maps again, checking each operation as it does without a child, so an invalid operation
is skipped with its error exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from openapi2mcp.background import Pending, can_fork
from openapi2mcp.diagnostics import Diagnostics, SpecError
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import ApiModel, GeneratorOptions
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.operations import iter_operations
from openapi2mcp.tools.selectors import Selection
from openapi2mcp.tools.validation import check_operation

ALL_VALID: Final = "all valid"
SOME_INVALID: Final = "some invalid"


def map_validated(
    document: dict[str, Any],
    options: GeneratorOptions,
    diagnostics: Diagnostics,
    source: str,
    on_operation: Callable[[], None],
    on_restart: Callable[[], None],
) -> ApiModel:
    """`map_document` with every operation validated, the validation done on another core when one
    is free. `on_restart` is called when the operations are mapped again (some were invalid)."""
    if not can_fork():
        return map_document(document, options, diagnostics, source, on_operation)
    with Pending(partial(verdict, document, options)) as pending:

        def step() -> None:
            on_operation()
            if pending.done() and pending.result() != ALL_VALID:
                raise _Abandoned  # no need to finish: the operations are mapped again

        trial = Diagnostics()
        try:
            mapped = map_document(document, options, trial, source, step, validate=False)
        except _Abandoned:
            pass
        except Exception:  # perhaps an operation that only validation would refuse
            if pending.result() == ALL_VALID:
                raise  # none: the validating run would raise the same
        else:
            if pending.result() == ALL_VALID:
                diagnostics.extend(trial)
                return mapped
    on_restart()
    return map_document(document, options, diagnostics, source, on_operation)


class _Abandoned(Exception):
    """The child found an invalid operation while the parent was still mapping without validation."""


def verdict(document: dict[str, Any], options: GeneratorOptions) -> str:
    """ALL_VALID when `check_operation` accepts every operation the options' selectors keep."""
    selection = Selection(options.include, options.exclude)
    for ref in iter_operations(document, Resolver(document), Diagnostics()):
        if not selection.keeps(ref):
            continue
        try:
            check_operation(ref.operation, ref.pointer, document)
        except (SpecError, RecursionError):  # the mapper skips such an operation
            return SOME_INVALID
    return ALL_VALID
