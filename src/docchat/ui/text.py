"""How the pages word numbers, sizes and times, and how they show text a user typed as typed."""

from __future__ import annotations

import re
from datetime import datetime

UNITS = ("KB", "MB", "GB", "TB")
# The characters Streamlit's Markdown gives a meaning to wherever they stand: CommonMark's
# emphasis, code, links, HTML and headings, tables and strike-through, Streamlit's colour and
# emoji directives (:red[...], :smile:) and LaTeX ($...$). Parentheses and "!" mean something only
# next to an (escaped) bracket.
_INLINE = re.compile(r"([\\`*_\[\]<>#|~:$])")
# And those that start a list only at the start of a line: "- ", "+ ", "1. ", "1) ".
_LIST_START = re.compile(r"^(\s*)([-+]|\d+(?=[.)]))", re.MULTILINE)


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 chunk`, `2 chunks`, `1,204 pages`."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def size(length: int) -> str:
    """A file size in the units people read: `86 bytes`, `4.2 KB`, `86 KB`, `1.3 MB` (1 KB = 1,024
    bytes); never `0 KB`."""
    if length < 1024:
        return count(length, "byte")
    value = length / 1024
    for unit in UNITS:
        shown = f"{value:.1f}" if value < 9.95 else f"{value:.0f}"
        if float(shown) < 1024 or unit == UNITS[-1]:
            break
        value /= 1024
    return f"{shown} {unit}"


def ago(moment: datetime, now: datetime) -> str:
    """How long ago, for "Deleted …": `just now`, `5 minutes ago`, `3 hours ago`, `2 days ago`,
    and after a month the date (`on 2025-03-14`)."""
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3_600:
        return f"{count(int(seconds // 60), 'minute')} ago"
    if seconds < 86_400:
        return f"{count(int(seconds // 3_600), 'hour')} ago"
    days = int(seconds // 86_400)
    return f"{count(days, 'day')} ago" if days <= 30 else f"on {moment:%Y-%m-%d}"


def literal(text: str) -> str:
    """`text` for st.markdown (and the widgets whose labels are Markdown), shown as typed:
    a title such as `*draft* #2` is not turned into emphasis or a heading."""
    escaped = _INLINE.sub(r"\\\1", text)
    return _LIST_START.sub(lambda m: m[1] + (f"\\{m[2]}" if m[2] in "-+" else f"{m[2]}\\"), escaped)
