"""The runtime of the MCP servers openapi2mcp generates: a generated package holds its tool data
and entry point, and runs on this package, vendored into it as `_runtime/` (the default) or
installed as the `openapi2mcp-runtime` distribution (`generate --runtime package`).

- `tool_runtime`: ToolRuntime, which lists the tools and answers each call;
- `settings`: the server's settings, from its environment;
- `serving/`: the MCP server over stdio and streamable HTTP, endpoint auth, OAuth, HTTP limits;
- `upstream/`: the API requests: serialization, credentials, the HTTP client, retries and limits;
- `discovery/`: which tools a request sees and how they are listed, the meta-tools, search;
- `results/`: answers made into tool results: validation, conformance, trimming;
- `hooks/`: the API of a package's hooks.py, and running its hooks;
- `code_mode/`: `--mode code`: the agent's programs, run in the pydantic-monty sandbox.

It imports nothing of the generator (`openapi2mcp`); its modules import each other relatively.
"""

# 0.1.1 added serving/command.py, which every server.py generated since imports; 0.1.2 long-running
# operations as tasks, confirmation and tools/list pages (tool data of 0.1.1 runs unchanged); 0.1.3
# code mode
__version__ = "0.1.3"

# What it needs: a vendored package's pyproject lists these, the openapi2mcp-runtime wheel too.
DEPENDENCIES = (
    "mcp>=2.3,<3",
    "httpx2>=2.16,<3",
    "jsonschema>=4.20",
    "snowballstemmer>=3.1,<4",
    "ijson>=3.2.3,<4",
    "pyjwt[crypto]>=2.10,<3",  # --auth oauth (also required by mcp)
    "uvloop>=0.21,<1; sys_platform != 'win32' and platform_python_implementation == 'CPython'",
)
# Optional: `pip install '<package>[code]'` for --mode code (the extra of both forms).
EXTRAS = {"code": ("pydantic-monty>=1.4,<2",)}
