"""A sheet read as a table: typed columns, one name each, and the rows that total others told
apart, so that a figure computed over the rows never counts a total again."""

from __future__ import annotations

import pytest

from docchat.documents.tables import MAX_COLUMNS, MAX_ROWS, column_names, column_type, number, row_kind, table_of
from docchat.domain.documents import ColumnType, RowKind

STOCK = [
    (2, ["Oslo", "Cardboard boxes", "120", "2024-03-01"]),
    (3, ["Oslo", "Bubble wrap", "45.5", "2024-03-04"]),
    (4, ["Oslo subtotal", "", "165.5", ""]),
    (5, ["Bergen", "Tape", "25", "2024-03-02"]),
    (6, ["Bergen Sub-total", "", "25", ""]),
    (7, ["Grand total", "", "190.5", ""]),
]


def test_a_sheet_s_rows_keep_their_numbers_and_its_totals_are_told_apart():
    table = table_of("Stock", ["Location", "Item", "Pallets", "Counted"], 1, STOCK)

    assert [(row.number, row.kind) for row in table.rows] == [
        (2, RowKind.ROW), (3, RowKind.ROW), (4, RowKind.SUBTOTAL), (5, RowKind.ROW), (6, RowKind.SUBTOTAL),
        (7, RowKind.TOTAL)]
    assert [(column.name, column.type) for column in table.columns] == [
        ("Location", ColumnType.TEXT), ("Item", ColumnType.TEXT), ("Pallets", ColumnType.REAL),
        ("Counted", ColumnType.DATE)]
    assert (table.sheet, table.header_row) == ("Stock", 1)


@pytest.mark.parametrize(("cells", "kind"), [
    (["Total", "", "190"], RowKind.TOTAL),
    (["", "TOTALS", "190"], RowKind.TOTAL),
    (["2024", "Sum", "12"], RowKind.TOTAL),  # the first cell that is no number names it
    (["North", "Subtotal", "70"], RowKind.ROW),  # "North" comes first: a region, not a total
    (["Sub total North", "70"], RowKind.SUBTOTAL),
    (["Totalitarian regimes", "3"], RowKind.ROW),
    (["Summary", "3"], RowKind.ROW),
])
def test_a_row_is_a_total_only_when_its_label_names_one(cells, kind):
    assert row_kind(cells) is kind


@pytest.mark.parametrize(("values", "kind"), [
    (["312", "-4", ""], ColumnType.INTEGER),
    (["312", "4.5", "1,200", "1e3"], ColumnType.REAL),
    (["2024-03-12", "2025-01-01"], ColumnType.DATE),
    (["312", "n/a"], ColumnType.TEXT),
    (["", ""], ColumnType.TEXT),
])
def test_a_column_s_type_is_the_narrowest_every_value_reads_as(values, kind):
    assert column_type(values) is kind


def test_a_type_is_read_from_the_data_rows_only():
    rows = [(2, ["Oslo", "12"]), (3, ["Total", "12 pallets"])]

    assert table_of("Stock", ["Location", "Pallets"], 1, rows).columns[1].type is ColumnType.INTEGER


def test_every_column_has_one_name():
    assert column_names(["Item", "", "Amount", "amount"], 5) == (
        "Item", "column B", "Amount", "amount (column D)", "column E")


def test_numbers_are_read_as_a_spreadsheet_shows_them():
    assert [number(text) for text in ("1,200", "12,345.50", "-4.5", ".5", "1e3", "1,20", "12 pallets", "")] == [
        1200.0, 12345.5, -4.5, 0.5, 1000.0, None, None, None]


def test_a_row_shorter_than_the_widest_is_filled_with_empty_cells():
    table = table_of("Notes", ["Item"], 1, [(2, ["Tape", "urgent"])])

    assert [column.name for column in table.columns] == ["Item", "column B"]
    assert table_of("Notes", ["Item", "Note"], 1, [(2, ["Tape"])]).rows[0].cells == ("Tape", "")


def test_a_sheet_past_the_limits_has_no_table():
    rows = [(n, ["x", str(n)]) for n in range(2, MAX_ROWS + 3)]

    assert table_of("Log", ["Event", "Count"], 1, rows) is None
    assert table_of("Wide", [f"c{n}" for n in range(MAX_COLUMNS + 1)], 1, [(2, ["1"])]) is None
