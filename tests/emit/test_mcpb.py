"""`generate --bundle`: the MCPB manifest.json of petstore, exactly, and its ignore file."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from openapi2mcp.emit.mcpb import DESCRIPTION_CHARS, short_description
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import Generation, generate

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
SETTINGS = (
    "TIMEOUT", "RETRIES", "IDEMPOTENCY_KEY", "MAX_CONCURRENCY", "RATE_LIMIT", "AUDIT_LOG", "HEADERS",
    "MAX_RESPONSE_BYTES", "MAX_RESULT_CHARS", "CA_BUNDLE", "CLIENT_CERT", "CLIENT_KEY", "TOOLSETS", "TOOLS",
    "EXCLUDE_TOOLS", "READ_ONLY", "MODE", "MAX_LIST_TOKENS", "LISTED_SCHEMAS", "DYNAMIC_TOOLSETS",
    "LIST_PAGE_SIZE", "CONFIRM", "CONFIRM_FALLBACK", "CODE_TIMEOUT", "CODE_MAX_CALLS", "CODE_MAX_MEMORY_MB",
    "CODE_WORKERS",
)  # fmt: skip


@cache
def bundled(bundle: bool = True) -> Generation:
    return generate(
        str(PETSTORE), GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE", bundle=bundle)
    )


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bundled().files["manifest.json"])
    return data


def test_the_petstore_manifest_says_who_it_is_and_how_it_starts() -> None:
    data = manifest()
    env = {
        "PETSTORE_API_KEY_KEY": "${user_config.petstore_api_key_key}",
        "PETSTORE_BASE_URL": "${user_config.petstore_base_url}",
        **{f"PETSTORE_{name}": f"${{user_config.petstore_{name.lower()}}}" for name in SETTINGS},
    }
    assert {key: value for key, value in data.items() if key not in ("tools", "user_config")} == {
        "manifest_version": "0.3",
        "name": "petstore",
        "display_name": "Petstore",
        "version": "0.1.0",
        "description": "MCP tool server for Petstore",
        "author": {"name": "openapi2mcp"},
        "server": {
            "type": "python",
            "entry_point": "petstore/__main__.py",
            "mcp_config": {
                "command": "python3",
                "args": ["-m", "petstore"],
                "env": {"PYTHONPATH": "${__dirname}/lib:${__dirname}", **env},
                "platform_overrides": {
                    "win32": {
                        "command": "python",
                        "env": {"PYTHONPATH": "${__dirname}/lib;${__dirname}", **env},
                    }
                },
            },
        },
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"python": ">=3.11"}},
    }
    assert list(data["server"]["mcp_config"]["env"])[1:] == list(env)  # required first


def test_the_petstore_manifest_lists_the_tools_with_their_descriptions() -> None:
    assert manifest()["tools"] == [
        {"name": "listPets", "description": "List pets"},
        {"name": "createPet", "description": "Create a pet"},
        {"name": "showPetById", "description": "Info for a specific pet"},
        {"name": "replacePet", "description": "Replace a pet"},
        {"name": "deletePet", "description": "Delete a pet"},
        {"name": "renamePet", "description": "Rename a pet"},
        {"name": "get_health", "description": "Health check"},
    ]


def test_each_variable_is_a_user_config_entry_the_secret_one_sensitive_and_required() -> None:
    config = manifest()["user_config"]
    assert list(config) == ["petstore_api_key_key", "petstore_base_url"] + [
        f"petstore_{name.lower()}" for name in SETTINGS
    ]
    assert config["petstore_api_key_key"] == {
        "type": "string",
        "title": "PETSTORE_API_KEY_KEY",
        "description": "API key for security scheme 'api_key' (header 'X-API-Key')",
        "required": True,
        "sensitive": True,
    }
    assert config["petstore_base_url"] == {
        "type": "string",
        "title": "PETSTORE_BASE_URL",
        "description": "API base URL; --base-url overrides it. Default: https://petstore.example.com/v1",
        "required": False,
        "default": "https://petstore.example.com/v1",
    }
    assert config["petstore_read_only"] == {
        "type": "boolean",
        "title": "PETSTORE_READ_ONLY",
        "description": "true: only the tools marked readOnlyHint, whatever else is chosen; "
        "--read-only overrides it",
        "required": False,
        "default": False,
    }
    assert config["petstore_timeout"]["default"] == ""  # blank: unset, the server's own default
    assert [key for key, entry in config.items() if entry.get("sensitive")] == ["petstore_api_key_key"]


def test_the_ignore_file_keeps_records_and_environments_out_and_no_bundle_no_files() -> None:
    assert bundled().files[".mcpbignore"].splitlines() == [
        ".openapi2mcp-manifest.json",
        "Dockerfile",
        ".dockerignore",
        "__pycache__/",
        "*.pyc",
        ".venv/",
        "venv/",
        "build/",
        "dist/",
        "*.egg-info/",
    ]
    plain = bundled(False).files
    assert "manifest.json" not in plain and ".mcpbignore" not in plain
    assert set(bundled().files) - set(plain) == {"manifest.json", ".mcpbignore"}


def test_a_long_description_is_its_first_paragraph_cut_at_a_word() -> None:
    tool = bundled().model.tools[0]
    long = type(tool)(**{**tool.__dict__, "description": "word " * 100 + "\n\nsecond paragraph"})
    short = short_description(long)
    assert len(short) <= DESCRIPTION_CHARS and short.endswith("word…")
    first = type(tool)(**{**tool.__dict__, "description": "First  line\nstill first.\n\nSecond."})
    assert short_description(first) == "First line still first."
