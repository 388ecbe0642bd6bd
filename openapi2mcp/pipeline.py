"""load → overlays → bundle → map → fit sizes → render → format: the whole generation, in memory."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.formatting import format_files
from openapi2mcp.emit.models import MODELS_FILE, models_text
from openapi2mcp.emit.render import (
    header_comment,
    pending_search_index,
    render_package,
    render_starters,
)
from openapi2mcp.emit.runtime_forms import vendored_runtime
from openapi2mcp.fit.budget import fit_tools
from openapi2mcp.load.bundle import DEFAULT_REF_OPTIONS, RefOptions, bundle
from openapi2mcp.load.overlay import apply_overlays
from openapi2mcp.load.source import LoadError, load_source
from openapi2mcp.load.swagger2.convert import convert_swagger2_with_origins, is_swagger2
from openapi2mcp.load.swagger2.origins import SwaggerOrigins
from openapi2mcp.model import METHOD_ORDER, ApiModel, GeneratorOptions
from openapi2mcp.tools.concurrent_validation import map_validated
from openapi2mcp.tools.overrides import validate_overrides
from openapi2mcp.tools.selectors import parse_all
from openapi2mcp.tools.servers import check_overrides
from openapi2mcp.tools.toolsets import validate_toolsets


@dataclass(frozen=True)
class Generation:
    model: ApiModel
    files: dict[str, str]
    diagnostics: Diagnostics
    document: dict[str, Any]  # the OAS 3.x document mapped: bundled, Swagger 2.0 converted
    starters: dict[str, str]  # files the user owns (hooks.py): written only where none exists


class Stages(Protocol):
    """Told where a generation is, for a progress display (`cli/progress.py`)."""

    def stage(self, name: str, total: int | None = None) -> None:
        """A stage starts; `total`: its steps, when counted."""

    def step(self) -> None:
        """One step of the current stage is done."""


class Unobserved:
    """No progress display: the default."""

    def stage(self, name: str, total: int | None = None) -> None:
        pass

    def step(self) -> None:
        pass


UNOBSERVED = Unobserved()


def check_version(document: Any, source: str) -> None:
    if not isinstance(document, dict):
        raise LoadError(f"{source}: not an OpenAPI document (the top level is not a mapping)")
    version = document.get("openapi")
    if isinstance(version, str) and version.startswith(("3.0", "3.1")):
        return
    if document.get("swagger") is not None:
        raise LoadError(
            f"{source}: Swagger {document.get('swagger')} is not supported "
            "(Swagger 2.0 and OpenAPI 3.0/3.1 are)"
        )
    raise LoadError(f"{source}: not an OpenAPI 3.0 or 3.1 document (`openapi: {version!r}`)")


def generate(
    source: str,
    options: GeneratorOptions,
    ref_options: RefOptions = DEFAULT_REF_OPTIONS,
    stages: Stages = UNOBSERVED,
) -> Generation:
    """Raise LoadError when the spec or an overlay cannot be read or applied (OverlayError),
    ServerVariableError for a `--server-var` the spec does not allow, SelectorError, OverrideError
    or ToolsetError for invalid `options.include`/`exclude`, `options.overrides` or
    `options.toolsets`/`default_toolsets` (checked before anything is read); everything else
    becomes diagnostics. `ref_options` says which other documents the spec's references may reach
    (see `bundle`). `stages` is told each stage as it starts."""
    parse_all((*options.include, *options.exclude))
    validate_overrides(options.overrides, options.name_style)
    validate_toolsets(options.toolsets, options.default_toolsets)
    try:
        with _no_cycle_collection():
            stages.stage("load")
            document, name = load_source(source)
            return _generate(document, name, options, ref_options, stages)
    except RecursionError:  # only a pathological spec nests deep enough (real ones: ≤ 30 levels)
        raise LoadError(f"{source}: the spec is nested too deeply to be processed") from None


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused: a large spec is hundreds of thousands of live dicts, which
    each full collection walks again (a fifth of the run), and generation leaves little cyclic garbage."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _generate(
    document: Any, name: str, options: GeneratorOptions, ref_options: RefOptions, stages: Stages
) -> Generation:
    diagnostics = Diagnostics()
    document = apply_overlays(document, options.overlays, diagnostics)
    stages.stage("bundle $refs")
    document = bundle(document, name, diagnostics, ref_options)
    origins: SwaggerOrigins | None = None
    if is_swagger2(document):
        document, origins = convert_swagger2_with_origins(document, diagnostics)
    check_version(document, name)
    check_overrides(document, dict(options.server_variables))
    mapped_from = len(diagnostics)
    count = _operation_count(document)
    stages.stage("map operations", count)
    mapped = map_validated(
        document, options, diagnostics, name, stages.step, lambda: stages.stage("map operations again", count)
    )
    with pending_search_index(mapped) as search_index:  # made on another core meanwhile
        stages.stage("fit sizes")
        model = fit_tools(mapped, options.sizes, diagnostics)
        if origins is not None:
            diagnostics.relocate(mapped_from, origins.original)
        stages.stage("render")
        files = render_package(model, options, mapped, search_index)
    if options.models:
        files[f"{options.package_name}/{MODELS_FILE}"] = models_text(model, header_comment(), diagnostics)
    stages.stage("format")
    verbatim = frozenset(vendored_runtime(options.package_name))
    files = format_files(files, verbatim)
    return Generation(model, files, diagnostics, document, render_starters(model, options))


def _operation_count(document: dict[str, Any]) -> int:
    """About how many operations the map stage walks (path items behind a `$ref` count none)."""
    paths = document.get("paths")
    if not isinstance(paths, dict):
        return 0
    items = [item for item in paths.values() if isinstance(item, dict)]
    return sum(1 for item in items for method in METHOD_ORDER if method in item)
