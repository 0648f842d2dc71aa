"""The dense chunk index over a real local Qdrant, with the real MiniLM embedder."""

from __future__ import annotations

import numpy as np
import pytest
from qdrant_client import QdrantClient

from docchat.documents.index import qdrant_index as index_module
from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder
from docchat.documents.index.qdrant_index import ChunkIndex, Scope
from docchat.errors import DocchatError

from tests.integration.sample_documents import (
    COOKERY, COOKERY_PASSAGES, TRUST, TRUST_PASSAGES, chunk_ids,
)

TRUST_IDS = chunk_ids(TRUST, TRUST_PASSAGES)
COOKERY_IDS = chunk_ids(COOKERY, COOKERY_PASSAGES)
DETERMINATION_DATE = TRUST_IDS[2]
QUESTION = "When is the Determination Date?"


@pytest.fixture(scope="module")
def embedder(shared_embedder) -> OnnxMiniLMEmbedder:
    return shared_embedder


@pytest.fixture(scope="module")
def vectors(embedder) -> dict[str, list[list[float]]]:
    """Embedded once for the module; every test indexes them into its own Qdrant."""
    return {
        TRUST: embedder.embed([text for _, text in TRUST_PASSAGES]),
        COOKERY: embedder.embed([text for _, text in COOKERY_PASSAGES]),
    }


@pytest.fixture
def client(tmp_path):
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    yield client
    client.close()


def _fill(index: ChunkIndex, vectors) -> ChunkIndex:
    index.ensure_collection()
    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    index.add(COOKERY, COOKERY_IDS, vectors[COOKERY])
    return index


@pytest.fixture
def index(client, vectors) -> ChunkIndex:
    return _fill(ChunkIndex(client), vectors)


def _nearest(index, embedder, question, **options):
    return index.nearest(embedder.embed([question])[0], **options)


def test_minilm_vectors_are_384_wide_and_unit_length(embedder, vectors):
    everything = vectors[TRUST] + vectors[COOKERY]
    assert embedder.dimension == 384
    assert np.array(everything).shape == (len(TRUST_IDS) + len(COOKERY_IDS), 384)
    assert np.linalg.norm(everything, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_a_question_about_the_determination_date_finds_its_definition_first(index, embedder):
    assert _nearest(index, embedder, QUESTION, limit=5)[0] == (DETERMINATION_DATE, TRUST)


def test_a_search_scoped_to_the_cookery_book_never_returns_the_trust_agreement(index, embedder):
    scope = Scope((COOKERY,))
    hits = _nearest(index, embedder, QUESTION, limit=10, scope=scope)
    assert len(hits) == 10
    assert {document for _, document in hits} == {COOKERY}


def test_an_empty_scope_finds_nothing(index, embedder):
    assert _nearest(index, embedder, QUESTION, limit=10, scope=Scope(())) == []


@pytest.mark.parametrize("scope", [None, Scope((COOKERY,)), Scope((TRUST, COOKERY))],
                         ids=["everything", "one document", "both documents"])
def test_local_mode_ranks_exactly_as_qdrants_own_search(client, index, embedder, scope):
    vector = embedder.embed(["Which copy was bound in a green cover?"])[0]
    # The same collection through the server-side path: Qdrant's search, the scope as its filter.
    expected = ChunkIndex(client, local=False).nearest(vector, limit=6, scope=scope)

    first = index.nearest(vector, limit=6, scope=scope)  # Qdrant's own search, as a one-shot command's
    assert index.nearest(vector, limit=6, scope=scope) == first == expected
    assert len(expected) == 6


def test_chunks_added_or_removed_after_the_first_search_are_found_or_gone(client, vectors, embedder):
    index = ChunkIndex(client)
    index.ensure_collection()
    index.add(COOKERY, COOKERY_IDS, vectors[COOKERY])
    for _ in range(2):  # the second search reads the copy
        assert {document for _, document in _nearest(index, embedder, QUESTION, limit=40)} == {COOKERY}

    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    assert _nearest(index, embedder, QUESTION, limit=5)[0] == (DETERMINATION_DATE, TRUST)
    index.delete_document(COOKERY)
    hits = _nearest(index, embedder, QUESTION, limit=40)
    assert sorted(hits) == sorted((chunk, TRUST) for chunk in TRUST_IDS)


def test_deleting_a_document_removes_every_one_of_its_chunks(index, embedder):
    index.delete_document(TRUST)

    assert index.count() == len(COOKERY_IDS)
    hits = _nearest(index, embedder, QUESTION, limit=40)
    assert {document for _, document in hits} == {COOKERY}


def test_adding_the_same_chunks_again_replaces_them(index, vectors, embedder):
    for _ in range(2):
        _nearest(index, embedder, QUESTION, limit=1)
    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS)
    hits = _nearest(index, embedder, QUESTION, limit=100)
    assert len(hits) == len(set(hits)) == len(TRUST_IDS) + len(COOKERY_IDS)


def test_a_reopened_index_finds_what_was_stored_before(tmp_path, vectors, embedder):
    path = str(tmp_path / "qdrant")
    first = QdrantClient(path=path)
    _fill(ChunkIndex(first), vectors)
    # Local mode locks its folder: one client per path, so the first must close.
    first.close()

    second = QdrantClient(path=path)
    try:
        index = ChunkIndex(second)
        index.ensure_collection()
        assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS)
        assert _nearest(index, embedder, QUESTION, limit=3)[0] == (DETERMINATION_DATE, TRUST)
    finally:
        second.close()


def test_an_index_built_for_another_embedding_size_is_refused(client, index):
    with pytest.raises(DocchatError, match="384-dimensional"):
        ChunkIndex(client, dimension=768).ensure_collection()


def test_an_index_built_by_another_model_of_the_same_size_is_refused_until_rebuilt(client, vectors):
    _fill(ChunkIndex(client, embedder="sentence-transformers/all-MiniLM-L6-v2"), vectors)
    other = ChunkIndex(client, embedder="another-384-dimensional-model")

    with pytest.raises(DocchatError, match="built with sentence-transformers/all-MiniLM-L6-v2 embeddings"):
        other.ensure_collection()

    other.recreate()
    assert other.count() == 0
    ChunkIndex(client, embedder="another-384-dimensional-model").ensure_collection()  # accepted now


def test_the_copy_of_the_vectors_is_read_across_pages(index, embedder, monkeypatch):
    monkeypatch.setattr(index_module, "COPY_PAGE", 3)

    _nearest(index, embedder, QUESTION, limit=1)
    hits = _nearest(index, embedder, QUESTION, limit=100)

    assert len(set(hits)) == len(TRUST_IDS) + len(COOKERY_IDS)
    assert hits[0] == (DETERMINATION_DATE, TRUST)


def test_the_vectors_of_given_chunks_are_those_stored_before_and_after_the_first_search(index, vectors, embedder):
    wanted = [TRUST_IDS[2], COOKERY_IDS[0], "a-chunk-never-indexed"]

    def read() -> dict[str, list[float]]:
        return index.vectors_of(wanted)

    before = read()
    _nearest(index, embedder, QUESTION, limit=3)
    _nearest(index, embedder, QUESTION, limit=3)  # the second search reads local mode's copy
    after = read()

    for found in (before, after):
        assert sorted(found) == sorted(wanted[:2])
        assert np.allclose(found[TRUST_IDS[2]], vectors[TRUST][2], atol=1e-6)
        assert np.allclose(found[COOKERY_IDS[0]], vectors[COOKERY][0], atol=1e-6)
