"""Hostile documents through the real parsers in their worker process (docchat.documents.isolated):
each is refused in one line within the time limit, or read for its text; the worker stays under
its memory cap; nothing is fetched (a listener on 127.0.0.1 counts requests); the next file is
parsed as usual."""

from __future__ import annotations

import time

import pytest

from docchat.documents.isolated import IsolatedParser
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.hostile_files import (
    GB,
    Listener,
    billion_laughs_docx,
    billion_laughs_in,
    external_entity_docx,
    external_link_xlsx,
    external_relationship_docx,
    external_relationship_pptx,
    inflating_pdf,
    looping_pdf,
    ods_of_repeated_cells,
    pdf_of_pages_sharing_a_stream,
    pdf_of_pages_with_their_own_streams,
    plain_docx,
    remote_resources_html,
)
from tests.integration.test_parsing import pdf_of
from tests.integration.test_parsing_scans import png_declaring
from tests.office_files import delimited, ods_of, pptx_of, titled, xlsx_of
from tests.scanned_files import encoded, page_image, scanned_pdf

TIMEOUT_S = 5.0
MEMORY_MB = 512
CAP_KB = MEMORY_MB * 1024


@pytest.fixture
def parser():
    parser = IsolatedParser(timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB)
    yield parser
    parser.close()
    assert parser.workers == []


@pytest.fixture
def listener():
    with Listener() as listener:
        yield listener


def refusal(parser: IsolatedParser, name: str, data: bytes) -> tuple[str, float]:
    """The one-line reason the file was refused, and how long that took."""
    started = time.monotonic()
    with pytest.raises(InvalidInput) as refused:
        parser.parse(name, data)
    return str(refused.value), time.monotonic() - started


def test_ordinary_files_of_every_kind_parse_in_the_worker_exactly_as_in_process(parser):
    files = {
        "trust-deed.pdf": pdf_of("The Determination Date is the 15th of each month.", "Notice is ninety days."),
        "minutes.docx": plain_docx("The board approved the Reserve Account."),
        "notes.md": b"# Payment Date\n\nInterest is paid on the 25th.\n",
        "memo.txt": b"Bring the signed deed on Friday.\n",
        "page.html": b"<h1>Trustee fees</h1><p>GBP 40,000 a year.</p>",
        "review.pptx": pptx_of(titled("Trustee fees", "GBP 40,000 a year", notes="Paid quarterly.")),
        "fees.xlsx": xlsx_of({"Fees": [["Fee", "GBP"], ["Trustee", 40000]]}),
        "fees.ods": ods_of({"Fees": [["Fee", "GBP"], ["Trustee", 40000]]}),
        "fees.csv": delimited([["Fee", "GBP"], ["Trustee", 40000]]),
        "fees.tsv": delimited([["Fee", "GBP"], ["Trustee", 40000]], "\t"),
        "fees.png": encoded(page_image(["Trustee fees: GBP 40,000 a year."]), "PNG"),
        "fees-scan.pdf": scanned_pdf(["Trustee fees: GBP 40,000 a year."]),
    }

    for name, data in files.items():
        assert parser.parse(name, data) == parse(name, data)
    assert len(parser.workers) == 1  # one worker, reused from file to file


def test_a_pdf_whose_content_stream_inflates_to_two_gigabytes_is_refused_within_seconds(parser):
    bomb = inflating_pdf(2 * GB)
    assert len(bomb) < 3 * 1024 * 1024

    reason, took = refusal(parser, "bomb.pdf", bomb)

    assert reason.startswith('"bomb.pdf" ') and "\n" not in reason
    assert took < TIMEOUT_S + 2
    assert parser.peak_memory_kb < CAP_KB


def test_an_image_whose_header_claims_ten_billion_pixels_is_refused_without_being_decoded(parser):
    reason, _ = refusal(parser, "bomb.png", png_declaring(100_000, 100_000))

    assert reason.startswith('"bomb.png" declares more pixels than docchat reads')
    assert parser.peak_memory_kb < 200 * 1024  # nothing near the 10 GB it claims was allocated


def test_a_pdf_whose_page_tree_lists_itself_as_a_kid_is_refused(parser):
    reason, took = refusal(parser, "loop.pdf", looping_pdf())

    assert reason.startswith('"loop.pdf" ') and "\n" not in reason
    assert took < TIMEOUT_S + 2


def test_a_pdf_whose_fifty_pages_inflate_one_70_mb_stream_each_is_stopped_at_the_time_limit():
    parser = IsolatedParser(timeout_s=2, memory_mb=MEMORY_MB)
    try:
        reason, _ = refusal(parser, "fifty-pages.pdf", pdf_of_pages_sharing_a_stream(50))
        after = parser.parse("memo.txt", b"Bring the signed deed on Friday.")
    finally:
        parser.close()

    assert reason == '"fifty-pages.pdf" was refused: parsing it needed more than 2 s of processor time'
    assert parser.peak_memory_kb < CAP_KB
    assert after.sections[0].text == "Bring the signed deed on Friday."


def test_a_pdf_whose_pages_inflate_past_the_memory_cap_is_refused_for_its_memory():
    parser = IsolatedParser(timeout_s=30, memory_mb=384)
    try:
        reason, _ = refusal(parser, "greedy.pdf", pdf_of_pages_with_their_own_streams(8))
    finally:
        parser.close()

    assert reason == '"greedy.pdf" was refused: parsing it needed more than 384 MB of memory'
    assert parser.peak_memory_kb < 384 * 1024


def test_a_docx_of_a_billion_laughs_is_not_expanded(parser, listener):
    try:
        parsed = parser.parse("laughs.docx", billion_laughs_docx())
    except InvalidInput as refused:
        assert str(refused).startswith('"laughs.docx" ') and "\n" not in str(refused)
    else:
        assert "lollollol" not in " ".join(section.text for section in parsed.sections)
    assert parser.peak_memory_kb < CAP_KB


def test_a_docx_with_external_entities_fetches_nothing(parser, listener):
    try:
        parsed = parser.parse("entities.docx", external_entity_docx(listener.url))
    except InvalidInput as refused:
        assert str(refused).startswith('"entities.docx" ')
    else:
        assert "The secret is 42" not in " ".join(section.text for section in parsed.sections)

    assert listener.requests == []


def test_a_docx_with_external_relationships_is_read_for_its_text_and_fetches_nothing(parser, listener):
    parsed = parser.parse("tracked.docx", external_relationship_docx(listener.url))

    assert parsed.sections[0].text == "The Reserve Account is kept with the Account Bank."
    assert listener.requests == []


def test_an_html_page_with_remote_images_stylesheets_and_scripts_is_read_for_its_text_and_fetches_nothing(
        parser, listener):
    parsed = parser.parse("trust.html", remote_resources_html(listener.url))

    text = " ".join(section.text for section in parsed.sections)
    assert "The Trustee keeps a Reserve Account with the Account Bank." in text
    assert listener.url not in text
    assert listener.requests == []


def test_a_presentation_and_a_workbook_that_link_outside_are_read_for_their_text_and_fetch_nothing(
        parser, listener):
    slide = parser.parse("tracked.pptx", external_relationship_pptx(listener.url)).sections[0]
    sheet = parser.parse("linked.xlsx", external_link_xlsx(listener.url)).sections[0]

    assert slide.text == "Reserve Account\n\nThe Trustee keeps a Reserve Account with the Account Bank."
    assert sheet.text == "Account | Bank\nRow 2: Account: Reserve Account; Bank: Account Bank"
    assert listener.requests == []


@pytest.mark.parametrize(("name", "data", "member"), [
    ("laughs.pptx", pptx_of(titled("Trustee fees", "Anchor chain")), "ppt/slides/slide1.xml"),
    ("laughs.xlsx", xlsx_of({"Fees": [["Item"], ["Anchor chain"]]}), "xl/worksheets/sheet1.xml"),
    ("laughs.ods", ods_of({"Fees": [["Item"], ["Anchor chain"]]}), "content.xml"),
], ids=["pptx", "xlsx", "ods"])
def test_slides_or_a_spreadsheet_of_a_billion_laughs_are_not_expanded(parser, name, data, member):
    laughs = billion_laughs_in(data, member, "Anchor chain")
    try:
        parsed = parser.parse(name, laughs)
    except InvalidInput as refused:
        assert str(refused).startswith(f'"{name}" ') and "\n" not in str(refused)
    else:
        assert "lollollol" not in " ".join(section.text for section in parsed.sections)
    assert parser.peak_memory_kb < CAP_KB


def test_an_ods_whose_repeated_cells_spell_out_ten_million_is_refused_within_the_limits(parser):
    bomb = ods_of_repeated_cells(10_000, 1_000)
    assert len(bomb) < 20 * 1024

    reason, took = refusal(parser, "stock.ods", bomb)

    assert reason.startswith('"stock.ods" ') and "\n" not in reason
    assert took < TIMEOUT_S + 2
    assert parser.peak_memory_kb < CAP_KB
    assert parser.parse("memo.txt", b"Bring the signed deed on Friday.").sections


def test_after_a_refused_bomb_the_next_file_gets_a_worker_that_parses_it(parser):
    refusal(parser, "bomb.pdf", inflating_pdf(2 * GB))

    parsed = parser.parse("deed.pdf", pdf_of("The Determination Date is the 15th of each month."))

    assert parsed.sections[0].text == "The Determination Date is the 15th of each month."
