"""The MCP server: a generated server's command line (`command`), the SDK's low-level server
answered by the ToolRuntime (`wiring`), stdio and streamable HTTP (`http_serving`), and what guards
the HTTP endpoint: bearer tokens and OAuth (`endpoint_auth`, `oauth`), connection and session limits
(`http_guard`, `http_sessions`, `http_limits`); `request_meta` reads what a call's `_meta` asks
(progress, trace context)."""
