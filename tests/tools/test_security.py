"""Security schemes and requirements (issue 2, auth part): variable names, inheritance, alternatives."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import ApiModel, GeneratorOptions, SchemeUse, SecurityScheme
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.security import map_requirements, map_schemes

OK = {"200": {"description": "ok"}}


def schemes_of(
    raw: dict[str, Any], prefix: str = "T"
) -> tuple[dict[str, SecurityScheme], list[tuple[Level, str]]]:
    document = {"components": {"securitySchemes": raw}}
    diagnostics = Diagnostics()
    found = map_schemes(document, Resolver(document), prefix, diagnostics)
    return found, [(d.level, d.pointer) for d in diagnostics]


def one_scheme(key: str, raw: dict[str, Any], prefix: str = "T") -> SecurityScheme:
    found, diagnostics = schemes_of({key: raw}, prefix)
    assert diagnostics == []
    return found[key]


def build(
    paths: dict[str, Any], schemes: dict[str, Any], security: Any = None
) -> tuple[ApiModel, Diagnostics]:
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": paths,
        "components": {"securitySchemes": schemes},
    }
    if security is not None:
        document["security"] = security
    diagnostics = Diagnostics()
    return map_document(document, GeneratorOptions("t", "T"), diagnostics), diagnostics


API_KEY = {"type": "apiKey", "in": "header", "name": "X-API-Key"}
BEARER = {"type": "http", "scheme": "bearer"}
BASIC = {"type": "http", "scheme": "basic"}
QUERY_KEY = {"type": "apiKey", "in": "query", "name": "key"}
COOKIE_KEY = {"type": "apiKey", "in": "cookie", "name": "a"}
OAUTH_IMPLICIT = {
    "type": "oauth2",
    "flows": {"implicit": {"authorizationUrl": "https://a.example/auth", "scopes": {}}},
}
OAUTH_CODE = {
    "type": "oauth2",
    "flows": {
        "authorizationCode": {
            "authorizationUrl": "https://a.example/auth",
            "tokenUrl": "https://a.example/token",
            "scopes": {},
        }
    },
}


# ---------------------------------------------------------------------------------------------
# Environment variables


@pytest.mark.parametrize("location", ["header", "query", "cookie"])
def test_an_api_key_scheme_reads_prefix_scheme_key(location: str) -> None:
    scheme = one_scheme("api_key", {"type": "apiKey", "in": location, "name": "k"})
    assert scheme.env == {"key": "T_API_KEY_KEY"}
    assert (scheme.kind, scheme.location, scheme.parameter_name) == ("apiKey", location, "k")


@pytest.mark.parametrize(
    ("key", "variable"),
    [
        ("petstore_auth", "ZOO_PETSTORE_AUTH_KEY"),
        ("ApiKey", "ZOO_APIKEY_KEY"),
        ("x-api.key v2", "ZOO_X_API_KEY_V2_KEY"),
        ("clé", "ZOO_CL__KEY"),
        ("2fa", "ZOO_2FA_KEY"),
    ],
)
def test_the_scheme_part_is_the_key_upper_cased_with_non_alphanumerics_turned_to_underscores(
    key: str, variable: str
) -> None:
    assert one_scheme(key, API_KEY, prefix="ZOO").env == {"key": variable}


def test_an_http_bearer_scheme_reads_prefix_scheme_token() -> None:
    scheme = one_scheme("bearerAuth", {"type": "http", "scheme": "Bearer", "bearerFormat": "JWT"})
    assert (scheme.kind, scheme.http_scheme, scheme.env) == (
        "http",
        "bearer",
        {"token": "T_BEARERAUTH_TOKEN"},
    )


def test_an_http_basic_scheme_reads_a_username_and_a_password() -> None:
    scheme = one_scheme("basic", {"type": "http", "scheme": "Basic"})
    assert (scheme.http_scheme, scheme.env) == (
        "basic",
        {"username": "T_BASIC_USERNAME", "password": "T_BASIC_PASSWORD"},
    )


def test_an_oauth2_client_credentials_scheme_reads_token_client_id_secret_scopes_and_token_url() -> None:
    scheme = one_scheme(
        "oauth",
        {
            "type": "oauth2",
            "flows": {
                "clientCredentials": {
                    "tokenUrl": "https://auth.test/token",
                    "scopes": {"read": "Read"},
                }
            },
        },
    )
    assert scheme.kind == "oauth2"
    assert scheme.token_url == "https://auth.test/token"
    assert scheme.env == {
        "token": "T_OAUTH_TOKEN",
        "client_id": "T_OAUTH_CLIENT_ID",
        "client_secret": "T_OAUTH_CLIENT_SECRET",
        "scopes": "T_OAUTH_SCOPES",
        "token_url": "T_OAUTH_TOKEN_URL",
    }


def test_an_oauth2_scheme_without_client_credentials_reads_only_a_token() -> None:
    scheme = one_scheme(
        "oauth",
        {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://auth.test/a",
                    "tokenUrl": "https://auth.test/t",
                    "scopes": {},
                }
            },
        },
    )
    assert (scheme.env, scheme.token_url) == ({"token": "T_OAUTH_TOKEN"}, None)


def test_an_open_id_connect_scheme_reads_prefix_scheme_token() -> None:
    scheme = one_scheme(
        "oidc", {"type": "openIdConnect", "openIdConnectUrl": "https://auth.test/.well-known"}
    )
    assert (scheme.kind, scheme.env) == ("openIdConnect", {"token": "T_OIDC_TOKEN"})


def test_a_mutual_tls_scheme_has_no_variables_and_a_warning() -> None:
    found, diagnostics = schemes_of({"mtls": {"type": "mutualTLS"}})
    assert found["mtls"].env == {}
    assert diagnostics == [(Level.WARNING, "#/components/securitySchemes/mtls")]


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "apiKey", "in": "body", "name": "k"},
        {"type": "apiKey", "in": "header"},
        {"type": "magic"},
        "text",
    ],
    ids=["apiKey-bad-location", "apiKey-no-name", "unknown-type", "not-an-object"],
)
def test_an_unusable_scheme_is_left_out_with_an_error_at_the_scheme(raw: Any) -> None:
    found, diagnostics = schemes_of({"bad": raw, "good": API_KEY})
    assert list(found) == ["good"]
    assert diagnostics == [(Level.ERROR, "#/components/securitySchemes/bad")]


def test_schemes_keep_their_document_order() -> None:
    found, _ = schemes_of({"z": API_KEY, "a": BEARER, "m": BASIC})
    assert list(found) == ["z", "a", "m"]


def test_a_referenced_scheme_is_resolved() -> None:
    document = {
        "components": {"securitySchemes": {"key": {"$ref": "#/x-shared/key"}}},
        "x-shared": {"key": API_KEY},
    }
    found = map_schemes(document, Resolver(document), "T", Diagnostics())
    assert found["key"].env == {"key": "T_KEY_KEY"}


def test_two_schemes_never_share_a_variable_silently() -> None:
    found, diagnostics = schemes_of(
        {"api-key": API_KEY, "api_key": {"type": "apiKey", "in": "query", "name": "k"}}
    )
    shared = set(found["api-key"].env.values()) & set(found["api_key"].env.values())
    assert not shared or diagnostics, f"{sorted(shared)} read by both schemes, no diagnostic"


# ---------------------------------------------------------------------------------------------
# Requirements


def test_a_requirement_list_keeps_alternatives_combinations_and_scopes() -> None:
    schemes = {"a": one_scheme("a", API_KEY), "o": one_scheme("o", BEARER)}
    diagnostics = Diagnostics()
    found = map_requirements(
        [{"a": [], "o": ["read", "write"]}, {"o": []}], schemes, "#/security", diagnostics
    )
    assert found == (
        (SchemeUse("a"), SchemeUse("o", ("read", "write"))),
        (SchemeUse("o"),),
    )
    assert list(diagnostics) == []


@pytest.mark.parametrize(
    ("raw", "kept", "slot"),
    [
        (
            {"implicit": OAUTH_IMPLICIT, "code": OAUTH_CODE},
            "implicit",
            "header 'authorization'",
        ),  # googleapis
        (
            {"bearer": BEARER, "auth_key": {**API_KEY, "name": "Authorization"}},
            "bearer",
            "header 'authorization'",
        ),
        ({"k1": API_KEY, "k2": {**API_KEY, "name": "x-api-key"}}, "k1", "header 'x-api-key'"),
        ({"q1": QUERY_KEY, "q2": QUERY_KEY}, "q1", "query 'key'"),
    ],
)
def test_schemes_of_one_requirement_sending_the_same_credential_keep_the_first(
    raw: dict[str, Any], kept: str, slot: str
) -> None:
    schemes, _ = schemes_of(raw)
    diagnostics = Diagnostics()
    found = map_requirements([{key: [] for key in raw}], schemes, "#/p", diagnostics)
    assert found == ((SchemeUse(kept),),)
    (other,) = set(raw) - {kept}
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (
            Level.WARNING,
            "#/p/0",
            f"schemes [{kept!r}, {other!r}] of one requirement all send the {slot}, which a request carries "
            f"once: only {kept!r} is used",
        )
    ]


def test_schemes_of_one_requirement_sending_different_credentials_are_all_kept() -> None:
    raw = {
        "key": API_KEY,
        "bearer": BEARER,
        "q": QUERY_KEY,
        "c1": COOKIE_KEY,
        "c2": {**COOKIE_KEY, "name": "b"},
    }
    schemes, _ = schemes_of(raw)
    diagnostics = Diagnostics()
    assert map_requirements([{key: [] for key in raw}], schemes, "#/p", diagnostics) == (
        tuple(SchemeUse(name) for name in raw),
    )
    assert list(diagnostics) == []


def test_an_empty_requirement_list_means_no_authentication() -> None:
    assert map_requirements([], {}, "#/security", Diagnostics()) == ()


def test_an_alternative_naming_an_unknown_scheme_is_dropped_with_a_warning() -> None:
    diagnostics = Diagnostics()
    found = map_requirements([{"nope": []}, {"a": []}], {"a": one_scheme("a", API_KEY)}, "#/p", diagnostics)
    assert found == ((SchemeUse("a"),),)
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.WARNING, "#/p/0")]


def test_routes_carry_inherited_disabled_overridden_and_optional_security() -> None:
    paths = {
        "/a": {
            "get": {"operationId": "inherits", "responses": OK},
            "post": {"operationId": "open", "security": [], "responses": OK},
            "put": {
                "operationId": "either",
                "responses": OK,
                "security": [{"key": [], "oauth": ["pets:write"]}, {"bearer": []}],
            },
            "delete": {"operationId": "optional", "responses": OK, "security": [{}, {"basic": []}]},
        },
    }
    schemes = {
        "key": API_KEY,
        "bearer": BEARER,
        "basic": BASIC,
        "oauth": {
            "type": "oauth2",
            "flows": {"clientCredentials": {"tokenUrl": "https://a.test/t", "scopes": {}}},
        },
    }
    model, diagnostics = build(paths, schemes, security=[{"key": []}])
    routes = tool_data(model, GeneratorOptions("t", "T"), generator="g")["routes"]
    assert {name: route["security"] for name, route in routes.items()} == {
        "inherits": [[{"scheme": "key", "scopes": []}]],
        "open": [],
        "either": [
            [{"scheme": "key", "scopes": []}, {"scheme": "oauth", "scopes": ["pets:write"]}],
            [{"scheme": "bearer", "scopes": []}],
        ],
        "optional": [[], [{"scheme": "basic", "scopes": []}]],
    }
    assert [d for d in diagnostics if d.level is not Level.INFO] == []


def test_without_root_security_an_operation_without_security_needs_no_credentials() -> None:
    model, _ = build({"/a": {"get": {"operationId": "a", "responses": OK}}}, {"key": API_KEY})
    assert model.tools[0].security == ()


def test_tool_data_lists_every_scheme_with_its_variables() -> None:
    model, _ = build(
        {"/a": {"get": {"operationId": "a", "responses": OK}}},
        {
            "key": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "bearer": BEARER,
            "basic": BASIC,
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a.test"},
        },
    )
    data = tool_data(model, GeneratorOptions("t", "T"), generator="g")["securitySchemes"]
    assert data == {
        "key": {"type": "apiKey", "in": "cookie", "name": "sid", "env": {"key": "T_KEY_KEY"}},
        "bearer": {"type": "http", "scheme": "bearer", "env": {"token": "T_BEARER_TOKEN"}},
        "basic": {
            "type": "http",
            "scheme": "basic",
            "env": {"username": "T_BASIC_USERNAME", "password": "T_BASIC_PASSWORD"},
        },
        "oidc": {"type": "openIdConnect", "env": {"token": "T_OIDC_TOKEN"}},
    }


def test_an_operation_whose_security_is_not_a_list_is_skipped_as_invalid() -> None:
    model, diagnostics = build(
        {"/a": {"get": {"operationId": "a", "responses": OK, "security": {"key": []}}}}, {"key": API_KEY}
    )
    assert model.tools == ()
    assert [(d.level, d.pointer) for d in diagnostics if d.level is Level.ERROR] == [
        (Level.ERROR, "#/paths/~1a/get/security")
    ]


def test_a_parameter_that_is_the_operations_api_key_is_no_argument() -> None:
    """currencytick.com and fec.gov declare their API key as a security scheme and again as a
    required query parameter: the configured key fills it (the model never handles the secret,
    and the request does not carry it twice). Header names match in any case."""
    declared = [
        {"name": "key", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "x-api-key", "in": "header", "schema": {"type": "string"}},
        {"name": "a", "in": "cookie", "schema": {"type": "string"}},
        {"name": "q", "in": "query", "schema": {"type": "string"}},
    ]

    def operation(operation_id: str, security: list[dict[str, Any]]) -> dict[str, Any]:
        return {"operationId": operation_id, "parameters": declared, "security": security, "responses": OK}

    paths = {
        "/a": {
            "get": operation("allKeys", [{"q": [], "key": [], "c": []}]),
            "put": operation("eitherKey", [{"q": []}, {"q": [], "key": []}]),
            "post": operation("keyOrBearer", [{"q": []}, {"bearer": []}]),
            "delete": operation("optional", [{}, {"q": []}]),
        }
    }
    schemes = {"q": QUERY_KEY, "key": API_KEY, "c": COOKIE_KEY, "bearer": BEARER}
    model, diagnostics = build(paths, schemes)
    arguments = {tool.name: list(tool.input_schema["properties"]) for tool in model.tools}
    assert arguments == {
        "allKeys": ["q"],
        "eitherKey": ["x-api-key", "a", "q"],  # both alternatives send `key` in the query
        "keyOrBearer": ["key", "x-api-key", "a", "q"],  # with a bearer token, `key` is an argument
        "optional": ["key", "x-api-key", "a", "q"],
    }
    assert model.tools[0].input_schema.get("required", []) == []
    infos = [(d.pointer, d.message) for d in diagnostics if d.level is Level.INFO]
    said = "the API key every security requirement of the operation sends: the configured credential fills it"
    assert infos == [
        ("#/paths/~1a/get", f"query parameter 'key' is {said}, not an argument"),
        ("#/paths/~1a/get", f"header parameter 'x-api-key' is {said}, not an argument"),
        ("#/paths/~1a/get", f"cookie parameter 'a' is {said}, not an argument"),
        ("#/paths/~1a/put", f"query parameter 'key' is {said}, not an argument"),
    ]
