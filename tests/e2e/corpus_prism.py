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
from e2e_support import Generated, dump
from test_e2e_property import Call, arguments_in, narrowings, prism_cannot_serve, sendable_path

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
# OUR bugs that the Prism sample finds (reported; the generator must fix them, then these go).
_EMPTY_QUERY = (
    "OUR BUG: a required query parameter accepts '' (no minLength), but OpenAPI's allowEmptyValue "
    "is false by default; Prism: \"Request query must have required property '{}'\""
)
_FILE_BODY = (
    "OUR BUG: a Swagger 2.0 body schema {type: object, format: file} (application/octet-stream) "
    "becomes an object argument, which our server then refuses: 'must be a base64-encoded string'"
)
_NULL_BODY = (
    "OUR BUG: a required body whose schema allows anything (null too) is refused by our own "
    "server when null: \"Argument 'body' (the request body) is required\""
)
PRISM_FINDS_OUR_BUG = {
    "ag-azure-datalake-store-fs": f"{_EMPTY_QUERY.format('fsaction')}; {_FILE_BODY}",
    "ag-epa-eff": _EMPTY_QUERY.format("p_id"),
    "ag-hubspot-marketing-v3": _EMPTY_QUERY.format("externalaccountid"),
    "ag-mercure": (
        f"{_EMPTY_QUERY.format('topic')} (topic: ['']); and a required query array accepts [] "
        "(no minItems), which sends nothing"
    ),
    "ag-opensuse-obs": (
        "OUR BUG: an application/xml body keeps its object schema, so the `body` argument is an "
        "object, not XML text; Prism: 'Request body must be object'"
    ),
    "ag-quarantine-country": _EMPTY_QUERY.format("region"),
    "asana": _EMPTY_QUERY.format("target"),
    "azure-body-formdata": _FILE_BODY,
    "azure-storage-2015": _EMPTY_QUERY.format("api-version"),
    "cloudflare": _NULL_BODY,
    "digitalocean": (
        "OUR BUG: a path parameter anyOf [integer, string] gets no minLength: 1 on its string "
        "branch, so '' is schema-valid and our server refuses it ('must not be empty')"
    ),
    "librefang-dupopid": _NULL_BODY,
    "rdm-discriminators": (
        "OUR BUG: a discriminated oneOf becomes anyOf and the discriminator's values are lost, so "
        "{discrim: ''} is schema-valid; Prism: 'Request body must match exactly one schema in oneOf'"
    ),
    "slack-web-v2": _EMPTY_QUERY.format("token"),
}
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


def candidates(package: Generated) -> list[dict[str, Any]]:
    """The tools Prism can judge, in sampling order: the richest (a body, then parameters) of each
    HTTP method first, then the rest by richness; document order among equals."""
    data = package.tool_data
    judgeable = [tool for tool in data["tools"] if prism_cannot_judge(data, tool) is None]
    ranked = sorted(judgeable, key=lambda tool: -richness(data["routes"][tool["name"]]))
    first: dict[str, dict[str, Any]] = {}
    for tool in ranked:
        first.setdefault(data["routes"][tool["name"]]["method"], tool)
    return [*first.values(), *(tool for tool in ranked if tool not in first.values())]


def judgeable(route: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """Arguments whose request Prism 5.16 can judge: a '{' in a path or query value garbles its
    log line ('[CLI] Invalid JSON and unable to correct': the request is lost); a JSON body of
    0, false or "" reads as none ('Body parameter is required')."""
    in_url = arguments_in(route, "path", "query")
    if any("{" in text for name in in_url if name in arguments for text in strings_in(arguments[name])):
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


def plan_calls(package: Generated) -> list[Call]:
    """EXAMPLES_PER_TOOL calls for each of up to SAMPLE_TOOLS tools (see `candidates`)."""
    data, calls, tools = package.tool_data, [], 0
    for tool in candidates(package):
        route = data["routes"][tool["name"]]
        try:
            drawn = draw(route, tool["inputSchema"])
        except Exception as error:  # the drawing's printable-ASCII alphabet cannot meet a pattern
            if type(error).__name__ != "IncompatibleWithAlphabet":
                raise
            continue
        assert drawn, f"nothing could be drawn for {tool['name']}: {dump(tool['inputSchema'])}"
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
