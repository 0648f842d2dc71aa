"""Figures over a table whose numbers are written as people write them (issue 55): currencies,
scale words, units, footnote marks, an accountant's negative, a dash or NA for none. Over a CSV
written by Python's csv module, through the library: the figure is computed, where the column
had been read as text and no figure was."""

from __future__ import annotations

import csv
import io

import pytest

from tests.integration.libraries import library_of

ROWS = [["Region", "Revenue", "Returns", "Distance"],
        ["North", "$71,725", "(1,200)", "12.5 km"],
        ["South", "$48,300[1]", "\u2014", "8 km"],
        ["East", "$1.2 million", "(300)", "n/a"],
        ["West", "$12k", "\u2212150", "4.5 km"],
        ["Total", "$1,332,025", "(1,650)", ""]]


def sales_csv() -> bytes:
    written = io.StringIO()
    csv.writer(written).writerows(ROWS)
    return written.getvalue().encode()


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("written"), {"regional-sales.csv": sales_csv()})


@pytest.mark.parametrize(("question", "value", "rows"), [
    ("What is the total revenue?", 71_725 + 48_300 + 1_200_000 + 12_000, (2, 3, 4, 5)),
    ("What is the total of returns?", -1_650, (2, 3, 4, 5)),  # the dash is no value: 3 rows hold one
    ("What is the average distance?", 25 / 3, (2, 3, 4, 5)),
    ("Which region has the most revenue?", None, (4,)),
])
def test_a_figure_is_computed_over_numbers_written_with_currencies_units_and_marks(library, question, value, rows):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert figure is not None and figure.rows == rows
    if value is None:
        assert figure.groups == (("East", 1_200_000),)
    else:
        assert figure.value == pytest.approx(value)


def test_a_dash_in_a_column_of_text_is_kept_as_written(tmp_path):
    from docchat.tables.reading import table_of
    from docchat.store.sheet_tables import SqliteSheetTables

    tables = SqliteSheetTables(tmp_path)
    tables.write("d", [table_of("Codes", ["Region", "Code", "Units"], 1,
                                [(2, ["North America", "NA", "4"]), (3, ["Unknown", "\u2014", "\u2014"])])])
    [shape] = tables.shapes()

    rows = tables.run(f'SELECT "Code", "Units" FROM {shape.table} ORDER BY _row', max_rows=5, timeout_s=2).rows
    assert [tuple(row) for row in rows] == [("NA", 4), ("\u2014", None)]


def test_na_nan_and_null_are_no_value_in_a_column_of_numbers_as_r_pandas_and_databases_write_them(tmp_path):
    from docchat.domain.documents import ColumnType

    from docchat.tables.reading import table_of

    table = table_of("Air", ["Ozone", "Wind"], 1, [(2, ["41", "7.4"]), (3, ["NA", "8.0"]), (4, ["NaN", "NULL"]),
                                                  (5, ["18", "11.5"])])

    assert [column.type for column in table.columns] == [ColumnType.INTEGER, ColumnType.REAL]


@pytest.mark.parametrize("label", ["All", "All regions", "Overall", "National", "Nationwide"])
def test_a_row_for_the_whole_of_its_parts_is_left_out_of_a_figure_like_a_total_row(tmp_path, label):
    from docchat.store.sheet_tables import SqliteSheetTables

    from docchat.tables.reading import table_of
    from docchat.services.figures import FigureService

    tables = SqliteSheetTables(tmp_path)
    tables.write("d", [table_of("Votes", ["Region", "Turnout"], 1, [(2, ["North", "1,200"]), (3, ["South", "800"]),
                                                                    (4, [label, "2,050"]), (5, ["Allendale", "50"])])])

    figure = FigureService(tables).figure("What is the total turnout?", [("d", "votes.csv")])

    assert figure.value == 2_050 and figure.rows == (2, 3, 5)  # Allendale is a place, not the whole


def test_a_row_named_like_the_whole_whose_figures_are_not_the_sum_of_the_rest_is_data(tmp_path):
    from docchat.store.sheet_tables import SqliteSheetTables

    from docchat.tables.reading import table_of
    from docchat.services.figures import FigureService

    tables = SqliteSheetTables(tmp_path)
    tables.write("d", [table_of("Seats", ["Party", "Seats"], 1, [(2, ["Labour", "34"]), (3, ["National", "50"]),
                                                                 (4, ["Green", "15"])])])

    figure = FigureService(tables).figure("What is the total of seats?", [("d", "seats.csv")])

    assert figure.value == 99 and figure.rows == (2, 3, 4)


@pytest.mark.parametrize(("question", "unit", "stated"), [
    ("What is the total revenue?", "$", "**\\$1,332,025**"),
    ("What is the average distance?", "km", "**8.33 km**"),
    ("Which region has the most revenue?", "$", "at **\\$1,200,000**"),
    ("How many regions had a revenue above 50,000?", "", "**2**"),  # rows counted: no currency
])
def test_a_figure_is_stated_in_the_currency_or_unit_its_column_is_written_in(library, question, unit, stated):
    from docchat.domain.stated import stated_text

    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert figure.unit == unit and stated in stated_text(figure)
