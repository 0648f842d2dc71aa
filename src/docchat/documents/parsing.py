"""Turning an uploaded file into text sections that a citation can point at.

Invariants:
- `parse` returns a document with at least one section, and no section is blank.
- Bad input of any kind (wrong type, empty, too large, damaged, encrypted, binary, no text, a
  name that is not valid Unicode) raises `InvalidInput` with one line naming the file; no
  parser exception escapes but MemoryError, which the worker that runs this reports.
- Nothing here fetches anything: remote images, stylesheets and scripts of HTML, external
  relationships and entities of DOCX, PPTX and XLSX are never followed (tests hold a listener to
  that).
- Nothing here limits time or memory: a hostile file can make a parser loop or allocate without
  bound. The app parses in worker processes that do (docchat.documents.isolated).
- Each kind's sections and refusals are its module's (docchat.documents.kinds): PDF pages, a
  heading's sections, slides, a sheet's rows, an e-book's chapters, a mail and its attachments,
  code's definitions, images read by OCR. A mail's attachments of a kind docchat reads come back
  whole in `attachments`, for ingestion to make documents of their own.
- OCR is slow (about a second a page): `parse` tells `progress(page, pages)` before each page
  a kind read by pages reads by OCR, which the worker passes on to the app
  (docchat.documents.isolated).

Each format's library is imported when a file of that kind is parsed: together they take about
half a second to import, which a command that only answers questions would pay for nothing.
"""

from __future__ import annotations

import re
import unicodedata

from docchat.documents.kinds import PageProgress, Read
from docchat.documents.registry import READABLE, kind_of, reads
from docchat.documents.text_reading import BEGINNING, MB, size
from docchat.domain import ParsedDocument, Section
from docchat.errors import InvalidInput
from docchat.text import NUL, one_line, require_storable, with_replacement_characters

__all__ = ["MAX_BYTES", "READABLE", "InProcessParser", "ParsedDocument", "parse", "reads", "shown_name"]

MAX_BYTES = 50 * MB
MAX_LABEL_CHARS = 120


def parse(name: str, data: bytes, *, max_bytes: int = MAX_BYTES,
          progress: PageProgress | None = None) -> ParsedDocument:
    """The document's text in sections, or InvalidInput saying why it cannot be indexed. Its
    name is `name` with any NUL made U+FFFD: no database column holds NUL, and the name came
    with the file, so it is read like the text is (see docchat.text). `progress(page, pages)` is
    told before each page read by OCR."""
    name = name.replace(NUL, "\ufffd")
    require_storable(name, f'the file name "{one_line(name)}"')
    shown = shown_name(name)
    kind = kind_of(name)
    if kind is None:
        raise InvalidInput(f"{shown} is not a supported type; docchat reads {READABLE}")
    if not data:
        raise InvalidInput(f"{shown} is empty")
    if len(data) > max_bytes:
        raise InvalidInput(f"{shown} is {size(len(data))}; the limit is {size(max_bytes)}")
    read = kind.parse(shown, data, max_bytes, progress) if kind.by_pages else kind.parse(shown, data, max_bytes)
    if not isinstance(read, Read):
        read = Read(read)
    raw = read.sections
    sections = [
        Section(_label(section.label), section.page, text)
        for section in raw
        if (text := _clean(section.text))
    ]
    if not sections:
        raise InvalidInput(f"{shown} has no text to index" + (" (no text found by OCR)" if kind.by_pages else ""))
    return ParsedDocument(name=name, kind=kind.name, sections=sections, attachments=read.attachments,
                          tables=read.tables)


class InProcessParser:
    """`parse` in the caller's own process, as a Parser: for tests, and for commands that never
    parse. The app isolates parsing (docchat.documents.isolated)."""

    def parse(self, name: str, data: bytes, *, max_bytes: int = MAX_BYTES,
              progress: PageProgress | None = None) -> ParsedDocument:
        return parse(name, data, max_bytes=max_bytes, progress=progress)

    def reads(self, name: str) -> bool:
        return reads(name)

    def kinds_in_words(self) -> str:
        return READABLE

    def close(self) -> None:
        pass


def _clean(text: str) -> str:
    """Text with invisible control characters removed, trailing spaces and extra blank lines gone,
    and what no store can hold (a lone surrogate, from a PDF's broken font map) replaced."""
    text = with_replacement_characters(text).replace("\r\n", "\n").replace("\r", "\n")
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _label(label: str) -> str:
    # A heading's control characters (a stray NUL) would be stored with it and shown in citations.
    label = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in label)
    label = re.sub(r"\s+", " ", label).strip() or BEGINNING
    return label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1].rstrip() + "…"


def shown_name(name: str) -> str:
    """The file name as it can appear in a one-line message."""
    name = re.sub(r"[\x00-\x1f\x7f]+", " ", name).strip()
    return f'"{name[:80]}…"' if len(name) > 80 else f'"{name}"'
