"""Web pages (.html, .htm): one section per heading of level 1-3, labelled by it (text before the
first one is `beginning`); scripts, styles and templates are not text, and nothing the page
points at (images, stylesheets, scripts) is fetched. E-book chapters and mail bodies in HTML are
read the same way. BeautifulSoup is imported when a page is parsed."""

from __future__ import annotations

import re

from docchat.documents.kinds import Kind
from docchat.documents.text_reading import refuse_binary, split_at_headings
from docchat.domain import Section

WORDS = "HTML"
_HEADINGS = {"h1", "h2", "h3"}
_BLOCKS = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption",
    "footer", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre",
    "section", "table", "td", "th", "tr", "ul",
}  # fmt: skip


def read_html(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    from bs4 import BeautifulSoup, Tag
    from bs4.element import NavigableString, PreformattedString

    refuse_binary(shown, data)
    # Bytes, not str: BeautifulSoup honours the page's declared charset.
    soup = BeautifulSoup(data, "html.parser")
    for hidden in soup.find_all(["script", "style", "noscript", "template"]):
        hidden.decompose()
    blocks: list[tuple[str | None, str]] = []
    parts: list[str] = []
    for element in soup.descendants:
        if isinstance(element, Tag) and element.name in _HEADINGS:
            blocks.append((None, "".join(parts)))
            blocks.append((element.get_text(" ", strip=True), ""))
            parts = []
        elif isinstance(element, Tag) and element.name == "br":
            parts.append("\n")
        elif isinstance(element, Tag) and element.name in _BLOCKS:
            parts.append("\n\n")
        elif isinstance(element, NavigableString) and not isinstance(element, PreformattedString):
            # Comments, doctypes and CDATA are PreformattedStrings: markup, not text.
            parts.append(re.sub(r"\s+", " ", str(element)))
    blocks.append((None, "".join(parts)))
    return split_at_headings(blocks)


KINDS = (Kind("html", (".html", ".htm"), read_html),)
