"""Web pages (.html, .htm): one section per heading of level 1-3, labelled by it (text before the
first one is `beginning`); scripts, styles and templates are not text, and nothing the page
points at (images, stylesheets, scripts) is fetched. E-book chapters and mail bodies in HTML are
read the same way. A page's tables with a row under their first are also read as tables figures
are computed over (`Table 1`, `Table 2`, … in the page's order; a cell spanning columns in each of
them; docchat.tables.reading); an e-book's are named by their chapter, a mail's by its message.
BeautifulSoup is imported when a page is parsed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from docchat.documents.kinds import Kind, Read
from docchat.documents.text_reading import refuse_binary, split_at_headings
from docchat.domain import Section
from docchat.domain.documents import SheetTable
from docchat.tables.reading import grid_table

if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag

WORDS = "HTML"
_HEADINGS = {"h1", "h2", "h3"}
_BLOCKS = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption",
    "footer", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre",
    "section", "table", "td", "th", "tr", "ul",
}  # fmt: skip


# A cell spanning more columns than this counts as this many (a page may say colspan="1000000").
MAX_SPAN = 50


def read_html(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    return _sections(_soup(shown, data))


def read_page(shown: str, data: bytes, max_bytes: int) -> Read:
    """A web page: its sections, and its tables as tables."""
    return read_with_tables(shown, data, lambda number: f"Table {number}")


def read_with_tables(shown: str, data: bytes, name_of: Callable[[int], str]) -> Read:
    """HTML's sections, and its tables as tables, each named by `name_of` its number in the page."""
    soup = _soup(shown, data)
    tables = [_table(name_of(number), table) for number, table in enumerate(soup.find_all("table"), start=1)]
    return Read(_sections(soup), tables=tuple(table for table in tables if table is not None))


def _soup(shown: str, data: bytes) -> BeautifulSoup:
    from bs4 import BeautifulSoup

    refuse_binary(shown, data)
    # Bytes, not str: BeautifulSoup honours the page's declared charset.
    soup = BeautifulSoup(data, "html.parser")
    for hidden in soup.find_all(["script", "style", "noscript", "template"]):
        hidden.decompose()
    return soup


def _table(name: str, table: Tag) -> SheetTable | None:
    """The table's own rows (not those of a table inside it), a cell once per column it spans and
    in each row it spans (a region's name beside each of its rows, a header's "Region" over both
    of its lines)."""
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    grid = []
    below: dict[int, tuple[str, int]] = {}  # column -> (text, rows still spanned) of cells from above
    for row in rows:
        cells: list[str] = []
        for cell in row.find_all(["td", "th"], recursive=False):
            cells += _spanned_from_above(below, len(cells))
            text = cell.get_text(" ", strip=True)
            for _ in range(_span(cell.get("colspan"))):
                if (down := _span(cell.get("rowspan"))) > 1:
                    below[len(cells)] = (text, down - 1)
                cells.append(text)
        while any(column >= len(cells) for column in below):  # spanning down past the row's own cells
            cells += [""] * (min(column for column in below if column >= len(cells)) - len(cells))
            cells += _spanned_from_above(below, len(cells))
        grid.append(cells)
    return grid_table(name, grid)


def _span(value: object) -> int:
    span = str(value or "1")
    return min(int(span), MAX_SPAN) if span.isdigit() and int(span) > 0 else 1


def _spanned_from_above(below: dict[int, tuple[str, int]], at: int) -> list[str]:
    """The cells of rows above that span down into this row from column `at` on, each then
    spanning one row less."""
    cells = []
    while at in below:
        text, left = below.pop(at)
        if left > 1:
            below[at] = (text, left - 1)
        cells.append(text)
        at += 1
    return cells


def _sections(soup: BeautifulSoup) -> list[Section]:
    from bs4 import Tag
    from bs4.element import NavigableString, PreformattedString

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


KINDS = (Kind("html", (".html", ".htm"), read_page),)
