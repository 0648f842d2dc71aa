"""Real files through the real parsers: PDF (fpdf2, pypdf), DOCX, HTML, Markdown, text.
Every fixture is made here; bad files must fail with InvalidInput and a one-line reason."""

from __future__ import annotations

import io
import random
import zipfile

import docx
import pytest
from fpdf import FPDF
from pypdf import PdfWriter

from docchat.documents import files
from docchat.documents.files import content_hash, store_file
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

PAGES = [
    "This Trust Deed is made between Harbour Trustees Ltd and the Unitholders.",
    "The Determination Date is the 15th of each calendar month.",
    "Either party may terminate this deed on ninety days written notice.",
]


def pdf_of(*pages: str) -> bytes:
    document = FPDF()
    document.set_font("Helvetica", size=12)
    for text in pages:
        document.add_page()
        if text:
            document.multi_cell(0, 10, text)
        else:
            # A page with a picture and no text, like a scan.
            document.rect(20, 20, 120, 160, style="F")
    return bytes(document.output())


def encrypted(pdf: bytes, *, user_password: str, owner_password: str | None = None) -> bytes:
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    writer.encrypt(user_password, owner_password=owner_password)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def docx_of(build) -> bytes:
    document = docx.Document()
    build(document)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def contract(document) -> None:
    document.add_paragraph("Agreement number 2024-117 between Alder & Finch and Polaris GmbH.")
    document.add_heading("Payment Terms", level=1)
    document.add_paragraph("Invoices are payable within thirty days of receipt.")
    document.add_heading("Termination", level=2)
    document.add_paragraph("Either party may terminate with ninety days notice.")


def reason(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


@pytest.fixture(scope="module")
def trust_deed_pdf() -> bytes:
    return pdf_of(*PAGES)


# PDF


def test_a_pdf_gives_one_section_per_page_labelled_with_its_number(trust_deed_pdf):
    document = parse("trust-deed.pdf", trust_deed_pdf)

    assert document.kind == "pdf"
    assert [(section.label, section.page) for section in document.sections] == [
        ("page 1", 1),
        ("page 2", 2),
        ("page 3", 3),
    ]


def test_the_determination_date_is_found_on_page_two_and_nowhere_else(trust_deed_pdf):
    sections = parse("trust-deed.pdf", trust_deed_pdf).sections

    assert [("Determination Date is the 15th" in section.text) for section in sections] == [False, True, False]


def test_a_blank_scanned_page_is_skipped_and_the_others_keep_their_numbers():
    document = parse("annex.pdf", pdf_of(PAGES[0], "", PAGES[2]))

    assert [section.page for section in document.sections] == [1, 3]


def test_a_pdf_with_no_text_at_all_even_by_ocr_is_refused_saying_so():
    with pytest.raises(InvalidInput) as error:
        parse("scan-0042.pdf", pdf_of("", ""))

    assert reason(error) == '"scan-0042.pdf" has no text to index (no text found by OCR)'


def test_a_text_file_of_blanks_is_refused_without_a_word_about_scans():
    with pytest.raises(InvalidInput) as error:
        parse("notes.md", b"  \n\t\n")

    assert reason(error) == '"notes.md" has no text to index'


def test_a_password_protected_pdf_is_refused(trust_deed_pdf):
    with pytest.raises(InvalidInput) as error:
        parse("board-minutes.pdf", encrypted(trust_deed_pdf, user_password="hunter2"))

    assert reason(error) == '"board-minutes.pdf" is password-protected'


def test_a_pdf_locked_only_by_an_owner_password_is_read(trust_deed_pdf):
    # Such PDFs restrict printing or copying but open for anyone, as in any viewer.
    locked = encrypted(trust_deed_pdf, user_password="", owner_password="publisher-secret")

    document = parse("locked.pdf", locked)

    assert "Determination Date is the 15th" in document.sections[1].text


def test_a_truncated_pdf_is_refused_as_damaged(trust_deed_pdf):
    with pytest.raises(InvalidInput) as error:
        parse("half-downloaded.pdf", trust_deed_pdf[: len(trust_deed_pdf) // 2])

    assert reason(error) == '"half-downloaded.pdf" is not a readable PDF (it may be damaged)'


# DOCX


def test_a_word_document_is_split_at_its_headings():
    document = parse("contract.docx", docx_of(contract))

    assert document.kind == "docx"
    assert [section.label for section in document.sections] == ["beginning", "Payment Terms", "Termination"]
    assert "thirty days" in document.sections[1].text
    assert "ninety days" in document.sections[2].text
    assert "ninety days" not in document.sections[1].text


def test_a_heading_leads_its_section_text_so_it_can_be_found():
    sections = parse("contract.docx", docx_of(contract)).sections

    assert sections[1].text.startswith("Payment Terms\n")


def test_a_word_table_is_read_row_by_row():
    def fee_schedule(document):
        document.add_heading("Fees", level=1)
        table = document.add_table(rows=2, cols=2)
        for row, (item, fee) in enumerate([("Late payment", "2% a month"), ("Reminder", "EUR 40")]):
            table.cell(row, 0).text, table.cell(row, 1).text = item, fee

    [section] = parse("fees.docx", docx_of(fee_schedule)).sections

    assert "Late payment | 2% a month\nReminder | EUR 40" in section.text


def test_each_word_table_with_rows_under_its_header_is_also_a_table_figures_are_computed_over():
    def report(document):
        document.add_paragraph("Revenue by region for 2025.")
        lone = document.add_table(rows=1, cols=2)
        lone.cell(0, 0).text, lone.cell(0, 1).text = "Prepared by", "Finance"
        table = document.add_table(rows=4, cols=3)
        for row, cells in enumerate([("Region", "Year", "Revenue"), ("North", "2025", "1,200.50"),
                                     ("South", "2025", "980"), ("Total", "", "2,180.50")]):
            for column, text in enumerate(cells):
                table.cell(row, column).text = text

    [revenue] = parse("report.docx", docx_of(report)).tables

    assert revenue.sheet == "Table 2"  # named in the document's order, the one-row table too
    assert [(c.name, c.type.value) for c in revenue.columns] == [
        ("Region", "text"), ("Year", "integer"), ("Revenue", "real")]
    assert [(r.number, r.kind.value) for r in revenue.rows] == [(2, "row"), (3, "row"), (4, "total")]


def test_a_text_file_renamed_to_docx_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("contract.docx", b"Invoices are payable within thirty days.")

    assert reason(error) == '"contract.docx" is not a readable Word document (.docx)'


def test_a_word_document_that_unpacks_to_far_more_than_the_limit_is_refused():
    buffer = io.BytesIO(docx_of(contract))
    with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/padding.bin", b"\0" * 4 * 1024 * 1024)

    with pytest.raises(InvalidInput) as error:
        parse("bomb.docx", buffer.getvalue(), max_bytes=100 * 1024)

    assert reason(error).startswith('"bomb.docx" unpacks to 4.')


# HTML


HTML_PAGE = b"""<!doctype html>
<html><head><title>Fund factsheet</title>
<style>body { font-family: TrackingFont; }</style>
<script>window.analyticsSecret = "sk-live-123";</script>
</head><body>
<noscript>Please enable JavaScript</noscript>
<p>Issued by <b>Harbour</b> Trustees.</p>
<!-- internal note: do not publish -->
<h2>Distributions</h2><p>Paid on the <em>Payment Date</em>.<br>Quarterly.</p>
<h3>Fees</h3><p>0.45% a year.</p>
</body></html>"""


def test_script_and_style_contents_never_reach_the_text():
    text = "\n".join(section.text for section in parse("factsheet.html", HTML_PAGE).sections)

    for hidden in ["sk-live-123", "analyticsSecret", "TrackingFont", "enable JavaScript", "internal note"]:
        assert hidden not in text


def test_html_is_split_at_its_h1_to_h3_headings():
    document = parse("factsheet.htm", HTML_PAGE)

    assert document.kind == "html"
    assert [section.label for section in document.sections] == ["beginning", "Distributions", "Fees"]
    assert document.sections[1].text == "Distributions\n\nPaid on the Payment Date.\nQuarterly."


def test_inline_html_tags_do_not_break_a_sentence_apart():
    assert "Issued by Harbour Trustees." in parse("factsheet.html", HTML_PAGE).sections[0].text


def test_a_web_page_s_tables_are_also_tables_a_spanning_cell_in_each_column_a_nested_table_apart():
    page = b"""<html><body><h1>Fleet</h1>
    <table><tr><th>Vessel</th><th>Port</th><th>Crew</th></tr>
      <tr><td>Skarv</td><td>Bergen</td><td>12</td></tr>
      <tr><td colspan="2">Ternen, laid up</td><td>0</td></tr>
      <tr><td>Total</td><td></td><td>12</td></tr>
      <tr><td>Notes</td><td><table><tr><td>inner</td></tr><tr><td>cell</td></tr></table></td><td></td></tr>
    </table></body></html>"""

    [fleet, inner] = parse("fleet.html", page).tables

    assert (fleet.sheet, [c.name for c in fleet.columns]) == ("Table 1", ["Vessel", "Port", "Crew"])
    assert [(r.cells, r.kind.value) for r in fleet.rows] == [
        (("Skarv", "Bergen", "12"), "row"), (("Ternen, laid up", "Ternen, laid up", "0"), "row"),
        (("Total", "", "12"), "total"), (("Notes", "inner cell", ""), "row")]
    assert (inner.sheet, [r.cells for r in inner.rows]) == ("Table 2", [("cell",)])


# Markdown and plain text


def test_markdown_is_split_at_its_headings():
    notes = b"# Trust Deed\nSigned 2024.\n\n## Determination Date\nThe 15th of each month.\n"

    document = parse("notes.md", notes)

    assert document.kind == "markdown"
    assert [section.label for section in document.sections] == ["Trust Deed", "Determination Date"]
    assert document.sections[1].text == "## Determination Date\nThe 15th of each month."


def test_a_hash_inside_a_code_fence_is_not_a_heading():
    readme = b"# Setup\n```bash\n# install the tools\npip install docchat\n```\n"

    assert [section.label for section in parse("README.markdown", readme).sections] == ["Setup"]


def test_short_plain_text_is_one_section_labelled_with_its_lines():
    [section] = parse("memo.txt", b"Meeting moved to Friday.\n\nBring the signed deed.\n").sections

    assert (section.label, section.page) == ("lines 1-3", None)
    assert section.text == "Meeting moved to Friday.\n\nBring the signed deed."


def test_long_plain_text_is_split_at_blank_lines():
    block = ("The Determination Date is the 15th of each month. " * 30).strip()
    text = "\n\n".join([block] * 6).encode()

    sections = parse("minutes.txt", text).sections

    assert len(sections) > 1
    assert all(set(section.text.split("\n\n")) == {block} for section in sections)
    assert sum(section.text.count(block) for section in sections) == 6


def test_an_extension_in_capitals_is_still_recognised():
    assert parse("MEMO.TXT", b"Board meets at noon.").kind == "text"


def test_a_stray_latin1_byte_in_utf8_text_is_forgiven():
    text = "Zürich office closes at 17:00. ".encode() * 100 + "Café".encode("latin-1")

    assert parse("hours.txt", text).sections[0].text.endswith("Caf\ufffd")


def test_a_stray_nul_in_text_is_dropped_like_the_other_control_characters():
    text = "Zürich office closes at 17:00. ".encode() * 100 + b"Caf\x00e"

    assert parse("hours.txt", text).sections[0].text.endswith("Cafe")


# Refusals


def test_nul_bytes_under_a_text_extension_are_refused_as_binary():
    with pytest.raises(InvalidInput) as error:
        parse("payload.txt", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00")

    assert reason(error) == '"payload.txt" looks like a binary file, not text'


def test_utf16_text_is_refused_as_binary_whatever_its_length():
    with pytest.raises(InvalidInput) as error:
        parse("minutes.txt", "The Determination Date is the 15th.\n".encode("utf-16") * 200)

    assert reason(error) == '"minutes.txt" looks like a binary file, not text'


def test_text_that_is_mostly_invalid_utf8_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("notes.md", bytes(range(0x80, 0x100)) * 8)

    assert reason(error) == '"notes.md" is not UTF-8 text (is it a binary file with a text extension?)'


def test_an_empty_file_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("blank.pdf", b"")

    assert reason(error) == '"blank.pdf" is empty'


def test_a_program_is_refused_as_an_unsupported_type():
    with pytest.raises(InvalidInput) as error:
        parse("setup.exe", b"MZ\x90\x00")

    assert reason(error) == ('"setup.exe" is not a supported type; docchat reads PDF, DOCX, Markdown, text, HTML, '
                             'slides (PPTX), spreadsheets (XLSX, ODS, CSV, TSV), e-books (EPUB), mail (EML, MSG), '
                             'source code and notebooks (Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ '
                             'and more; IPYNB), and images and scans by OCR (PNG, JPEG, TIFF, WebP)')


def test_a_file_over_the_limit_is_refused_with_both_sizes():
    with pytest.raises(InvalidInput) as error:
        parse("ledger.txt", b"x" * 1536, max_bytes=1024)

    assert reason(error) == '"ledger.txt" is 1.5 KB; the limit is 1 KB'


def test_the_default_limit_is_50_mb():
    with pytest.raises(InvalidInput) as error:
        parse("archive.pdf", b"%" * int(61.2 * 1024 * 1024))

    assert reason(error) == '"archive.pdf" is 61.2 MB; the limit is 50 MB'


def test_a_file_name_with_a_newline_still_gives_a_one_line_message():
    with pytest.raises(InvalidInput) as error:
        parse("quarterly\nreport.txt", b"")

    assert reason(error) == '"quarterly report.txt" is empty'


@pytest.mark.parametrize("name", ["deed.pdf", "deed.docx", "deed.html", "deed.md", "deed.txt", "deed.pptx",
                                  "deed.xlsx", "deed.ods", "deed.csv", "deed.tsv"])
def test_random_bytes_under_any_supported_extension_give_only_invalid_input(name):
    noise = random.Random(name).randbytes(4096)

    with pytest.raises(InvalidInput):
        parse(name, noise)


# Storing uploads


def test_a_stored_file_lands_under_documents_by_its_hash(tmp_path, trust_deed_pdf):
    digest = content_hash(trust_deed_pdf)

    path = store_file(tmp_path, "Trust Deed (signed).pdf", trust_deed_pdf)

    assert path == tmp_path / "documents" / digest[:2] / f"{digest}-Trust Deed (signed).pdf"
    assert path.read_bytes() == trust_deed_pdf


def test_storing_the_same_bytes_again_returns_the_first_copy(tmp_path, trust_deed_pdf):
    first = store_file(tmp_path, "trust-deed.pdf", trust_deed_pdf)

    second = store_file(tmp_path, "copy of trust-deed.pdf", trust_deed_pdf)

    assert second == first
    assert [path.name for path in first.parent.iterdir()] == [first.name]


def test_an_upload_named_to_climb_out_stays_inside_the_data_dir(tmp_path):
    data_dir = tmp_path / "data"

    path = store_file(data_dir, "../../../escape.txt", b"Meeting moved to Friday.")

    assert path.resolve().is_relative_to(data_dir.resolve())
    assert [found.name for found in tmp_path.rglob("*escape.txt")] == [path.name]


def test_a_path_outside_the_data_dir_is_refused_even_if_sanitising_fails(tmp_path, monkeypatch):
    data_dir = tmp_path / "data"
    # Joined after "<hash>-", this climbs from the hash folder to the data dir's parent.
    monkeypatch.setattr(files, "sanitise_name", lambda name: "x/../../../../escape.txt")

    with pytest.raises(InvalidInput):
        store_file(data_dir, "x/../../../../escape.txt", b"Meeting moved to Friday.")

    assert list(tmp_path.rglob("*escape.txt")) == []
    assert list(tmp_path.rglob("*.part")) == []


def test_storing_leaves_no_temporary_file_behind(tmp_path):
    path = store_file(tmp_path, "memo.txt", b"Bring the signed deed.")

    assert list(path.parent.iterdir()) == [path]
