"""Code mode: the agent's program runs in a sandbox where `import api` calls the tools (docs/server.md)."""
