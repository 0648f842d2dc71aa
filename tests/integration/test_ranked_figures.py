"""Which value of a column ranks first by its figure (issue 55): "Which warehouse has the most
pallets?" names the warehouse with the most pallets in all, with its figure, not the largest
single row; ties are named together. Over a workbook made by openpyxl, through the library."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.office_files import xlsx_of

from docchat.domain.stated import stated_text

ROWS = [("Location", "Item", "Pallets", "Unit price"),
        ("Oslo", "Cardboard boxes", 120, 4.5), ("Oslo", "Bubble wrap", 45, 12), ("Oslo subtotal", None, 165, None),
        ("Bergen", "Cardboard boxes", 130, 4.5), ("Bergen", "Tape", 25, 2), ("Bergen subtotal", None, 155, None),
        ("Tromsø", "Cardboard boxes", 40, 5), ("Grand total", None, 360, None)]


def workbook() -> bytes:
    return xlsx_of({"Stock": ROWS})


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("ranked"), {"warehouse-stock.xlsx": workbook()})


@pytest.mark.parametrize(("question", "first", "what"), [
    # The most pallets in all: Oslo's two rows (165), though Bergen's boxes are the largest row (130).
    ("Which location has the most pallets?", [("Oslo", 165)], "the Location with the highest total of Pallets"),
    ("Which location holds the fewest pallets?", [("Tromsø", 40)], "the Location with the lowest total of Pallets"),
    ("Which item has the highest unit price?", [("Bubble wrap", 12)], "the Item with the highest Unit price"),
    ("What location has the lowest average unit price?", [("Bergen", 3.25)],
     "the Location with the lowest average of Unit price"),
    ("Which location has the most items?", [("Oslo", 2), ("Bergen", 2)], "the Location with the most rows"),
    ("Which item has the most pallets in Bergen?", [("Cardboard boxes", 130)],
     "the Item with the highest total of Pallets where Location is Bergen"),
])
def test_the_value_that_ranks_first_is_named_with_its_figure_and_any_tied_with_it(library, question, first, what):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert (list(figure.groups), figure.what) == (first, what)
    assert figure.ranked == ("lowest" if any(word in question for word in ("fewest", "lowest")) else "highest")


def test_a_question_about_a_single_row_still_gets_the_largest_row():
    from docchat.tables.query import table_query
    from docchat.domain.documents import TableShape

    shape = TableShape("d", "Stock", "t_stock", (("Location", "text"), ("Item", "text"), ("Pallets", "integer")), 7)
    query = table_query("Which location holds the most pallets of a single item?", [shape], lambda *_: [])

    assert (query.what, query.ranked) == ("the highest of Pallets", "")


def test_the_answer_names_the_first_value_and_its_rows_in_docchat_s_words(library):
    turn = library.chat.answer(None, "Which location has the most pallets?")
    text = turn.text()

    assert text == ("The Location with the highest total of Pallets is **Oslo**, at **165** (computed by docchat "
                    "from warehouse-stock.xlsx › Stock, 2 rows (2-3); subtotal and total rows left out) [1].")
    assert turn.answer.facts.table.ranked == "highest"
    tied = library.figures.figure("Which location has the most items?", library.retrieval.in_scope(None))
    assert stated_text(tied).startswith("The Location with the most rows is **Oslo** and **Bergen**, at **2** each")


@pytest.mark.parametrize(("question", "groups", "what"), [
    ("What are the top 2 items by pallets?", [("Cardboard boxes", 290), ("Bubble wrap", 45)],
     "the total of Pallets per Item, the 2 highest"),
    ("Name the three locations with the fewest pallets.", [("Tromsø", 40), ("Bergen", 155), ("Oslo", 165)],
     "the total of Pallets per Location, the 3 lowest"),
])
def test_a_top_list_is_a_figure_per_value_in_the_order_of_its_rank(library, question, groups, what):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert (list(figure.groups), figure.what, figure.ranked) == (groups, what, "")
    # Stated as a table of the values, their figures and rows, in rank order.
    lines = stated_text(figure).splitlines()
    assert lines[2] == f"| {figure.by} | Total of Pallets | Rows |"
    assert [line.split(" | ")[0] for line in lines[4:]] == [f"| {group}" for group, _ in groups]
