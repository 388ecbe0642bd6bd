import pytest

from openapi2mcp.diagnostics import SpecError, pointer_join
from openapi2mcp.load.refs import Resolver

DOCUMENT = {
    "components": {
        "schemas": {
            "Pet": {"type": "object"},
            "Alias": {"$ref": "#/components/schemas/Pet"},
            "Loop": {"$ref": "#/components/schemas/Loop"},
            "a/b~c": {"type": "string"},
        }
    },
    "list": [{"x": 1}],
}


def test_deref_follows_a_chain_and_returns_the_target_pointer():
    node, pointer = Resolver(DOCUMENT).deref({"$ref": "#/components/schemas/Alias"}, "#/here")
    assert node == {"type": "object"}
    assert pointer == "#/components/schemas/Pet"


def test_a_node_without_ref_is_returned_with_its_own_pointer():
    assert Resolver(DOCUMENT).deref({"type": "string"}, "#/here") == ({"type": "string"}, "#/here")


def test_escaped_and_percent_encoded_tokens_resolve():
    resolver = Resolver(DOCUMENT)
    assert resolver.lookup("#/components/schemas/a~1b~0c", "#") == {"type": "string"}
    assert resolver.lookup("#/components/schemas/a~1b~0c".replace("~", "%7E"), "#") == {"type": "string"}
    assert resolver.lookup("#/list/0", "#") == {"x": 1}


def test_a_dangling_ref_is_a_spec_error_located_at_the_ref():
    with pytest.raises(SpecError) as caught:
        Resolver(DOCUMENT).deref({"$ref": "#/components/schemas/Nope"}, "#/paths/~1a/get")
    assert caught.value.pointer == "#/paths/~1a/get"
    assert caught.value.message == "dangling reference '#/components/schemas/Nope': nothing is there"


def test_a_ref_to_another_document_left_by_the_bundler_is_a_spec_error():
    with pytest.raises(SpecError, match="is a reference to another document, which could not be loaded"):
        Resolver(DOCUMENT).lookup("other.yaml#/Pet", "#/x")


def test_a_ref_that_loops_is_a_spec_error_not_a_hang():
    with pytest.raises(SpecError, match="loops back to itself"):
        Resolver(DOCUMENT).deref({"$ref": "#/components/schemas/Loop"}, "#/x")


def test_pointer_join_escapes_slashes_and_tildes():
    assert pointer_join("#/paths", "/pets/{id}", "get") == "#/paths/~1pets~1{id}/get"
    assert pointer_join("#", "a~b") == "#/a~0b"
