"""openapi2mcp: generate a standalone MCP tool-server package from an OpenAPI description."""

__version__ = "0.1.0"
