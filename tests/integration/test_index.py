"""The dense chunk index over a real local Qdrant, with the real MiniLM embedder."""

from __future__ import annotations

import numpy as np
import pytest
from qdrant_client import QdrantClient

from docchat.documents import index as index_module
from docchat.documents.onnx_embeddings import OnnxMiniLMEmbedder
from docchat.documents.index import ChunkIndex, Scope
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
    scope = Scope((COOKERY,), tuple(COOKERY_IDS))
    hits = _nearest(index, embedder, QUESTION, limit=10, scope=scope)
    assert len(hits) == 10
    assert {document for _, document in hits} == {COOKERY}


def test_an_empty_scope_finds_nothing(index, embedder):
    assert _nearest(index, embedder, QUESTION, limit=10, scope=Scope((), ())) == []


@pytest.mark.parametrize("rescore_max, overfetch, queries", [
    (1_000, 2, []),                   # a small scope: scored from its own vectors
    (0, 2, ["unrestricted"]),         # a large one: cut out of an unrestricted search
    (0, 0.01, ["unrestricted", "filtered"]),  # too few fetched: Qdrant's filter after all
], ids=["rescored", "over-fetched", "filtered"])
def test_every_local_scoping_strategy_ranks_exactly_as_qdrants_own_filter(
        client, index, embedder, monkeypatch, rescore_max, overfetch, queries):
    vector = embedder.embed(["Which copy was bound in a green cover?"])[0]
    scope = Scope((COOKERY,), tuple(COOKERY_IDS))
    # The same collection through the server-side path: the scope sent as a Qdrant filter.
    expected = ChunkIndex(client, local=False).nearest(vector, limit=4, scope=scope)
    monkeypatch.setattr(index_module, "RESCORE_MAX", rescore_max)
    monkeypatch.setattr(index_module, "OVERFETCH", overfetch)
    sent = []
    query = index._query
    monkeypatch.setattr(index, "_query", lambda *args: sent.append("filtered" if len(args) > 2 else "unrestricted")
                        or query(*args))

    assert index.nearest(vector, limit=4, scope=scope) == expected
    assert sent == queries
    assert len(expected) == 4 and {document for _, document in expected} == {COOKERY}


def test_deleting_a_document_removes_every_one_of_its_chunks(index, embedder):
    index.delete_document(TRUST)

    assert index.count() == len(COOKERY_IDS)
    hits = _nearest(index, embedder, QUESTION, limit=40)
    assert {document for _, document in hits} == {COOKERY}


def test_adding_the_same_chunks_again_replaces_them(index, vectors):
    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS)


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
