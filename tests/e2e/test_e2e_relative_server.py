"""A spec whose server is relative, as a service that serves its own spec has it (a Swagger 2.0
basePath without host; OAS 3 `servers: [{url: /api/v2}]`, with a path item's relative server too):
the generated server, a real process, joins the path to the base URL set, so the service's origin
is enough, and a base URL already ending in the path (with or without its trailing slash) is not
doubled. The recording upstream records the exact path each call reached. With it, issue 28's
`{"animalId": 1.0}`: an integral float for an integer goes out as the integer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import Generated, generate_document
from mcp_support import run_async, stdio_session, text_of
from recording_upstream import RecordingUpstream, Reply
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

OK = {"200": {"description": "ok"}}
ANIMAL = {"operationId": "getAnimal", "responses": OK}
SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Self", "version": "1"},
    "basePath": "/api/v2/",
    "paths": {
        "/animals/{animalId}": {
            "get": {
                **ANIMAL,
                "parameters": [{"name": "animalId", "in": "path", "required": True, "type": "string"}],
            }
        },
        "/litters/{litterId}": {
            "get": {
                "operationId": "getLitter",
                "responses": OK,
                "parameters": [
                    {"name": "litterId", "in": "path", "required": True, "type": "integer"},
                    {"name": "size", "in": "query", "type": "integer"},
                ],
            }
        },
    },
}
OAS3 = {
    "openapi": "3.0.3",
    "info": {"title": "Self", "version": "1"},
    "servers": [{"url": "/api/v2"}],
    "paths": {
        "/animals/{animalId}": {
            "get": {
                **ANIMAL,
                "parameters": [
                    {"name": "animalId", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
            }
        },
        "/photos": {
            "servers": [{"url": "/media"}],
            "get": {"operationId": "listPhotos", "responses": OK},
        },
    },
}
FORMS = {"origin": "", "origin+path": "/api/v2", "origin+path+slash": "/api/v2/"}


@pytest.fixture(scope="module")
def upstream() -> Iterator[RecordingUpstream]:
    with RecordingUpstream(default=Reply(body=b'{"ok":true}')) as recording:
        yield recording


@pytest.fixture(scope="module")
def swagger(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_document(SWAGGER, "selfswagger", server_venv, tmp_path_factory)


@pytest.fixture(scope="module")
def oas3(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_document(OAS3, "selfoas", server_venv, tmp_path_factory)


def _paths(
    package: Generated, base_url: str, calls: list[tuple[str, dict[str, Any]]], upstream: RecordingUpstream
) -> list[str]:
    """The paths the upstream saw for `calls` through the server started with `base_url`."""
    mark = upstream.mark()

    async def session() -> None:
        async with stdio_session(package.command, env=package.env(base_url)) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, text_of(result)

    run_async(session)
    return [record.path for record in upstream.since(mark)]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_swagger2_base_path_without_host_is_joined_to_the_base_url(
    swagger: Generated, upstream: RecordingUpstream, form: str
) -> None:
    calls = [("getAnimal", {"animalId": "cat 1"})]
    assert _paths(swagger, upstream.url + FORMS[form], calls, upstream) == ["/api/v2/animals/cat%201"]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_oas3_relative_servers_are_joined_to_the_base_url(
    oas3: Generated, upstream: RecordingUpstream, form: str
) -> None:
    calls = [("getAnimal", {"animalId": "7"}), ("listPhotos", {})]
    paths = _paths(oas3, upstream.url + FORMS[form], calls, upstream)
    assert paths == ["/api/v2/animals/7", "/media/photos"]


def test_an_integral_float_for_an_integer_is_sent_as_the_integer(
    swagger: Generated, upstream: RecordingUpstream
) -> None:
    mark = upstream.mark()
    _paths(swagger, upstream.url, [("getLitter", {"litterId": 1.0, "size": 3.0})], upstream)
    assert [record.target for record in upstream.since(mark)] == ["/api/v2/litters/1?size=3"]
