"""The kinds of file docchat reads, one module each (or one per family: the spreadsheets, the
source code). A module declares:

- `WORDS`: how the one sentence of the kinds docchat reads names it (`"slides (PPTX)"`); the
  page, the API and `docchat ingest --help` say that sentence;
- `KINDS`: its `Kind` values, each with the name stored with its documents, its file names'
  suffixes and its parser.

docchat.documents.registry gathers them. A module here imports its format's library only when a
file of that kind is parsed, so that naming the kinds costs no import of a parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from docchat.domain import Attachment, Section
from docchat.domain.documents import SheetTable


@dataclass(frozen=True)
class Read:
    """A parser's result beyond its sections: a mail's attachments docchat reads, a spreadsheet's
    sheets as tables."""

    sections: list[Section]
    attachments: tuple[Attachment, ...] = ()
    tables: tuple[SheetTable, ...] = ()


# A parser's result: its sections, or its sections and more.
Parsed = list[Section] | Read
# (page, of pages): called before each page is read by OCR.
PageProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class Kind:
    name: str
    suffixes: tuple[str, ...]
    # (shown name, data, max_bytes) -> Parsed; with `by_pages`, a fourth argument: PageProgress.
    parse: Callable[..., Parsed]
    # Read page by page by OCR, which is slow: the parser tells progress before each page.
    by_pages: bool = False
