"""A chunk is found by the words of the heading it stands under (its document's name and its
section), not only by its own: the second chunk of a long section, a sheet's rows under the
sheet's name, and chunks stored before the headings existed (migration 0009)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from docchat.documents.index.word_index import TantivyWordIndex
from docchat.store.engine import make_engine
from docchat.store.migrate import upgrade
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

# One section long enough for several chunks; only its heading says "reserve account".
FILLER = " ".join(f"Clause {n} sets out how the collections of the month are applied in order of priority."
                   for n in range(60))
TRUST = f"# Harbour trust\n\n## Reserve Account\n\n{FILLER}\n\n## Governing law\n\nEnglish law governs.\n".encode()


def _found_by_words(library, *words: str) -> list[str]:
    found = library.retrieval.by_words(list(words), limit=50)
    with library.documents._uow() as uow:
        return [chunk.label for chunk in uow.documents.chunks([c for c, _ in found]).values()]


def test_every_chunk_of_a_long_section_is_found_by_the_words_of_its_heading(library):
    document = library.ingestion.ingest("harbour-trust.md", TRUST)
    reserve = [found.chunk for found in library.retrieval.whole([document.id], max_tokens=100_000)
               if found.chunk.label == "Reserve Account"]
    assert len(reserve) >= 3
    assert not any("reserve" in chunk.text.lower() for chunk in reserve[1:])  # only the heading says it

    assert _found_by_words(library, "reserve").count("Reserve Account") == len(reserve)
    assert reserve[0].heading == "harbour-trust.md › Reserve Account"


def test_the_words_of_a_heading_are_not_quoted_in_the_passage_given(library):
    library.ingestion.ingest("harbour-trust.md", TRUST)
    [found] = library.retrieval.retrieve("governing law", top_k=1)
    assert found.chunk.text == "## Governing law\n\nEnglish law governs."
    assert found.citation(1).text == found.chunk.text


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_chunks_stored_before_headings_get_theirs_and_are_found_by_them(database, tmp_path):
    engine = make_engine(database.url)
    upgrade(engine, "0008")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO documents (id, name, kind, path, size, content_hash, pages, chunks, status, added_at) "
            "VALUES ('d1', 'riverside-lease.md', 'markdown', 'x', 10, 'h1', NULL, 1, 'ready', "
            "'2026-01-05 09:00:00')"))
        connection.execute(text(
            "INSERT INTO chunks (id, document_id, position, label, page, text, token_count) "
            "VALUES ('c1', 'd1', 0, 'Break clause', NULL, 'The tenant may end it on the tenth anniversary.', 12)"))

    upgrade(engine)

    with SqlUnitOfWorkFactory(engine)() as unit:
        assert unit.documents.chunks(["c1"])["c1"].heading == "riverside-lease.md › Break clause"
        if database.kind == "postgresql":
            assert unit.documents.keyword_search(["riverside"], limit=5) == [("c1", "d1")]
            assert unit.documents.keyword_search(["break"], limit=5) == [("c1", "d1")]
    if database.kind == "sqlite":  # its word index, built from the rows at its first search
        words = TantivyWordIndex(tmp_path / "words", engine)
        assert words.search(["riverside"], limit=5) == [("c1", "d1")]
        assert words.search(["break"], limit=5) == [("c1", "d1")]
        assert words.check() == (0, 0)
    engine.dispose()
