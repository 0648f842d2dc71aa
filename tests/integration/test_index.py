"""The dense chunk index, with the real MiniLM embedder: over Qdrant Edge (the data dir's engine),
over pgvector (a team server's PostgreSQL; the tests' cluster) and over qdrant-client (a Qdrant
server's path; its local mode stands in for the server)."""

from __future__ import annotations

import numpy as np
import pytest
from qdrant_client import QdrantClient

from docchat.documents.index.edge_index import EdgeChunkIndex
from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder
from docchat.documents.index.pgvector_index import PgVectorChunkIndex
from docchat.documents.index.qdrant_index import QdrantServerIndex
from docchat.domain import Scope
from docchat.errors import DocchatError, IndexInUse
from docchat.ports import ChunkIndex
from docchat.store.engine import make_engine

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


class _Engines:
    """Opens an index of one engine over the test's folder or database, with given settings;
    closes them."""

    def __init__(self, engine: str, tmp_path, request) -> None:
        self.engine, self._tmp_path, self._request, self._opened = engine, tmp_path, request, []
        self._database = request.getfixturevalue("postgres").create_database() if engine == "pgvector" else None

    def open(self, *, dimension: int = 384, embedder: str | None = None) -> ChunkIndex:
        index: ChunkIndex
        if self.engine == "edge":
            index = EdgeChunkIndex(self._tmp_path / "vectors", dimension=dimension, embedder=embedder)
        elif self._database is not None:
            index = PgVectorChunkIndex(make_engine(self._database), dimension=dimension, embedder=embedder)
        else:
            return QdrantServerIndex(self._request.getfixturevalue("client"), dimension=dimension, embedder=embedder)
        self._opened.append(index)
        return index

    def close(self) -> None:
        for index in self._opened:
            index.close()
        self._opened.clear()

    def drop(self) -> None:
        self.close()
        if self._database is not None:
            self._request.getfixturevalue("postgres").drop_database(self._database)


@pytest.fixture(params=["edge", "pgvector", "server"])
def engines(request, tmp_path):
    opened = _Engines(request.param, tmp_path, request)
    yield opened
    opened.drop()


def _fill(index: ChunkIndex, vectors) -> ChunkIndex:
    index.ensure_collection()
    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    index.add(COOKERY, COOKERY_IDS, vectors[COOKERY])
    return index


@pytest.fixture
def index(engines, vectors) -> ChunkIndex:
    return _fill(engines.open(), vectors)


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


def test_chunks_added_or_removed_after_the_first_search_are_found_or_gone(engines, vectors, embedder):
    index = engines.open()
    index.ensure_collection()
    index.add(COOKERY, COOKERY_IDS, vectors[COOKERY])
    for _ in range(2):
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


def test_deleting_chunks_removes_those_only(index, embedder):
    index.delete_chunks([DETERMINATION_DATE, COOKERY_IDS[0]])

    assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS) - 2
    assert set(index.chunk_ids()) == set(TRUST_IDS + COOKERY_IDS) - {DETERMINATION_DATE, COOKERY_IDS[0]}
    assert DETERMINATION_DATE not in dict(_nearest(index, embedder, QUESTION, limit=100))


def test_adding_the_same_chunks_again_replaces_them(index, vectors, embedder):
    index.add(TRUST, TRUST_IDS, vectors[TRUST])
    assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS)
    hits = _nearest(index, embedder, QUESTION, limit=100)
    assert len(hits) == len(set(hits)) == len(TRUST_IDS) + len(COOKERY_IDS)


def test_a_reopened_index_finds_what_was_stored_before(engines, vectors, embedder):
    _fill(engines.open(), vectors)
    engines.close()  # a shard, like local mode's folder, is one process's at a time

    index = engines.open()
    index.ensure_collection()
    assert index.count() == len(TRUST_IDS) + len(COOKERY_IDS)
    assert _nearest(index, embedder, QUESTION, limit=3)[0] == (DETERMINATION_DATE, TRUST)


def test_an_index_built_for_another_embedding_size_is_refused(engines, vectors):
    _fill(engines.open(), vectors)
    engines.close()

    with pytest.raises(DocchatError, match="384-dimensional"):
        engines.open(dimension=768).ensure_collection()


def test_an_index_built_by_another_model_of_the_same_size_is_refused_until_rebuilt(engines, vectors):
    _fill(engines.open(embedder="sentence-transformers/all-MiniLM-L6-v2"), vectors)
    engines.close()
    other = engines.open(embedder="another-384-dimensional-model")

    with pytest.raises(DocchatError, match="built with sentence-transformers/all-MiniLM-L6-v2 embeddings"):
        other.ensure_collection()

    other.recreate()
    assert other.count() == 0
    engines.close()
    engines.open(embedder="another-384-dimensional-model").ensure_collection()  # accepted now


def test_the_vectors_of_given_chunks_are_those_stored(index, vectors):
    found = index.vectors_of([TRUST_IDS[2], COOKERY_IDS[0], "a-chunk-never-indexed"])

    assert sorted(found) == sorted([TRUST_IDS[2], COOKERY_IDS[0]])
    assert np.allclose(found[TRUST_IDS[2]], vectors[TRUST][2], atol=1e-6)
    assert np.allclose(found[COOKERY_IDS[0]], vectors[COOKERY][0], atol=1e-6)


def test_every_vector_can_be_read_back_with_its_chunk_and_document(index, vectors):
    read = {chunk_id: (document_id, vector) for chunk_id, document_id, vector in index.vectors(batch=3)}

    assert sorted(read) == sorted(TRUST_IDS + COOKERY_IDS)
    assert read[COOKERY_IDS[1]][0] == COOKERY
    assert np.allclose(read[COOKERY_IDS[1]][1], vectors[COOKERY][1], atol=1e-6)


def test_a_shard_held_by_one_index_is_refused_to_a_second_with_a_plain_reason(tmp_path):
    first = EdgeChunkIndex(tmp_path / "vectors")
    first.ensure_collection()
    try:
        with pytest.raises(IndexInUse, match="open in another docchat process"):
            EdgeChunkIndex(tmp_path / "vectors")
    finally:
        first.close()
    EdgeChunkIndex(tmp_path / "vectors").close()  # and let go of at close
