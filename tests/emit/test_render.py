"""Rendering and the whole in-memory pipeline: which files a generated package holds and what they say."""

from __future__ import annotations

import ast
import datetime
import json
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

import openapi2mcp_runtime
from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.formatting import format_python
from openapi2mcp.emit.render import header_text, render_package, render_starters
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import Generation, generate
from openapi2mcp.tools.mapper import map_document

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
ESCAPING = REPO / "specs" / "escaping.yaml"
OK = {"200": {"description": "ok"}}
PACKAGE_FILES = (  # what a generated import package holds (models.py only with --models)
    "__init__.py",
    "__main__.py",
    "server.py",
    "hooks_api.py",
    "data/tool_data.json",
    "data/search_index.json",
    "data/tool_details.json",
)
RUNTIME = Path(openapi2mcp_runtime.__file__).parent
RUNTIME_FILES = tuple(f"_runtime/{path.relative_to(RUNTIME).as_posix()}" for path in RUNTIME.rglob("*.py"))


@cache
def generated(spec: Path, name: str, prefix: str) -> Generation:
    return generate(str(spec), GeneratorOptions(dist_name=name, env_prefix=prefix))


def petstore() -> Generation:
    return generated(PETSTORE, "petstore", "PETSTORE")


def rendered(document: dict[str, Any], name: str = "t", prefix: str = "T") -> dict[str, str]:
    options = GeneratorOptions(dist_name=name, env_prefix=prefix)
    return render_package(map_document(document, options, Diagnostics()), options)


def spec(title: str = "T", servers: list[dict[str, Any]] | None = None, **info: Any) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1", **info},
        "servers": servers if servers is not None else [{"url": "https://api.example.com/v1"}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": OK}}},
    }


def env_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


# ---------------------------------------------------------------------------------------------
# The file set


def test_the_package_holds_exactly_the_documented_files() -> None:
    assert sorted(petstore().files) == sorted(
        [
            *("pyproject.toml", "README.md", ".env.example", "Dockerfile", ".dockerignore"),
            *(f"petstore/{name}" for name in (*PACKAGE_FILES, *RUNTIME_FILES)),
        ]
    )
    assert len(RUNTIME_FILES) == 54


def test_the_import_package_is_the_name_with_dashes_turned_to_underscores() -> None:
    files = generated(PETSTORE, "my-pet-store", "MY_PET_STORE").files
    assert sorted(path for path in files if "/" in path) == sorted(
        f"my_pet_store/{name}" for name in (*PACKAGE_FILES, *RUNTIME_FILES)
    )


@pytest.mark.parametrize(("spec_path", "name"), [(PETSTORE, "petstore"), (ESCAPING, "my-api")])
def test_every_generated_python_file_compiles(spec_path: Path, name: str) -> None:
    generation = generated(spec_path, name, name.upper().replace("-", "_"))
    python = {path: text for path, text in generation.files.items() if path.endswith(".py")}
    assert len(python) == 4 + 54
    for path, text in python.items():
        compile(text, path, "exec")


def test_tool_data_json_is_json_with_one_tool_and_one_route_per_operation() -> None:
    data = json.loads(petstore().files["petstore/data/tool_data.json"])
    names = ["listPets", "createPet", "showPetById", "replacePet", "deletePet", "renamePet", "get_health"]
    assert [tool["name"] for tool in data["tools"]] == names
    assert list(data["routes"]) == names
    assert data["server"] == {"name": "petstore", "version": "1.0.0", "title": "Petstore"}


def test_a_spec_without_operations_still_renders_a_complete_package() -> None:
    document = spec()
    document["paths"] = {}
    files = rendered(document)
    assert sorted(files) == sorted(
        [
            *("pyproject.toml", "README.md", ".env.example", "Dockerfile", ".dockerignore"),
            *(f"t/{n}" for n in (*PACKAGE_FILES, *RUNTIME_FILES)),
        ]
    )
    assert json.loads(files["t/data/tool_data.json"])["tools"] == []


# ---------------------------------------------------------------------------------------------
# pyproject.toml


def test_pyproject_has_exactly_one_console_script_named_after_the_distribution() -> None:
    project = tomllib.loads(generated(PETSTORE, "my-api", "MY_API").files["pyproject.toml"])["project"]
    assert project["name"] == "my-api"
    assert project["scripts"] == {"my-api": "my_api.server:main"}
    assert "gui-scripts" not in project and "entry-points" not in project


def test_pyproject_names_the_runtime_dependencies_and_not_openapi2mcp() -> None:
    project = tomllib.loads(petstore().files["pyproject.toml"])["project"]
    names = [re.split(r"[<>=!~;\[ ]", dependency, maxsplit=1)[0] for dependency in project["dependencies"]]
    assert sorted(names) == ["httpx2", "ijson", "jsonschema", "mcp", "pyjwt", "snowballstemmer", "uvloop"]
    assert "mcp>=2.3,<3" in project["dependencies"] and "ijson>=3.2.3,<4" in project["dependencies"]
    [uvloop] = [dependency for dependency in project["dependencies"] if dependency.startswith("uvloop")]
    assert uvloop.endswith("; sys_platform != 'win32' and platform_python_implementation == 'CPython'")


def test_pyproject_packages_the_import_package() -> None:
    pyproject = tomllib.loads(generated(PETSTORE, "my-api", "MY_API").files["pyproject.toml"])
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["my_api"]


def test_the_server_module_has_the_main_the_console_script_names() -> None:
    tree = ast.parse(petstore().files["petstore/server.py"])
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "main" in functions


def test_a_hostile_api_title_reaches_pyproject_verbatim() -> None:
    title = "Escaping \"\"\" ''' \\ {{ title }} {% raw %}"
    project = tomllib.loads(generated(ESCAPING, "escaping", "ESCAPING").files["pyproject.toml"])["project"]
    assert project["description"] == f"MCP tool server for {title}"


def test_an_api_title_with_an_emoji_gives_a_valid_pyproject() -> None:
    project = tomllib.loads(rendered(spec(title="Pet 🐶 store"))["pyproject.toml"])["project"]
    assert project["description"] == "MCP tool server for Pet 🐶 store"


def test_an_api_title_with_a_nul_character_gives_compilable_modules() -> None:
    files = rendered(spec(title="Nul \x00 title"))
    for path in ("t/server.py", "t/__init__.py"):
        compile(files[path], path, "exec")


def test_hostile_strings_in_server_py_are_literals_with_the_spec_values() -> None:
    files = generated(ESCAPING, "escaping", "ESCAPING").files
    tree = ast.parse(files["escaping/server.py"])
    constants = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in ("SERVER_NAME", "SERVER_VERSION", "ENV_PREFIX", "DEFAULT_BASE_URL")
    }
    assert constants == {
        "SERVER_NAME": "escaping",
        "SERVER_VERSION": "1.0'\"\n",
        "ENV_PREFIX": "ESCAPING",
        "DEFAULT_BASE_URL": "https://example.com/api/acme'\"\\",
    }
    assert [type(node).__name__ for node in tree.body][:2] == ["Expr", "ImportFrom"]


def test_hostile_descriptions_reach_tool_data_verbatim() -> None:
    data = json.loads(generated(ESCAPING, "escaping", "ESCAPING").files["escaping/data/tool_data.json"])
    (tool,) = data["tools"]
    assert tool["title"] == "Get \"\"\" an item ''' {{ 7*7 }} \\ `rm -rf` </script>"
    assert (
        "Triple quotes \"\"\" and ''' and a backslash \\ at the end \\\n{{ config }}" in tool["description"]
    )
    assert "__import__('os').system('echo pwned')" in tool["description"]


# ---------------------------------------------------------------------------------------------
# README and .env.example


def petstore_variables() -> list[str]:
    return [
        "PETSTORE_BASE_URL",
        "PETSTORE_TIMEOUT",
        "PETSTORE_RETRIES",
        "PETSTORE_IDEMPOTENCY_KEY",
        "PETSTORE_MAX_CONCURRENCY",
        "PETSTORE_MAX_CONCURRENCY_PER_SESSION",
        "PETSTORE_RATE_LIMIT",
        "PETSTORE_AUDIT_LOG",
        "PETSTORE_HEADERS",
        "PETSTORE_MAX_RESPONSE_BYTES",
        "PETSTORE_MAX_RESULT_CHARS",
        "PETSTORE_CA_BUNDLE",
        "PETSTORE_CLIENT_CERT",
        "PETSTORE_CLIENT_KEY",
        "PETSTORE_TOOLSETS",
        "PETSTORE_TOOLS",
        "PETSTORE_EXCLUDE_TOOLS",
        "PETSTORE_READ_ONLY",
        "PETSTORE_MODE",
        "PETSTORE_MAX_LIST_TOKENS",
        "PETSTORE_LISTED_SCHEMAS",
        "PETSTORE_DYNAMIC_TOOLSETS",
        "PETSTORE_LIST_PAGE_SIZE",
        "PETSTORE_CONFIRM",
        "PETSTORE_CONFIRM_FALLBACK",
        "PETSTORE_CODE_TIMEOUT",
        "PETSTORE_CODE_MAX_CALLS",
        "PETSTORE_CODE_MAX_MEMORY_MB",
        "PETSTORE_CODE_WORKERS",
        "PETSTORE_AUTH",
        "PETSTORE_MCP_TOKENS",
        "PETSTORE_OAUTH_ISSUER",
        "PETSTORE_OAUTH_JWKS_URL",
        "PETSTORE_OAUTH_JWKS_MAX_AGE",
        "PETSTORE_RESOURCE_URL",
        "PETSTORE_OAUTH_AUDIENCE",
        "PETSTORE_OAUTH_READ_SCOPE",
        "PETSTORE_OAUTH_WRITE_SCOPE",
        "PETSTORE_CREDENTIALS",
        "PETSTORE_CREDENTIALS_HEADER",
        "PETSTORE_HTTP_REQUEST_TIMEOUT",
        "PETSTORE_HTTP_IDLE_TIMEOUT",
        "PETSTORE_HTTP_MAX_CONNECTIONS",
        "PETSTORE_HTTP_MAX_CONNECTIONS_PER_CLIENT",
        "PETSTORE_HTTP_MAX_SESSIONS",
        "PETSTORE_HTTP_MAX_SESSIONS_PER_CLIENT",
        "PETSTORE_HTTP_SESSION_IDLE_TIMEOUT",
        "PETSTORE_HTTP_SHUTDOWN_TIMEOUT",
        "PETSTORE_API_KEY_KEY",
    ]


def all_schemes_spec() -> dict[str, Any]:
    document = spec()
    document["components"] = {
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "query", "name": "k"},
            "bearer": {"type": "http", "scheme": "bearer"},
            "basic": {"type": "http", "scheme": "basic"},
            "oauth": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "https://a.test/t", "scopes": {}}},
            },
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a.test/.well-known"},
        }
    }
    return document


ALL_SCHEME_VARIABLES = [
    "T_BASE_URL",
    "T_TIMEOUT",
    "T_RETRIES",
    "T_IDEMPOTENCY_KEY",
    "T_MAX_CONCURRENCY",
    "T_MAX_CONCURRENCY_PER_SESSION",
    "T_RATE_LIMIT",
    "T_AUDIT_LOG",
    "T_HEADERS",
    "T_MAX_RESPONSE_BYTES",
    "T_MAX_RESULT_CHARS",
    "T_CA_BUNDLE",
    "T_CLIENT_CERT",
    "T_CLIENT_KEY",
    "T_TOOLSETS",
    "T_TOOLS",
    "T_EXCLUDE_TOOLS",
    "T_READ_ONLY",
    "T_MODE",
    "T_MAX_LIST_TOKENS",
    "T_LISTED_SCHEMAS",
    "T_DYNAMIC_TOOLSETS",
    "T_LIST_PAGE_SIZE",
    "T_CONFIRM",
    "T_CONFIRM_FALLBACK",
    "T_CODE_TIMEOUT",
    "T_CODE_MAX_CALLS",
    "T_CODE_MAX_MEMORY_MB",
    "T_CODE_WORKERS",
    "T_AUTH",
    "T_MCP_TOKENS",
    "T_OAUTH_ISSUER",
    "T_OAUTH_JWKS_URL",
    "T_OAUTH_JWKS_MAX_AGE",
    "T_RESOURCE_URL",
    "T_OAUTH_AUDIENCE",
    "T_OAUTH_READ_SCOPE",
    "T_OAUTH_WRITE_SCOPE",
    "T_CREDENTIALS",
    "T_CREDENTIALS_HEADER",
    "T_HTTP_REQUEST_TIMEOUT",
    "T_HTTP_IDLE_TIMEOUT",
    "T_HTTP_MAX_CONNECTIONS",
    "T_HTTP_MAX_CONNECTIONS_PER_CLIENT",
    "T_HTTP_MAX_SESSIONS",
    "T_HTTP_MAX_SESSIONS_PER_CLIENT",
    "T_HTTP_SESSION_IDLE_TIMEOUT",
    "T_HTTP_SHUTDOWN_TIMEOUT",
    "T_KEY_KEY",
    "T_BEARER_TOKEN",
    "T_BASIC_USERNAME",
    "T_BASIC_PASSWORD",
    "T_OAUTH_TOKEN",
    "T_OAUTH_CLIENT_ID",
    "T_OAUTH_CLIENT_SECRET",
    "T_OAUTH_SCOPES",
    "T_OAUTH_TOKEN_URL",
    "T_OIDC_TOKEN",
]


def readme_table(readme: str, heading: str) -> list[list[str]]:
    """Rows (first cell in backticks stripped) of the table under `## heading`."""
    section = readme.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[1:]]


def test_the_readme_lists_every_tool_with_its_method_path_and_title() -> None:
    rows = readme_table(petstore().files["README.md"], "Tools")
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("`listPets`", "`GET /pets`", "List pets"),
        ("`createPet`", "`POST /pets`", "Create a pet"),
        ("`showPetById`", "`GET /pets/{petId}`", "Info for a specific pet"),
        ("`replacePet`", "`PUT /pets/{petId}`", "Replace a pet"),
        ("`deletePet`", "`DELETE /pets/{petId}`", "Delete a pet"),
        ("`renamePet`", "`PATCH /pets/{petId}`", "Rename a pet"),
        ("`get_health`", "`GET /health`", "Health check"),
    ]
    assert "## Tools (7)" in petstore().files["README.md"]


def test_the_readme_lists_every_environment_variable() -> None:
    rows = readme_table(petstore().files["README.md"], "Environment variables")
    assert [row[0] for row in rows] == [f"`{name}`" for name in petstore_variables()]


def test_the_readme_and_env_example_list_the_variables_of_every_scheme_kind() -> None:
    files = rendered(all_schemes_spec())
    assert [
        row[0].strip("`") for row in readme_table(files["README.md"], "Environment variables")
    ] == ALL_SCHEME_VARIABLES
    listed = re.findall(r"^(?:# )?([A-Z0-9_]+)=", files[".env.example"], flags=re.M)
    assert listed == ALL_SCHEME_VARIABLES


def test_env_example_lists_every_environment_variable_as_an_assignment_or_a_commented_one() -> None:
    listed = re.findall(r"^(?:# )?([A-Z0-9_]+)=", petstore().files[".env.example"], flags=re.M)
    assert listed == petstore_variables()


def test_env_example_assignments_hold_exactly_their_default_values() -> None:
    text = petstore().files[".env.example"]
    assignments = dict(line.split("=", 1) for line in env_lines(text))
    assert assignments == {"PETSTORE_BASE_URL": "https://petstore.example.com/v1", "PETSTORE_TIMEOUT": "30"}
    assert all(re.fullmatch(r"# .*|[A-Z0-9_]+=\S*", line) for line in text.splitlines() if line)


def test_a_server_url_cannot_inject_lines_into_env_example() -> None:
    servers = [{"url": "https://api.example.com/{v}", "variables": {"v": {"default": "v1\nT_EVIL=1\n"}}}]
    text = rendered(spec(servers=servers))[".env.example"]
    assert not re.search(r"^T_EVIL=", text, flags=re.M)


def test_a_hostile_title_stays_inside_its_readme_line() -> None:
    readme = rendered(spec(title="Evil\n\n## Injected | heading\n| x | y |"))["README.md"]
    assert "\n## Injected" not in readme
    assert readme.count("\n## ") == 7  # with "What is in it" and "Use it from a client"


def test_the_env_prefix_names_every_variable_in_server_py_readme_and_env_example() -> None:
    files = generated(PETSTORE, "zoo", "ZOO").files
    assert re.search(r'^ENV_PREFIX = "ZOO"$', files["zoo/server.py"], flags=re.M)
    assert re.findall(r"^(?:# )?([A-Z0-9_]+)=", files[".env.example"], flags=re.M)[0] == "ZOO_BASE_URL"
    assert "PETSTORE_" not in files["README.md"] + files[".env.example"] + files["zoo/data/tool_data.json"]


# ---------------------------------------------------------------------------------------------
# Reproducible: no absolute paths, no timestamps


def test_no_generated_file_holds_an_absolute_path_or_a_timestamp(tmp_path: Path) -> None:
    spec_copy = tmp_path / "nested dir" / "petstore.yaml"
    spec_copy.parent.mkdir()
    spec_copy.write_bytes(PETSTORE.read_bytes())
    files = generate(str(spec_copy), GeneratorOptions("petstore", "PETSTORE")).files
    today = datetime.date.today()
    forbidden = [
        str(tmp_path),
        str(REPO),
        str(Path.home()),
        str(Path.cwd()),
        "nested dir",
        today.isoformat(),
        today.strftime("%Y%m%d"),
        str(today.year),
    ]
    for path, text in files.items():
        for version in KNOWN_PROTOCOL_VERSIONS:  # MCP protocol versions are dates, not timestamps
            text = text.replace(version, "<protocol version>")
        for needle in forbidden:
            assert needle not in text, f"{path} holds {needle!r}"
        assert not re.search(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", text), path


PETSTORE_FILES = [
    "pyproject.toml",
    "README.md",
    ".env.example",
    *(f"petstore/{name}" for name in RUNTIME_FILES),
]


@pytest.mark.parametrize("path", PETSTORE_FILES)
def test_every_generated_file_ends_with_exactly_one_newline(path: str) -> None:
    text = petstore().files[path]
    assert text.endswith("\n") and not text.endswith("\n\n")


# ---------------------------------------------------------------------------------------------
# Starters: hooks.py, the user's file


def starters(document: dict[str, Any] | None = None, name: str = "t") -> dict[str, str]:
    options = GeneratorOptions(dist_name=name, env_prefix="T")
    model = petstore().model if document is None else map_document(document, options, Diagnostics())
    return render_starters(model, options)


def test_the_only_starter_is_hooks_py_in_the_import_package_and_it_is_not_a_generated_file() -> None:
    assert list(starters(name="my-api")) == ["my_api/hooks.py"]
    assert "petstore/hooks.py" not in petstore().files


def test_hooks_py_is_black_clean_compiles_and_carries_no_generated_header() -> None:
    text = starters()["t/hooks.py"]
    assert format_python(text) == text
    compile(text, "hooks.py", "exec")
    assert header_text() not in text and "Do not edit" not in text
    assert "openapi2mcp created this file once and never overwrites it" in text


# What hooks_api exports, in order: hooks.py imports them all.
HOOKS_API_NAMES = ["Call", "HookError", "Hooks", "ModelMismatch", "Request", "Result"]


def test_hooks_py_defines_hooks_and_imports_only_what_hooks_api_exports() -> None:
    tree = ast.parse(starters()["t/hooks.py"])
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert [(node.module, node.level) for node in imports] == [("__future__", 0), ("hooks_api", 1)]
    assert [alias.name for alias in imports[1].names] == HOOKS_API_NAMES
    code = [node for node in tree.body if not isinstance(node, ast.ImportFrom | ast.Expr)]
    assert [ast.unparse(node) for node in code] == ["hooks = Hooks()"]
    exported = ast.parse((REPO / "openapi2mcp_runtime/hooks/api.py").read_text("utf-8"))
    (names,) = [
        node.value
        for node in exported.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
    ]
    assert sorted(ast.literal_eval(names)) == HOOKS_API_NAMES


def test_the_examples_of_hooks_py_and_the_readme_name_the_first_tool() -> None:
    assert '# @hooks.after_result("listPets")' in starters()["t/hooks.py"]
    assert '@hooks.after_result("listPets")' in petstore().files["README.md"]
    empty = spec()
    empty["paths"] = {}
    assert '# @hooks.after_result("someTool")' in starters(empty)["t/hooks.py"]


def test_the_readme_documents_hooks_py_of_the_package() -> None:
    readme = generated(PETSTORE, "my-api", "MY_API").files["README.md"]
    section = readme.split("\n## Hooks: your own code\n", 1)[1]
    assert section.startswith(
        "\n`my_api/hooks.py` is yours: openapi2mcp creates it once and never overwrites it"
    )
    assert "`MY_API_HEADERS` and credentials are in" in section


def test_the_config_files_mode_is_the_servers_default() -> None:
    options = GeneratorOptions("petstore", "PETSTORE", default_mode="dynamic")
    server = generate(str(PETSTORE), options).files["petstore/server.py"]
    assert 'DEFAULT_MODE = "dynamic"\n' in server
    assert 'DEFAULT_MODE = "auto"\n' in petstore().files["petstore/server.py"]


def test_the_readme_marks_the_long_running_tools_and_says_how_to_follow_one() -> None:
    document = spec()
    accepted = {"202": {"description": "started", "headers": {"Location": {"schema": {"type": "string"}}}}}
    document["paths"]["/jobs"] = {"post": {"operationId": "startJob", "responses": accepted}}
    readme = rendered(document)["README.md"]
    assert "| `startJob` | `POST /jobs` | Start job | non-destructive, long-running |" in readme
    assert "| `a` | `GET /a` | A | read-only |" in readme
    section = readme.split("### Long-running tools (1)\n\n", 1)[1].split("\n## ", 1)[0]
    assert section.startswith("`startJob` starts work\nthat goes on after the API's first answer.")
    assert "within `T_TIMEOUT`" in section and "`tasks/cancel`" in section
    assert "### Long-running tools" not in rendered(spec())["README.md"]


# ---- code mode: the README's example program and the package's extra ----


def readme_program(readme: str) -> str:
    section = readme.split("### Code mode", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readmes_example_program_type_checks_against_the_packages_stub() -> None:
    from pydantic_monty import ExternalModule, Monty

    from openapi2mcp.report.stubs import api_stub

    files = petstore().files
    program = readme_program(files["README.md"])
    assert program == "import api\nitems = api.listPets()\nlen(items), items[:3]\n"
    data = json.loads(files["petstore/data/tool_data.json"])
    stub = api_stub(data, json.loads(files["petstore/data/tool_details.json"]))
    api = ExternalModule({"listPets": lambda **_: [{"name": "Rex"}] * 5}, stubs=stub)
    with Monty() as pool, pool.checkout(type_check=True, external_modules={"api": api}) as session:
        assert session.feed_run(program) == (5, [{"name": "Rex"}] * 3)


def test_the_example_program_fills_required_arguments_with_values_of_their_type() -> None:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": {
            "/things/{thing-id}": {
                "get": {
                    "operationId": "getThing",
                    "parameters": [
                        {"name": "thing-id", "in": "path", "required": True, "schema": {"type": "integer"}},
                        {"name": "kind", "in": "query", "required": True, "schema": {"enum": ["a", "b"]}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    program = readme_program(rendered(document)["README.md"])
    assert program == "import api\nanswer = api.getThing(thing_id=1, kind='a')\nanswer\n"


def test_the_package_has_the_code_extra() -> None:
    pyproject = tomllib.loads(petstore().files["pyproject.toml"])
    assert pyproject["project"]["optional-dependencies"] == {"code": ["pydantic-monty>=1.4,<2"]}
