"""Any file under any name: ingested whole (a ready document, its chunks, its file where files
go), or refused on one line with nothing written, in the database or on disk.

Random bytes under every supported extension, valid files of every kind cut short or with bytes
changed, zip bombs dressed as DOCX, PPTX, XLSX and ODS, and names that try to climb out of the
documents folder.
"""

from __future__ import annotations

import hashlib
import io
import sqlite3
import struct
import zipfile
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import docx
import pytest
from fpdf import FPDF
from hypothesis import given
from hypothesis import strategies as st

from docchat.documents.registry import SUFFIXES
from docchat.domain import DocumentStatus
from docchat.text import lone_surrogate

from tests.fuzz.checks import database_rows, examples, files_under, one_line, outcome, refusal
from tests.fuzz.texts import hostile_text
from tests.hostile_files import MB, zip_bomb
from tests.office_files import delimited, ods_of, pptx_of, titled, xlsx_of
from tests.scanned_files import encoded, page_image

EXTENSIONS = sorted(SUFFIXES) + [".PDF", ".Docx", ".TXT", ".exe", ".json", ".zip", ".pdf.exe", ""]
# Names that try to leave the documents folder, hide, or overflow a file name.
HOSTILE_NAMES = [
    "../../../etc/passwd", "..\\..\\Windows\\System32\\evil", "/etc/cron.d/evil", "C:\\Users\\evil",
    "..", ".", "", " ", "...", "./.hidden", "a/../../b", "notes\x00.pdf", "\x00", "%2e%2e%2fescape",
    "\u202egnp.exe", "con", "NUL", "trust agreement\n2024", "x" * 1000, "é" * 600, "📄" * 300,
    "~/.ssh/authorized_keys", "//server/share/evil", "\\\\?\\C:\\evil",
]


def _pdf() -> bytes:
    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 3, 12, tzinfo=timezone.utc))
    for text in ("Harbour Street Trust Agreement, dated 12 March 2024.",
                 "The Determination Date is the 15th calendar day of each month."):
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


def _docx() -> bytes:
    document = docx.Document()
    document.add_heading("Harbour Street Trust Agreement", level=1)
    document.add_paragraph("The Determination Date is the 15th calendar day of each month.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Account", "Reserve"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


VALID = {
    ".pdf": _pdf(),
    ".docx": _docx(),
    ".md": "# Harbour Street Trust\n\nThe Determination Date is the 15th.\n".encode(),
    ".txt": "Harbour Street Trust\n\nThe Reserve Account covers shortfalls.\n".encode(),
    ".html": b"<html><head><meta charset='utf-8'><title>Trust</title></head><body><h1>Trust</h1>"
             b"<p>The Determination Date is the 15th.</p></body></html>",
    ".pptx": pptx_of(titled("Harbour Street Trust", "The Determination Date is the 15th.", notes="Say it twice.")),
    ".xlsx": xlsx_of({"Dates": [["Date", "Day"], ["Determination Date", 15], ["Payment Date", 25]]}),
    ".ods": ods_of({"Dates": [["Date", "Day"], ["Determination Date", 15], ["Payment Date", 25]]}),
    ".csv": delimited([["Date", "Day"], ["Determination Date", 15], ["Payment Date", 25]]),
    ".tsv": delimited([["Date", "Day"], ["Determination Date", 15], ["Payment Date", 25]], "\t"),
    # A scanned line, read by OCR: a PNG's chunks are checksummed, a JPEG's are not.
    ".png": encoded(page_image(["The Determination Date is the 15th."]), "PNG"),
    ".jpg": encoded(page_image(["The Determination Date is the 15th."]), "JPEG", quality=80),
}


@pytest.fixture(scope="module")
def library(fuzz_services, fuzz_root):
    return fuzz_services.ingestion, fuzz_root


def _sql(data_dir: Path, statement: str, *params) -> list[tuple]:
    with closing(sqlite3.connect(data_dir / "docchat.db")) as db:
        return db.execute(statement, params).fetchall()


def upload(library, name: str, data: bytes):
    """Adds the file; checks a refusal is one line that wrote nothing, and what every outcome must
    leave: files only in the documents folder, stored by content, and no document without chunks."""
    ingestion, root = library
    data_dir = root / "data"
    before, files_before = database_rows(data_dir), files_under(root)
    try:
        report = ingestion.add(name, data)
    except Exception as error:  # anything but docchat's own error fails in one_line
        outcome(refusal(one_line(error)))
        assert database_rows(data_dir) == before, "a refused upload changed the database"
        assert files_under(root) == files_before, "a refused upload left a file behind"
        report = None
    else:
        outcome("already in the library" if report.already_present else "ingested")
        document = report.document
        assert document.status is DocumentStatus.READY and document.chunks > 0
        stored = data_dir / document.path
        assert stored.read_bytes() == data
    _check_the_library(root)
    return report


def _check_the_library(root: Path) -> None:
    data_dir = root / "data"
    assert all(path.startswith("data/") for path in files_under(root)), "a file was written outside the data dir"
    for path in files_under(data_dir / "documents") if (data_dir / "documents").exists() else ():
        folder, name = path.split("/")
        digest = hashlib.sha256((data_dir / "documents" / path).read_bytes()).hexdigest()
        assert folder == digest[:2] and name.startswith(f"{digest}-") and not name.endswith(".part"), path
    assert _sql(data_dir, "SELECT d.id FROM documents d LEFT JOIN chunks c ON c.document_id = d.id "
                          "GROUP BY d.id HAVING COUNT(c.id) = 0 OR COUNT(c.id) != MAX(d.chunks)") == []
    assert _sql(data_dir, "SELECT id FROM documents WHERE status != 'ready'") == []


@examples(200)
@given(data=st.one_of(st.binary(max_size=3000), hostile_text(max_size=400).map(lambda t: t.encode("utf-8"))),
       extension=st.sampled_from(EXTENSIONS))
def test_any_bytes_under_any_extension_are_ingested_or_refused_on_one_line(library, data, extension):
    upload(library, f"Harbour Street Trust{extension}", data)


@examples(100)
@given(extension=st.sampled_from(sorted(VALID)), cut=st.floats(0, 1, exclude_max=True))
def test_a_valid_file_cut_short_anywhere_is_ingested_or_refused_on_one_line(library, extension, cut):
    data = VALID[extension]

    upload(library, f"Harbour Street Trust{extension}", data[: int(len(data) * cut)])


@examples(120)
@given(extension=st.sampled_from(sorted(VALID)),
       changes=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8))
def test_a_valid_file_with_bytes_changed_is_ingested_or_refused_on_one_line(library, extension, changes):
    data = bytearray(VALID[extension])
    for where, value in changes:
        data[int(len(data) * where)] = value

    upload(library, f"Harbour Street Trust{extension}", bytes(data))


@examples(120)
@given(name=st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=300), hostile_text(max_size=300)),
       extension=st.sampled_from([".txt", ".md", ".TXT", ""]))
def test_no_name_places_a_file_outside_the_documents_folder(library, name, extension):
    data = f"Harbour Street Trust note for {name!r}: the Determination Date is the 15th.".encode("utf-8", "replace")

    report = upload(library, name + extension, data)

    if report is not None and not report.already_present:
        # A NUL in a name is read as U+FFFD, as no database column holds it (docchat.text).
        assert report.document.name == (name + extension).replace("\x00", "\ufffd")
        stored = Path(report.document.path)
        assert stored.parts[0] == "documents" and len(stored.parts) == 3
        assert len(stored.name.encode("utf-8")) <= 255


@examples(30)
@given(name=st.sampled_from(HOSTILE_NAMES) | st.text(max_size=40), character=st.characters(categories=["Cs"]))
def test_a_name_that_is_not_valid_unicode_is_refused_on_one_line(library, name, character):
    report = upload(library, f"{name}{character}.txt", b"The Determination Date is the 15th.")

    assert report is None


def _pdf_with_font_map(code_units: list[int]) -> bytes:
    """A one-page PDF whose font says its letter A stands for these UTF-16 code units (as a
    ToUnicode map may, rightly or not), and whose page shows AAA."""
    target = "".join(f"{unit:04X}" for unit in code_units).encode()
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Fuzz def "
            b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <" + target + b"> endbfchar "
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    content = b"BT /F1 12 Tf 72 720 Td (AAA) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>stream\n%s\nendstream" % (len(content), content),
        b"<< /Length %d >>stream\n%s\nendstream" % (len(cmap), cmap),
    ]
    pdf, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    return bytes(pdf)


@examples(40)
@given(code_units=st.lists(st.one_of(st.integers(0xD800, 0xDFFF), st.integers(0, 0xFFFF)), min_size=1, max_size=3))
def test_a_pdf_whose_font_maps_a_letter_to_anything_is_ingested_or_refused_on_one_line(library, code_units):
    # A lone surrogate among them once reached the tokenizer and the store, which cannot encode it.
    report = upload(library, "Harbour Street Trust (broken fonts).pdf", _pdf_with_font_map(code_units))

    if report is not None:
        [(text,)] = _sql(library[1] / "data", "SELECT text FROM chunks WHERE document_id = ?", report.document.id)
        assert lone_surrogate(text) is None


# zip bombs dressed as Word documents


def _docx_with(parts, *, declared_size: int | None = None) -> bytes:
    """The valid DOCX with word/document.xml made of `parts` (written one by one, so a gigabyte
    never sits in memory); `declared_size`: what the zip claims it unpacks to."""
    source = zipfile.ZipFile(io.BytesIO(VALID[".docx"]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for info in source.infolist():
            if info.filename == "word/document.xml":
                with archive.open("word/document.xml", "w", force_zip64=True) as entry:
                    for part in parts:
                        entry.write(part)
            else:
                archive.writestr(info, source.read(info))
    data = buffer.getvalue()
    return data if declared_size is None else _declare(data, "word/document.xml", declared_size)


def _declare(data: bytes, member: str, size: int) -> bytes:
    """The zip with `member`'s uncompressed size rewritten in its local header's zip64 field and
    in its central directory entry (the size readers trust)."""
    data = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(member)
    extras = _zip64_sizes(data, info.header_offset + 30 + len(member.encode()))
    if extras is not None:
        data[extras: extras + 8] = struct.pack("<Q", size)
    entry = data.find(b"PK\x01\x02")
    while entry != -1:
        name_length, extra_length = struct.unpack("<HH", data[entry + 28: entry + 32])
        if data[entry + 46: entry + 46 + name_length] == member.encode():
            central = _zip64_sizes(data, entry + 46 + name_length) if extra_length else None
            if central is None:
                data[entry + 24: entry + 28] = struct.pack("<I", size)
            else:
                data[central: central + 8] = struct.pack("<Q", size)
            return bytes(data)
        entry = data.find(b"PK\x01\x02", entry + 4)
    raise AssertionError(f"{member} not in the central directory")


def _zip64_sizes(data: bytearray, extra_start: int) -> int | None:
    """Where the zip64 extra field that starts at `extra_start` keeps the uncompressed size."""
    header_id, _ = struct.unpack("<HH", data[extra_start: extra_start + 4])
    return extra_start + 4 if header_id == 0x0001 else None


MEGABYTE = b" " * (1024 * 1024)


def _bomb_xml(megabytes: int):
    yield (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
           b'<w:p><w:r><w:t>The Determination Date is the 15th.</w:t></w:r></w:p>')
    for _ in range(megabytes):
        yield MEGABYTE
    yield b"</w:body></w:document>"


def test_a_docx_that_unpacks_to_a_gigabyte_is_refused_before_it_is_unpacked(library):
    bomb = _docx_with(_bomb_xml(1100))
    assert len(bomb) < 10 * 1024 * 1024

    assert upload(library, "Harbour Street Trust.docx", bomb) is None


def test_a_docx_that_lies_about_how_much_it_unpacks_to_is_refused(library):
    liar = _docx_with(_bomb_xml(64), declared_size=4096)

    assert upload(library, "Harbour Street Trust.docx", liar) is None


def test_a_docx_of_nested_entities_is_not_expanded(library):
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + b"".join(b'<!ENTITY lol%d "%s">' % (n, (b"&lol%d;" % (n - 1) if n > 1 else b"&lol;") * 10)
                         for n in range(1, 10))
              + b']><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
                b'<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>')

    report = upload(library, "Harbour Street Trust.docx", _docx_with([laughs]))

    if report is not None:
        assert report.document.chunks < 10


# zip bombs dressed as slides and spreadsheets: the valid file with its main part replaced

MAIN_PART = {".pptx": "ppt/slides/slide1.xml", ".xlsx": "xl/worksheets/sheet1.xml", ".ods": "content.xml"}


def _bomb_of(extension: str, size: int, *, declared: int | None = None) -> bytes:
    valid = zipfile.ZipFile(io.BytesIO(VALID[extension]))
    others = {info.filename: valid.read(info) for info in valid.infolist() if info.filename != MAIN_PART[extension]}
    return zip_bomb(MAIN_PART[extension], size, declared=declared, also=others)


@pytest.mark.parametrize("extension", sorted(MAIN_PART))
def test_slides_or_a_spreadsheet_that_unpack_to_a_gigabyte_are_refused_before_they_are_unpacked(library, extension):
    bomb = _bomb_of(extension, 1100 * MB)
    assert len(bomb) < 10 * MB

    assert upload(library, f"Harbour Street Trust{extension}", bomb) is None


@pytest.mark.parametrize("extension", sorted(MAIN_PART))
def test_slides_or_a_spreadsheet_that_lie_about_how_much_they_unpack_to_are_refused(library, extension):
    assert upload(library, f"Harbour Street Trust{extension}", _bomb_of(extension, 64 * MB, declared=4096)) is None
