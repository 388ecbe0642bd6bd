"""Stage 2, map: each operation of the bundled document → a Tool of the model (or a diagnostic)."""
