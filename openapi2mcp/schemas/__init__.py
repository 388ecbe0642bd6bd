"""Part of stage 2: OpenAPI Schema Objects → self-contained JSON Schema 2020-12, for tools/."""
