"""A PDF's tables are tables too (issue 55): ruled or lined up without rules, numbers as people
write them, a table carried onto the next page read as one; each is cited by its page and its
rows, and the prose around a table, or prose in two columns, is never a table. PDFs made by fpdf2."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.pdf_files import NewPage, Table, pdf_of, two_column_pdf

INTRO = ("The quarterly review found that the northern depots kept more stock than planned, while the "
         "harbour office asked for a second count before the spring audit.")
STOCK = [["Depot", "Region", "Pallets", "Cost"],
         ["Oslo", "East", "1,840", "$12,400"],
         ["Bergen", "West", "2,152", "$15,100"],
         ["Stavanger", "West", "410", "$3,050"],
         ["Total", "", "4,402", "$30,550"]]
SALES = [["Month", "Region", "Units sold"],
         ["2025-01-31", "North", "120"],
         ["2025-02-28", "North", "95"],
         ["2025-01-31", "South", "60"],
         ["2024-12-31", "South", "41"]]
# Long enough that fpdf2 carries it onto two more pages, repeating its header on each.
LEDGER = [["Entry", "Account", "Amount"], *([f"E-{n:03d}", "Freight" if n % 3 else "Repairs", f"{n * 10:,}"]
                                            for n in range(1, 81))]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    files = {
        "depot-report.pdf": pdf_of(INTRO, Table(STOCK), "Counts were taken on the last day of the month.",
                                   NewPage(), "Sales by month.", Table(SALES, borders="HORIZONTAL_LINES")),
        "ledger.pdf": pdf_of("The freight ledger for the year.", Table(LEDGER, borders="NONE")),
        "paper.pdf": two_column_pdf(" ".join([INTRO] * 40)),
    }
    yield from library_of(tmp_path_factory.mktemp("pdf"), files)


def _figure(library, question):
    return library.figures.figure(question, library.retrieval.in_scope(None))


def test_a_ruled_table_and_one_without_rules_are_read_cell_by_cell():
    from docchat.documents.kinds.pdf import read_pdf

    data = pdf_of(INTRO, Table(STOCK), NewPage(), Table(SALES, borders="SINGLE_TOP_LINE"))
    read = read_pdf("depot-report.pdf", data, 1 << 20)

    stock, sales = read.tables
    assert (stock.sheet, sales.sheet) == ("Page 1 table", "Page 2 table")
    assert [[column.name for column in stock.columns], *[list(row.cells) for row in stock.rows]] == STOCK
    assert [[column.name for column in sales.columns], *[list(row.cells) for row in sales.rows]] == SALES
    assert any("Stavanger" in section.text for section in read.sections)  # still searched as text


@pytest.mark.parametrize(("question", "value", "sheet", "rows"), [
    ("How many pallets are held in total?", 4_402, "Page 1 table", (2, 3, 4)),  # the Total row left out
    ("What is the total cost of the West region?", 18_150, "Page 1 table", (3, 4)),
    ("How many units were sold in 2025?", 275, "Page 2 table", (2, 3, 4)),
])
def test_a_figure_is_computed_over_a_pdf_table_s_rows(library, question, value, sheet, rows):
    figure = _figure(library, question)

    assert (figure.document, figure.value, figure.sheet, figure.rows) == ("depot-report.pdf", value, sheet, rows)


def test_a_table_carried_onto_the_next_pages_is_one_table(library):
    figure = _figure(library, "What is the total amount for the Repairs account?")

    # Entries 3, 6, ... 78: every third of the 80, on all three pages.
    assert figure.sheet == "Pages 1-3 table"
    assert figure.value == sum(n * 10 for n in range(3, 81, 3))
    assert len(figure.rows) == 26


def test_prose_in_two_columns_is_not_a_table(library):
    from docchat.store.sheet_tables import SqliteSheetTables

    documents = {d.name: d.id for d in library.documents.list()}
    shapes = SqliteSheetTables(library.settings.data_dir).shapes([documents["paper.pdf"]])

    assert shapes == []


def test_a_pdf_added_before_its_tables_were_kept_is_read_again_by_the_repair(tmp_path):
    from docchat.store.sheet_tables import SqliteSheetTables

    for services in library_of(tmp_path, {"depot-report.pdf": pdf_of(INTRO, Table(STOCK))}):
        [report] = services.documents.list()
        SqliteSheetTables(tmp_path / "data").drop(report.id)  # as a library from before

        found = services.index.check()
        done = services.index.repair()
        figure = _figure(services, "How many pallets are held in total?")

        assert found.sheets_without_tables == (report.id,) and not found.agrees
        assert done.tables_written == 1 and figure.value == 4_402


def test_a_header_cell_wrapped_above_and_below_its_row_s_line_is_read_whole():
    from docchat.documents.kinds.pdf import read_pdf

    # fpdf2 breaks the long heading over three lines, the first above the other headings' line.
    films = [["Film", "Hours", "Minutes", "Released", "opening_weekend_us", "US gross", "World gross"],
             ["Iron Man", "2", "6", "2008-05-02", "98,618,668", "319,034,126", "585,796,247"],
             ["Thor", "1", "55", "2011-05-06", "65,723,338", "181,030,624", "449,326,618"],
             ["Iron Man 3", "2", "10", "2013-05-03", "174,144,585", "409,013,994", "1,214,811,252"]]
    read = read_pdf("films.pdf", pdf_of("Films.", Table(films, borders="SINGLE_TOP_LINE"), size=9), 1 << 20)

    (table,) = read.tables
    assert [column.name for column in table.columns] == [*films[0][:4], "opening_weeke nd_us", *films[0][5:]]
    assert [row.cells[0] for row in table.rows] == ["Iron Man", "Thor", "Iron Man 3"]  # no data row taken as a header


def test_a_table_carried_on_with_one_row_on_its_last_page_keeps_that_row():
    from docchat.documents.kinds.pdf import read_pdf

    # 36 entries: fpdf2 puts the 36th alone under the header repeated on page 2.
    ledger = [["Entry", "Account", "Amount"], *([f"E-{n:03d}", "Freight", f"{n * 10:,}"] for n in range(1, 37))]
    read = read_pdf("ledger.pdf", pdf_of("The freight ledger for the year.", Table(ledger, borders="NONE")), 1 << 20)

    (table,) = read.tables
    assert table.sheet == "Pages 1-2 table"
    assert [row.cells[0] for row in table.rows][-2:] == ["E-035", "E-036"] and len(table.rows) == 36
