"""`openapi2mcp inspect`: what a package's tools/list costs, what clients will do with it, and advice."""
