"""The generated Dockerfile and .dockerignore (templates/package/Dockerfile.jinja, dockerignore.jinja):
a slim Python base, a non-root user, the package installed from its pyproject, streamable HTTP on
0.0.0.0 with token auth by default, a HEALTHCHECK on /healthz; no .env in the build context."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import Generation, generate

PETSTORE = Path(__file__).resolve().parents[2] / "specs" / "petstore.yaml"


@cache
def generated(spec: Path, name: str, prefix: str) -> Generation:
    return generate(str(spec), GeneratorOptions(dist_name=name, env_prefix=prefix))


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, comments dropped, continuation lines joined."""
    joined = re.sub(
        r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    )
    found = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword, rest.strip()))
    return found


def dockerfile(name: str = "my-api", prefix: str = "MY_API") -> list[tuple[str, str]]:
    return instructions(generated(PETSTORE, name, prefix).files["Dockerfile"])


def test_the_image_is_slim_python_and_runs_as_a_non_root_user() -> None:
    found = dockerfile()
    assert found[0][0] == "FROM" and re.fullmatch(r"python:3\.(1[1-9])-slim", found[0][1])
    users = [arguments for keyword, arguments in found if keyword == "USER"]
    assert users == ["10001:10001"]
    assert any(
        keyword == "RUN" and "groupadd --gid 10001 mcp && useradd --uid 10001 --gid 10001" in arguments
        for keyword, arguments in found
    )


def test_the_package_is_installed_from_its_pyproject() -> None:
    found = dockerfile()
    copies = [arguments for keyword, arguments in found if keyword == "COPY"]
    assert copies == ["pyproject.toml README.md ./", "my_api/ my_api/"]
    assert ("RUN", "pip install . && rm -rf /src") in found


def test_the_server_serves_http_on_every_address_with_token_auth() -> None:
    found = dict((keyword, arguments) for keyword, arguments in dockerfile() if keyword != "ENV")
    envs = [arguments for keyword, arguments in dockerfile() if keyword == "ENV"]
    assert json.loads(found["ENTRYPOINT"]) == ["my-api"]
    assert json.loads(found["CMD"]) == ["--transport", "http", "--host", "0.0.0.0", "--port", "8000"]
    assert "MY_API_AUTH=token" in envs
    assert found["EXPOSE"] == "8000"


def test_the_healthcheck_asks_healthz_with_the_images_python() -> None:
    found = dict(dockerfile())
    options, _, command = found["HEALTHCHECK"].partition(" CMD ")
    assert options.split() == ["--interval=30s", "--timeout=5s", "--start-period=10s", "--retries=3"]
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"] and "http://127.0.0.1:8000/healthz" in argv[2]


def test_the_build_context_holds_the_project_files_only() -> None:
    lines = generated(PETSTORE, "my-api", "MY_API").files[".dockerignore"].splitlines()
    patterns = [line for line in lines if line and not line.startswith("#")]
    assert patterns == [
        "*",
        "!pyproject.toml",
        "!README.md",
        "!my_api",
        "my_api/**/__pycache__",
        "my_api/**/*.py[cod]",
    ]


def test_the_readme_shows_a_kubernetes_deployment_and_service_of_stateless_replicas() -> None:
    import yaml

    readme = generated(PETSTORE, "My_Api", "MY_API").files["README.md"]
    section = readme[readme.index("### Containers and scale-out") :]
    block = section[section.index("```yaml\n") + 8 : section.index("```\n", section.index("```yaml"))]
    deployment, service = yaml.safe_load_all(block)
    assert (deployment["kind"], service["kind"]) == ("Deployment", "Service")
    assert deployment["metadata"]["name"] == service["metadata"]["name"] == "my-api"
    assert deployment["spec"]["replicas"] == 3
    pod = deployment["spec"]["template"]
    assert (
        pod["metadata"]["labels"]
        == deployment["spec"]["selector"]["matchLabels"]
        == service["spec"]["selector"]
    )
    (container,) = pod["spec"]["containers"]
    assert container["image"] == "registry.example.com/my_api:0.1.0"
    assert container["args"] == ["--transport", "http", "--host", "0.0.0.0", "--port", "8000", "--stateless"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": 8000}
    assert container["envFrom"] == [{"secretRef": {"name": "my-api"}}]
    assert container["securityContext"]["runAsNonRoot"] is True
    assert service["spec"]["ports"] == [{"port": 80, "targetPort": 8000}]
    assert "kubectl create secret generic my-api --from-literal=MY_API_MCP_TOKENS=" in section
