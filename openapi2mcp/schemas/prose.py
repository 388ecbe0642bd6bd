"""The spec's prose as the tools give it: a link relative to the vendor's documentation site keeps
its text and loses its target.

Vendors write descriptions for their own docs pages, where `[API Concepts](../../api-reference/...)`,
`<a href="/docs/connect">Connect</a>` and `[the types](#types)` resolve. An agent reads them with no
base URL, so such a target is bytes it cannot follow (PagerDuty's spec has 174 of them, OpenAI's 413,
Stripe's 97). A target with a scheme (`https:`, `mailto:`) or a host (`//host/...`) is kept, and
so is everything else of the text: code spans, emphasis, tables.
"""

from __future__ import annotations

import re

# [text](target "title") or ![alt](target): a target may hold one level of parentheses
_MARKDOWN = re.compile(
    r"!?\[(?P<text>[^\[\]]*)\]"
    r"\((?P<target>[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
# <a ... href="target" ...>text</a>, its text without tags; every part stops at a delimiter, so a
# hostile description of a million unclosed `<a href="` costs one pass, not one per start
_HTML = re.compile(
    r"<a\s[^<>]*?\bhref\s*=\s*(?P<quote>[\"'])(?P<target>[^\"'<>]*)(?P=quote)[^<>]*>(?P<text>[^<]*)</a\s*>",
    re.IGNORECASE,
)
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")


def plain_links(text: str) -> str:
    """`text` with each link whose target is relative (no scheme, no host) reduced to its text."""
    if "](" not in text and "href" not in text.lower():
        return text
    return _HTML.sub(_text_if_relative, _MARKDOWN.sub(_text_if_relative, text))


def _text_if_relative(link: re.Match[str]) -> str:
    target = link.group("target").strip()
    return link.group(0) if _ABSOLUTE.match(target) else link.group("text")
