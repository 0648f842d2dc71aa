"""A sheet read as a table: typed columns, one name each, and the rows that total others told
apart, so that a figure computed over the rows never counts a total again."""

from __future__ import annotations

import pytest

from docchat.tables.reading import MAX_COLUMNS, MAX_ROWS, column_names, column_type, number, row_kind, table_of
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


def test_a_company_called_total_among_the_data_rows_is_data_and_a_total_that_sums_them_is_not():
    companies = [(2, ["1", "Citigroup", "94.7"]), (3, ["2", "Total", "131.6"]), (4, ["3", "Shell", "133.5"]),
                 (5, ["4", "BP", "174.2"])]
    sections = [(2, ["North", "40"]), (3, ["South", "60"]), (4, ["Total", "100"]), (5, ["East", "5"]),
                (6, ["West", "7"])]

    listed = table_of("Forbes", ["rank", "name", "sales"], 1, companies)
    summed = table_of("Regions", ["Region", "Units"], 1, sections)

    assert [row.kind for row in listed.rows] == [RowKind.ROW] * 4
    assert [row.kind for row in summed.rows] == [RowKind.ROW, RowKind.ROW, RowKind.TOTAL, RowKind.ROW, RowKind.ROW]


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
    (["312", "n/a", "\u2014"], ColumnType.INTEGER),  # a dash or "n/a" stands for no value
    (["312", "on order"], ColumnType.TEXT),
    (["$1,200", "NOK 420", "(35)", "12.5 km", "7%", "1,204[3]"], ColumnType.REAL),
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


@pytest.mark.parametrize(("written", "value"), [
    ("$1,200", 1200), ("US$ 75", 75), ("NOK 420", 420), ("40 \u20ac", 40), ("\u00a3 40", 40),
    ("$1.2 billion", 1.2e9), ("1.2bn", 1.2e9), ("$3.4m", 3.4e6), ("12k", 12_000),
    ("2.4m", 2.4), ("12.5 km", 12.5), ("30 kg", 30),  # "m" alone is metres; a currency makes it millions
    ("12%", 12), ("12.5 %", 12.5), ("1,204[3]", 1204), ("88*", 88), ("418,907\u2020", 418_907),
    ("(1,200)", -1200), ("\u22124.5", -4.5), ("\u20133", -3),
])
def test_numbers_are_read_as_people_write_them_in_tables(written, value):
    assert number(written) == value


@pytest.mark.parametrize("written", ["A12", "3-1", "1.2.3", "$12 km", "12 pallets", "Total", "2024-03-12", "(12"])
def test_what_is_not_one_number_is_not_read_as_one(written):
    assert number(written) is None


def test_a_row_shorter_than_the_widest_is_filled_with_empty_cells():
    table = table_of("Notes", ["Item"], 1, [(2, ["Tape", "urgent"])])

    assert [column.name for column in table.columns] == ["Item", "column B"]
    assert table_of("Notes", ["Item", "Note"], 1, [(2, ["Tape"])]).rows[0].cells == ("Tape", "")


def test_a_sheet_past_the_limits_has_no_table():
    rows = [(n, ["x", str(n)]) for n in range(2, MAX_ROWS + 3)]

    assert table_of("Log", ["Event", "Count"], 1, rows) is None
    assert table_of("Wide", [f"c{n}" for n in range(MAX_COLUMNS + 1)], 1, [(2, ["1"])]) is None


@pytest.mark.parametrize(("grid", "names"), [
    # A data row under a header with an unnamed column is data, of text or of numbers.
    ([["Name", "", "Role"], ["Ann", "Smith", "Chair"], ["Bo", "Li", "Clerk"]], ["Name", "column B", "Role"]),
    ([["Item", "", "Units"], ["Tape", "red", "5"], ["Box", "blue", "7"]], ["Item", "column B", "Units"]),
    ([["Region", "", "Units"], ["", "x", "5"], ["North", "y", "7"]], ["Region", "column B", "Units"]),
    # Years as the header's second line, under the measure they divide.
    ([["Region", "Units", "", "Revenue", ""], ["", "2024", "2025", "2024", "2025"], ["North", "5", "6", "100", "120"]],
     ["Region", "Units 2024", "Units 2025", "Revenue 2024", "Revenue 2025"]),
])
def test_only_a_row_continuing_a_spanning_header_is_read_as_its_second_line(grid, names):
    from docchat.tables.reading import grid_table

    assert [column.name for column in grid_table("T", grid).columns] == names


@pytest.mark.parametrize(("cells", "unit"), [
    (["$1,200.00", "$3,400.50", "—", "(250.00)"], "$"),  # an accountant's negative beside them is of the same
    (["12.5 km", "8 km"], "km"), (["5%", "10%"], "%"), (["NOK 420", "NOK 5"], "NOK"),
    (["1.5", "2"], ""), (["$1", "€2"], ""), (["$1", "2", "3"], ""),  # none, two, or most without
])
def test_a_column_keeps_the_currency_or_unit_its_numbers_are_written_with(cells, unit):
    from docchat.tables.reading import written_unit

    assert written_unit(cells) == unit


@pytest.mark.parametrize(("shown", "unit", "written"), [
    ("18,150", "$", "$18,150"), ("-250", "$", "-$250"), ("420", "NOK", "NOK 420"), ("12.5", "km", "12.5 km"),
    ("12", "%", "12%"), ("7", "", "7"), ("none (no value in those rows)", "$", "none (no value in those rows)"),
])
def test_a_figure_is_written_with_its_unit_as_tables_write_them(shown, unit, written):
    from docchat.domain.approach import with_unit

    assert with_unit(shown, unit) == written
