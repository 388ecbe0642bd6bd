"""Security schemes and requirements: which credentials a tool needs, from which variables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import Location, Requirement, SchemeUse, SecurityScheme
from openapi2mcp.tools.naming import env_token
from openapi2mcp.tools.parameters import HTTP_TOKEN

_API_KEY_LOCATIONS = ("header", "query", "cookie")


def map_schemes(
    document: dict[str, Any], resolver: Resolver, env_prefix: str, diagnostics: Diagnostics
) -> dict[str, SecurityScheme]:
    """Every usable scheme of `components.securitySchemes`, by key, in document order."""
    components = document.get("components")
    raw_schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    if not isinstance(raw_schemes, dict):
        return {}
    schemes: dict[str, SecurityScheme] = {}
    for key, raw in raw_schemes.items():
        pointer = pointer_join("#/components/securitySchemes", key)
        try:
            node, _ = resolver.deref(raw, pointer)
        except SpecError as error:
            diagnostics.error(error.pointer, error.message)
            continue
        scheme = _scheme(key, node, f"{env_prefix}_{env_token(key)}", pointer, diagnostics)
        if scheme is not None:
            _warn_shared_variables(scheme, schemes.values(), pointer, diagnostics)
            schemes[key] = scheme
    return schemes


def _warn_shared_variables(
    scheme: SecurityScheme, earlier: Iterable[SecurityScheme], pointer: str, diagnostics: Diagnostics
) -> None:
    """Keys like `api-key` and `api_key` map to the same variable: say so, they share a credential."""
    mine = set(scheme.env.values())
    for other in earlier:
        shared = sorted(mine & set(other.env.values()))
        if shared:
            diagnostics.warning(
                pointer, f"schemes {other.key!r} and {scheme.key!r} both read {', '.join(shared)}"
            )


def _scheme(
    key: str, node: Any, env_base: str, pointer: str, diagnostics: Diagnostics
) -> SecurityScheme | None:
    if not isinstance(node, dict):
        diagnostics.error(pointer, "a security scheme must be an object")
        return None
    kind = node.get("type")
    description = str(node.get("description") or "")
    if kind == "apiKey":
        location, name = node.get("in"), node.get("name")
        if location not in _API_KEY_LOCATIONS or not isinstance(name, str) or not name:
            diagnostics.error(pointer, "an apiKey scheme needs `in` (header, query, cookie) and `name`")
            return None
        if location != "query" and not HTTP_TOKEN.fullmatch(name):
            diagnostics.error(pointer, f"apiKey {location} name {name!r} is not a valid HTTP {location} name")
            return None
        return SecurityScheme(
            key,
            "apiKey",
            {"key": f"{env_base}_KEY"},
            location=cast(Location, location),
            parameter_name=name,
            description=description,
        )
    if kind == "http":
        http_scheme = str(node.get("scheme") or "").lower()
        if http_scheme == "basic":
            env = {"username": f"{env_base}_USERNAME", "password": f"{env_base}_PASSWORD"}
        else:
            env = {"token": f"{env_base}_TOKEN"}
        return SecurityScheme(key, "http", env, http_scheme=http_scheme, description=description)
    if kind == "oauth2":
        return _oauth2(key, node, env_base, description)
    if kind == "openIdConnect":
        return SecurityScheme(key, "openIdConnect", {"token": f"{env_base}_TOKEN"}, description=description)
    if kind == "mutualTLS":
        diagnostics.warning(
            pointer, "mutualTLS is not supported: the generated server sends no client certificate"
        )
        return SecurityScheme(key, "mutualTLS", {}, description=description)
    diagnostics.error(pointer, f"unknown security scheme type {kind!r}")
    return None


def _oauth2(key: str, node: dict[str, Any], env_base: str, description: str) -> SecurityScheme:
    env = {"token": f"{env_base}_TOKEN"}
    flows = node.get("flows")
    client_credentials = flows.get("clientCredentials") if isinstance(flows, dict) else None
    token_url = None
    if isinstance(client_credentials, dict):
        raw_url = client_credentials.get("tokenUrl")
        token_url = raw_url if isinstance(raw_url, str) else None
        env |= {
            "client_id": f"{env_base}_CLIENT_ID",
            "client_secret": f"{env_base}_CLIENT_SECRET",
            "scopes": f"{env_base}_SCOPES",
            "token_url": f"{env_base}_TOKEN_URL",
        }
    return SecurityScheme(key, "oauth2", env, token_url=token_url, description=description)


def map_requirements(
    raw: Any, schemes: dict[str, SecurityScheme], pointer: str, diagnostics: Diagnostics
) -> tuple[Requirement, ...]:
    """A `security` list as alternatives; `[]` (or none) means no authentication."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        diagnostics.warning(pointer, "`security` must be a list; ignored")
        return ()
    alternatives: list[Requirement] = []
    for index, requirement in enumerate(raw):
        where = pointer_join(pointer, index)
        if not isinstance(requirement, dict):
            diagnostics.warning(where, "a security requirement must be an object; ignored")
            continue
        unknown = [name for name in requirement if name not in schemes]
        if unknown:
            diagnostics.warning(where, f"unknown security scheme(s) {unknown}: this alternative is dropped")
            continue
        uses = tuple(SchemeUse(name, _scopes(scopes)) for name, scopes in requirement.items())
        alternatives.append(_one_per_slot(uses, schemes, where, diagnostics))
    if raw and not alternatives:
        diagnostics.warning(pointer, "no usable security alternative: calls are sent without credentials")
    return tuple(alternatives)


def _one_per_slot(
    uses: Requirement, schemes: dict[str, SecurityScheme], pointer: str, diagnostics: Diagnostics
) -> Requirement:
    """The requirement with one scheme per place a credential goes: schemes that all send the
    Authorization header (Google's specs require an implicit and an authorization-code OAuth2 flow
    together), or the same API key header, query parameter or cookie, cannot all be carried by one
    request; the first is kept, with a warning."""
    kept: dict[tuple[str, str], SchemeUse] = {}
    dropped: dict[tuple[str, str], list[str]] = {}
    for use in uses:
        slot = _slot(schemes[use.scheme])
        if slot in kept:
            dropped.setdefault(slot, []).append(use.scheme)
        else:
            kept[slot] = use
    for (location, name), others in dropped.items():
        first = kept[(location, name)].scheme
        diagnostics.warning(
            pointer,
            f"schemes {[first, *others]} of one requirement all send the {location} {name!r}, which a "
            f"request carries once: only {first!r} is used",
        )
    return tuple(kept.values())


def credential_slots(
    security: tuple[Requirement, ...], schemes: dict[str, SecurityScheme]
) -> frozenset[tuple[str, str]]:
    """The places (`_slot`) that every alternative of `security` fills with a credential: a
    parameter declared there too is the credential itself, which no argument should carry."""
    filled = [{_slot(schemes[use.scheme]) for use in requirement} for requirement in security]
    return frozenset(set.intersection(*filled)) if filled else frozenset()


def _slot(scheme: SecurityScheme) -> tuple[str, str]:
    """Where the scheme's credential goes in a request: (header, query or cookie; its name)."""
    if scheme.kind == "apiKey" and scheme.location is not None and scheme.parameter_name is not None:
        name = scheme.parameter_name
        return (scheme.location, name.lower() if scheme.location == "header" else name)
    if scheme.kind in ("http", "oauth2", "openIdConnect"):
        return ("header", "authorization")
    return ("client certificate", scheme.key)  # mutualTLS: sends nothing, never shares


def _scopes(value: Any) -> tuple[str, ...]:
    return tuple(str(scope) for scope in value) if isinstance(value, list) else ()
