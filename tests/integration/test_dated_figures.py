"""Figures over the rows of a date the question names (issue 55): "the total units sold in 2025"
adds up 2025's rows, where the query had added up every row. Over a workbook made by openpyxl,
its dates real dates, through the library."""

from __future__ import annotations

import datetime

import pytest

from tests.integration.libraries import library_of
from tests.office_files import xlsx_of

# Units by region and month: 2024's autumn and 2025's first half; a total row at the end.
SALES = [("North", datetime.date(2024, 10, 1), 110), ("North", datetime.date(2024, 12, 1), 130),
         ("North", datetime.date(2025, 1, 1), 140), ("West", datetime.date(2025, 3, 1), 210),
         ("North", datetime.date(2025, 3, 1), 150), ("West", datetime.date(2025, 6, 1), 260),
         ("West", datetime.date(2024, 3, 1), 90)]


def workbook() -> bytes:
    return xlsx_of({"Sales": [("Region", "Month", "Units sold"), *SALES,
                              ("Total", None, sum(units for *_, units in SALES))]})


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("dated"), {"sales.xlsx": workbook()})


@pytest.mark.parametrize(("question", "value", "what"), [
    ("What were the total units sold in 2025?", 760, "the total of Units sold where Month is in 2025"),
    ("What is the total of units sold in March 2025?", 360, "the total of Units sold where Month is in March 2025"),
    ("What is the total of units sold in March?", 450, "the total of Units sold where Month is in March"),
    ("What were the total units sold for West in 2025?", 470,
     "the total of Units sold where Region is West and Month is in 2025"),
    ("What is the total of units sold after 1 December 2024?", 760,
     "the total of Units sold where Month is after 2024-12-01"),
    ("What is the total of units sold since 2025?", 760, "the total of Units sold where Month is since 2025"),
    ("What is the total of units sold before 2025?", 330, "the total of Units sold where Month is before 2025"),
    ("What were the units sold by West in March 2025?", 210, "the Units sold where Region is West and Month is in "
                                                             "March 2025"),
    ("Which region sold the most units in 2025?", None, "the Region with the highest total of Units sold where "
                                                        "Month is in 2025"),
])
def test_a_figure_is_computed_over_the_rows_of_the_dates_the_question_names(library, question, value, what):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert (figure.value, figure.what) == (value, what)
    if figure.ranked:
        assert figure.groups == (("West", 470),)


def test_may_the_verb_is_no_month(library):
    figure = library.figures.figure("What total of units sold may West report?", library.retrieval.in_scope(None))

    assert figure.value == 560 and "Month" not in figure.what
