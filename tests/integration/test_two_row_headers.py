"""A header over two lines (issue 55 part 1): a workbook whose years are merged cells over their
columns (openpyxl), a web page whose years span theirs (colspan) and a Word table whose cells
span (python-docx), each through the library: every column is named by both lines, and a
question naming both ("the total 2025 revenue") is computed over that column alone."""

from __future__ import annotations

import io

import pytest

from tests.integration.libraries import library_of

HEADER = [["Region", "2024", None, "2025", None], [None, "Units", "Revenue", "Units", "Revenue"]]
DATA = [["North", 12, 1_450, 15, 1_800], ["South", 9, 1_020, 11, 1_310], ["Total", 21, 2_470, 26, 3_110]]


def workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Sales"
    for row in HEADER + DATA:
        sheet.append(row)
    sheet.merge_cells("B1:C1")
    sheet.merge_cells("D1:E1")
    written = io.BytesIO()
    book.save(written)
    return written.getvalue()


def page() -> bytes:
    rows = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in DATA)
    return ("<html><body><h1>Sales</h1><table><tr><th rowspan='2'>Region</th><th colspan='2'>2024</th>"
            "<th colspan='2'>2025</th></tr><tr><th>Units</th><th>Revenue</th><th>Units</th><th>Revenue</th></tr>"
            f"{rows}</table></body></html>").encode()


def document() -> bytes:
    from docx import Document

    doc = Document()
    table = doc.add_table(rows=len(HEADER) + len(DATA), cols=5)
    for r, row in enumerate(HEADER + DATA):
        for c, cell in enumerate(row):
            table.cell(r, c).text = "" if cell is None else str(cell)
    table.cell(0, 1).merge(table.cell(0, 2)).text = "2024"
    table.cell(0, 3).merge(table.cell(0, 4)).text = "2025"
    written = io.BytesIO()
    doc.save(written)
    return written.getvalue()


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("two-rows"), {
        "sales.xlsx": workbook(), "sales.html": page(), "sales.docx": document()})


@pytest.mark.parametrize("name", ["sales.xlsx", "sales.html", "sales.docx"])
def test_each_column_is_named_by_both_lines_of_the_header(library, name):
    [shape] = library.figures.sheets([pair for pair in library.retrieval.in_scope(None) if pair[1] == name])

    assert [column for column, _ in shape.columns] == ["Region", "2024 Units", "2024 Revenue", "2025 Units",
                                                       "2025 Revenue"]


@pytest.mark.parametrize("name", ["sales.xlsx", "sales.html", "sales.docx"])
@pytest.mark.parametrize(("question", "value"), [
    ("What is the total 2025 revenue?", 3_110),
    ("How many units were sold in 2024 in the North?", 12),
])
def test_a_question_naming_both_lines_is_computed_over_that_column(library, name, question, value):
    in_scope = [pair for pair in library.retrieval.in_scope(None) if pair[1] == name]

    figure = library.figures.figure(question, in_scope)

    assert figure is not None and figure.value == value, figure


def test_a_cell_spanning_rows_of_a_web_pages_table_is_each_rows():
    from docchat.documents.parsing import parse

    html = (b"<table><tr><th>Region</th><th>Item</th><th>Units</th></tr>"
            b"<tr><td rowspan='2'>North</td><td>Tape</td><td>5</td></tr><tr><td>Box</td><td>7</td></tr>"
            b"<tr><td>South</td><td>Tape</td><td rowspan='2'>2</td></tr><tr><td>West</td><td>Box</td></tr></table>")

    [table] = parse("stock.html", html).tables

    assert [row.cells for row in table.rows] == [("North", "Tape", "5"), ("North", "Box", "7"),
                                                 ("South", "Tape", "2"), ("West", "Box", "2")]
