"""The spec's prose as the tools give it: a link relative to the vendor's documentation site keeps
its text and loses its target, and a paragraph that was only a pointer to such a link is left out.

Vendors write descriptions for their own docs pages, where `[API Concepts](../../api-reference/...)`,
`<a href="/docs/connect">Connect</a>` and `[the types](#types)` resolve. An agent reads them with no
base URL, so such a target is bytes it cannot follow (PagerDuty's spec has 174 of them, OpenAI's 413,
Stripe's 97). A target with a scheme (`https:`, `mailto:`) or a host (`//host/...`) is kept, and
so is everything else of the text: code spans, emphasis, tables.

A paragraph that only points at such a link ("For more information see the [API Concepts
Document](../../api-reference/...)", 168 of PagerDuty's descriptions; "See [pagination](#pagination).")
points nowhere once the target is gone: it is left out, unless it is all the text there is. A
paragraph that says more than the pointer ("See the [guide](/docs/x) for the limits.") is kept.
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
_BLANK_LINES = re.compile(r"(\n[ \t]*\n\s*)")  # between paragraphs (kept by split)
# The words of a paragraph that only points somewhere: "For more information, see the", "Refer to"
_POINTER = re.compile(
    r"(?:for more (?:information|details)(?: on [^,.\n]{0,40})?[,:]?\s+)?(?:please\s+)?"
    r"(?:see|refer to|read)\s+(?:(?:the|our)\s+)?",
    re.IGNORECASE,
)


def plain_links(text: str) -> str:
    """`text` with each link whose target is relative (no scheme, no host) reduced to its text, and
    without the paragraphs that only pointed at one (unless nothing else is left)."""
    if "](" not in text and "href" not in text.lower():
        return text
    parts = _BLANK_LINES.split(text)  # paragraphs at the even places, what separates them between
    kept = [index for index in range(0, len(parts), 2) if not _points_nowhere(parts[index])]
    if kept and len(kept) * 2 - 1 < len(parts):
        text = parts[kept[0]] + "".join(parts[index - 1] + parts[index] for index in kept[1:])
    return _HTML.sub(_text_if_relative, _MARKDOWN.sub(_text_if_relative, text))


def _points_nowhere(paragraph: str) -> bool:
    """True when `paragraph` is only pointer words and one link with a relative target."""
    stripped = paragraph.strip()
    pointer = _POINTER.match(stripped)
    if pointer is None:
        return False
    rest = stripped[pointer.end() :].removesuffix(".").rstrip()
    link = _MARKDOWN.fullmatch(rest) or _HTML.fullmatch(rest)
    return link is not None and not _ABSOLUTE.match(link.group("target").strip())


def _text_if_relative(link: re.Match[str]) -> str:
    target = link.group("target").strip()
    return link.group(0) if _ABSOLUTE.match(target) else link.group("text")
