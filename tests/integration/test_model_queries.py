"""A query the served model writes over a kept sheet, run as docchat runs it: behind the sheets'
names bound to their data rows (subtotal and total rows never added again), read-only, and
judged unusable when it writes, reads no sheet it was shown, runs too long or gives no figure."""

from __future__ import annotations

import pytest

from docchat.errors import UnusableOutput
from docchat.services.figures import FigureService
from docchat.store.sheet_tables import SqliteSheetTables

from tests.integration.test_table_queries import STOCK

NAMES = {"d-stock": "harbour-inventory.xlsx"}


@pytest.fixture
def kept(tmp_path) -> SqliteSheetTables:
    tables = SqliteSheetTables(tmp_path)
    tables.write("d-stock", [STOCK])
    return tables


def written(kept: SqliteSheetTables, sql: str):
    shown: list[str] = []

    def write(tables: str) -> str:
        shown.append(tables)
        return sql

    return FigureService(kept).written_figure(kept.shapes(), NAMES, write, model="Qwen3-4B"), shown[0]


def test_the_model_is_shown_each_sheet_by_a_plain_name_with_its_columns_and_first_data_rows(kept):
    _, shown = written(kept, 'SELECT SUM("Pallets") AS pallets FROM stock')

    assert shown == ('Table stock (the sheet Stock of harbour-inventory.xlsx): "Location" TEXT, "Item" TEXT, '
                     '"Pallets" INTEGER, "Unit price" REAL\nIts first rows:\n'
                     "  ('Oslo', 'Cardboard boxes', 120, 4.5)\n  ('Oslo', 'Bubble wrap', 45, 12.0)\n"
                     "  ('Bergen', 'Cardboard boxes', 60, 4.5)")


def test_a_model_s_query_adds_up_the_data_rows_only_whatever_it_writes(kept):
    everything, _ = written(kept, 'SELECT SUM("Pallets") AS pallets FROM stock')
    oslo, _ = written(kept, 'select sum("Pallets" * "Unit price") as stock_value from "stock" '
                            "where \"Location\" = 'Oslo';")

    # 830 if the Oslo and Bergen subtotals and the grand total were added with the rows.
    assert (everything.what, everything.value) == ("pallets", 290)
    assert (oslo.value, oslo.written_by, oslo.rows) == (1080, "Qwen3-4B", ())
    assert oslo.statement == ("Computed by a query Qwen3-4B wrote, run by docchat over the data rows of "
                              "harbour-inventory.xlsx › Stock (subtotal and total rows left out): stock value is 1080.")


def test_a_model_s_query_per_value_of_a_column_gives_a_figure_for_each(kept):
    figure, _ = written(kept, 'WITH items AS (SELECT * FROM stock WHERE "Pallets" > 30) '
                              'SELECT "Location", COUNT(*) AS items FROM items GROUP BY "Location" ORDER BY 1')

    assert (figure.by, figure.groups) == ("Location", (("Bergen", 1), ("Oslo", 2), ("Tromsø", 1)))


@pytest.mark.parametrize(("sql", "why"), [
    ("DROP TABLE stock", "not a SELECT"),
    ('SELECT 1 FROM stock; DELETE FROM stock', "refused"),
    ("SELECT COUNT(*) FROM sheet_tables", "reads none of the sheets shown"),
    ('SELECT "Item" FROM stock', "gave no figure"),
    ("SELECT \"Pallets\" FROM stock WHERE \"Location\" = 'Narvik'", "gave no rows"),
    ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT MAX(x) FROM n, stock",
     "ran for more than"),
])
def test_a_query_that_writes_reads_no_sheet_shown_runs_too_long_or_gives_no_figure_is_unusable(kept, sql, why):
    with pytest.raises(UnusableOutput, match=why):
        written(kept, sql)

    assert kept.run(f"SELECT COUNT(*) FROM {kept.shapes()[0].table}", max_rows=1, timeout_s=2).rows == ((8,),)


def test_a_model_s_query_giving_one_cell_s_text_answers_with_that_text(kept):
    figure, _ = written(kept, "SELECT \"Item\" FROM stock WHERE \"Location\" = 'Bergen' ORDER BY \"Pallets\" DESC LIMIT 1")

    assert (figure.text, figure.value, figure.written_by) == ("Cardboard boxes", None, "Qwen3-4B")
    assert figure.statement.endswith("Item is Cardboard boxes.")
