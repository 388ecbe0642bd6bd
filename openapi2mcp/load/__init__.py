"""Stage 1, load: read the spec (files, URLs, YAML, JSON), apply overlays, bundle $refs, Swagger 2.0."""
