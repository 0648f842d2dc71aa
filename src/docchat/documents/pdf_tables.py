"""The tables on a PDF's pages, as grids of cells (issue 55), read from where each word is on its
page (PDFium's characters and their boxes, through pypdfium2); docchat.documents.kinds.pdf makes
each grid a table. Measured against pdfplumber's and Camelot's own table finders, and 9 times
faster than pdfplumber's words (docs/perf/pdf-tables.md).

Invariants:
- A table is read from the words' positions, ruled or not (rules on every side, only under the
  header, or none, as reports and papers print them): three or more rows, each split into two or
  more cells by gaps wider than one and a half spaces that every row leaves open at the same
  place, whose cells are short (a median of at most MAX_WORDS words: two columns of prose are not
  a table). A line whose words sit in one column is a wrapped cell of the row nearest it; a
  heading wrapped onto a line above the header's and one below, in a column no other heading's
  words are in, is one cell of the header. The paragraphs around a table are never its rows.
- A table that ends its page, and one that begins the next page under the same header (a long
  table carried on, its header repeated), are one table: its rows go on from the page before,
  even a single row left for the next page.
- At most MAX_PAGES pages are read for tables (about 14 ms a dense page): a longer PDF's later
  pages answer from passages.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Grid = list[list[str]]
MAX_PAGES = 300
# The most words a table's cells hold at their median: a data table's are a name or a figure.
MAX_WORDS = 4
# Lines of one word closer than this (in points) are on one line.
_SAME_LINE = 2.0
# A gap between two lines of a table at most this many times the type's height.
_ROW_GAP = 2.6
_MIN_LINES = 3
# A proportional font's space, as a share of its height as PDFium boxes it (measured: Helvetica's
# 0.24, Times' 0.22; Courier's is 0.57).
_SPACE = 0.28
# A gap between columns is at least this many spaces wide.
_GAP_SPACES = 1.6
# The lines of one wrapped cell are at most this many times the type's height apart.
_WRAPPED = 1.3
# Two characters further apart than this share of the type's height are in two words (a PDF made
# by TeX places its words without a space between them).
_WORD_GAP = 0.15


@dataclass(frozen=True)
class Placed:
    """A table's cells and whether any text on its page is above it or below it."""

    grid: Grid
    first: bool
    last: bool


@dataclass
class PageTable:
    """A table found on a page: its cells, header row first, and the pages it runs over."""

    pages: list[int]
    grid: Grid
    on_page: int = 1  # which table of its first page it is


def pdf_tables(data: bytes, pages: Sequence[int]) -> list[PageTable]:
    """The tables on the given pages (1-based) of a PDF, in page order, each carried-on table
    joined with the one it continues."""
    import pypdfium2

    found: list[PageTable] = []
    ends_page = False  # whether the last table found ends its page
    document = pypdfium2.PdfDocument(data)
    try:
        for number in pages[:MAX_PAGES]:
            page = document[number - 1]
            try:
                words, space = page_words(page)
            finally:
                page.close()
            placed = page_grids(words, space)
            if ends_page and found and not (placed and placed[0].first):
                # A table carried on may keep one row for this page: its header and that row.
                carried = page_grids(words, space, min_rows=2)
                if carried and carried[0].first and _header(carried[0].grid) == _header(found[-1].grid):
                    placed = [carried[0], *placed]
            for position, table in enumerate(placed, start=1):
                if (table.first and ends_page and found[-1].pages[-1] == number - 1
                        and _header(found[-1].grid) == _header(table.grid)):
                    found[-1].grid.extend(table.grid[1:])
                    found[-1].pages.append(number)
                else:
                    found.append(PageTable([number], table.grid, position))
            ends_page = bool(placed) and placed[-1].last
    finally:
        document.close()
    return found


def page_words(page: Any) -> tuple[list[dict], float | None]:
    """A page's words (text, x0, x1, top, bottom in points from its top left; a word's height is
    its font's, ascent to descent), and a space's width as a share of that height where the page
    writes its spaces."""
    import pypdfium2.raw as pdfium

    text_page = page.get_textpage()
    try:
        height = page.get_height()
        count = text_page.count_chars()
        text = text_page.get_text_range(0, count) if count else ""
        words: list[dict] = []
        spaces: list[float] = []
        word: dict | None = None
        for index in range(min(count, len(text))):
            char = text[index]
            if char.isspace():  # PDFium's own spaces and line ends (generated) are whitespace too
                if char == " " and pdfium.FPDFText_IsGenerated(text_page.raw, index) != 1:
                    left, bottom, right, top = text_page.get_charbox(index, loose=True)
                    spaces.extend([(right - left) / (top - bottom)] if right > left and top > bottom else [])
                word = None
                continue
            left, bottom, right, top = text_page.get_charbox(index, loose=True)
            top, bottom = height - top, height - bottom
            if word is not None and (abs(top - word["top"]) > _SAME_LINE or left < word["x0"]
                                     or left - word["x1"] > _WORD_GAP * (bottom - top)):
                word = None
            if word is None:
                word = {"text": char, "x0": left, "x1": right, "top": top, "bottom": bottom}
                words.append(word)
            else:
                word["text"] += char
                word["x1"] = max(word["x1"], right)
                word["bottom"] = max(word["bottom"], bottom)
        return words, statistics.median(spaces) if spaces else None
    finally:
        text_page.close()


def page_grids(words: list[dict], space: float | None = None, *, min_rows: int = _MIN_LINES) -> list[Placed]:
    """A page's tables top to bottom, each with whether any of its words are above or below it."""
    return [Placed(grid, first=not any(w["bottom"] <= top for w in words),
                   last=not any(w["top"] >= bottom for w in words))
            for top, bottom, grid in aligned_grids(words, space, min_rows=min_rows) if _is_table(grid)]


def aligned_grids(words: Sequence[dict], space: float | None = None, *,
                  min_rows: int = _MIN_LINES) -> list[tuple[float, float, Grid]]:
    """(top, bottom, cells) of each table lined up in these words (page_words': text, x0, x1,
    top, bottom), given a space's width as a share of the type's height if it is known."""
    lines = _lines(words)
    space = space or _space(lines)
    found, block = [], _Block(space)
    for line in lines:
        if not block.takes(line):
            found.extend(block.table(min_rows))
            block = _Block(space)
            block.takes(line)
    found.extend(block.table(min_rows))
    return found


class _Block:
    """Lines that may be one table: rows, each a line whose words the columns' gaps split (the
    first is the header), and lines whose words sit in one column (a cell's text wrapped onto
    another line), joined to the row nearest them."""

    def __init__(self, space: float):
        self._space = space
        self._lines: list[list[dict]] = []
        self._rows: list[int] = []  # which of the lines are rows
        self._gaps: list[tuple[float, float]] = []
        self._above: list[dict] = []  # the line passed over right before the header

    def takes(self, line: list[dict]) -> bool:
        """Whether the line belongs to this block (then it is kept): False ends the block."""
        height = _height(line)
        gaps = _gaps([*self._lines, line], self._space * height * _GAP_SPACES)
        if not self._rows:
            if gaps and _split(line, gaps):
                # A header cell wrapped over lines above and below the others' line starts above it.
                above = self._above and line[0]["top"] - self._above[0]["top"] <= _WRAPPED * height \
                    and _in_a_gap(self._above, gaps)
                self._lines = [self._above, line] if above else [line]
                self._rows, self._gaps = [len(self._lines) - 1], _gaps(self._lines, self._space * height * _GAP_SPACES)
            else:
                self._above = line
            return True  # a line before any header is passed over
        if line[0]["top"] - self._lines[-1][0]["top"] > _ROW_GAP * height:
            return False
        kept = _same_columns(self._gaps, gaps)
        # the rest of a header cell wrapped under the header's line, in a column no header word is in
        header_wrapped = len(self._rows) == 1 and self._tight_to(line) and _in_a_gap(line, self._gaps)
        if _split(line, gaps) and (kept or len(self._rows) == 1) \
                and all(_split(self._lines[row], gaps) for row in self._rows):
            self._rows.append(len(self._lines))
        elif (not kept and not header_wrapped) or _split(line, gaps):
            return False
        self._lines.append(line)
        self._gaps = gaps
        return True

    def table(self, min_rows: int = _MIN_LINES) -> list[tuple[float, float, Grid]]:
        if len(self._rows) < min_rows:
            return []
        grid = [[""] * (len(self._gaps) + 1) for _ in self._rows]
        last = self._rows[-1]
        # A wrapped cell of the last row goes on a line or two under it, as close as its lines are.
        while last + 1 < len(self._lines) and self._tight(last):
            last += 1
        for at, line in enumerate(self._lines[:last + 1]):
            row = self._row_of(at, last)
            for word in line:
                column = self._column(word)
                grid[row][column] = f"{grid[row][column]} {word['text']}".strip()
        top = self._lines[self._rows[0]][0]["top"]
        return [(top, max(w["bottom"] for w in self._lines[last]), grid)]


    def _row_of(self, at: int, last: int) -> int:
        """Which row the block's line `at` is part of. Lines as close as a wrapped cell's lines are
        one band; a band with one row's line is that row (a cell centred in its row has lines
        above and below it). Otherwise a line joins the row nearest it; halfway between two, the
        one it mirrors another line of the same columns about (a centred cell's lines lie evenly
        about its row's line), else the row above (a cell set at the top of its row)."""
        start = end = at
        while start > 0 and self._tight(start - 1):
            start -= 1
        while end < last and self._tight(end):
            end += 1
        rows = [r for r, line in enumerate(self._rows) if start <= line <= end] or list(range(len(self._rows)))
        top = self._lines[at][0]["top"]
        return min(rows, key=lambda r: (round(abs(self._top(r) - top), 1), not self._mirrored(at, r), r))

    def _top(self, row: int) -> float:
        return self._lines[self._rows[row]][0]["top"]

    def _mirrored(self, at: int, row: int) -> bool:
        """Whether another line with words in line `at`'s columns lies as far from the row's line
        on its other side, and no nearer another row's."""
        mirror = 2 * self._top(row) - self._lines[at][0]["top"]
        columns = {self._column(word) for word in self._lines[at]}
        distance = abs(self._top(row) - mirror)
        return any(abs(line[0]["top"] - mirror) <= _SAME_LINE and {self._column(w) for w in line} & columns
                   and all(abs(self._top(other) - line[0]["top"]) >= distance - _SAME_LINE
                           for other in range(len(self._rows)))
                   for line in self._lines)

    def _column(self, word: dict) -> int:
        return sum(1 for a, b in self._gaps if word["x0"] > (a + b) / 2)

    def _tight_to(self, line: list[dict]) -> bool:
        """Whether the line is as close under the block's last line as a wrapped cell's lines are."""
        return line[0]["top"] - self._lines[-1][0]["top"] <= _WRAPPED * _height(self._lines[-1])

    def _tight(self, at: int) -> bool:
        """Whether line `at` and the next are as close as the lines of a wrapped cell."""
        return self._lines[at + 1][0]["top"] - self._lines[at][0]["top"] <= _WRAPPED * _height(self._lines[at])


def _lines(words: Sequence[dict]) -> list[list[dict]]:
    lines: list[list[dict]] = []
    for word in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if lines and abs(word["top"] - lines[-1][0]["top"]) <= _SAME_LINE:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w["x0"]) for line in lines]


def _height(line: list[dict]) -> float:
    return statistics.median(w["bottom"] - w["top"] for w in line)


def _space(lines: list[list[dict]]) -> float:
    """A space's width as a share of the type's height, on a page that writes no space: the lower
    quartile of the gaps between two words of a line narrower than the type is high (justified
    prose widens most of its spaces), but no more than a proportional font's (a page of a table
    alone has only the gaps between its columns)."""
    gaps = [(b["x0"] - a["x1"]) / height for line in lines if (height := _height(line)) > 0
            for a, b in zip(line, line[1:], strict=False) if 0 < b["x0"] - a["x1"] < height]
    return min(statistics.quantiles(gaps, n=4)[0], _SPACE) if len(gaps) >= 2 else _SPACE


def _gaps(lines: list[list[dict]], width: float) -> list[tuple[float, float]]:
    """The stretches across every line's words, inside their span, where no word is, as wide as
    `width` or wider: the gaps between columns."""
    spans: list[list[float]] = []
    for x0, x1 in sorted((w["x0"], w["x1"]) for line in lines for w in line):
        if spans and x0 <= spans[-1][1] + width:
            spans[-1][1] = max(spans[-1][1], x1)
        else:
            spans.append([x0, x1])
    return [(a[1], b[0]) for a, b in zip(spans, spans[1:], strict=False)]


def _same_columns(before: list[tuple[float, float]], after: list[tuple[float, float]]) -> bool:
    """Whether a row leaves the table's columns as they were: as many, each gap still open."""
    return len(before) == len(after) and all(a < d and c < b for (a, b), (c, d) in zip(before, after, strict=True))


def _split(line: list[dict], gaps: list[tuple[float, float]]) -> bool:
    """Whether the line has words on both sides of one of the gaps."""
    return any(line[0]["x0"] < a and line[-1]["x1"] > b for a, b in gaps)


def _in_a_gap(line: list[dict], gaps: list[tuple[float, float]]) -> bool:
    """Whether all the line's words lie inside one of the gaps between a row's words."""
    return any(a <= line[0]["x0"] and line[-1]["x1"] <= b for a, b in gaps)


def _is_table(grid: Grid) -> bool:
    cells = [cell for row in grid for cell in row if cell]
    return len(grid) >= 2 and len(grid[0]) >= 2 and bool(cells) and \
        statistics.median(len(cell.split()) for cell in cells) <= MAX_WORDS


def _header(grid: Grid) -> list[str]:
    return [" ".join(cell.split()).casefold() for cell in grid[0]] if grid else []
