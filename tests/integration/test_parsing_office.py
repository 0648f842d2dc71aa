"""Slides and spreadsheets, made here by the libraries that write them (tests/office_files.py),
through the real parsers and through the document library: each is cited where it was said (the
slide, the sheet and its rows); a bad one is refused in one line and changes nothing."""

from __future__ import annotations

import datetime
import re

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.parsing import parse
from docchat.documents.kinds.sheets import SECTION_ROWS
from docchat.errors import InvalidInput

from tests.hostile_files import plain_docx
from tests.integration.test_documents import files_under
from tests.office_files import (
    blank,
    delimited,
    encrypted_ods,
    encrypted_office_file,
    ods_of,
    old_binary_office_file,
    padded,
    pptx_of,
    titled,
    untitled_group,
    with_chart,
    with_table,
    xlsx_of,
    xlsx_with_a_formula,
)

HEADER = ["Item", "Units", "Supplier"]
STOCK = [HEADER, ["Mooring rope", 48, "Kessler Marine"], ["Anchor chain", 312, "Harbour Forge"],
         ["Deck cleat", 96, "Kessler Marine"]]


def reason(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def refusal(name: str, data: bytes, **limits) -> str:
    with pytest.raises(InvalidInput) as error:
        parse(name, data, **limits)
    return reason(error)


def review_deck() -> bytes:
    return pptx_of(
        titled("Quarterly review", "Revenue rose 12% on the quarter\nMargins held at 31%",
               notes="Mention the Harbour Forge contract before the figures."),
        untitled_group("Dredging of berth 4 starts in May", "The harbour master signs off the plan"),
        with_table("Regional sales", [["Region", "Sales"], ["North", "4,200 tonnes"], ["South", "3,150 tonnes"]]),
    )


def labels(name: str, data: bytes) -> list[str]:
    return [section.label for section in parse(name, data).sections]


# Slides


def test_a_presentation_gives_one_section_per_slide_labelled_with_its_number_and_title():
    document = parse("review.pptx", review_deck())

    assert document.kind == "pptx"
    assert [(s.label, s.page) for s in document.sections] == [
        ("slide 1: Quarterly review", None), ("slide 2", None), ("slide 3: Regional sales", None)]


def test_a_slide_reads_as_its_title_text_and_speaker_notes_marked_as_notes():
    first = parse("review.pptx", review_deck()).sections[0]

    assert first.text == ("Quarterly review\n\nRevenue rose 12% on the quarter\nMargins held at 31%\n\n"
                          "Notes: Mention the Harbour Forge contract before the figures.")


def test_grouped_shapes_and_tables_are_read_on_their_slide():
    _, grouped, table = parse("review.pptx", review_deck()).sections

    assert grouped.text == "Dredging of berth 4 starts in May\n\nThe harbour master signs off the plan"
    assert table.text == "Regional sales\n\nRegion | Sales\nNorth | 4,200 tonnes\nSouth | 3,150 tonnes"


def test_a_slide_s_table_is_also_a_table_figures_are_computed_over():
    [sales] = parse("review.pptx", review_deck()).tables

    assert (sales.sheet, [c.name for c in sales.columns]) == ("Slide 3 table", ["Region", "Sales"])
    assert [(r.number, r.cells) for r in sales.rows] == [(2, ("North", "4,200 tonnes")), (3, ("South", "3,150 tonnes"))]


def test_a_chart_is_read_as_its_title_and_each_series_value_with_its_category():
    deck = pptx_of(with_chart("Throughput", "Tonnes by berth", ["Berth 1", "Berth 4"],
                              {"2025": [312, 280.5], "2026": [330, 295]}))

    [section] = parse("throughput.pptx", deck).sections

    assert section.label == "slide 1: Throughput"
    assert section.text == ("Throughput\n\nChart: Tonnes by berth\n2025: Berth 1 312; Berth 4 280.5\n"
                            "2026: Berth 1 330; Berth 4 295")


def test_a_line_break_inside_a_paragraph_keeps_the_words_on_either_side_apart():
    def soft_break(presentation):
        titled("Berths", "x")(presentation)
        paragraph = presentation.slides[0].placeholders[1].text_frame.paragraphs[0]
        paragraph.text = "Berth 4\vreopens in June"  # python-pptx writes \v as a line break

    [section] = parse("berths.pptx", pptx_of(soft_break)).sections

    assert "Berth 4\nreopens in June" in section.text


def test_a_slide_without_text_is_skipped_and_the_others_keep_their_numbers():
    deck = pptx_of(titled("Agenda", "Safety first"), blank, titled("Close", "Questions"))

    assert labels("deck.pptx", deck) == ["slide 1: Agenda", "slide 3: Close"]


# Spreadsheets


def test_a_workbook_gives_a_section_per_sheet_labelled_with_the_sheet_and_its_rows():
    workbook = xlsx_of({"Inventory": STOCK, "Suppliers": [["Supplier", "Town"], ["Harbour Forge", "Whitby"]]})

    document = parse("stock.xlsx", workbook)

    assert document.kind == "xlsx"
    assert [(s.label, s.page) for s in document.sections] == [("Inventory, rows 2-4", None),
                                                             ("Suppliers, row 2", None)]


def test_each_value_carries_its_column_header_and_the_section_starts_with_the_header_row():
    [inventory] = parse("stock.xlsx", xlsx_of({"Inventory": STOCK})).sections

    assert inventory.text == ("Item | Units | Supplier\n"
                              "Row 2: Item: Mooring rope; Units: 48; Supplier: Kessler Marine\n"
                              "Row 3: Item: Anchor chain; Units: 312; Supplier: Harbour Forge\n"
                              "Row 4: Item: Deck cleat; Units: 96; Supplier: Kessler Marine")


def test_a_long_sheet_has_many_sections_each_repeating_the_header_and_naming_its_rows():
    rows = [HEADER] + [[f"Shackle size {n}", n * 3, "Harbour Forge"] for n in range(1, 301)]

    sections = parse("shackles.xlsx", xlsx_of({"Shackles": rows})).sections

    assert len(sections) >= 300 // SECTION_ROWS
    spans = [tuple(map(int, re.fullmatch(r"Shackles, rows (\d+)-(\d+)", s.label).groups())) for s in sections]
    assert spans[0][0] == 2 and spans[-1][1] == 301
    assert all(after[0] == before[1] + 1 for before, after in zip(spans, spans[1:]))  # every row, once
    for section, (first, last) in zip(sections, spans):
        lines = section.text.split("\n")
        assert lines[0] == "Item | Units | Supplier"
        assert lines[1].startswith(f"Row {first}: Item: Shackle size {first - 1}; Units: {(first - 1) * 3};")
        assert lines[-1].startswith(f"Row {last}: ") and len(section.text) < 1200


def test_the_header_is_the_first_row_with_a_value_and_empty_rows_and_columns_give_nothing():
    rows = [[], [], [None, "Item", None, "Units", None], [None, "Anchor chain", None, 312],
            [], [None, "Deck cleat", None, 96, "spare"]]

    [section] = parse("stock.xlsx", xlsx_of({"Stock": rows})).sections

    assert section.label == "Stock, rows 4-6"
    assert section.text == ("Item | Units\nRow 4: Item: Anchor chain; Units: 312\n"
                            "Row 6: Item: Deck cleat; Units: 96; column E: spare")


def test_a_formula_is_read_as_the_value_excel_saved_and_a_date_as_an_iso_date():
    [section] = parse("stock.xlsx", xlsx_with_a_formula()).sections

    assert section.text.split("\n")[1] == ("Row 2: Item: Anchor chain; Units: 312; Price: 4.5; Value: 1404; "
                                           "Counted: 2024-03-12")


def test_an_ods_spreadsheet_reads_as_a_workbook_does():
    counted = datetime.date(2024, 3, 12)
    spreadsheet = ods_of({
        "Inventory": [[], [None, "Item", "Units", "Counted", "Value"],
                      [None, "Anchor chain", 312, counted, ("of:=[.C3]*4.5", 1404.0)],
                      [None, "Deck cleat", 96.0, counted, ("of:=[.C4]*2.25", 216.0)]],
        "Notes": [["Note"], ["Recount after the spring tide"]],
    })

    document = parse("stock.ods", spreadsheet)

    assert document.kind == "ods"
    assert [s.label for s in document.sections] == ["Inventory, rows 3-4", "Notes, row 2"]
    assert document.sections[0].text == ("Item | Units | Counted | Value\n"
                                         "Row 3: Item: Anchor chain; Units: 312; Counted: 2024-03-12; Value: 1404\n"
                                         "Row 4: Item: Deck cleat; Units: 96; Counted: 2024-03-12; Value: 216")


def test_a_csv_file_is_one_sheet_named_after_the_file():
    [section] = parse("stock 2024.csv", delimited(STOCK)).sections

    assert section.label == "stock 2024, rows 2-4"
    assert "Row 3: Item: Anchor chain; Units: 312; Supplier: Harbour Forge" in section.text


def test_a_csv_written_with_semicolons_and_a_tsv_are_read_by_their_columns():
    semicolons = parse("stock.csv", "Item;Price\nAnchor chain;4,50\n".encode()).sections
    tabs = parse("stock.tsv", delimited(STOCK, "\t")).sections

    assert semicolons[0].text == "Item | Price\nRow 2: Item: Anchor chain; Price: 4,50"
    assert tabs[0].label == "stock, rows 2-4" and "Units: 312; Supplier: Harbour Forge" in tabs[0].text


def test_each_sheet_is_also_a_table_with_typed_columns_and_its_totals_told_apart():
    rows = [["Location", "Item", "Pallets", "Counted"],
            ["Oslo", "Cardboard boxes", 120, datetime.date(2024, 3, 1)], ["Oslo", "Tape", 45, None],
            ["Oslo subtotal", None, 165, None], [], ["Grand total", None, 165, None]]

    [stock, notes] = parse("stock.xlsx", xlsx_of({"Stock": rows, "Notes": [["Note"], ["Recount in May"]]})).tables

    assert [(c.name, c.type.value) for c in stock.columns] == [
        ("Location", "text"), ("Item", "text"), ("Pallets", "integer"), ("Counted", "date")]
    assert [(r.number, r.kind.value, r.cells[2]) for r in stock.rows] == [
        (2, "row", "120"), (3, "row", "45"), (4, "subtotal", "165"), (6, "total", "165")]
    assert (notes.sheet, [r.cells for r in notes.rows]) == ("Notes", [("Recount in May",)])


def test_an_ods_and_a_csv_give_their_tables_as_a_workbook_does():
    [ods] = parse("stock.ods", ods_of({"Stock": [["Item", "Units"], ["Anchor chain", 312.0], ["Total", 312.0]]})).tables
    [csv] = parse("stock 2024.csv", "Item;Price\nAnchor chain;4.50\nDeck cleat;2.25\n".encode()).tables

    assert [(r.cells, r.kind.value) for r in ods.rows] == [(("Anchor chain", "312"), "row"), (("Total", "312"), "total")]
    assert (csv.sheet, [(c.name, c.type.value) for c in csv.columns]) == (
        "stock 2024", [("Item", "text"), ("Price", "real")])


def test_a_csv_that_is_not_utf8_text_is_refused_as_any_text_file_is():
    assert refusal("stock.csv", bytes(range(0x80, 0x100)) * 8) == \
        '"stock.csv" is not UTF-8 text (is it a binary file with a text extension?)'
    assert refusal("stock.tsv", "Item\tUnits\n".encode("utf-16") * 50) == '"stock.tsv" looks like a binary file, not text'


# Bad input


def test_damaged_files_are_refused_as_unreadable():
    deck, workbook, spreadsheet = review_deck(), xlsx_of({"Inventory": STOCK}), ods_of({"Inventory": STOCK})

    assert refusal("review.pptx", deck[: len(deck) // 2]) == \
        '"review.pptx" is not a readable PowerPoint presentation (.pptx)'
    assert refusal("stock.xlsx", workbook[: len(workbook) // 2]) == '"stock.xlsx" is not a readable Excel workbook (.xlsx)'
    assert refusal("stock.ods", spreadsheet[: len(spreadsheet) // 2]) == \
        '"stock.ods" is not a readable OpenDocument spreadsheet (.ods)'


def test_a_file_of_another_kind_under_these_names_is_refused_as_unreadable():
    assert refusal("review.pptx", plain_docx("Minutes")) == '"review.pptx" is not a readable PowerPoint presentation (.pptx)'
    assert refusal("stock.xlsx", review_deck()) == '"stock.xlsx" is not a readable Excel workbook (.xlsx)'
    assert refusal("stock.ods", b"Item,Units\nAnchor chain,312\n") == \
        '"stock.ods" is not a readable OpenDocument spreadsheet (.ods)'


@pytest.mark.parametrize(("name", "data", "what"), [
    ("review.pptx", review_deck(), "a presentation"),
    ("stock.xlsx", xlsx_of({"Inventory": STOCK}), "a workbook"),
    ("stock.ods", ods_of({"Inventory": STOCK}), "a spreadsheet"),
], ids=["pptx", "xlsx", "ods"])
def test_a_file_that_unpacks_to_far_more_than_the_limit_is_refused(name, data, what):
    reason = refusal(name, padded(data, 4), max_bytes=100 * 1024)

    assert re.fullmatch(rf'"{name}" unpacks to 4(\.\d)? MB, too much for {what}', reason)


def test_an_empty_workbook_and_a_presentation_with_no_text_are_refused():
    assert refusal("empty.xlsx", xlsx_of({"Sheet1": [], "Sheet2": [[None, None], []]})) == \
        '"empty.xlsx" has no text to index'
    assert refusal("empty.ods", ods_of({"Sheet1": []})) == '"empty.ods" has no text to index'
    assert refusal("blank.pptx", pptx_of(blank, blank)) == '"blank.pptx" has no text to index'
    assert refusal("empty.csv", b"\n,,\n , \n") == '"empty.csv" has no text to index'


def test_password_protected_files_are_refused_as_such_and_an_old_binary_one_is_named():
    assert refusal("budget.xlsx", encrypted_office_file()) == '"budget.xlsx" is password-protected'
    assert refusal("board.pptx", encrypted_office_file()) == '"board.pptx" is password-protected'
    assert refusal("budget.ods", encrypted_ods(ods_of({"Inventory": STOCK}))) == '"budget.ods" is password-protected'
    assert refusal("ledger.xlsx", old_binary_office_file()) == \
        '"ledger.xlsx" is an older binary Office file; save it as .xlsx and upload that'


def test_a_csv_with_a_field_too_long_for_the_csv_reader_is_refused_in_one_line():
    assert refusal("notes.csv", b'Note\n"' + b"tide " * 30_000) == \
        '"notes.csv" is not a readable CSV file (line 2: field larger than field limit (131072))'


# Through the document library (its parser runs in worker processes)


def test_a_question_about_a_slide_is_answered_from_that_slide_and_cited_by_number_and_title(library):
    library.ingestion.ingest("review.pptx", review_deck())

    [best, *_] = library.retrieval.retrieve("How many tonnes did the North region sell?", top_k=3)

    assert best.citation(1).where == "slide 3: Regional sales"
    assert "North | 4,200 tonnes" in best.citation(1).text


def _harbour_inventory() -> list[list[object]]:
    """Inventory with 120 rows of shackles, and the anchor chain on row 87."""
    rows = [HEADER] + [[f"Shackle size {n}", n, "Kessler Marine"] for n in range(1, 121)]
    rows[86] = ["Galvanised anchor chain", 312, "Harbour Forge"]
    return rows


@pytest.mark.parametrize(("name", "data"), [
    ("stock.xlsx", xlsx_of({"Inventory": _harbour_inventory()})),
    ("stock.ods", ods_of({"Inventory": _harbour_inventory()})),
    ("Inventory.csv", delimited(_harbour_inventory())),
    ("Inventory.tsv", delimited(_harbour_inventory(), "\t")),
], ids=["xlsx", "ods", "csv", "tsv"])
def test_a_question_about_a_value_in_a_sheet_is_cited_by_the_sheet_and_its_rows(library, name, data):
    library.ingestion.ingest(name, data)

    [best, *_] = library.retrieval.retrieve("How many units of galvanised anchor chain are in stock?", top_k=3)

    cited = best.citation(1)
    first, last = map(int, re.fullmatch(r"Inventory, rows (\d+)-(\d+)", cited.where).groups())
    assert first <= 87 <= last
    assert "Row 87: Item: Galvanised anchor chain; Units: 312; Supplier: Harbour Forge" in cited.text


@pytest.fixture
def small_library(data_dir, shared_embedder):
    """The document library of an installation whose uploads may weigh 1 MB."""
    services = build_services(Settings(data_dir=data_dir, max_upload_mb=1), embedder=shared_embedder)
    yield services
    services.close()


@pytest.mark.parametrize(("name", "data", "why"), [
    ("review.pptx", review_deck()[:2000], "is not a readable PowerPoint presentation (.pptx)"),
    ("stock.xlsx", padded(xlsx_of({"Inventory": STOCK}), 24), "unpacks to 24"),
    ("empty.xlsx", xlsx_of({"Sheet1": []}), "has no text to index"),
    ("blank.pptx", pptx_of(blank), "has no text to index"),
], ids=["damaged", "zip bomb", "empty workbook", "presentation with no text"])
def test_a_bad_file_is_refused_in_one_line_and_the_library_is_unchanged(small_library, data_dir, name, data, why):
    kept = small_library.ingestion.ingest("stock.csv", delimited(STOCK))
    stored = files_under(data_dir)

    with pytest.raises(InvalidInput) as refused:
        small_library.ingestion.add(name, data)

    assert reason(refused).startswith(f'"{name}" {why}')
    assert small_library.documents.list() == [kept] and files_under(data_dir) == stored
    assert small_library.index.open().count() == kept.chunks
