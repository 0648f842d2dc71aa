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
- PDFs give one section per page (`page N`); a page without a text layer (scanned) is read by
  OCR, page by page, so a PDF mixing text and scanned pages is read per page
  (docchat.documents.scans). DOCX, Markdown and HTML give one section per
  heading of level 1-3 (the label is the heading; text before the first one is `beginning`);
  plain text gives sections of blank-line-separated blocks labelled by their lines.
- Slides (PPTX) give one section per slide, labelled `slide N: <its title>` (`slide N` without
  one), with its text and its speaker notes (docchat.documents.slides).
- Spreadsheets (XLSX, ODS, CSV, TSV) give sections of a sheet's rows, labelled by the sheet and
  the rows (`Inventory, rows 2-19`); each starts with the sheet's header row, and each value in it
  carries its column's header (docchat.documents.sheets). A CSV or TSV file is one sheet named
  after the file. Zip-based files (DOCX, PPTX, XLSX, ODS) that unpack to far more than an upload
  may weigh are refused before they are unpacked.
- E-books (EPUB) give one section per chapter of the spine, labelled by the book's table of
  contents, else the chapter's first heading, else `chapter N` (docchat.documents.ebooks).
- Mail (EML, Outlook's MSG) gives a first section labelled by the subject (`message` without one)
  holding From, To, Cc, Date, Subject and the attachments' names before the body, and more
  sections for a long body (docchat.documents.mail). Its attachments of a kind docchat reads come
  back whole in `attachments`, for ingestion to make documents of their own.
- Source code gives a section per top-level definition with its lines (`def parse (lines 56-90)`),
  the lines between being `module` / `top level`; a notebook one per cell (`cell 3: code`)
  (docchat.documents.code_files).
- Images (PNG, JPEG, TIFF, WebP) are read by OCR: one section per image, labelled `page 1`, or
  per frame of a multi-page TIFF, `page N` (docchat.documents.images). OCR is Debian's
  tesseract-ocr, run as a program (docchat.documents.ocr); without it, an image or a scanned
  page is refused in one line saying so.
- OCR is slow (about a second a page): `parse` tells `progress(page, pages)` before each page
  it reads by OCR, which the worker passes on to the app (docchat.documents.isolated).

Each format's library is imported when a file of that kind is parsed: together they take about
half a second to import, which a command that only answers questions would pay for nothing.
"""

from __future__ import annotations

import io
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterable
from pathlib import PurePath

from docchat.documents import code_files, ebooks, images, mail, scans, sheets, slides
from docchat.documents.images import PageProgress
from docchat.documents.readable import READABLE
from docchat.domain import ParsedDocument, Section
from docchat.errors import InvalidInput
from docchat.text import NUL, one_line, require_storable, with_replacement_characters

MB = 1024 * 1024
MAX_BYTES = 50 * MB
KINDS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".ods": "ods",
    ".csv": "csv",
    ".tsv": "tsv",
    **ebooks.KINDS,
    **mail.KINDS,
    **code_files.KINDS,
    **images.KINDS,
}
# READABLE says these kinds in words (the page, the API, the CLI): a kind added here is added there.
BEGINNING = "beginning"
MAX_LABEL_CHARS = 120
# A stray byte from another encoding, or a stray NUL, is forgiven; more of either than this
# share means "not text".
MAX_STRAY_BYTE_SHARE = 0.001
MIN_STRAY_BYTES_ALLOWED = 4
# A DOCX is a zip: refuse one that unpacks to far more than an upload may weigh (a zip bomb).
MAX_DOCX_EXPANSION = 20
# Plain text is grouped into sections of about this many characters, at blank lines.
TEXT_SECTION_CHARS = 4000


def reads(name: str) -> bool:
    """Whether a file of this name is of a kind docchat reads (by its suffix)."""
    return PurePath(name.replace("\\", "/")).suffix.lower() in KINDS


def parse(name: str, data: bytes, *, max_bytes: int = MAX_BYTES,
          progress: PageProgress | None = None) -> ParsedDocument:
    """The document's text in sections, or InvalidInput saying why it cannot be indexed. Its
    name is `name` with any NUL made U+FFFD: no database column holds NUL, and the name came
    with the file, so it is read like the text is (see docchat.text). `progress(page, pages)` is
    told before each page read by OCR."""
    name = name.replace(NUL, "\ufffd")
    require_storable(name, f'the file name "{one_line(name)}"')
    shown = shown_name(name)
    kind = KINDS.get(PurePath(name.replace("\\", "/")).suffix.lower())
    if kind is None:
        raise InvalidInput(f"{shown} is not a supported type; docchat reads {READABLE}")
    if not data:
        raise InvalidInput(f"{shown} is empty")
    if len(data) > max_bytes:
        raise InvalidInput(f"{shown} is {_size(len(data))}; the limit is {_size(max_bytes)}")
    if kind in _READ_BY_PAGES:
        read = _READ_BY_PAGES[kind](shown, data, max_bytes, progress)
    else:
        read = _PARSERS[kind](shown, data, max_bytes)
    raw, attachments = read if isinstance(read, tuple) else (read, ())  # a mail hands back its attachments
    sections = [
        Section(_label(section.label), section.page, text)
        for section in raw
        if (text := _clean(section.text))
    ]
    if not sections:
        raise InvalidInput(f"{shown} has no text to index" + (" (no text found by OCR)" if kind in _READ_BY_PAGES
                                                                else ""))
    return ParsedDocument(name=name, kind=kind, sections=sections, attachments=attachments)


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


def _pdf(shown: str, data: bytes, max_bytes: int, progress: PageProgress | None = None) -> list[Section]:
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
        if len(scanned) > images.MAX_OCR_PAGES:
            raise InvalidInput(f"{shown} has {len(scanned)} pages without text; docchat reads at most "
                               f"{images.MAX_OCR_PAGES} by OCR")
        if scanned:
            texts.update(scans.scanned_texts(shown, data, scanned, len(texts), progress))
        return [Section(f"page {number}", number, text) for number, text in texts.items()]
    except (InvalidInput, MemoryError):
        raise  # out of memory is the isolation's to report (documents/isolated.py)
    except Exception:
        # Damaged PDFs fail in many ways (PdfReadError, KeyError, ValueError, zlib errors...);
        # the user needs to know only that this file cannot be read.
        raise InvalidInput(f"{shown} is not a readable PDF (it may be damaged)") from None


def _opens_without_password(reader) -> bool:
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False


def _docx(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    import docx
    from docx.table import Table

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(entry.file_size for entry in archive.infolist())
        if unpacked > MAX_DOCX_EXPANSION * max_bytes:
            raise InvalidInput(f"{shown} unpacks to {_size(unpacked)}, too much for a Word document")
        blocks = []
        for block in docx.Document(io.BytesIO(data)).iter_inner_content():
            if isinstance(block, Table):
                blocks.append((None, _table_text(block)))
            else:
                blocks.append((_docx_heading(block), block.text))
    except (InvalidInput, MemoryError):
        raise
    except Exception:
        # zipfile, lxml and python-docx errors all mean the same thing to the user.
        raise InvalidInput(f"{shown} is not a readable Word document (.docx)") from None
    return _split_at_headings(blocks)


def _docx_heading(paragraph) -> str | None:
    """The heading text when the paragraph is a title or a level 1-3 heading."""
    style = getattr(paragraph.style, "name", "") or ""
    if style == "Title" or re.fullmatch(r"Heading [1-3]", style):
        return paragraph.text
    return None


def _table_text(table) -> str:
    rows = []
    for row in table.rows:
        cells = []
        for cell in row.cells:
            # Merged cells repeat in python-docx's grid; keep each once.
            if not cells or cell.text != cells[-1]:
                cells.append(cell.text)
        rows.append(" | ".join(cells))
    return "\n".join(rows)


def _markdown(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    blocks = []
    fence = None
    for line in _decode(shown, data).splitlines():
        marker = re.match(r"\s*(```|~~~)", line)
        if marker and fence in (None, marker.group(1)):
            # A `#` inside a fenced code block is a comment, not a heading.
            fence = None if fence else marker.group(1)
        heading = None if fence else re.match(r" {0,3}#{1,3}\s+(.*?)(?:\s+#+)?\s*$", line)
        blocks.append((heading.group(1) if heading else None, line))
    return _split_at_headings(blocks, separator="\n")


def _text(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    lines = _decode(shown, data).splitlines()
    sections: list[Section] = []
    first = 0
    size = 0
    for number, line in enumerate(lines):
        size += len(line) + 1
        last = number == len(lines) - 1
        if last or (not line.strip() and size >= TEXT_SECTION_CHARS):
            sections.append(_lines_section(lines, first, number))
            first, size = number + 1, 0
    return sections


def _lines_section(lines: list[str], first: int, last: int) -> Section:
    return Section(f"lines {first + 1}-{last + 1}", None, "\n".join(lines[first : last + 1]))


def _html(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    from bs4 import BeautifulSoup, NavigableString, Tag
    from bs4.element import PreformattedString

    _refuse_binary(shown, data)
    # Bytes, not str: BeautifulSoup honours the page's declared charset.
    soup = BeautifulSoup(data, "html.parser")
    for hidden in soup.find_all(["script", "style", "noscript", "template"]):
        hidden.decompose()
    blocks: list[tuple[str | None, str]] = []
    parts: list[str] = []
    for element in soup.descendants:
        if isinstance(element, Tag) and element.name in _HTML_HEADINGS:
            blocks.append((None, "".join(parts)))
            blocks.append((element.get_text(" ", strip=True), ""))
            parts = []
        elif isinstance(element, Tag) and element.name == "br":
            parts.append("\n")
        elif isinstance(element, Tag) and element.name in _HTML_BLOCKS:
            parts.append("\n\n")
        elif isinstance(element, NavigableString) and not isinstance(element, PreformattedString):
            # Comments, doctypes and CDATA are PreformattedStrings: markup, not text.
            parts.append(re.sub(r"\s+", " ", str(element)))
    blocks.append((None, "".join(parts)))
    return _split_at_headings(blocks)


_HTML_HEADINGS = {"h1", "h2", "h3"}
_HTML_BLOCKS = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption",
    "footer", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre",
    "section", "table", "td", "th", "tr", "ul",
}  # fmt: skip


def _split_at_headings(blocks: Iterable[tuple[str | None, str]], separator: str = "\n\n") -> list[Section]:
    """Sections from (heading or None, text) blocks; a heading starts a section and leads its text."""
    sections = []
    label, texts = BEGINNING, []
    for heading, text in blocks:
        if heading is not None:
            sections.append(Section(label, None, separator.join(texts)))
            label, texts = heading, []
        texts.append(text)
    sections.append(Section(label, None, separator.join(texts)))
    return sections


def _decode(shown: str, data: bytes) -> str:
    _refuse_binary(shown, data)
    text = data.decode("utf-8-sig", errors="replace")
    invalid = text.count("\ufffd") - data.count("\ufffd".encode())
    if invalid > _stray_bytes_allowed(data):
        raise InvalidInput(f"{shown} is not UTF-8 text (is it a binary file with a text extension?)")
    return text


def _refuse_binary(shown: str, data: bytes) -> None:
    # Binaries (and UTF-16, which we do not read) are full of NUL; text has none, or a stray one
    # forgiven like a stray undecodable byte (then dropped with the other control characters).
    if data.count(b"\x00") > _stray_bytes_allowed(data):
        raise InvalidInput(f"{shown} looks like a binary file, not text")


def _stray_bytes_allowed(data: bytes) -> float:
    return max(MIN_STRAY_BYTES_ALLOWED, len(data) * MAX_STRAY_BYTE_SHARE)


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


def _size(count: int) -> str:
    for unit, scale in (("MB", MB), ("KB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


_PARSERS: dict[str, Callable[[str, bytes, int], list[Section] | mail.Read]] = {
    "pdf": _pdf,
    "docx": _docx,
    "markdown": _markdown,
    "text": _text,
    "html": _html,
    "pptx": slides.pptx_sections,
    "xlsx": sheets.xlsx_sections,
    "ods": sheets.ods_sections,
    "csv": lambda shown, data, max_bytes: sheets.delimited_sections(shown, _decode(shown, data), None),
    "tsv": lambda shown, data, max_bytes: sheets.delimited_sections(shown, _decode(shown, data), "\t"),
    **ebooks.PARSERS,
    **mail.PARSERS,
    **code_files.PARSERS,
}
# The kinds read page by page by OCR, which tell progress as they go.
_READ_BY_PAGES: dict[str, Callable[[str, bytes, int, PageProgress | None], list[Section]]] = {
    "pdf": _pdf,
    "image": images.image_sections,
}
