"""The intermediate model: what the mapper produces and the renderer consumes.

Frozen dataclasses only; templates never see parser objects. JSON schemas are plain dicts that
are already converted to what MCP clients receive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

JSONSchema = dict[str, Any]
Location = Literal["path", "query", "header", "cookie"]
BodyKind = Literal["json", "form", "multipart", "binary", "text"]
NameStyle = Literal["portable", "mcp"]

METHOD_ORDER = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Parameter:
    """A path, query, header or cookie parameter, bound to one tool argument."""

    argument: str
    name: str
    location: Location
    required: bool
    style: str
    explode: bool
    allow_reserved: bool = False
    content_type: str | None = None  # a parameter described by `content` (serialized as JSON)


@dataclass(frozen=True)
class BodyField:
    """One top-level property of a flattened object body, bound to one tool argument."""

    argument: str
    name: str
    required: bool
    binary: bool = False  # a base64 argument sent as bytes (multipart file part)
    content_type: str | None = None  # multipart part type from the encoding object
    style: str | None = None  # form/multipart encoding style for arrays and objects
    explode: bool | None = None


@dataclass(frozen=True)
class Body:
    """The request body: either flattened `fields`, or one whole-body `argument`."""

    media_type: str
    kind: BodyKind
    required: bool
    fields: tuple[BodyField, ...] = ()
    argument: str | None = None
    binary: bool = False  # the whole-body argument is base64 for raw bytes


@dataclass(frozen=True)
class Annotations:
    title: str
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = True


@dataclass(frozen=True)
class SchemeUse:
    """One scheme of a security requirement, with the scopes the operation asks for."""

    scheme: str
    scopes: tuple[str, ...] = ()


# A requirement is satisfied when every scheme in it is; an operation lists alternatives.
Requirement = tuple[SchemeUse, ...]


@dataclass(frozen=True)
class SecurityScheme:
    """A security scheme and the environment variables that carry its credentials."""

    key: str
    kind: Literal["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]
    env: dict[str, str]  # role ("key", "token", "username", ...) → variable name
    location: Location | None = None  # apiKey only
    parameter_name: str | None = None  # apiKey only
    http_scheme: str | None = None  # http only: "bearer", "basic", ...
    token_url: str | None = None  # oauth2 client credentials only
    description: str = ""


TOOL_META_KEY = "openapi2mcp/operation"  # a tool's `_meta` key: where it comes from in the spec


@dataclass(frozen=True)
class Icon:
    """An MCP `Icon` of every tool: from the spec's `info.x-logo` or the config file's `icons`."""

    src: str  # an http(s) or data: URL
    mime_type: str | None = None
    sizes: tuple[str, ...] = ()  # "48x48", "any"
    theme: str | None = None  # "light" or "dark"

    def wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"src": self.src}
        if self.mime_type:
            wire["mimeType"] = self.mime_type
        if self.sizes:
            wire["sizes"] = list(self.sizes)
        if self.theme:
            wire["theme"] = self.theme
        return wire


FINAL_STATES = ("location", "azure-async-operation", "original-uri", "operation-location")
LongRunningSource = Literal["x-ms-long-running-operation", "202 response header", "x-mcp", "config"]


@dataclass(frozen=True)
class LongRunning:
    """An operation whose answer starts work that goes on (tools/long_running.py): what says so, where
    its result is when it ends (Azure's `final-state-via`, one of FINAL_STATES), and the name of the
    tool that cancels it."""

    source: LongRunningSource
    final_state_via: str | None = None
    cancel: str | None = None


@dataclass(frozen=True)
class TaskChoice:
    """`task` of x-mcp or of an override: whether the operation is long-running, and the operation
    (an operationId or `METHOD /path`) that cancels it."""

    enabled: bool
    cancel: str | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    method: str
    path: str
    pointer: str
    operation_id: str | None
    parameters: tuple[Parameter, ...]
    body: Body | None
    input_schema: JSONSchema
    output_schema: JSONSchema | None
    output_wrapped: bool
    annotations: Annotations
    security: tuple[Requirement, ...]  # alternatives; () = no authentication
    tags: tuple[str, ...] = ()
    fixed_query: tuple[tuple[str, str], ...] = ()  # from a path key like `/items?view=full`
    templated_query: tuple[str, ...] = ()  # query parameters named by a path key: `/w?city={city}`
    base_url: str | None = None  # the operation's (or path item's) own server, when not the API's
    toolset: str = "untagged"  # the one toolset the tool belongs to (tools/toolsets.py)
    icons: tuple[Icon, ...] = ()  # the API's icons (the same on every tool)
    with_meta: bool = True  # `_meta` sent (fit/budget.py leaves it out rather than cut schemas for it)
    long_running: LongRunning | None = None  # listed with `execution.taskSupport: "optional"`

    def wire(self) -> dict[str, Any]:
        """The tool exactly as tools/list sends it."""
        wire: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
        }
        if self.output_schema is not None:
            wire["outputSchema"] = self.output_schema
        hints = self.annotations
        wire["annotations"] = {
            "title": hints.title,
            "readOnlyHint": hints.read_only,
            "destructiveHint": hints.destructive,
            "idempotentHint": hints.idempotent,
            "openWorldHint": hints.open_world,
        }
        if self.long_running is not None:
            wire["execution"] = {"taskSupport": "optional"}
        if self.icons:
            wire["icons"] = [icon.wire() for icon in self.icons]
        if self.with_meta:
            wire["_meta"] = {TOOL_META_KEY: self.origin()}
        return wire

    def origin(self) -> dict[str, Any]:
        """The operation behind the tool (its `_meta`), empty fields left out."""
        origin: dict[str, Any] = {"operationId": self.operation_id} if self.operation_id else {}
        origin |= {"method": self.method, "path": self.path, "toolset": self.toolset}
        return origin | ({"tags": list(self.tags)} if self.tags else {})


@dataclass(frozen=True)
class Toolset:
    """A group of tools, in the order its first tool comes; `default`: enabled when nothing is chosen."""

    name: str
    description: str = ""  # the description of the spec's tag it is named after, if any
    default: bool = True


@dataclass(frozen=True)
class ApiModel:
    title: str
    version: str
    description: str
    default_base_url: str
    security_schemes: tuple[SecurityScheme, ...]
    tools: tuple[Tool, ...]
    toolsets: tuple[Toolset, ...] = ()  # every toolset of `tools`, in order of first appearance


OutputSchemas = Literal["compact", "full", "none"]


@dataclass(frozen=True)
class SizeLimits:
    """How big the tool definitions may be, in bytes of compact JSON; 0 means no limit."""

    input_schema: int = 16 * 1024  # claude.ai silently drops tools with a larger inputSchema
    output_schema: int = 4 * 1024  # with output_schemas="compact"
    tools_list: int = 2_000_000  # the whole tools/list result
    output_schemas: OutputSchemas = "compact"


@dataclass(frozen=True)
class ToolOverride:
    """Changes to one operation's tool, from the config file (for specs the user does not own).

    `operation` is an operationId or `METHOD /path` (method case-insensitive); `annotations` maps MCP
    hint names (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`) to values;
    `task` makes the operation long-running or not (tools/long_running.py)."""

    operation: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    annotations: tuple[tuple[str, bool], ...] = ()
    toolset: str | None = None
    task: TaskChoice | None = None


@dataclass(frozen=True)
class GeneratorOptions:
    """What the user chose on the command line."""

    dist_name: str
    env_prefix: str
    name_style: NameStyle = "portable"
    server_variables: tuple[tuple[str, str], ...] = ()  # --server-var NAME=VALUE, in order
    sizes: SizeLimits = SizeLimits()
    include: tuple[str, ...] = ()  # selectors (`tag:NAME`, `op:ID`, `path:GLOB`, `method:VERB`): any matches
    exclude: tuple[str, ...] = ()  # selectors: none may match (exclude wins over include)
    overrides: tuple[ToolOverride, ...] = ()
    overlays: tuple[str, ...] = ()  # OpenAPI Overlay 1.0 documents (paths or URLs), applied in order
    toolsets: tuple[tuple[str, str], ...] = ()  # (selector, toolset name): the first that matches wins
    default_toolsets: tuple[str, ...] = ()  # the toolsets enabled by default; () = all of them
    default_mode: str = "auto"  # the generated server's --mode when neither flag nor variable says
    bundle: bool = False  # --bundle: also an MCPB manifest.json (emit/mcpb.py)
    icons: tuple[Icon, ...] | None = None  # the config file's `icons` (None: the spec's x-logo)
    models: bool = False  # --models: write models.py (pydantic classes of the tools, emit/models.py)
    runtime: str = "vendored"  # --runtime: the runtime copied into the package, or "package" (a dependency)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def package_name(self) -> str:
        return self.dist_name.replace("-", "_")
