"""Word documents (.docx): one section per title or heading of level 1-3, labelled by it (text
before the first one is `beginning`); a table's rows as `cell | cell` lines, each merged cell
once. Each table with a row under its first is also read as a table figures are computed over
(`Table 1`, `Table 2`, … in the document's order; docchat.tables.reading). A document that
unpacks to far more than an upload may weigh (a zip bomb) is refused before it is read.
python-docx is imported when a document is parsed."""

from __future__ import annotations

import io
import re
import zipfile
from typing import TYPE_CHECKING

from docchat.documents.kinds import Kind, Read
from docchat.documents.text_reading import size, split_at_headings
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput
from docchat.tables.reading import grid_table

if TYPE_CHECKING:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

WORDS = "DOCX"
# A DOCX is a zip: refuse one that unpacks to far more than an upload may weigh (a zip bomb).
MAX_EXPANSION = 20


def read_docx(shown: str, data: bytes, max_bytes: int) -> Read:
    import docx
    from docx.table import Table

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(entry.file_size for entry in archive.infolist())
        if unpacked > MAX_EXPANSION * max_bytes:
            raise InvalidInput(f"{shown} unpacks to {size(unpacked)}, too much for a Word document")
        blocks: list[tuple[str | None, str]] = []
        tables: list[SheetTable | None] = []
        for block in docx.Document(io.BytesIO(data)).iter_inner_content():
            if isinstance(block, Table):
                blocks.append((None, _table_text(block)))
                # Every cell of the grid, a merged one in each column it spans, so the columns line up.
                tables.append(grid_table(f"Table {len(tables) + 1}",
                                         [[cell.text for cell in row.cells] for row in block.rows]))
            else:
                blocks.append((_heading(block), block.text))
    except (InvalidInput, MemoryError):
        raise
    except Exception:
        # zipfile, lxml and python-docx errors all mean the same thing to the user.
        raise InvalidInput(f"{shown} is not a readable Word document (.docx)") from None
    return Read(split_at_headings(blocks), tables=tuple(table for table in tables if table is not None))


def _heading(paragraph: Paragraph) -> str | None:
    """The heading text when the paragraph is a title or a level 1-3 heading."""
    style = getattr(paragraph.style, "name", "") or ""
    if style == "Title" or re.fullmatch(r"Heading [1-3]", style):
        return paragraph.text
    return None


def _table_text(table: Table) -> str:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            # Merged cells repeat in python-docx's grid; keep each once.
            if not cells or cell.text != cells[-1]:
                cells.append(cell.text)
        rows.append(" | ".join(cells))
    return "\n".join(rows)


KINDS = (Kind("docx", (".docx",), read_docx),)
