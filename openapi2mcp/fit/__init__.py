"""Stage 3, fit: shrink schemas until every tool and the whole tools/list fit the size limits."""
