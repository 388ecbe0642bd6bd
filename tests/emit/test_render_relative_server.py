"""A spec whose server is relative (a Swagger 2.0 basePath without host, OAS 3 `servers: [{url:
/api/v2}]`): the package tells its user to set the service's origin, with the joined example, and
never offers the relative path as a value of PREFIX_BASE_URL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.emit.client_setup import client_setup
from openapi2mcp.emit.variables import variables
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import Generation, generate

OK = {"200": {"description": "ok"}}
SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Self", "version": "1"},
    "basePath": "/api/v2/",
    "paths": {"/items": {"get": {"operationId": "listItems", "responses": OK}}},
}
OAS3 = {
    "openapi": "3.0.3",
    "info": {"title": "Self", "version": "1"},
    "servers": [{"url": "/api/v2"}],
    "paths": {"/items": {"get": {"operationId": "listItems", "responses": OK}}},
}
OPTIONS = GeneratorOptions(dist_name="self", env_prefix="SELF")
README = (
    "The spec's server is relative (`/api/v2`), as a service that serves its own spec\n"
    "has it: set `SELF_BASE_URL` to the service's origin, e.g. `http://127.0.0.1:8888`;\n"
    "requests go to `http://127.0.0.1:8888/api/v2/...`. A base URL that already ends in\n"
    "`/api/v2` is used as it is (no doubled path); one with a prefix in front (a proxy's,\n"
    "`https://gw.example.com/svc`) keeps it: `https://gw.example.com/svc/api/v2/...`. A trailing\n"
    "slash makes no difference; a query or a fragment is refused at start.\n"
)
MEANING = (
    "The service's origin, e.g. http://127.0.0.1:8888 (--base-url overrides it): the spec's server is"
    " the relative path /api/v2, joined to it, so requests go to http://127.0.0.1:8888/api/v2/...; a URL"
    " already ending in /api/v2 is used as it is, one with a prefix in front (a proxy's) keeps it"
)


def generated(document: dict[str, Any], tmp_path: Path) -> Generation:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(document), "utf-8")
    return generate(str(path), OPTIONS)


@pytest.mark.parametrize("document", [SWAGGER, OAS3], ids=["swagger2-basePath", "oas3-relative"])
def test_the_readme_and_env_example_ask_for_the_origin_with_the_joined_example(
    document: dict[str, Any], tmp_path: Path
) -> None:
    made = generated(document, tmp_path)
    assert made.model.default_base_url == "/api/v2"
    readme = made.files["README.md"]
    assert README in readme
    assert f"| `SELF_BASE_URL` | required | {MEANING} |" in readme
    assert "Default: /api/v2" not in readme
    env_example = made.files[".env.example"]
    assert f"# {MEANING}\n# SELF_BASE_URL=\n" in env_example


def test_the_client_setup_requires_the_base_url_and_offers_no_relative_default(tmp_path: Path) -> None:
    model = generated(SWAGGER, tmp_path).model
    setup = client_setup(model, OPTIONS, variables(model, "SELF"))
    base = setup.needed[0]
    assert (base.name, base.required, base.default, base.placeholder) == (
        "SELF_BASE_URL",
        True,
        "",
        "https://api.example.com",
    )


def test_an_absolute_server_keeps_the_plain_readme(tmp_path: Path) -> None:
    document = {**OAS3, "servers": [{"url": "https://api.example.com/api/v2"}]}
    readme = generated(document, tmp_path).files["README.md"]
    assert "The spec's server is relative" not in readme
    assert "API base URL; --base-url overrides it. Default: https://api.example.com/api/v2" in readme


def test_the_help_of_base_url_says_the_origin_is_joined(tmp_path: Path) -> None:
    made = generated(SWAGGER, tmp_path)
    out = tmp_path / "out"
    for name, text in made.files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "self", "--help"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "400", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert (
        "--base-url BASE_URL   the service's origin, e.g. http://127.0.0.1:8888: the spec's server is the"
        " relative path /api/v2, joined to it, so requests go to http://127.0.0.1:8888/api/v2/... (a URL"
        " already ending in /api/v2 is used as it is; default: $SELF_BASE_URL)"
    ) in done.stdout
