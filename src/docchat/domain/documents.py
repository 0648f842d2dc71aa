"""Documents, their chunks, and the passages found for a question."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from docchat.domain.conversations import Citation


def content_hash(data: bytes) -> str:
    """What names a file's content in the library: the sha256 of its bytes, as 64 lowercase hex
    digits. The same content is one document, and is stored once."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Section:
    """A part of a document as its parser read it: a page, a heading's section, a run of text."""

    label: str
    page: int | None
    text: str


@dataclass(frozen=True)
class Attachment:
    """A file that came inside another (a mail's attachment), of a kind the library reads."""

    name: str
    data: bytes


# The kinds of document whose sheets or tables are kept as tables: docchat.documents.kinds.sheets'
# kinds, Word documents, presentations, web pages, Markdown (its pipe tables), PDF, e-books and mail.
TABLE_KINDS = frozenset({"xlsx", "ods", "csv", "tsv", "docx", "pptx", "html", "markdown", "pdf", "epub", "email",
                         "outlook"})
# A Markdown pipe table's delimiter row: `| --- | :---: |`, or `--- | ---` without the outer bars.
PIPE_DELIMITER = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")


def quoted(name: str) -> str:
    """A kept table's column name as an SQL identifier (a NUL, which no statement may hold, as U+FFFD)."""
    return '"' + name.replace("\0", "\ufffd").replace('"', '""') + '"'


def has_pipe_table(data: bytes) -> bool:
    """Whether a Markdown file's text has a pipe table's delimiter row (a cheap look, no parse)."""
    text = data.decode("utf-8", errors="replace")
    return "|" in text and any(PIPE_DELIMITER.fullmatch(line) for line in text.splitlines())


class RowKind(StrEnum):
    ROW = "row"
    SUBTOTAL = "subtotal"  # adds up rows above it: left out of any figure computed over the sheet
    TOTAL = "total"


class ColumnType(StrEnum):
    INTEGER = "integer"
    REAL = "real"
    DATE = "date"
    TEXT = "text"


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    # The currency or unit every number of the column is written with ("$", "NOK", "km", "%"), else "".
    unit: str = ""
    # What a column of text writes for no value ("NA", "n/a"): kept as written, stored as none.
    blanks: frozenset[str] = frozenset()


@dataclass(frozen=True)
class TableRow:
    """One row of a sheet, by the number the spreadsheet shows it under, its cells as shown (one
    per column, "" for an empty one), and whether it is a row of data or one that totals others."""

    number: int
    cells: tuple[str, ...]
    kind: RowKind = RowKind.ROW


@dataclass(frozen=True)
class SheetTable:
    """A sheet read as a table: its header's columns typed by their values, and its rows."""

    sheet: str
    columns: tuple[Column, ...]
    header_row: int
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class TableShape:
    """A sheet kept as a table: the SQL table it is queried as, and its columns (name, type)."""

    document_id: str
    sheet: str
    table: str
    columns: tuple[tuple[str, str], ...]
    rows: int
    units: tuple[str, ...] = ()  # each column's unit (Column.unit), in the order of `columns`

    def unit(self, column: str | None) -> str:
        """The unit a column's numbers are written with; "" for none, or no such column."""
        names = [name for name, _ in self.columns]
        return self.units[names.index(column)] if column in names and len(self.units) == len(names) else ""


@dataclass(frozen=True)
class QueryResult:
    """What a read-only query over kept tables gave."""

    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    truncated: bool  # more rows than asked for were there
    read: frozenset[str] = frozenset()  # the tables the query read


@dataclass(frozen=True)
class ParsedDocument:
    name: str
    kind: str
    sections: list[Section]
    # Files inside it that become documents of their own (a mail's attachments).
    attachments: tuple[Attachment, ...] = ()
    # A spreadsheet's sheets as tables, beside their sections (docchat.tables.reading).
    tables: tuple[SheetTable, ...] = ()


class DocumentStatus(StrEnum):
    INGESTING = "ingesting"  # its chunks are being embedded; not searched yet
    READY = "ready"
    REMOVING = "removing"  # its vectors, rows and file are going; not searched any more


@dataclass(frozen=True)
class Document:
    id: str
    name: str
    kind: str
    path: str
    size: int
    content_hash: str
    pages: int | None
    chunks: int
    status: DocumentStatus
    added_at: datetime


@dataclass(frozen=True)
class IngestReport:
    """A file added to the library, or found there already (same content): then nothing changed.
    A mail's attachments of a kind the library reads come with it: each added or found already
    (`attached`), or refused, in one line each (`refused`)."""

    document: Document
    already_present: bool
    attached: tuple[IngestReport, ...] = ()
    refused: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChunkRecord:
    id: str
    document_id: str
    position: int
    label: str
    page: int | None
    text: str
    token_count: int
    # Where the chunk stands, "<document> › <section>": searched by its words beside the text,
    # never shown or given to the model (the citation says the same in its own words).
    heading: str = ""


def chunk_heading(document_name: str, label: str) -> str:
    """The heading a chunk is keyword-indexed under (migration 0009 writes the same for older chunks)."""
    return f"{document_name} › {label}"


@dataclass(frozen=True)
class Retrieved:
    """A chunk found for a question, with its document's name and its fused score, and what the
    evidence judgement reads of it: its cosine similarity to the question (None when the search
    by meaning did not find it) and the share of the question's content words it holds (counted
    for the best few of a ranking only, which is all the judgement reads; 0 beyond)."""

    chunk: ChunkRecord
    document: str
    score: float
    similarity: float | None = None
    coverage: float = 0.0

    @property
    def where(self) -> str:
        return f"page {self.chunk.page}" if self.chunk.page else self.chunk.label

    def citation(self, number: int, *, text: str | None = None) -> Citation:
        """What an answer keeps about a source it was given, numbered as the prompt numbers it."""
        chunk = self.chunk
        return Citation(number=number, document=self.document, where=self.where,
                        text=chunk.text if text is None else text, document_id=chunk.document_id,
                        chunk_id=chunk.id, page=chunk.page, section=chunk.label, score=round(self.score, 6))


@dataclass(frozen=True)
class SourceView:
    """A cited passage where it stands in its document, for the reader to check it: a PDF's
    page or an image drawn with the passage marked (on a scan, where OCR finds its words), or,
    for other formats, the passage's section with the cited part flagged; and the original
    file. Only the citation is left of a deleted document."""

    citation: Citation
    document: Document | None
    page_image: bytes | None = None
    marked: int = 0  # places the passage was found and marked on the page
    section: tuple[tuple[str, bool], ...] = ()  # (text, is the cited passage), in order
    original: bytes | None = None


@dataclass(frozen=True)
class DocumentUse:
    conversation_id: str
    title: str
    citations: int


@dataclass(frozen=True)
class Scope:
    """The documents a search is restricted to."""

    document_ids: tuple[str, ...]
