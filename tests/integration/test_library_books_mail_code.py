"""E-books, mail and code through the document library (parsed in its worker processes, chunked,
embedded, searched): a question is answered from the chapter, the mail or the definition that
holds the answer, and the citation says which."""

from __future__ import annotations

from tests.integration.test_parsing_code import PYTHON
from tests.integration.test_parsing_ebooks import book
from tests.integration.test_parsing_mail import mail, outlook


def test_a_question_about_a_book_is_cited_by_the_chapter_that_answers_it(library):
    library.ingestion.ingest("harbour-street.epub", book())

    [best, *_] = library.retrieval.retrieve("Where did the trustees meet?", top_k=3)

    assert (best.document, best.citation(1).where) == ("harbour-street.epub", "Landfall at Madeira")
    assert "The trustees met at Funchal." in best.citation(1).text


def test_a_question_about_a_mail_is_cited_by_its_subject_with_who_wrote_it(library):
    library.ingestion.ingest("drawings.eml", bytes(mail()))
    library.ingestion.ingest("drawings.msg", outlook(mail(subject="Engine drawings, again")))

    found = library.retrieval.retrieve("Who sent the drawings of the Analytical Engine?", top_k=4)

    cited = {(hit.document, hit.citation(1).where) for hit in found}
    assert {("drawings.eml", "Engine drawings"), ("drawings.msg", "Engine drawings, again")} <= cited
    assert all("From: Ada Lovelace <ada@example.org>" in hit.citation(1).text for hit in found)


def test_a_question_about_code_is_cited_by_the_definition_and_its_lines(library):
    library.ingestion.ingest("deeds.py", PYTHON)

    [best, *_] = library.retrieval.retrieve("How is the determination date read from the deed's text?", top_k=3)

    assert best.document == "deeds.py"
    assert best.citation(1).where.startswith("def determination_date (lines ")
    assert "return DATE.search(text).group(1)" in best.citation(1).text
