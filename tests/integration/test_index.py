"""The chunk index over a real local Qdrant, with the real MiniLM embedder."""

from __future__ import annotations

import numpy as np
import pytest
from qdrant_client import QdrantClient, models

from docchat.documents import sparse
from docchat.documents.embeddings import MiniLMEmbedder
from docchat.documents.index import DENSE, SPARSE, ChunkIndex, point_id, rrf
from docchat.errors import DocchatError

from tests.integration.sample_documents import (
    ALL_CHUNKS, COOKERY, COOKERY_CHUNKS, TRUST, TRUST_CHUNKS, chunk_labelled,
)

COLLECTION = "docchat_chunks"


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def chunk_vectors(embedder) -> list[list[float]]:
    """Embedded once for the module; every test indexes them into its own Qdrant."""
    return embedder.embed([chunk.text for chunk in ALL_CHUNKS])


@pytest.fixture
def client(tmp_path):
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    yield client
    client.close()


@pytest.fixture
def index(client, chunk_vectors) -> ChunkIndex:
    index = ChunkIndex(client)
    index.ensure_collection()
    index.add(ALL_CHUNKS, chunk_vectors)
    return index


def _search(index, embedder, question, **options):
    return index.search(question, embedder.embed([question])[0], **options)


def test_minilm_vectors_are_384_wide_and_unit_length(embedder, chunk_vectors):
    assert embedder.dimension == 384
    assert np.array(chunk_vectors).shape == (len(ALL_CHUNKS), 384)
    assert np.linalg.norm(chunk_vectors, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_a_question_about_the_determination_date_finds_its_definition_first(index, embedder):
    hits = _search(index, embedder, "When is the Determination Date?", top_k=5)
    assert hits[0].chunk == chunk_labelled(TRUST, "1.2 Determination Date")


def test_a_code_is_matched_exactly_and_not_by_a_look_alike(index, embedder, client):
    question = "ZX-4471"
    wanted = chunk_labelled(TRUST, "Schedule, item 2")
    # The premise: by meaning alone, ZX-4741 (item 1) looks more like ZX-4471 than item 2 does.
    by_meaning = client.query_points(COLLECTION, query=embedder.embed([question])[0], using=DENSE, limit=1)
    assert by_meaning.points[0].payload["chunk_id"] != wanted.chunk_id, "premise: dense alone misses"

    hits = _search(index, embedder, question, top_k=3)

    assert hits[0].chunk == wanted


def test_on_the_keyword_side_a_rare_word_outweighs_a_common_one(index, client):
    # "trustee" is in most clauses, twice in one; "gilts" in a single chunk. Only IDF tells them apart.
    terms = sparse.query_vector("Trustee gilts")
    best = client.query_points(
        COLLECTION, using=SPARSE, limit=1,
        query=models.SparseVector(indices=list(terms.indices), values=list(terms.values)),
    ).points[0]
    assert best.payload["chunk_id"] == chunk_labelled(TRUST, "Schedule, item 2").chunk_id


def test_a_search_scoped_to_the_cookery_book_never_returns_the_trust_agreement(index, embedder):
    hits = _search(index, embedder, "When is the Determination Date?", top_k=10, document_ids=[COOKERY])
    assert len(hits) == 10
    assert {hit.chunk.document_id for hit in hits} == {COOKERY}


def test_an_empty_scope_finds_nothing(index, embedder):
    assert _search(index, embedder, "When is the Determination Date?", document_ids=[]) == []


def test_the_active_document_moves_up_on_a_close_call_and_nothing_is_dropped(index, embedder):
    question = "Which copy was bound in a green cover?"
    plain = _search(index, embedder, question, top_k=10)
    # Both documents have an "About this copy" chunk; they come out on top, neck and neck.
    first, second = plain[0].chunk, plain[1].chunk
    assert {first.label, second.label} == {"About this copy"} and first.document_id != second.document_id

    biased = _search(index, embedder, question, top_k=10, boost_documents={second.document_id})

    assert biased[0].chunk == second
    assert first in [hit.chunk for hit in biased]
    assert len(biased) == len(plain)


def test_the_bias_can_lift_a_chunk_from_just_below_the_cut(index, embedder):
    question = "Which copy was bound in a green cover?"
    runner_up = _search(index, embedder, question, top_k=2)[1].chunk

    biased = _search(index, embedder, question, top_k=1, boost_documents={runner_up.document_id})

    assert [hit.chunk for hit in biased] == [runner_up]


def test_qdrant_fuses_the_two_sides_exactly_as_rrf_says(index, embedder, client):
    question = "How long should the chicken rest before carving?"
    vector = embedder.embed([question])[0]
    terms = sparse.query_vector(question)
    dense = client.query_points(COLLECTION, query=vector, using=DENSE, limit=40).points
    keyword = client.query_points(
        COLLECTION, using=SPARSE, limit=40,
        query=models.SparseVector(indices=list(terms.indices), values=list(terms.values)),
    ).points
    expected = rrf([[p.id for p in dense], [p.id for p in keyword]])[:10]

    hits = index.search(question, vector, top_k=10)

    assert [(point_id(hit.chunk.chunk_id), hit.score) for hit in hits] == [
        (pid, pytest.approx(score)) for pid, score in expected
    ]


def test_deleting_a_document_removes_every_one_of_its_chunks(index, embedder, client):
    index.delete_document(TRUST)

    assert index.count() == len(COOKERY_CHUNKS)
    left = client.scroll(COLLECTION, limit=100, with_payload=True)[0]
    assert {point.payload["document_id"] for point in left} == {COOKERY}
    hits = _search(index, embedder, "When is the Determination Date?", top_k=40)
    assert all(hit.chunk.document_id == COOKERY for hit in hits)


def test_adding_the_same_chunks_again_replaces_them(index, chunk_vectors):
    index.add(TRUST_CHUNKS, chunk_vectors[: len(TRUST_CHUNKS)])
    assert index.count() == len(ALL_CHUNKS)


def test_a_reopened_index_finds_what_was_stored_before(tmp_path, chunk_vectors, embedder):
    path = str(tmp_path / "qdrant")
    first = QdrantClient(path=path)
    stored = ChunkIndex(first)
    stored.ensure_collection()
    stored.add(ALL_CHUNKS, chunk_vectors)
    # Local mode locks its folder: one client per path, so the first must close.
    first.close()

    second = QdrantClient(path=path)
    try:
        index = ChunkIndex(second)
        index.ensure_collection()
        assert index.count() == len(ALL_CHUNKS)
        hits = _search(index, embedder, "When is the Determination Date?", top_k=3)
        assert hits[0].chunk == chunk_labelled(TRUST, "1.2 Determination Date")
    finally:
        second.close()


def test_an_index_built_for_another_embedding_size_is_refused(client, index):
    with pytest.raises(DocchatError, match="384-dimensional"):
        ChunkIndex(client, dimension=768).ensure_collection()
