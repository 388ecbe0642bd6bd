"""The Prism part of the corpus end-to-end test: which specs and tools Prism 5.16.0 can judge,
which of our bugs it finds, and the deterministic sample of calls (`plan_calls`).

Every reason below was shown by sending the request to Prism by hand. Calls are judged by
test_e2e_property's `run_calls` (no request-validation violation, no refusal by our own server).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from argument_strategies import draw_arguments, strings_in
from corpus_specs import CorpusSpec
from e2e_support import Generated, dump
from test_e2e_property import Call, arguments_in, narrowings, prism_cannot_serve, sendable_path

from openapi2mcp import pipeline
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.load.refs import Resolver, unescape_token
from openapi2mcp.load.source import load_source
from openapi2mcp.load.swagger2.convert import is_swagger2
from openapi2mcp.model import GeneratorOptions, SizeLimits, Tool
from openapi2mcp.tools.parameters import CLIENT_HEADERS, IGNORED_HEADERS

SAMPLE_TOOLS = 3  # per spec
EXAMPLES_PER_TOOL = 2

_NO_OPERATIONS = "no operations (webhooks only): Prism exits with 'No operations found in the current file'"
# Specs Prism 5.16.0 cannot mock at all; their tools are still listed and linted.
PRISM_CANNOT_MOCK = {
    "adyen-dispute-webhooks-only": _NO_OPERATIONS,
    "oai-webhook-example-v31": _NO_OPERATIONS,
    "twilio-iam-scim": _NO_OPERATIONS,
    "ag-azure-network-expressroute": (
        "Prism exits at start with ResolverError ENOENT: its $ref './routeFilter.json' names a file "
        "the corpus does not have (we skip the 2 operations that need it, with an error diagnostic)"
    ),
    "swagger-petstore31": (
        "Prism exits at start with ResolverError ENOENT: it reads the 3.1 $id-based reference "
        "'/components/schemas/petdetails#pet_details_id' as a file path"
    ),
    "stripe": "Prism does not finish starting on it: still 'Starting Prism' after 400 s (4 MB of schemas)",
    "stripe-swagger2": "Prism does not finish starting on it: still 'Starting Prism' after 300 s (2 MB)",
}
# Specs whose every sampled request Prism 5.16.0 refuses, however right (each shown by hand).
PRISM_CANNOT_JUDGE = {
    "rdm-discriminators": (
        "Prism 5.16 applies oneOf literally and ignores the discriminator: the spec's branches are "
        "open objects that overlap, so even {discrim: 'Option One', optionone: 1} 'must match "
        "exactly one schema in oneOf' (our inputSchema pins each branch's discriminator value)"
    ),
}
# OUR bugs that the Prism sample finds (reported; the generator must fix them, then these go).
PRISM_FINDS_OUR_BUG: dict[str, str] = {}
# Headers sent with every request: header parameters that OpenAPI says SHALL be ignored (and the
# generator ignores) but that Prism 5.16.0 still requires ("Request header must have required
# property 'content-type'").
PRISM_HEADERS = {
    "pagerduty": {"Content-Type": "application/json"},  # 334 operations declare it
    "rdm-schema-circular": {"Authorization": "e2e"},  # PUT /circular, with no security scheme
}


def is_array(schema: dict[str, Any]) -> bool:
    return any(branch.get("type") == "array" for branch in [schema, *schema.get("anyOf", [])])


def uses_authorization(scheme: dict[str, Any]) -> bool:
    if scheme.get("type") == "apiKey":
        return scheme.get("in") == "header" and str(scheme.get("name")).lower() == "authorization"
    return scheme.get("type") in ("http", "oauth2", "openIdConnect")


def prism_cannot_judge(data: dict[str, Any], tool: dict[str, Any]) -> str | None:
    """Why no call of this tool can be judged by Prism 5.16.0 (each reason shown by sending the
    request by hand), beyond test_e2e_property's `prism_cannot_serve`."""
    route, schema = data["routes"][tool["name"]], tool["inputSchema"]
    if reason := prism_cannot_serve(route, schema):
        return reason
    properties, body = schema.get("properties") or {}, route.get("body") or {}
    for field in body.get("fields") or []:
        if not is_array(properties.get(field["arg"], {})):
            continue
        if body["kind"] == "multipart":
            return "Prism 5.16 reads no multipart array, even of two parts: 'must be array'"
        if body["kind"] == "form" and field.get("explode") is not False:
            return (
                "Prism 5.16 reads an exploded form array (a=1&a=2, the default) as one value: 'must be array'"
            )
    schemes = data.get("securitySchemes") or {}
    alternatives = route.get("security") or []
    if alternatives and all(
        sum(uses_authorization(schemes[use["scheme"]]) for use in alt) > 1 for alt in alternatives
    ):
        return (
            "the spec: each security alternative needs two Authorization headers, which no request can carry"
        )
    return None


def richness(route: dict[str, Any]) -> int:
    return (route.get("body") is not None) + bool(route.get("params"))


def candidates(package: Generated, facts: SpecFacts) -> list[dict[str, Any]]:
    """The tools Prism can judge, in sampling order: the richest (a body, then parameters) of each
    HTTP method first, then the rest by richness; document order among equals."""
    data = package.tool_data
    judgeable = [
        tool
        for tool in data["tools"]
        if prism_cannot_judge(data, tool) is None and tool["name"] not in facts.unjudgeable
    ]
    ranked = sorted(judgeable, key=lambda tool: -richness(data["routes"][tool["name"]]))
    first: dict[str, dict[str, Any]] = {}
    for tool in ranked:
        first.setdefault(data["routes"][tool["name"]]["method"], tool)
    return [*first.values(), *(tool for tool in ranked if tool not in first.values())]


def judgeable(route: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """Arguments whose request Prism 5.16 can judge: a '{' in any value garbles its log line
    ('[CLI] Invalid JSON and unable to correct': the request is lost); a JSON body of 0, false or
    "" reads as none ('Body parameter is required')."""
    if any("{" in text for value in arguments.values() for text in strings_in(value)):
        return False
    body = route.get("body") or {}
    whole = arguments.get(body.get("arg") or "")
    return not (body.get("kind") == "json" and whole is not None and whole in (0, False, ""))


def draw(route: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    narrowed = narrowings(route, schema)
    for param in route.get("params") or []:
        if param["in"] == "header" and param["required"] and param["arg"] in (schema.get("properties") or {}):
            narrowed.setdefault(param["arg"], set()).add("non_empty")  # Prism: '' is a missing header
    return draw_arguments(
        schema,
        EXAMPLES_PER_TOOL,
        header_args=arguments_in(route, "header", "cookie"),
        narrowed=narrowed,
        accept=lambda arguments: (
            sendable_path(arguments_in(route, "path"), arguments) and judgeable(route, arguments)
        ),
    )


@dataclass(frozen=True)
class SpecFacts:
    """What the Prism sample needs from the spec beyond the generated package: each tool's
    inputSchema before any compaction (`openapi2mcp.fit.budget`), which arguments are drawn from, so
    that what the spec asks of a request is tested, not the looser schema the server lists (which
    accepts every such argument); and the tools whose every request Prism 5.16 refuses, with why."""

    schemas: dict[str, dict[str, Any]]
    unjudgeable: dict[str, str]


def spec_facts(spec: CorpusSpec) -> SpecFacts:
    whole = SizeLimits(input_schema=0, output_schema=0, tools_list=0, output_schemas="none")
    options = GeneratorOptions(dist_name="corpus", env_prefix="CORPUS", sizes=whole)
    generation = pipeline.generate(str(spec.root), options, RefOptions(ref_root=spec.ref_root))
    resolver = Resolver(generation.document)
    raw, _ = load_source(str(spec.root))
    swagger = raw if is_swagger2(raw) else None
    sent = {name.lower() for name in PRISM_HEADERS.get(spec.name, {})}
    unjudgeable = {}
    for tool in generation.model.tools:
        if reason := _refused_by_prism(tool, generation.document, resolver, swagger, sent):
            unjudgeable[tool.name] = reason
    return SpecFacts({tool.name: tool.input_schema for tool in generation.model.tools}, unjudgeable)


def _refused_by_prism(
    tool: Tool, document: dict[str, Any], resolver: Resolver, swagger: Any, sent: set[str]
) -> str | None:
    """Why Prism 5.16 refuses every request of `tool` (None: it can judge them). `swagger` is the
    Swagger 2.0 document Prism reads (None for OAS 3.x), where a stream body is an object schema;
    `sent` the headers (lower case) the test adds to every request (PRISM_HEADERS)."""
    path_item, operation = _operation(document, resolver, tool.pointer)
    for raw in [*path_item.get("parameters", []), *operation.get("parameters", [])]:
        parameter, _ = resolver.deref(raw, tool.pointer)
        name = str(parameter.get("name", "")).lower()
        if parameter.get("in") != "header":
            continue
        if name in CLIENT_HEADERS and parameter.get("required"):
            return (
                f"the spec requires the {name} header, which the HTTP client owns; Prism 5.16 insists on it"
            )
        if name in IGNORED_HEADERS and name not in sent and _prism_wants(name, parameter, tool, document):
            return (
                f"the spec declares the {name} header as a parameter, which OpenAPI says to ignore (the"
                " server does); Prism 5.16 holds the request to it"
            )
    if tool.body is None or tool.body.kind not in ("text", "binary"):
        return None
    schema = (
        _body_schema(tool, document, resolver) if swagger is None else _swagger_body_schema(tool, swagger)
    )
    if schema.get("type", "string") != "string":
        return (
            f"the spec gives its {tool.body.media_type} body a schema of type {schema.get('type')}, which "
            "Prism 5.16 holds the body text to: 'Request body must be object' (we send the text or bytes)"
        )
    return None


def _prism_wants(header: str, parameter: dict[str, Any], tool: Tool, document: dict[str, Any]) -> bool:
    """Whether Prism 5.16 refuses what the server sends for an Accept, Content-Type or Authorization
    header the spec declares as a parameter (VTEX, walmart.com, ndhm.gov.in): an Accept (always
    sent: `application/json, */*;q=0.8`) held to the parameter's enum; a required Content-Type where
    no body is sure to be sent, or any held to an enum (amazonaws.com/tnb's optional
    `application/zip` beside a JSON body); a required Authorization that the first security
    alternative (the one the dummy credentials satisfy) does not send."""
    enum, required = "enum" in (parameter.get("schema") or {}), bool(parameter.get("required"))
    if header == "accept":
        return enum
    if header == "content-type":
        return enum or (required and (tool.body is None or not tool.body.required))
    if not required:
        return False
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    first = tool.security[0] if tool.security else ()
    return not any(uses_authorization(schemes[use.scheme]) for use in first)


def _operation(document: dict[str, Any], resolver: Resolver, pointer: str) -> tuple[Any, Any]:
    """The path item (its `$ref` followed) and the operation at `#/paths/<path>/<method>`."""
    _, paths, path, method = pointer.split("/")
    item, _ = resolver.deref(document[paths][unescape_token(path)], pointer)
    return item, item[method]


def _body_schema(tool: Tool, document: dict[str, Any], resolver: Resolver) -> dict[str, Any]:
    assert tool.body is not None
    body, _ = resolver.deref(_operation(document, resolver, tool.pointer)[1]["requestBody"], tool.pointer)
    schema, _ = resolver.deref(body["content"][tool.body.media_type].get("schema", {}), tool.pointer)
    return dict(schema)


def _swagger_body_schema(tool: Tool, swagger: dict[str, Any]) -> dict[str, Any]:
    resolver = Resolver(swagger)
    pointer = tool.pointer
    if unescape_token(pointer.split("/")[2]) not in swagger.get("paths", {}):  # Azure's x-ms-paths
        pointer = pointer.replace("#/paths/", "#/x-ms-paths/", 1)
    path_item, operation = _operation(swagger, resolver, pointer)
    for raw in [*path_item.get("parameters", []), *operation.get("parameters", [])]:
        parameter, _ = resolver.deref(raw, tool.pointer)
        if parameter.get("in") == "body":
            return dict(resolver.deref(parameter.get("schema", {}), tool.pointer)[0])
    return {}


def plan_calls(package: Generated, facts: SpecFacts) -> list[Call]:
    """EXAMPLES_PER_TOOL calls for each of up to SAMPLE_TOOLS tools (see `candidates`), with
    arguments drawn from the whole inputSchemas (see `SpecFacts`)."""
    data, calls, tools = package.tool_data, [], 0
    for tool in candidates(package, facts):
        route = data["routes"][tool["name"]]
        try:
            drawn = draw(route, facts.schemas[tool["name"]])
        except Exception as error:  # hypothesis cannot draw it: the drawing's printable-ASCII alphabet
            # cannot meet a pattern, or an open pattern and a length leave too few of its strings
            # (amazonaws.com/kendra: "^[a-zA-Z-0-9]*" of exactly 36 characters)
            if type(error).__name__ not in ("IncompatibleWithAlphabet", "Unsatisfiable"):
                raise
            continue
        assert drawn, f"nothing could be drawn for {tool['name']}: {dump(facts.schemas[tool['name']])}"
        calls += [Call(tool["name"], arguments, route["method"].upper()) for arguments in drawn]
        tools += 1
        if tools == SAMPLE_TOOLS:
            break
    return calls


@dataclass(frozen=True)
class WithHeaders(Generated):
    """A package whose server sends fixed headers ({PREFIX}_HEADERS) with every request."""

    headers: tuple[tuple[str, str], ...] = ()

    def env(self, base_url: str | None = None, **extra: str) -> dict[str, str]:
        return super().env(base_url, HEADERS=json.dumps(dict(self.headers)), **extra)
