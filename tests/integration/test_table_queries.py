"""The figures docchat computes from a sheet itself, checked by running its queries on a kept
table: subtotal and total rows are never added again, and a question it cannot read as a figure
gets no query (passages answer it)."""

from __future__ import annotations

import pytest

from docchat.tables.query import table_query
from docchat.tables.reading import table_of
from docchat.domain.documents import quoted
from docchat.store.sheet_tables import SqliteSheetTables

ROWS = [("Oslo", "Cardboard boxes", "120", "4.5"), ("Oslo", "Bubble wrap", "45", "12"), ("Oslo subtotal", "", "165", ""),
        ("Bergen", "Cardboard boxes", "60", "4.5"), ("Bergen", "Tape", "25", "2"), ("Bergen subtotal", "", "85", ""),
        ("Tromsø", "Cardboard boxes", "40", "5"), ("Grand total", "", "290", "")]
STOCK = table_of("Stock", ["Location", "Item", "Pallets", "Unit price"], 1,
                 [(number, list(cells)) for number, cells in enumerate(ROWS, start=2)])


@pytest.fixture
def kept(tmp_path) -> SqliteSheetTables:
    tables = SqliteSheetTables(tmp_path)
    tables.write("d-stock", [STOCK])
    return tables


def computed(kept: SqliteSheetTables, question: str):
    def values(shape, column):
        query = (f"SELECT DISTINCT {quoted(column)} FROM {shape.table} WHERE _kind = 'row' "
                 f"AND {quoted(column)} IS NOT NULL")
        return [row[0] for row in kept.run(query, max_rows=500, timeout_s=2).rows]

    query = table_query(question, kept.shapes(), values)
    if query is None:
        return None
    [(value, read, used)] = kept.run(query.sql, max_rows=1, timeout_s=2).rows
    return value, read, used, query.what


@pytest.mark.parametrize(("question", "value", "what"), [
    ("How many pallets are stored in Oslo in total?", 165, "the total of Pallets where Location is Oslo"),
    ("What is the total number of pallets in stock?", 290, "the total of Pallets"),
    ("How many pallets of cardboard boxes are there across all locations?", 220,
     "the total of Pallets where Item is Cardboard boxes"),
    ("How many pallets are in Oslo or Bergen?", 250, "the total of Pallets where Location is Oslo or Bergen"),
    ("What is the average unit price of cardboard boxes?", pytest.approx(14 / 3),
     "the average of Unit price where Item is Cardboard boxes"),
    ("Which location holds the most pallets of a single item?", 120, "the highest of Pallets"),
    ("What is the lowest unit price in Bergen?", 2, "the lowest of Unit price where Location is Bergen"),
    ("How many items are stocked in Bergen?", 2, "the number of rows where Location is Bergen"),
])
def test_a_figure_asked_of_a_sheet_is_computed_over_its_data_rows_only(kept, question, value, what):
    got, _, _, said = computed(kept, question)

    assert (got, said) == (value, what)


@pytest.mark.parametrize(("question", "value", "what"), [
    ("How many items have more than 50 pallets?", 2, "the number of rows where Pallets is more than 50"),
    ("How many items are stocked with fewer than 45 pallets?", 2, "the number of rows where Pallets is less than 45"),
    ("How many items have at least 45 pallets?", 3, "the number of rows where Pallets is at least 45"),
    ("How many items in Oslo have 45 or more pallets?", 2,
     "the number of rows where Location is Oslo and Pallets is at least 45"),
    ("What is the total of pallets of items with a unit price above 4.5?", 85,
     "the total of Pallets where Unit price is more than 4.5"),
    ("What is the highest unit price of items with no more than 1,000 pallets?", 12,
     "the highest of Unit price where Pallets is at most 1000"),
    ("What is the average number of pallets above 50?", 90, "the average of Pallets where Pallets is more than 50"),
])
def test_a_range_of_a_column_keeps_the_rows_in_it(kept, question, value, what):
    got, _, _, said = computed(kept, question)

    assert (got, said) == (value, what)


@pytest.mark.parametrize(("question", "value", "what"), [
    ("How many pallets are stored outside Oslo?", 125, "the total of Pallets where Location is not Oslo"),
    ("What is the total of pallets not in Oslo or Bergen?", 40, "the total of Pallets where Location is not Oslo "
                                                                "nor Bergen"),
    ("How many items are not cardboard boxes?", 2, "the number of rows where Item is not Cardboard boxes"),
    ("How many pallets of cardboard boxes are there, excluding Tromsø?", 180,
     "the total of Pallets where Location is not Tromsø and Item is Cardboard boxes"),
    ("How many different items are stocked?", 3, "the number of different Item"),
    ("How many distinct items are there in Oslo?", 2, "the number of different Item where Location is Oslo"),
])
def test_values_left_out_and_different_values_counted(kept, question, value, what):
    got, _, _, said = computed(kept, question)

    assert (got, said) == (value, what)


def computed_per(kept: SqliteSheetTables, question: str):
    query = table_query(question, kept.shapes(), lambda shape, column: [
        row[0] for row in kept.run(f"SELECT DISTINCT {quoted(column)} FROM {shape.table} WHERE _kind = 'row'",
                                   max_rows=500, timeout_s=2).rows])
    assert query is not None and query.by is not None
    return [(per, value) for per, value, *_ in kept.run(query.sql, max_rows=50, timeout_s=2).rows], query.what


@pytest.mark.parametrize(("question", "values", "what"), [
    ("How many pallets are stored per location?", [("Oslo", 165), ("Bergen", 85), ("Tromsø", 40)],
     "the total of Pallets per Location"),
    ("What is the total of pallets of cardboard boxes for each location?",
     [("Oslo", 120), ("Bergen", 60), ("Tromsø", 40)], "the total of Pallets per Location where Item is Cardboard boxes"),
    ("How many items are there in every location?", [("Oslo", 2), ("Bergen", 2), ("Tromsø", 1)],
     "the number of rows per Location"),
    ("What is the highest unit price by item?", [("Cardboard boxes", 5), ("Bubble wrap", 12), ("Tape", 2)],
     "the highest of Unit price per Item"),
])
def test_a_figure_asked_per_value_of_a_column_is_computed_for_each_in_the_sheet_s_order(kept, question, values, what):
    assert computed_per(kept, question) == (values, what)


def test_the_rows_a_figure_read_are_named_to_cite_them(kept):
    _, read, used, _ = computed(kept, "How many pallets are stored in Oslo in total?")

    assert (read, sorted(map(int, used.split(",")))) == (2, [2, 3])


@pytest.mark.parametrize("question", [
    "Who supplies the bubble wrap?",  # no figure asked
    "What is the total weight of the boxes?",  # no such column
])
def test_a_question_it_cannot_read_as_a_figure_gets_no_query(kept, question):
    assert computed(kept, question) is None


def test_a_value_with_a_quote_in_it_is_matched_and_cannot_change_the_query(tmp_path):
    tables = SqliteSheetTables(tmp_path)
    tables.write("d", [table_of("Stock", ["Shop", "Pallets"], 1, [(2, ["O'Neill's", "7"]), (3, ["Other", "5"])])])

    assert computed(tables, "How many pallets does O'Neill's hold in total?")[0] == 7


@pytest.mark.parametrize(("question", "value", "what"), [
    ("How many more pallets are stored in Oslo than in Bergen?", 80,
     "the difference between the total of Pallets where Location is Oslo and that where Location is Bergen"),
    ("How many fewer pallets does Tromsø hold than Oslo?", -125,
     "the difference between the total of Pallets where Location is Tromsø and that where Location is Oslo"),
    ("What is the difference in the average unit price between Oslo and Bergen?", 8.25 - 3.25,
     "the difference between the average of Unit price where Location is Oslo and that where Location is Bergen"),
    ("How many more items does Oslo stock than Tromsø?", 1,
     "the difference between the number of rows where Location is Oslo and that where Location is Tromsø"),
    ("How many more pallets of cardboard boxes are in Bergen than in Tromsø?", 20,
     "the difference, where Item is Cardboard boxes, between the total of Pallets where Location is Bergen and "
     "that where Location is Tromsø"),
])
def test_one_value_s_figure_less_another_s_in_the_order_the_question_names_them(kept, question, value, what):
    got, _, _, said = computed(kept, question)

    assert (got, said) == (pytest.approx(value), what)


@pytest.mark.parametrize(("question", "value", "what"), [
    ("How many times more pallets are stored in Oslo than in Bergen?", 165 / 85,
     "the ratio of the total of Pallets where Location is Oslo to that where Location is Bergen"),
    ("What is the ratio of the pallets in Bergen to those in Tromsø?", 85 / 40,
     "the ratio of the total of Pallets where Location is Bergen to that where Location is Tromsø"),
    ("How many times as many items does Oslo stock as Tromsø?", 2.0,
     "the ratio of the number of rows where Location is Oslo to that where Location is Tromsø"),
])
def test_one_value_s_figure_over_another_s_in_the_order_the_question_names_them(kept, question, value, what):
    got, _, _, said = computed(kept, question)

    assert (got, said) == (pytest.approx(value), what)


@pytest.mark.parametrize(("question", "value", "what"), [
    ("What is the unit price of tape in Bergen?", 2, "the Unit price where Location is Bergen and Item is Tape"),
    ("What was the unit price of bubble wrap?", 12, "the Unit price where Item is Bubble wrap"),
])
def test_one_cell_is_looked_up_by_the_values_that_pick_out_its_row(kept, question, value, what):
    got, read, _, said = computed(kept, question)

    assert (got, read, said) == (value, 1, what)


def test_a_cell_the_values_do_not_pick_out_alone_is_not_looked_up(kept):
    from docchat.tables.query import table_query

    query = table_query("What is the unit price of cardboard boxes?", kept.shapes(), lambda shape, column: [
        row[0] for row in kept.run(f"SELECT DISTINCT {quoted(column)} FROM {shape.table} WHERE _kind = 'row'",
                                   max_rows=500, timeout_s=2).rows])

    assert not kept.run(query.sql, max_rows=1, timeout_s=2).rows  # three rows hold cardboard boxes: no one value


def test_a_text_cell_is_looked_up_by_the_values_that_pick_out_its_row(tmp_path):
    tables = SqliteSheetTables(tmp_path)
    tables.write("d", [table_of("Races", ["Date", "Race", "Winner", "Time"], 1, [
        (2, ["2026-05-03", "Harbour Run", "Ada Berg", "31:04"]), (3, ["2026-05-10", "Fjord Dash", "Lars Holm", "29:51"]),
        (4, ["2026-06-14", "Harbour Run", "Kari Dahl", "30:40"])])])

    assert computed(tables, "Who was the winner on 10 May?")[0::3] == ("Lars Holm", "the Winner where Date is on 10 May")
    assert computed(tables, "What race was run on 2026-06-14?")[0::3] == (
        "Harbour Run", "the Race where Date is 2026-06-14")
    query = table_query("Who was the winner of the Harbour Run?", tables.shapes(), lambda shape, column: [
        row[0] for row in tables.run(f"SELECT DISTINCT {quoted(column)} FROM {shape.table}", max_rows=9,
                                     timeout_s=2).rows])
    assert not tables.run(query.sql, max_rows=1, timeout_s=2).rows  # run twice: no one winner
