"""Schema-valid tool arguments drawn with hypothesis-jsonschema, shaped for Prism 5.16 as upstream.

`draw_arguments(schema, ...)` returns a deterministic list of argument objects for one tool's
inputSchema. The schema is first rewritten (never loosened: every value drawn from the rewritten
schema is valid against the original one):

- strings are printable ASCII (U+0020..U+007E): Prism 5.16.0 crashes on non-Latin-1 text in a
  violation message, and control characters are not header material anyway;
- integers lie within +-(2**53 - 1), the range Prism (JavaScript numbers) can compare exactly;
- base64 arguments (`contentEncoding: base64`, what `format: binary|byte` becomes) are drawn as
  valid base64 of random bytes: hypothesis-jsonschema and Prism both ignore `contentEncoding`;
- `format: uuid` (which the generated server checks and hypothesis-jsonschema does not know) gets
  real UUIDs.

Every drawn object is then checked against the original schema with the validator the generated
server uses (Draft 2020-12 with its format checker); the few that fail a format the strategy does
not know are dropped, so what is returned is exactly "schema-valid" in the server's sense.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

MAX_SAFE_INTEGER = 2**53 - 1
BASE64_FORMAT = "x-e2e-base64"
PRINTABLE = (0x20, 0x7E)

CUSTOM_FORMATS: dict[str, st.SearchStrategy[str]] = {
    BASE64_FORMAT: st.binary(max_size=24).map(lambda data: base64.b64encode(data).decode("ascii")),
    "uuid": st.uuids().map(str),
}


# What `draw_arguments(..., narrowed={arg: KIND})` can do to one top-level argument's schema.
NARROWINGS = ("omit", "present", "non_empty", "single_item")


def prepare(schema: dict[str, Any], narrowed: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """A copy of an inputSchema whose values are a subset of the original's (see the module
    docstring), with the top-level arguments of `narrowed` narrowed further:

    - "omit": never drawn (only for an optional argument);
    - "present": always drawn (made required);
    - "non_empty": strings get `minLength: 1`, objects `minProperties: 1`, arrays `minItems: 1`
      (and their items the same);
    - "single_item": arrays get `maxItems: 1`.
    """
    out: dict[str, Any] = narrow(schema)
    properties = out.setdefault("properties", {})
    for name, kinds in (narrowed or {}).items():
        unknown = set(kinds) - set(NARROWINGS)
        assert not unknown, f"unknown narrowing {unknown}"
        if name not in properties:
            continue
        if "omit" in kinds:
            assert name not in out.get("required", []), f"cannot omit the required argument {name}"
            del properties[name]
            continue
        properties[name] = bounded(properties[name], kinds)
        if "present" in kinds and name not in out.get("required", []):
            out["required"] = [*out.get("required", []), name]
    return out


def bounded(schema: Any, kinds: Collection[str]) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = {
        key: [bounded(s, kinds) for s in value] if key == "anyOf" else value for key, value in schema.items()
    }
    if out.get("type") == "array" and "single_item" in kinds:
        out["maxItems"] = min(out.get("maxItems", 1), 1)
    if out.get("type") == "array" and "non_empty" in kinds:
        out["minItems"] = max(out.get("minItems", 1), 1)
        out["items"] = bounded(out.get("items", {}), kinds)
    if out.get("type") == "object" and "non_empty" in kinds:
        out["minProperties"] = max(out.get("minProperties", 1), 1)
    if out.get("type") == "string" and "non_empty" in kinds:
        out["minLength"] = max(out.get("minLength", 1), 1)
    return out


def narrow(schema: Any) -> Any:
    if isinstance(schema, list):
        return [narrow(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: narrow(value) for key, value in schema.items()}
    if out.get("contentEncoding") == "base64":
        # (a pattern or length bound, if any, still filters what the format draws)
        out["format"] = BASE64_FORMAT
    if out.get("type") == "integer":
        low, high = out.get("minimum"), out.get("maximum")
        low = -MAX_SAFE_INTEGER if not isinstance(low, int | float) else max(low, -MAX_SAFE_INTEGER)
        high = MAX_SAFE_INTEGER if not isinstance(high, int | float) else min(high, MAX_SAFE_INTEGER)
        out["minimum"], out["maximum"] = low, high
    return out


@contextlib.contextmanager
def printable_ascii() -> Iterator[None]:
    """hypothesis-jsonschema's alphabet (normally all of Unicode, or one codec) → printable ASCII."""
    from hypothesis_jsonschema import _from_schema as module

    original = module.CharStrategy.__dict__["from_args"]

    def from_args(cls: Any, *, allow_x00: bool, codec: str | None) -> Any:
        alphabet = cls.from_characters_args(min_codepoint=PRINTABLE[0], max_codepoint=PRINTABLE[1])
        alphabet.allow_x00, alphabet.codec = False, "ascii"
        return alphabet

    module.CharStrategy.from_args = classmethod(from_args)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        module.CharStrategy.from_args = original  # type: ignore[method-assign]


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)


def header_safe(value: Any) -> bool:
    """HTTP trims a header value's outer whitespace, so a drawn " a " would arrive as "a"."""
    return all(text == text.strip(" ") for text in strings_in(value))


def draw_arguments(
    schema: dict[str, Any],
    count: int,
    header_args: Collection[str] = (),
    narrowed: Mapping[str, Collection[str]] | None = None,
    accept: Callable[[dict[str, Any]], bool] | None = None,
) -> list[dict[str, Any]]:
    """Up to `count` distinct argument objects, the same on every run (derandomized, no database).

    `header_args` name arguments sent as header or cookie values (no outer spaces); `accept`, when
    given, rejects further draws (it must only exclude values the test cannot judge); `narrowed`
    narrows single arguments (see `prepare`)."""
    from hypothesis_jsonschema import from_schema
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    with printable_ascii():
        strategy = from_schema(prepare(schema, narrowed), custom_formats=CUSTOM_FORMATS)
    drawn: dict[str, dict[str, Any]] = {}

    @settings(
        max_examples=count * 3,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(arguments: dict[str, Any]) -> None:
        assume(all(header_safe(arguments[name]) for name in header_args if name in arguments))
        assume(accept is None or accept(arguments))
        assume(validator.is_valid(arguments))  # what the strategy cannot express (rare formats)
        assume(all(text.isascii() for text in strings_in(arguments)))
        drawn.setdefault(json.dumps(arguments, sort_keys=True), copy.deepcopy(arguments))

    collect()
    return spread(list(drawn.values()), count)


def features(value: Any, path: str = "") -> set[str]:
    """Where each value sits and of which JSON type: what one more example could newly cover."""
    found = {f"{path}:{type(value).__name__}"}
    if isinstance(value, dict):
        for key, item in value.items():
            found |= features(item, f"{path}/{key}")
    elif isinstance(value, list):
        found.add(f"{path}:len{min(len(value), 2)}")
        for item in value:
            found |= features(item, f"{path}/*")
    return found


def spread(candidates: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """`count` of the candidates, greedily covering the most (argument, JSON type) features first;
    then the rest in drawing order. Deterministic for a deterministic candidate list."""
    chosen: list[dict[str, Any]] = []
    covered: set[str] = set()
    rest = list(candidates)
    while rest and len(chosen) < count:
        gains = [len(features(candidate) - covered) for candidate in rest]
        best = max(range(len(rest)), key=lambda index: gains[index])
        if gains[best] == 0:
            break
        covered |= features(rest[best])
        chosen.append(rest.pop(best))
    return chosen + rest[: count - len(chosen)]
