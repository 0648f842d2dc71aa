"""Sheets kept as SQL tables in their own SQLite file: figures computed over the data rows only,
and a query that would write, or runs away, is refused in words and changes nothing."""

from __future__ import annotations

import pytest

from docchat.tables.reading import table_of
from docchat.errors import InvalidInput
from docchat.store.sheet_tables import SqliteSheetTables

STOCK = table_of("Stock", ["Location", "Item", "Pallets"], 1, [
    (2, ["Oslo", "Cardboard boxes", "120"]), (3, ["Oslo", "Bubble wrap", "45"]), (4, ["Oslo subtotal", "", "165"]),
    (5, ["Bergen", "Tape", "25"]), (6, ["Grand total", "", "190"])])
NOTES = table_of("Notes", ["Note", "_row"], 1, [(2, ["Recount in May", "x"])])


@pytest.fixture
def kept(tmp_path) -> SqliteSheetTables:
    tables = SqliteSheetTables(tmp_path)
    tables.write("d-stock", [STOCK, NOTES])
    return tables


def test_a_total_over_the_data_rows_leaves_the_subtotals_out(kept):
    [stock, _] = kept.shapes()

    result = kept.run(f'SELECT SUM("Pallets") FROM {stock.table} WHERE _kind = \'row\' AND "Location" = \'Oslo\'',
                      max_rows=10, timeout_s=2)

    assert result.rows == ((165,),)
    assert kept.run(f"SELECT _row FROM {stock.table} WHERE _kind != 'row'", max_rows=10, timeout_s=2).rows == (
        (4,), (6,))


def test_the_catalogue_names_each_sheet_its_columns_and_rows(kept):
    shapes = kept.shapes(["d-stock"])

    assert [(s.sheet, s.columns, s.rows) for s in shapes] == [
        ("Stock", (("Location", "text"), ("Item", "text"), ("Pallets", "integer")), 5),
        ("Notes", (("Note", "text"), ("_row (column B)", "text")), 1)]
    assert kept.shapes(["d-other"]) == []


@pytest.mark.parametrize("query", [
    "DELETE FROM sheet_tables",
    "DROP TABLE sheet_tables",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE 'other.db' AS other",
    "SELECT 1; DELETE FROM sheet_tables",
    "SELECT nothing FROM nowhere",
])
def test_a_query_that_would_change_anything_or_fails_is_refused_in_words(kept, query):
    with pytest.raises(InvalidInput, match="the query was refused"):
        kept.run(query, max_rows=10, timeout_s=2)

    assert len(kept.shapes()) == 2


def test_a_runaway_query_is_stopped_at_its_time(kept):
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"

    with pytest.raises(InvalidInput, match=r"ran for more than 0.2 s and was stopped"):
        kept.run(endless, max_rows=10, timeout_s=0.2)


def test_rows_past_the_limit_are_not_kept_and_said_to_be_there(kept):
    [stock, _] = kept.shapes()

    result = kept.run(f"SELECT _row FROM {stock.table} ORDER BY _row", max_rows=2, timeout_s=2)

    assert (result.columns, result.rows, result.truncated) == (("_row",), ((2,), (3,)), True)


def test_a_document_written_again_or_dropped_leaves_no_table_behind(kept):
    kept.write("d-stock", [NOTES])
    [notes] = kept.shapes()
    kept.drop("d-stock")

    assert kept.shapes() == []
    with pytest.raises(InvalidInput, match="no such table"):
        kept.run(f"SELECT * FROM {notes.table}", max_rows=1, timeout_s=2)


def test_an_ingested_workbook_keeps_its_sheets_as_tables_until_it_is_deleted(tmp_path):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    from tests.office_files import xlsx_of

    services = build_services(Settings(data_dir=tmp_path / "data"), contact_llm=False)
    try:
        workbook = xlsx_of({"Stock": [["Location", "Pallets"], ["Oslo", 120], ["Bergen", 25], ["Total", 145]]})
        document = services.ingestion.ingest("harbour-inventory.xlsx", workbook)
        kept = SqliteSheetTables(tmp_path / "data")
        [shape] = kept.shapes([document.id])
        total = kept.run(f"SELECT SUM(\"Pallets\") FROM {shape.table} WHERE _kind = 'row'", max_rows=1, timeout_s=2)

        services.documents.delete(document.id)

        assert (shape.sheet, total.rows) == ("Stock", ((145,),))
        assert kept.shapes() == []
    finally:
        services.close()


def test_a_workbook_added_before_tables_were_kept_is_found_by_the_check_and_read_by_the_repair(tmp_path):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    from tests.office_files import xlsx_of

    services = build_services(Settings(data_dir=tmp_path / "data"), contact_llm=False)
    try:
        workbook = xlsx_of({"Stock": [["Location", "Pallets"], ["Oslo", 120], ["Bergen", 25], ["Total", 145]]})
        document = services.ingestion.ingest("harbour-inventory.xlsx", workbook)
        services.ingestion.ingest("notes.md", b"# Notes\n\nRecount in May.\n")
        kept = SqliteSheetTables(tmp_path / "data")
        kept.drop(document.id)  # as a library from before tables were kept has it

        found = services.index.check()
        done = services.index.repair()

        assert found.sheets_without_tables == (document.id,) and not found.agrees
        assert done.tables_written == 1 and services.index.check().agrees
        assert [shape.sheet for shape in kept.shapes([document.id])] == ["Stock"]
    finally:
        services.close()


def test_a_figure_is_computed_from_a_word_table_and_a_slide_s_table_in_the_library(tmp_path):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    from tests.integration.test_parsing import docx_of
    from tests.office_files import pptx_of, with_table

    def report(document):
        document.add_heading("Revenue", level=1)
        table = document.add_table(rows=4, cols=2)
        for row, cells in enumerate([("Region", "Revenue"), ("North", "1,200"), ("South", "980"), ("Total", "2,180")]):
            table.cell(row, 0).text, table.cell(row, 1).text = cells

    services = build_services(Settings(data_dir=tmp_path / "data"), contact_llm=False)
    try:
        word = services.ingestion.ingest("regional-report.docx", docx_of(report))
        deck = services.ingestion.ingest("review.pptx", pptx_of(with_table("Crews", [["Crew", "Divers"], ["Alpha", "4"],
                                                                                      ["Beta", "3"]])))
        in_scope = services.retrieval.in_scope(None)

        revenue = services.figures.figure("What is the total revenue of the regional report?", in_scope)
        divers = services.figures.figure("How many divers are there in total?", in_scope)
    finally:
        services.close()

    assert (revenue.document_id, revenue.sheet, revenue.value, revenue.rows) == (word.id, "Table 1", 2180, (2, 3))
    assert (divers.document_id, divers.sheet, divers.value) == (deck.id, "Slide 1 table", 7)
