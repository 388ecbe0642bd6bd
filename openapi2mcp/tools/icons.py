"""The API's icons, put on every tool (MCP `Tool.icons`): the config file's `icons`, else the spec's
`info.x-logo` (ReDoc's extension: `{url, altText?, backgroundColor?}`). An icon whose URL is not
http(s) or `data:`, or is too long to repeat on every tool, is a diagnostic, not an icon."""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import Icon

MAX_SRC_CHARS = 2048  # each tool repeats it: a big data: URL would swell tools/list


def api_icons(
    document: dict[str, Any], configured: Sequence[Icon] | None, diagnostics: Diagnostics
) -> tuple[Icon, ...]:
    """The icons every tool carries: `configured` (the config file's, even none) wins over x-logo."""
    if configured is not None:
        return tuple(
            icon
            for index, icon in enumerate(configured)
            if _usable(icon.src, f"icons[{index}] (config)", diagnostics)
        )
    info = document.get("info")
    logo = info.get("x-logo") if isinstance(info, dict) else None
    if logo is None:
        return ()
    url = logo.get("url") if isinstance(logo, dict) else None
    if not isinstance(url, str):
        diagnostics.warning("#/info/x-logo", "x-logo must be an object with a string `url`; no icon")
        return ()
    return (Icon(url, _mime_type(url)),) if _usable(url, "#/info/x-logo/url", diagnostics) else ()


def _usable(src: str, where: str, diagnostics: Diagnostics) -> bool:
    parts = urlsplit(src)
    if parts.scheme == "data" or (parts.scheme in ("http", "https") and parts.hostname):
        if len(src) <= MAX_SRC_CHARS:
            return True
        diagnostics.warning(
            where,
            f"icon URL of {len(src):,} characters (over {MAX_SRC_CHARS:,}): every tool repeats it; no icon",
        )
        return False
    diagnostics.warning(where, f"icon URL {src[:100]!r} is not an http(s) or data: URL; no icon")
    return False


def _mime_type(url: str) -> str | None:
    """An http(s) URL's image type from its file name (a data: URL says its own)."""
    if url.startswith("data:"):
        return None
    guessed, _ = mimetypes.guess_type(urlsplit(url).path)
    return guessed if guessed and guessed.startswith("image/") else None
