"""Swagger 2.0 → OpenAPI 3.0, with a map from each new JSON pointer back to the Swagger original."""
