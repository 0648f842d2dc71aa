"""Rows named by their place, and rows counted by a value no column's name announces (issue 55):
"the first 3 races" adds up those three rows, where the query had added up every row; "how many
races did Berg win" counts the rows where Berg is the Winner, in a library of two sheets; "the
first 3 months" keeps the rows of the first three months the dates hold (June's two races are one
month), and "the first 2 weeks", a span docchat does not read, gets no figure."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.office_files import delimited

RACES = [["Race", "Date", "Venue", "Visitors", "Winner"],
         ["Spring Cup", "2025-03-02", "Oslo", "12,400", "Berg"],
         ["Harbour Run", "2025-04-13", "Bergen", "15,900", "Lund"],
         ["Fjord Sprint", "2025-05-04", "Oslo", "9,800", "Berg"],
         ["Coast Classic", "2025-06-08", "Tromsø", "13,100", "Dahl"],
         ["Midsummer Mile", "2025-06-21", "Bergen", "21,000", "Lund"],
         ["Autumn Trail", "2025-09-14", "Oslo", "7,300", "Berg"],
         ["Harvest Dash", "2025-10-05", "Stavanger", "11,250", "Moe"],
         ["Total", "", "", "90,750", ""]]
BUDGET = [["Department", "2024", "2025"], ["Sales", "1,200", "1,450"], ["Support", "800", "760"]]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("placed"),
                          {"races.csv": delimited(RACES), "budget.csv": delimited(BUDGET)})


def _figure(library, question):
    return library.figures.figure(question, library.retrieval.in_scope(None))


@pytest.mark.parametrize(("question", "value", "rows"), [
    ("What was the total number of visitors at the first 3 races?", 12_400 + 15_900 + 9_800, (2, 3, 4)),
    ("How many visitors came to the last two races?", 7_300 + 11_250, (7, 8)),  # the Total row is no race
    ("What was the average number of visitors over the first five races?", 14_440, (2, 3, 4, 5, 6)),
    ("How many of the first 4 races were held in Oslo?", 2, (2, 4)),
])
def test_the_first_or_last_rows_a_question_names_are_the_rows_computed_over(library, question, value, rows):
    figure = _figure(library, question)

    assert (figure.document, figure.value, figure.rows) == ("races.csv", value, rows)


@pytest.mark.parametrize(("question", "value", "rows"), [
    ("How many races did Berg win?", 3, (2, 4, 7)),
    ("How many races were held in Oslo or Bergen?", 5, (2, 3, 4, 6, 7)),
])
def test_rows_are_counted_by_a_value_the_question_names_in_the_sheet_that_holds_it(library, question, value, rows):
    figure = _figure(library, question)

    assert (figure.document, figure.value, figure.rows) == ("races.csv", value, rows)


@pytest.mark.parametrize(("question", "value", "rows"), [
    ("What is the total of visitors in the first 3 months?", 12_400 + 15_900 + 9_800, (2, 3, 4)),
    ("How many visitors came in the last 2 months?", 7_300 + 11_250, (7, 8)),
    ("How many races were held in the first 4 months?", 5, (2, 3, 4, 5, 6)),  # March to June: June has two
])
def test_the_first_or_last_months_are_the_months_the_dates_hold(library, question, value, rows):
    figure = _figure(library, question)

    assert (figure.document, figure.value, figure.rows) == ("races.csv", value, rows)


def test_a_span_of_time_docchat_does_not_read_gets_no_figure_rather_than_one_over_every_row(library):
    assert _figure(library, "What is the total of visitors in the first 2 weeks?") is None
