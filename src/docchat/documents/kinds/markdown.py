"""Markdown: one section per heading of level 1-3, labelled by it (text before the first one is
`beginning`); a `#` inside a fenced code block is a comment, not a heading. Its pipe tables
(a header row, a `| --- |` delimiter row, then rows) are also kept as tables, named `Table N` in
the order they come, so that figures can be computed over them (issue 55)."""

from __future__ import annotations

import re

from docchat.documents.kinds import Kind, Read
from docchat.documents.text_reading import decode, split_at_headings
from docchat.domain.documents import PIPE_DELIMITER
from docchat.tables.reading import grid_table

WORDS = "Markdown"
# A bar that ends a cell: one not escaped as `\|`.
_BAR = re.compile(r"(?<!\\)\|")
# A cell's whole text in emphasis or code (`**9,492**`): its value is what is inside.
_MARKED = re.compile(r"(\*\*|__|\*|_|`)(.+)\1")


def read_markdown(shown: str, data: bytes, max_bytes: int) -> Read:
    blocks, lines = [], []
    fence = None
    for line in decode(shown, data).splitlines():
        marker = re.match(r"\s*(```|~~~)", line)
        if marker and fence in (None, marker.group(1)):
            fence = None if fence else marker.group(1)
        heading = None if fence else re.match(r" {0,3}#{1,3}\s+(.*?)(?:\s+#+)?\s*$", line)
        blocks.append((heading.group(1) if heading else None, line))
        lines.append(None if fence or marker else line)
    tables = [table for number, grid in enumerate(_pipe_tables(lines), start=1)
              if (table := grid_table(f"Table {number}", grid)) is not None]
    return Read(split_at_headings(blocks, separator="\n"), tables=tuple(tables))


def _pipe_tables(lines: list[str | None]) -> list[list[list[str]]]:
    """The cells of each pipe table, its header row first (a line in a code block is None)."""
    grids, at = [], 1
    while at < len(lines):
        header, delimiter = lines[at - 1], lines[at]
        if header is None or delimiter is None or "|" not in header or not PIPE_DELIMITER.fullmatch(delimiter):
            at += 1
            continue
        grid, at = [_cells(header)], at + 1
        while at < len(lines) and (row := lines[at]) is not None and "|" in row and row.strip():
            grid.append(_cells(row))
            at += 1
        grids.append(grid)
    return grids


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    cells = [cell.strip().replace("\\|", "|") for cell in _BAR.split(row)]
    return [marked.group(2).strip() if (marked := _MARKED.fullmatch(cell)) else cell for cell in cells]


KINDS = (Kind("markdown", (".md", ".markdown"), read_markdown),)
