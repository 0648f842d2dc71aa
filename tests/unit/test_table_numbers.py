"""The numbers a question names beside a table's numeric columns: conditions, ordinals, counts
and years (docchat.tables.numbers)."""

from __future__ import annotations

import pytest

from docchat.tables.numbers import count_column, equal_conditions, ordinal, year_conditions
from docchat.domain.documents import TableShape

CARS = TableShape("d", "cars", "t", (("car", "text"), ("mpg", "real"), ("cyl", "integer"), ("Day", "integer")), 32)
BARLEY = TableShape("d", "barley", "t", (("yield", "real"), ("variety", "text"), ("year", "integer")), 120)


@pytest.mark.parametrize(("question", "conditions"), [
    ("How many cars have 8 cyl?", ['"cyl" = 8']),
    ("What is the mpg of cars with cyl of 6?", ['"cyl" = 6']),
    ("How many cars have more than 8 cyl?", []),  # a range's bound, read as a range
    ("What is the total mpg of the first 3 cyl?", []),  # a place, not a value
    ("What is the average mpg?", []),
])
def test_a_number_beside_a_numeric_column_is_a_condition_unless_a_range_or_a_place_took_it(question, conditions):
    assert [sql for sql, _ in equal_conditions(CARS, question)] == conditions


def test_a_column_numbering_its_rows_is_an_ordinal_and_one_named_for_a_count_holds_the_count():
    assert ordinal("Day", "integer") and ordinal("order_id", "integer") and not ordinal("cyl", "integer")
    assert not ordinal("Day", "text")
    assert count_column(TableShape("d", "s", "t", (("count", "integer"), ("spray", "text")), 72)) == "count"
    assert count_column(CARS) is None


def test_a_year_is_a_condition_on_a_year_column_of_whole_numbers_only_without_dates():
    assert year_conditions(BARLEY, "What is the total yield in 1932?") == [('"year" = 1932', "year is 1932")]
    assert year_conditions(BARLEY, "What was the yield in 1931 and during 1932?")[0][0] == '"year" IN (1931, 1932)'
    dated = TableShape("d", "s", "t", (("year", "integer"), ("date", "date")), 3)
    assert year_conditions(dated, "the total in 1932") == []  # the dates answer (docchat.tables.dates)
