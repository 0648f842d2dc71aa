"""Tables in e-books and HTML mail (issue 55 part 4), through the library: an EPUB written with
zipfile and a mail written with Python's email package, their tables kept, a figure computed over
each and named by its chapter or message; a mail added before its tables were kept is listed by
the library check only when it has an HTML part."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.integration.test_parsing_ebooks import PRICES, book, chapter
from tests.integration.test_parsing_mail import COSTS, mail


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("books-mail"), {
        "harbour-trust.epub": book(more={"OEBPS/text/reserve.xhtml": chapter(PRICES)}),
        "engine-costs.eml": bytes(mail(html=COSTS))})


@pytest.mark.parametrize(("question", "document", "sheet", "value", "rows"), [
    ("What is the total fee of the berths?", "harbour-trust.epub", "II. The Reserve Account, table 1", 2_050, (2, 3)),
    ("What is the total cost of the parts?", "engine-costs.eml", "Engine drawings, table 1", 1_790, (2, 3)),
])
def test_a_figure_is_computed_from_a_table_of_an_ebook_or_a_mail_and_named_by_its_place(
        library, question, document, sheet, value, rows):
    in_scope = [pair for pair in library.retrieval.in_scope(None) if pair[1] == document]

    figure = library.figures.figure(question, in_scope)

    assert figure is not None and (figure.document, figure.sheet) == (document, sheet)
    assert figure.value == value and figure.rows == rows  # the e-book's Total row is not added again


def test_a_mail_added_before_its_tables_were_kept_is_repaired_only_if_it_has_an_html_part(tmp_path):
    from docchat.store.sheet_tables import SqliteSheetTables

    for services in library_of(tmp_path, {"engine-costs.eml": bytes(mail(html=COSTS)),
                                          "plain-reply.eml": bytes(mail(subject="Plain reply"))}):
        ids = {name: id_ for id_, name in services.retrieval.in_scope(None)}
        for id_ in ids.values():  # as a library from before: no mail's tables kept
            SqliteSheetTables(tmp_path / "data").drop(id_)

        found = services.index.check()
        done = services.index.repair()
        figure = services.figures.figure("What is the total cost of the parts?", services.retrieval.in_scope(None))

        assert found.sheets_without_tables == (ids["engine-costs.eml"],)
        assert done.tables_written == 1 and figure.value == 1_790
