"""The client set-up of a generated package: the variables it needs and each client's snippet,
parsed back as the client would (JSON, shell words), also for a spec whose text tries to escape."""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from pathlib import Path

from openapi2mcp.emit.client_setup import FORMS, ClientSetup, client_setup
from openapi2mcp.emit.filters import md_fence
from openapi2mcp.emit.variables import variables
from openapi2mcp.model import ApiModel, GeneratorOptions, SchemeUse, SecurityScheme
from openapi2mcp.pipeline import Generation, generate

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
ESCAPING = REPO / "specs" / "escaping.yaml"


@cache
def generation(spec: Path, name: str, prefix: str) -> Generation:
    return generate(str(spec), GeneratorOptions(dist_name=name, env_prefix=prefix))


def setup_of(spec: Path, name: str, prefix: str) -> ClientSetup:
    model = generation(spec, name, prefix).model
    options = GeneratorOptions(dist_name=name, env_prefix=prefix)
    return client_setup(model, options, variables(model, prefix))


def test_petstore_needs_its_api_key_and_has_the_base_url_of_its_spec() -> None:
    setup = setup_of(PETSTORE, "petstore", "PETSTORE")
    assert [(v.name, v.required, v.secret) for v in setup.needed] == [("PETSTORE_API_KEY_KEY", True, True)]
    assert setup.variables[1].name == "PETSTORE_BASE_URL"
    assert setup.variables[1].default == "https://petstore.example.com/v1"
    assert not setup.variables[1].required
    names = {v.name for v in setup.variables}
    assert "PETSTORE_MCP_TOKENS" not in names and "PETSTORE_AUTH" not in names  # HTTP endpoint only
    assert setup.optional_count == 28


def test_a_spec_without_servers_requires_the_base_url_first() -> None:
    model = generation(PETSTORE, "petstore", "PETSTORE").model
    bare = ApiModel(model.title, model.version, "", "", model.security_schemes, model.tools)
    options = GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE")
    setup = client_setup(bare, options, variables(bare, "PETSTORE"))
    assert [(v.name, v.required) for v in setup.needed] == [
        ("PETSTORE_BASE_URL", True),
        ("PETSTORE_API_KEY_KEY", True),
    ]
    vscode = json.loads(setup.vscode("installed"))
    assert [item["id"] for item in vscode["inputs"]] == ["petstore_base_url", "petstore_api_key_key"]
    assert [item["password"] for item in vscode["inputs"]] == [False, True]


def test_alternative_schemes_and_client_credentials_are_optional_credentials() -> None:
    model = generation(PETSTORE, "petstore", "PETSTORE").model
    oauth = SecurityScheme(
        "oauth",
        "oauth2",
        {
            "token": "P_OAUTH_TOKEN",
            "client_id": "P_OAUTH_CLIENT_ID",
            "client_secret": "P_OAUTH_CLIENT_SECRET",
        },
    )
    either = ((SchemeUse("api_key"),), (SchemeUse("oauth"),))
    tools = tuple(type(tool)(**{**tool.__dict__, "security": either}) for tool in model.tools)
    both = ApiModel(
        model.title, model.version, "", "https://x.example", (*model.security_schemes, oauth), tools
    )
    options = GeneratorOptions(dist_name="p", env_prefix="P")
    setup = client_setup(both, options, variables(both, "P"))
    assert [(v.name, v.required, v.secret) for v in setup.needed] == [
        ("PETSTORE_API_KEY_KEY", False, True),
        ("P_OAUTH_TOKEN", False, True),
        ("P_OAUTH_CLIENT_ID", False, False),
        ("P_OAUTH_CLIENT_SECRET", False, True),
    ]


def test_claude_code_commands_are_the_documented_form_in_shell_words() -> None:
    """The name before `--env`, whose several values would take it (tests/e2e/test_e2e_claude_code.py
    runs these lines in Claude Code itself)."""
    setup = setup_of(PETSTORE, "petstore", "PETSTORE")
    add = ["claude", "mcp", "add"]
    assert shlex.split(setup.claude_code("installed")) == [
        *add, "--transport", "stdio", "petstore", "--env", "PETSTORE_API_KEY_KEY=your-secret",
        "--", "petstore",
    ]  # fmt: skip
    assert shlex.split(setup.claude_code("uvx"))[-5:] == [
        "--",
        "uvx",
        "--from",
        "/path/to/petstore",
        "petstore",
    ]
    assert shlex.split(setup.claude_code("http")) == [
        *add, "--transport", "http", "petstore", "http://127.0.0.1:8000/mcp",
        "--header", "Authorization: Bearer $PETSTORE_MCP_TOKEN",
    ]  # fmt: skip


def test_json_snippets_have_each_clients_keys() -> None:
    setup = setup_of(PETSTORE, "petstore", "PETSTORE")
    assert json.loads(setup.claude_desktop("installed")) == {
        "mcpServers": {
            "petstore": {"command": "petstore", "args": [], "env": {"PETSTORE_API_KEY_KEY": "your-secret"}}
        }
    }
    assert json.loads(setup.vscode("http")) == {
        "inputs": [
            {
                "type": "promptString",
                "id": "petstore-token",
                "description": "Bearer token of the MCP endpoint",
                "password": True,
            }
        ],
        "servers": {
            "petstore": {
                "type": "http",
                "url": "http://127.0.0.1:8000/mcp",
                "headers": {"Authorization": "Bearer ${input:petstore-token}"},
            }
        },
    }
    assert json.loads(setup.cursor("uvx")) == {
        "mcpServers": {
            "petstore": {
                "command": "uvx",
                "args": ["--from", "/path/to/petstore", "petstore"],
                "env": {"PETSTORE_API_KEY_KEY": "${env:PETSTORE_API_KEY_KEY}"},
            }
        }
    }


def test_spec_text_stays_a_value_in_every_snippet() -> None:
    model = generation(ESCAPING, "escaping", "ESC").model
    bare = ApiModel(model.title, model.version, "", "", model.security_schemes, model.tools)
    options = GeneratorOptions(dist_name="escaping", env_prefix="ESC")
    setup = client_setup(bare, options, variables(bare, "ESC"))
    hostile = setup_of(ESCAPING, "escaping", "ESC")
    for each in (setup, hostile):
        for form in FORMS:
            assert shlex.split(each.claude_code(form))[:3] == ["claude", "mcp", "add"]
            for text in (each.claude_desktop(form), each.vscode(form), each.cursor(form)):
                assert "escaping" in json.loads(text).get("servers", json.loads(text).get("mcpServers"))
    base = hostile.variables[[v.name for v in hostile.variables].index("ESC_BASE_URL")]
    assert "'" in base.default and '"' in base.default  # the spec's server variable default
    words = shlex.split(
        client_setup(
            model, options, [v for v in variables(model, "ESC") if v.name != "ESC_BASE_URL"]
        ).claude_code("installed")
    )
    assert words[-2:] == ["--", "escaping"]


def test_the_readme_fences_every_snippet_and_a_backtick_run_gets_a_longer_fence() -> None:
    readme = generation(ESCAPING, "escaping", "ESC").files["README.md"]
    section = readme.split("## Use it from a client", 1)[1].split("## Environment variables", 1)[0]
    assert section.count("```json") == 8 and section.count("```shell") == 3
    assert md_fence("a ```` b") == "`````" and md_fence("plain") == "```"
    assert not re.search(r"[ \t]+$", section, re.MULTILINE)
