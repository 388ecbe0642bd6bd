"""An API answer made into a tool result: structured content and text (`responses`), argument and
output checks (`validation`), output that deviates from its schema (`conform`), results trimmed to
their limit (`trimming`, `trim_values`, `json_prefix`)."""
