"""Stage 4, emit: the model → tool data and files (Jinja2), formatted by black, written safely."""
