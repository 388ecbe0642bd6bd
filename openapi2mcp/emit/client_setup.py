"""How to add a generated server to MCP clients: the variables it needs (required first) and, for
each client, its configuration for three ways of starting the server (the console script of an
installed package, `uvx` from the package's directory or git URL, the streamable-HTTP transport).

Every snippet is built by a serializer (`json.dumps`, `shlex.join`), never by pasting text, and
spec text reaches them only as values (a default base URL, a variable's meaning). The formats, as
the clients document them:

- Claude Code: `claude mcp add --transport stdio NAME [--env KEY=VALUE ...] -- COMMAND ARGS` and
  `claude mcp add --transport http NAME URL [--header "K: V"]`, code.claude.com/docs/en/mcp. The
  name comes before `--env`: that option takes several values (`<env...>`), so a name after it is
  read as one more variable and the command fails ("missing required argument 'commandOrUrl'",
  Claude Code 2.1.197); `--` ends the options before the server's command
- Claude Desktop: `claude_desktop_config.json`, `{"mcpServers": {NAME: {"command", "args", "env"}}}`
  (stdio servers; remote ones are added as connectors in Settings), modelcontextprotocol.io/quickstart/user
- VS Code: `.vscode/mcp.json`, `{"inputs": [...], "servers": {NAME: {"type": "stdio", "command",
  "args", "env"} | {"type": "http", "url", "headers"}}}`; `${input:ID}` prompts once for an input of
  type `promptString` (`"password": true` hides it),
  code.visualstudio.com/docs/copilot/reference/mcp-configuration
- Cursor: `.cursor/mcp.json`, `{"mcpServers": {NAME: {"command", "args", "env"} | {"url",
  "headers"}}}`; `${env:NAME}` reads the user's environment, cursor.com/docs/mcp
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openapi2mcp.model import ApiModel, GeneratorOptions, SecurityScheme
from openapi2mcp.tools.servers import relative_base_path

Form = Literal["installed", "uvx", "http"]
FORMS: tuple[Form, ...] = ("installed", "uvx", "http")
HTTP_URL = "http://127.0.0.1:8000/mcp"
PACKAGE_PATH = "/path/to/{name}"  # where the user keeps the generated package (README placeholder)
_SECRET_ROLES = ("key", "token", "password", "client_secret")  # as the runtime's credentials.py
_NEEDED_ROLES = ("key", "token", "username", "password")  # a scheme without client credentials


class Variable(Protocol):
    """A variable of the server as `variables.variables` lists it (render.py imports this module)."""

    @property
    def name(self) -> str: ...
    @property
    def meaning(self) -> str: ...
    @property
    def http_only(self) -> bool: ...


@dataclass(frozen=True)
class ClientVariable:
    """One environment variable as a client set-up shows it."""

    name: str
    meaning: str
    required: bool  # some call cannot work without it (a bundle will not start without it)
    secret: bool
    credential: bool
    default: str = ""  # the value the server uses when it is unset

    @property
    def key(self) -> str:
        """Its id as a VS Code input and an MCPB user_config key."""
        return self.name.lower()

    @property
    def placeholder(self) -> str:
        if self.default:
            return self.default
        if self.credential:
            return "your-secret" if self.secret else "your-value"
        return "https://api.example.com" if self.name.endswith("_BASE_URL") else "your-value"


@dataclass(frozen=True)
class ClientSetup:
    """The snippets of one generated package; the README template and `generate` print them."""

    name: str  # the server's name in every client, and its console script
    package: str  # the import package (`python -m PACKAGE`)
    prefix: str
    variables: tuple[ClientVariable, ...]  # what the stdio server reads, required first
    token_variable: str  # the client side's copy of the HTTP endpoint's bearer token

    @property
    def needed(self) -> tuple[ClientVariable, ...]:
        """The variables the snippets set: the required ones, then the other credentials."""
        return tuple(v for v in self.variables if v.required or v.credential)

    @property
    def optional_count(self) -> int:
        return len(self.variables) - len(self.needed)

    @property
    def package_path(self) -> str:
        return PACKAGE_PATH.format(name=self.name)

    def launch(self, form: Form) -> tuple[str, list[str]]:
        """The command and arguments that start the stdio server."""
        if form == "uvx":
            return "uvx", ["--from", self.package_path, self.name]
        return self.name, []

    def serve_command(self) -> str:
        """The shell command that starts the HTTP server with a bearer token."""
        return shlex.join(
            [
                f"{self.prefix}_MCP_TOKENS=long-random-token",
                self.name,
                "--transport",
                "http",
                "--auth",
                "token",
            ]
        )

    def claude_code(self, form: Form) -> str:
        if form == "http":
            words = ["claude", "mcp", "add", "--transport", "http", self.name, HTTP_URL]
            header = f"Authorization: Bearer ${self.token_variable}"
            return shlex.join(words) + " --header " + _double_quoted(header)
        command, args = self.launch(form)
        env = [word for v in self.needed for word in ("--env", f"{v.name}={v.placeholder}")]
        return shlex.join(
            ["claude", "mcp", "add", "--transport", "stdio", self.name, *env, "--", command, *args]
        )

    def claude_desktop(self, form: Form) -> str:
        command, args = self.launch(form)
        entry: dict[str, Any] = {"command": command, "args": args}
        if self.needed:
            entry["env"] = {v.name: v.placeholder for v in self.needed}
        return _json({"mcpServers": {self.name: entry}})

    def vscode(self, form: Form) -> str:
        if form == "http":
            token = _input(f"{self.name}-token", "Bearer token of the MCP endpoint", True)
            server = {
                "type": "http",
                "url": HTTP_URL,
                "headers": {"Authorization": f"Bearer ${{input:{token['id']}}}"},
            }
            return _json({"inputs": [token], "servers": {self.name: server}})
        command, args = self.launch(form)
        inputs = [_input(v.key, v.meaning, v.secret) for v in self.needed if v.secret or not v.default]
        prompted = {item["id"] for item in inputs}
        env = {v.name: f"${{input:{v.key}}}" if v.key in prompted else v.default for v in self.needed}
        entry: dict[str, Any] = {"type": "stdio", "command": command, "args": args}
        if env:
            entry["env"] = env
        return _json({"inputs": inputs, "servers": {self.name: entry}})

    def cursor(self, form: Form) -> str:
        if form == "http":
            headers = {"Authorization": f"Bearer ${{env:{self.token_variable}}}"}
            return _json({"mcpServers": {self.name: {"url": HTTP_URL, "headers": headers}}})
        command, args = self.launch(form)
        entry: dict[str, Any] = {"command": command, "args": args}
        if self.needed:
            entry["env"] = {v.name: f"${{env:{v.name}}}" for v in self.needed}
        return _json({"mcpServers": {self.name: entry}})


def client_setup(model: ApiModel, options: GeneratorOptions, found: Sequence[Variable]) -> ClientSetup:
    """`found`: the server's variables (`variables.variables`)."""
    return ClientSetup(
        name=options.dist_name,
        package=options.package_name,
        prefix=options.env_prefix,
        variables=client_variables(model, options.env_prefix, found),
        token_variable=f"{options.env_prefix}_MCP_TOKEN",
    )


def client_variables(model: ApiModel, prefix: str, found: Sequence[Variable]) -> tuple[ClientVariable, ...]:
    """The variables a stdio server reads (not those of the HTTP endpoint), required first."""
    roles = {name: (scheme, role) for scheme in model.security_schemes for role, name in scheme.env.items()}
    needed = _required_schemes(model)
    result = []
    for variable in found:
        if variable.http_only:
            continue
        scheme, role = roles.get(variable.name, (None, ""))
        if scheme is not None:
            required = scheme.key in needed and role in _required_roles(scheme)
            result.append(
                ClientVariable(variable.name, variable.meaning, required, role in _SECRET_ROLES, True)
            )
        elif variable.name == f"{prefix}_BASE_URL":
            base = "" if relative_base_path(model.default_base_url) is not None else model.default_base_url
            result.append(ClientVariable(variable.name, variable.meaning, not base, False, False, base))
        else:
            result.append(ClientVariable(variable.name, variable.meaning, False, False, False))
    return tuple(sorted(result, key=lambda v: not v.required))


def _required_schemes(model: ApiModel) -> set[str]:
    """Schemes some tool cannot be called without: in every one of its alternatives."""
    required: set[str] = set()
    for tool in model.tools:
        if tool.security and all(tool.security):
            common = set.intersection(*({use.scheme for use in alternative} for alternative in tool.security))
            required |= common
    return required


def _required_roles(scheme: SecurityScheme) -> tuple[str, ...]:
    """A scheme with OAuth2 client credentials takes a token or the client's id and secret."""
    return () if "client_id" in scheme.env else _NEEDED_ROLES


def summary_lines(setup: ClientSetup, out: str) -> list[str]:
    """`generate`'s lines after the sizes: the variables, then how to add the server to Claude Code."""
    shown = [
        f"{v.name} ({'required' if v.required else 'optional'}{', secret' if v.secret else ''})"
        for v in setup.needed
    ]
    needs = ", ".join(shown) if shown else "no variable required"
    readme = f"{out}/README.md"
    return [
        f"{out}: environment: {needs}; {setup.optional_count} optional settings in {readme}",
        f"{out}: add it to Claude Code (after `pip install {_pip_path(out)}`):",
        f"  {setup.claude_code('installed')}",
        f"{out}: Claude Desktop, VS Code, Cursor, uvx, HTTP and more: {readme} (Use it from a client)",
    ]


def _pip_path(out: str) -> str:
    """OUT as pip reads a local directory (`./out`, not a package named `out`), shell-quoted."""
    local = out if os.path.isabs(out) or out.startswith(("./", "../")) else f"./{out}"
    return shlex.quote(local)


def _input(key: str, description: str, secret: bool) -> dict[str, Any]:
    return {"type": "promptString", "id": key, "description": description, "password": secret}


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _double_quoted(text: str) -> str:
    """A shell word in double quotes that keeps a `$NAME` expansion (text of ours only)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'
