"""PDF: one section per page (`page N`). A page without a text layer (scanned) is read by OCR,
page by page, so a PDF mixing text and scanned pages is read per page (docchat.documents.scans).
A PDF that opens only with its owner's password is refused in one line; one that merely restricts
printing opens with the empty password, as readers do. pypdf is imported when a PDF is parsed.

The tables on its pages with a text layer are kept as tables (docchat.documents.pdf_tables),
named by their page: `Page 3 table`, `Page 3 table 2` for a page's second, `Pages 3-4 table` for
one carried onto the next page. A PDF whose tables cannot be read is still read for its text."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from docchat.documents import scans
from docchat.documents.kinds import Kind, PageProgress, Read
from docchat.documents.kinds.images import MAX_OCR_PAGES
from docchat.domain import Section
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput
from docchat.tables.reading import grid_table

if TYPE_CHECKING:
    from pypdf import PdfReader

WORDS = "PDF"
log = logging.getLogger(__name__)


def read_pdf(shown: str, data: bytes, max_bytes: int, progress: PageProgress | None = None) -> Read:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        # Many "encrypted" PDFs only restrict printing and open with an empty password;
        # any other failure here (including AES without the cryptography package) means
        # we cannot read it without the user's password.
        if reader.is_encrypted and not _opens_without_password(reader):
            raise InvalidInput(f"{shown} is password-protected")
        texts = {number: page.extract_text() or "" for number, page in enumerate(reader.pages, start=1)}
        scanned = [number for number, text in texts.items() if not text.strip()]
        if len(scanned) > MAX_OCR_PAGES:
            raise InvalidInput(f"{shown} has {len(scanned)} pages without text; docchat reads at most "
                               f"{MAX_OCR_PAGES} by OCR")
        tables = _tables(data, [number for number in texts if number not in scanned])
        if scanned:
            texts.update(scans.scanned_texts(shown, data, scanned, len(texts), progress))
        return Read([Section(f"page {number}", number, text) for number, text in texts.items()], tables=tables)
    except (InvalidInput, MemoryError):
        raise  # out of memory is the isolation's to report (documents/isolated.py)
    except Exception:
        # Damaged PDFs fail in many ways (PdfReadError, KeyError, ValueError, zlib errors...);
        # the user needs to know only that this file cannot be read.
        raise InvalidInput(f"{shown} is not a readable PDF (it may be damaged)") from None


def _tables(data: bytes, pages: list[int]) -> tuple[SheetTable, ...]:
    from docchat.documents.pdf_tables import pdf_tables

    try:
        found = pdf_tables(data, pages)
    except Exception:
        # pdfminer reads some files pypdf reads (and the reverse) differently; a table it cannot
        # find costs the figures over it, not the document's text.
        log.warning("the tables of a PDF could not be read", exc_info=True)
        return ()
    tables = []
    for table in found:
        first, last = table.pages[0], table.pages[-1]
        name = f"Pages {first}-{last} table" if last > first else f"Page {first} table"
        made = grid_table(name + (f" {table.on_page}" if table.on_page > 1 else ""), table.grid)
        if made is not None:
            tables.append(made)
    return tuple(tables)


def _opens_without_password(reader: PdfReader) -> bool:
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False


KINDS = (Kind("pdf", (".pdf",), read_pdf, by_pages=True),)
