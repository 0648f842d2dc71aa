"""Markdown: one section per heading of level 1-3, labelled by it (text before the first one is
`beginning`); a `#` inside a fenced code block is a comment, not a heading."""

from __future__ import annotations

import re

from docchat.documents.kinds import Kind
from docchat.documents.text_reading import decode, split_at_headings
from docchat.domain import Section

WORDS = "Markdown"


def read_markdown(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    blocks = []
    fence = None
    for line in decode(shown, data).splitlines():
        marker = re.match(r"\s*(```|~~~)", line)
        if marker and fence in (None, marker.group(1)):
            fence = None if fence else marker.group(1)
        heading = None if fence else re.match(r" {0,3}#{1,3}\s+(.*?)(?:\s+#+)?\s*$", line)
        blocks.append((heading.group(1) if heading else None, line))
    return split_at_headings(blocks, separator="\n")


KINDS = (Kind("markdown", (".md", ".markdown"), read_markdown),)
