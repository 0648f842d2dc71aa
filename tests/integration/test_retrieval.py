"""Hybrid retrieval through the document service: real Markdown ingestion, MiniLM, Qdrant local
mode for meaning, the database's full-text search for exact terms (SQLite's FTS5, PostgreSQL's
text search)."""

from __future__ import annotations

import pytest

from docchat.retrieval.fusion import rrf
from docchat.retrieval.words import query_terms

from tests.integration.sample_documents import COOKERY_PASSAGES, TRUST_PASSAGES, markdown

pytestmark = pytest.mark.both_databases


@pytest.fixture
def books(library):
    """The two sample documents, ingested; their ids by short name."""
    trust = library.ingestion.ingest("harbour-trust.md", markdown(TRUST_PASSAGES))
    cookery = library.ingestion.ingest("kitchen-notebook.md", markdown(COOKERY_PASSAGES))
    return {"trust": trust.id, "cookery": cookery.id}


def labels(found) -> list[str]:
    return [r.chunk.label for r in found]


def keyword_side(library, question: str, limit: int = 40, document_ids=None) -> list[tuple[str, str]]:
    return library.retrieval.by_words(query_terms(question), limit=limit, document_ids=document_ids)


def test_a_question_about_the_determination_date_finds_its_definition_first(library, books):
    [best, *_] = library.retrieval.retrieve("When is the Determination Date?", top_k=5)
    assert (best.chunk.label, best.document) == ("1.2 Determination Date", "harbour-trust.md")


def test_a_code_is_matched_exactly_and_not_by_a_look_alike(library, books, shared_embedder):
    question = "ZX-4471"
    # The premise: by meaning alone, ZX-4741 (item 1) looks more like ZX-4471 than item 2 does.
    [(closest, _)] = library.index.open().nearest(shared_embedder.embed([question])[0], limit=1)
    with library.documents._uow() as uow:
        assert uow.documents.chunks([closest])[closest].label != "Schedule, item 2", "premise: dense alone misses"

    assert labels(library.retrieval.retrieve(question, top_k=3))[0] == "Schedule, item 2"


def test_on_the_keyword_side_a_rare_word_outweighs_a_common_one(services, library, books):
    # "trustee" is in most clauses, twice in one; "gilts" in a single chunk. Only IDF tells them apart.
    [(best, _), *_] = keyword_side(library, "Trustee gilts")
    with library.documents._uow() as uow:
        assert uow.documents.chunks([best])[best].label == "Schedule, item 2"


def test_the_answer_is_the_rrf_fusion_of_the_dense_and_keyword_sides(services, library, books, shared_embedder):
    question = "How long should the chicken rest before carving?"
    dense = library.index.open().nearest(shared_embedder.embed([question])[0], limit=40)
    keyword = keyword_side(library, question)
    expected = rrf([[chunk for chunk, _ in dense], [chunk for chunk, _ in keyword]])[:10]

    found = library.retrieval.retrieve(question, top_k=10)

    assert [(r.chunk.id, r.score) for r in found] == [(chunk, pytest.approx(score)) for chunk, score in expected]
    assert found[0].chunk.label == "Roast chicken"


def test_a_search_scoped_to_the_cookery_book_never_returns_the_trust_agreement(library, books):
    found = library.retrieval.retrieve("When is the Determination Date?", top_k=10, document_ids=[books["cookery"]])
    assert len(found) == 10
    assert {r.chunk.document_id for r in found} == {books["cookery"]}


def test_an_empty_scope_finds_nothing(library, books):
    assert library.retrieval.retrieve("When is the Determination Date?", top_k=5, document_ids=[]) == []


def test_the_active_document_moves_up_on_a_close_call_and_nothing_is_dropped(library, books):
    question = "Which copy was bound in a green cover?"
    plain = library.retrieval.retrieve(question, top_k=10)
    # Both documents have an "About this copy" chunk; they come out on top, neck and neck.
    first, second = plain[0].chunk, plain[1].chunk
    assert {first.label, second.label} == {"About this copy"} and first.document_id != second.document_id

    biased = library.retrieval.retrieve(question, top_k=10, active={second.document_id})

    assert biased[0].chunk == second
    assert first in [r.chunk for r in biased]
    assert len(biased) == len(plain)


def test_a_deleted_document_is_found_by_neither_side(services, library, books):
    library.documents.delete(books["trust"])

    assert library.index.open().count() == len(COOKERY_PASSAGES)
    assert keyword_side(library, "Determination Date Trustee") == []
    found = library.retrieval.retrieve("When is the Determination Date?", top_k=10)
    assert {r.chunk.document_id for r in found} == {books["cookery"]}


def test_each_passage_keeps_how_close_it_is_and_how_many_of_the_question_s_words_it_holds(library, books):
    question = "When is the Determination Date?"
    [best, *_] = library.retrieval.retrieve(question, top_k=5)

    assert best.similarity is not None and 0.4 < best.similarity <= 1.0
    assert best.coverage == 1.0  # "determination" and "date" are both in the definition
    # The local vectors' fast path gives the same similarity as Qdrant's own search did.
    assert library.retrieval.retrieve(question, top_k=5)[0].similarity == pytest.approx(best.similarity, abs=1e-5)


def test_each_document_asked_for_gets_its_own_best_passages_from_one_embedding(library, books, monkeypatch):
    # "Determination Date" is the trust agreement's: over both books, the best passages are the
    # trust's, but each document searched alone gives its own best.
    question = "When is the Determination Date?"
    assert [r.chunk.document_id for r in library.retrieval.retrieve(question, top_k=2)] == [books["trust"]] * 2
    embedded = []
    embed = library.retrieval._embedder.embed
    monkeypatch.setattr(library.retrieval._embedder, "embed", lambda texts: embedded.append(texts) or embed(texts))

    each = library.retrieval.retrieve_each(question, [books["cookery"], books["trust"], "gone"], top_k=2)

    assert list(each) == [books["cookery"], books["trust"]]
    assert labels(each[books["trust"]])[0] == "1.2 Determination Date"
    assert [r.chunk.id for r in each[books["cookery"]]] == [
        r.chunk.id for r in library.retrieval.retrieve(question, top_k=2, document_ids=[books["cookery"]])]
    assert len(embedded) == 2  # once for all of retrieve_each, once for the retrieve after it


def test_the_documents_in_scope_are_the_ready_ones_oldest_first(library, books):
    assert library.retrieval.in_scope(None) == [(books["trust"], "harbour-trust.md"),
                                                (books["cookery"], "kitchen-notebook.md")]
    assert library.retrieval.in_scope([books["cookery"], "gone"]) == [(books["cookery"], "kitchen-notebook.md")]
    library.documents.delete(books["trust"])

    assert library.retrieval.in_scope(None) == [(books["cookery"], "kitchen-notebook.md")]
