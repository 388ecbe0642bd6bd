"""The command line, `openapi2mcp generate|inspect|diff` (console script: `app.main`).

The layer above the pipeline's stages: it may import any of them, and none of them imports it
(tests/test_architecture.py). This file imports nothing, so that a module of the package can be
imported (a test of `diagnostics.py`) without the whole app."""
