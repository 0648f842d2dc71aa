"""A Markdown document's pipe tables are tables too (issue 55): a figure asked of one is computed
over its rows, its total row left out, and cited by the table and its rows; a table inside a
code block is code, not a table."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of

REPORT = """# Quarterly depot report

Pallets held at the end of the quarter, by depot.

| Depot | Region | Pallets | Cost |
| :--- | --- | ---: | ---: |
| Oslo | East | 1,840 | $12,400 |
| Bergen | West | 2,152 | $15,100 |
| Stavanger \\| harbour | West | **410** | $3,050 |
| Total | | 4,402 | $30,550 |

## Appendix

```
| Depot | Pallets |
| --- | --- |
| Tromsø | 999 |
```
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("markdown"), {"depot-report.md": REPORT.encode()})


def test_a_pipe_table_is_kept_as_a_table_and_a_code_block_s_is_not(library):
    from docchat.documents.kinds.markdown import read_markdown

    read = read_markdown("depot-report.md", REPORT.encode(), 1 << 20)

    [table] = read.tables
    assert [column.name for column in table.columns] == ["Depot", "Region", "Pallets", "Cost"]
    assert [row.cells[0] for row in table.rows] == ["Oslo", "Bergen", "Stavanger | harbour", "Total"]
    assert any("| Oslo | East | 1,840 |" in section.text for section in read.sections)  # searched as before


@pytest.mark.parametrize(("question", "value", "rows"), [
    ("How many pallets are held in total?", 4_402, (2, 3, 4)),  # the header is row 1
    ("What is the total cost of the West region?", 18_150, (3, 4)),
])
def test_a_figure_is_computed_over_a_markdown_table_s_rows(library, question, value, rows):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert (figure.value, figure.sheet, figure.rows) == (value, "Table 1", rows)


def test_which_depot_holds_the_most_pallets_is_answered_from_the_table(library):
    turn = library.chat.answer(None, "Which depot holds the most pallets?")

    assert turn.text().startswith("The Depot with the highest total of Pallets is **Bergen**, at **2,152** "
                                  "(computed by docchat from depot-report.md › Table 1, 1 row (3)")


def test_a_markdown_document_added_before_its_tables_were_kept_is_repaired_only_if_it_has_one(tmp_path):
    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.store.sheet_tables import SqliteSheetTables

    services = build_services(Settings(data_dir=tmp_path / "data"), contact_llm=False)
    try:
        report = services.ingestion.ingest("depot-report.md", REPORT.encode())
        notes = services.ingestion.ingest("notes.md", b"# Notes\n\nNo table here | just a bar.\n")
        # As a library from before: no Markdown document's tables kept.
        SqliteSheetTables(tmp_path / "data").drop(report.id)
        SqliteSheetTables(tmp_path / "data").drop(notes.id)

        found = services.index.check()
        done = services.index.repair()
        figure = services.figures.figure("How many pallets are held in total?", services.retrieval.in_scope(None))
    finally:
        services.close()

    assert found.sheets_without_tables == (report.id,) and not found.agrees
    assert done.tables_written == 1 and figure.value == 4_402
