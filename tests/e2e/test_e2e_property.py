"""Property test (issue 3): every tool of the fixture specs, called through the `mcp` client over
stdio with arguments drawn from its own inputSchema (hypothesis-jsonschema), must produce requests
that pass Prism's request validation for the same spec. A schema that lost a constraint of the spec
shows up as a schema-valid call that Prism rejects; a schema stricter than our own validation shows up
as a drawn call the server refuses ("nothing was sent to the API").

Tools of an operation Prism 5.16 cannot serve at all are left out (`prism_cannot_serve`, with the
reason); arguments Prism misreads are narrowed (`narrowings`, each with the reason).

Drawing is deterministic (derandomized, no example database) and bounded (EXAMPLES_PER_TOOL distinct
argument objects per tool, chosen to cover every argument and JSON type that was drawn), and is done
before the session; then one server session per spec makes all the calls. What the drawing is limited
to, and why (Prism's own limits), is in argument_strategies.py.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from argument_strategies import draw_arguments
from e2e_support import SPECS, Generated, Packages, dump, read_text, tail, wait_until
from mcp_support import run_async, stdio_session, text_of
from prism_support import Prism, PrismRequest, Prisms

from openapi2mcp.emit.listing import enforced_input

pytestmark = pytest.mark.e2e

EXAMPLES_PER_TOOL = 8
# Every spec in specs/ is a fixture of this test unless it is listed here with the reason.
EXCLUDED_SPECS = {
    "escaping.yaml": "its strings are deliberately non-Latin-1, which crashes Prism 5.16.0's violation log",
}
SPEC_NAMES = sorted(path.name for path in SPECS.glob("*.yaml") if path.name not in EXCLUDED_SPECS)

OWN_REJECTION = "nothing was sent to the api"  # the runtime's text for arguments it refused
INTERNAL_ERROR = "Internal error in the MCP server"
# A request's first log line, up to its "info" mark: Prism sometimes wraps it before "Request received".
_REQUEST_LINE = re.compile(r"\[HTTP SERVER\] (\w+) (\S+) \u2139")
# Prism answers 4xx only for a violation here (no fixture operation lists a 4xx response first).
_CLIENT_ERROR = re.compile(r"HTTP 4\d\d ")
_DUMMY = {"username": "e2e-user", "password": "e2e-password"}


def credentials(data: dict[str, Any]) -> dict[str, str]:
    """Dummy values for every credential variable of the spec's security schemes (full names, as in
    tool_data.json); oauth2 and openIdConnect get their ready `_TOKEN` (no token endpoint here)."""
    env: dict[str, str] = {}
    for scheme in (data.get("securitySchemes") or {}).values():
        variables: dict[str, str] = scheme.get("env") or {}
        if scheme.get("type") in ("oauth2", "openIdConnect") and "token" in variables:
            variables = {"token": variables["token"]}
        for role, name in variables.items():
            env[name] = _DUMMY.get(role, f"e2e-{role}-0042")
    return env


def arguments_in(route: dict[str, Any], *locations: str) -> list[str]:
    return [param["arg"] for param in route.get("params") or [] if param.get("in") in locations]


@dataclass
class Call:
    tool: str
    arguments: dict[str, Any]
    method: str  # the route's HTTP method
    mark: int = 0  # Prism's log length before the call
    result: Any = None

    def describe(self) -> str:
        return f"{self.tool}({json.dumps(self.arguments, sort_keys=True)})"


def structured(schema: dict[str, Any]) -> bool:
    """An array or object schema (or a nullable one)."""
    branches = [schema, *schema.get("anyOf", [])]
    return any(branch.get("type") in ("array", "object") for branch in branches)


def narrowings(route: dict[str, Any], schema: dict[str, Any]) -> dict[str, set[str]]:
    """Per argument, what the drawing leaves out, each for a reason given here."""
    properties = schema.get("properties") or {}
    narrowed: dict[str, set[str]] = {}
    for param in route.get("params") or []:
        arg, where = param["arg"], param["in"]
        if arg not in properties:
            continue
        if where == "path":
            # single_item: Prism 5.16 crashes ("TypeError:
            # value.split is not a function", label: "startsWith is not a function") on a path
            # segment holding a comma, which is how simple and label style join array items.
            narrowed[arg] = {"single_item"}
    body = route.get("body") or {}
    if body.get("required") and body.get("arg") in properties:
        # Prism 5.16 reads an empty body as a missing one ("Body parameter is required"), though
        # a zero-length text/plain or octet-stream body is a body.
        narrowed[body["arg"]] = {"non_empty"}
    for field in body.get("fields") or [] if body.get("kind") == "form" else []:
        if not structured(properties.get(field["arg"], {})):
            continue
        if field.get("style") in ("pipeDelimited", "spaceDelimited"):
            # Prism 5.16 reads an absent or empty delimited form field as a non-array ("Request
            # body property colors must be array").
            narrowed[field["arg"]] = {"present", "non_empty"}
        elif field.get("explode") is False:
            # Prism 5.16 takes the commas joining the items of a form field with explode: false
            # for unencoded reserved characters ("Reserved characters used in request body").
            narrowed[field["arg"]] = {"single_item"}
    return narrowed


def prism_cannot_serve(route: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """Why Prism 5.16 cannot take any request of this operation, if so."""
    properties = schema.get("properties") or {}
    for param in route.get("params") or []:
        if param["in"] == "header" and structured(properties.get(param["arg"], {})):
            return (
                f"Prism 5.16 crashes on every request to an operation with an array or object header "
                f'parameter ({param["name"]}), sent or not: "TypeError: Cannot read properties of '
                f"undefined (reading 'split')\" in validator/deserializers/style/simple.js"
            )
    return None


def sendable_path(path_args: list[str], arguments: dict[str, Any]) -> bool:
    """An object path value whose members are all null is empty once they are dropped (null counts
    as not given), which the server refuses: a known gap, as the schema cannot say "one non-null
    member" portably. Such values are left out of the run."""
    return not any(
        isinstance(value, dict) and all(item is None for item in value.values())
        for name, value in arguments.items()
        if name in path_args
    )


def untestable(package: Generated) -> dict[str, str]:
    """The tools left out of the property run, with the reason."""
    data = package.tool_data
    reasons = {
        tool["name"]: prism_cannot_serve(data["routes"][tool["name"]], tool["inputSchema"])
        for tool in data["tools"]
    }
    return {name: reason for name, reason in reasons.items() if reason}


def plan_calls(package: Generated, spec: str) -> list[Call]:
    data = package.tool_data
    calls = []
    left_out = untestable(package)
    for tool in data["tools"]:
        if tool["name"] in left_out:
            continue
        route = data["routes"][tool["name"]]
        # what the server enforces: the listed schema closed again where the spec closes it
        schema = enforced_input(tool["inputSchema"], route.get("closed"))
        drawn = draw_arguments(
            schema,
            EXAMPLES_PER_TOOL,
            header_args=arguments_in(route, "header", "cookie"),
            narrowed=narrowings(route, schema),
            accept=partial(sendable_path, arguments_in(route, "path")),
        )
        assert drawn, f"{spec}: nothing could be drawn for {tool['name']}: {dump(schema)}"
        calls += [Call(tool["name"], arguments, route["method"].upper()) for arguments in drawn]
    return calls


def requests_since(prism: Prism, mark: int) -> list[tuple[int, PrismRequest]]:
    """Prism's requests since `mark`, each with the log offset where it starts."""
    offset, current = mark, None
    groups: list[tuple[int, list[str]]] = []
    for line in read_text(prism.log)[mark:].splitlines(keepends=True):
        if _REQUEST_LINE.search(line):
            current = [line.rstrip("\n")]
            groups.append((offset, current))
        elif current is not None:
            current.append(line.rstrip("\n"))
        offset += len(line)
    requests = []
    for start, lines in groups:
        match = _REQUEST_LINE.search(lines[0])
        assert match is not None
        requests.append((start, PrismRequest(match.group(1).upper(), match.group(2), tuple(lines))))
    return requests


def requests_by_call(prism: Prism, calls: list[Call]) -> list[list[PrismRequest]]:
    """Prism's requests, each given to the call during which it arrived (its first line is logged
    on arrival, before the answer); every later line up to the next request is its own."""
    starts = [call.mark for call in calls[1:]] + [len(read_text(prism.log)) + 1]
    grouped: list[list[PrismRequest]] = [[] for _ in calls]
    index = 0
    for start, request in requests_since(prism, calls[0].mark):
        while start >= starts[index]:
            index += 1
        grouped[index].append(request)
    return grouped


def wait_for_finished(prism: Prism, mark: int, count: int) -> None:
    """Log lines come a moment after the answers: wait until `count` requests are finished."""
    wait_until(lambda: sum(r.finished for _, r in requests_since(prism, mark)) >= count, timeout=10)
    time.sleep(0.3)  # a violation line may follow the response line


def run_calls(package: Generated, prism: Prism, calls: list[Call], tmp_path: Path) -> list[str]:
    """Make the calls in one stdio session; return one failure text per call that went wrong."""
    data = package.tool_data
    env = {**package.env(prism.base_url, MODE="static"), **credentials(data)}  # every tool listed

    async def body() -> None:
        async with stdio_session(package.command, env=env, errlog=tmp_path / "server.stderr") as client:
            listed = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            assert listed == {tool["name"]: tool["inputSchema"] for tool in data["tools"]}, (
                f"{package.command} does not serve the package generated from {package.spec} "
                "(did a concurrent test run reinstall it from another version of the spec?)"
            )
            for call in calls:
                call.mark = prism.mark()
                call.result = await client.call_tool(call.tool, call.arguments)

    run_async(body, timeout=60 + 2 * len(calls))
    sent = [call for call in calls if OWN_REJECTION not in text_of(call.result).lower()]
    wait_for_finished(prism, calls[0].mark, len(sent))
    failures = []
    # a long-running tool's call polls the status URL Prism's 202 names after its request: Prism
    # judges that request; the polls (of a made-up URL) and their outcome are no part of it
    polled = {name for name, route in data["routes"].items() if route.get("longRunning")}
    for call, requests in zip(calls, requests_by_call(prism, calls), strict=True):
        text = text_of(call.result)
        wire = f"isError={call.result.is_error}: {text[:300]}"
        answered = text  # what Prism answered the call's own request
        if call.tool in polled:
            requests, answered = requests[:1], ""
        if OWN_REJECTION in text.lower():
            failures.append(f"{call.describe()}: the server refused schema-valid arguments:\n{wire}")
        elif INTERNAL_ERROR in text:
            failures.append(f"{call.describe()}: internal error (see {tmp_path / 'server.stderr'}):\n{wire}")
        elif len(requests) != 1:
            failures.append(f"{call.describe()}: Prism logged {len(requests)} requests, not 1:\n{wire}")
        elif requests[0].method != call.method:
            failures.append(f"{call.describe()}: Prism saw {requests[0].method}, not {call.method}")
        elif requests[0].violations or (call.result.is_error and _CLIENT_ERROR.match(answered)):
            failures.append(
                f"{call.describe()}: Prism rejected {requests[0].method} {requests[0].path}:\n"
                + "\n".join(requests[0].violations or [wire])
            )
    return failures


@pytest.mark.parametrize("spec", SPEC_NAMES)
def test_schema_valid_arguments_pass_prism_validation(
    spec: str, packages: Packages, prisms: Prisms, tmp_path: Path
) -> None:
    package, prism = packages.get(spec), prisms.get(spec)
    calls = plan_calls(package, spec)
    failures = run_calls(package, prism, calls, tmp_path)
    report = "\n\n".join(failures)
    assert not failures, (
        f"{spec}: {len(failures)} of {len(calls)} schema-valid calls went wrong:\n\n{report}\n\n"
        f"--- Prism log (end)\n{tail(prism.log, 60)}"
    )


def test_the_drawing_is_deterministic_and_schema_valid(packages: Packages) -> None:
    """Same arguments on every run; every spec's tools draw something."""
    for spec in SPEC_NAMES:
        package = packages.get(spec)
        for tool in package.tool_data["tools"]:
            first = draw_arguments(tool["inputSchema"], 3)
            assert first == draw_arguments(tool["inputSchema"], 3), f"{spec}: {tool['name']}"


def test_the_log_attribution_sees_a_violation(prisms: Prisms) -> None:
    """The harness itself: requests are given to the right call and a rejected one shows its
    violation, else a green property run would prove nothing."""
    prism = prisms.get("petstore.yaml")
    calls = [Call("listPets", {"limit": 5}, "GET"), Call("listPets", {"limit": 0}, "GET")]
    for call in calls:
        call.mark = prism.mark()
        httpx.get(f"{prism.base_url}/pets", params=call.arguments, headers={"X-API-Key": "k"}, timeout=10)
    wait_for_finished(prism, calls[0].mark, len(calls))
    grouped = requests_by_call(prism, calls)
    assert [len(requests) for requests in grouped] == [1, 1], tail(prism.log)
    assert not grouped[0][0].violations, str(grouped[0][0])
    assert any("limit" in line for line in grouped[1][0].violations), str(grouped[1][0])
