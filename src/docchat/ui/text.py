"""How the pages word numbers, sizes and times, and how they show text a user typed as typed."""

from __future__ import annotations

import re
from datetime import datetime

from docchat.wording import count, size

__all__ = ["ago", "count", "literal", "size"]

# The characters Streamlit's Markdown gives a meaning to wherever they stand: CommonMark's
# emphasis, code, links, HTML and headings, tables and strike-through, Streamlit's colour and
# emoji directives (:red[...], :smile:) and LaTeX ($...$). Parentheses and "!" mean something only
# next to an (escaped) bracket.
_INLINE = re.compile(r"([\\`*_\[\]<>#|~:$])")
# And those that start a list only at the start of a line: "- ", "+ ", "1. ", "1) ".
_LIST_START = re.compile(r"^(\s*)([-+]|\d+(?=[.)]))", re.MULTILINE)


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
