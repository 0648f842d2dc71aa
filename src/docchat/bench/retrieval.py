"""`docchat bench retrieval`: ingestion throughput and hybrid query latency at ~10,000 chunks.

A generated library (50 Markdown documents of deterministic prose about trusts, leases and
recipes, one chunk per section) is ingested through the real document service: SQLite, the
real MiniLM model, Qdrant local mode, all in a temporary folder. Then 200 questions are asked
for the top 10 passages, over every document and within scopes of 5 and 25 documents.

The baseline, in the same run and over the same vectors, is the layout docchat used before:
dense and BM25 sparse vectors both in Qdrant, fused by Qdrant's RRF, the scope sent as a
filter. Query embedding is timed apart and left out of both, so the figures compare search.
Target: p95 <= 50 ms.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from docchat.bench.figures import p50_p95

DOCUMENTS = 50
SECTIONS = 200
QUERIES = 200
SCOPES = (5, 25)
TOP_K = 10
_TOPICS = {
    "trust": "trustee beneficiary determination date reserve account distribution notes payment business day",
    "lease": "landlord tenant rent review break clause deposit repair service charge notice period",
    "recipe": "flour butter oven knead dough simmer sauce season roast bake minutes",
}


def _library(seed: int = 3) -> list[tuple[str, bytes]]:
    """(file name, Markdown) for DOCUMENTS documents of SECTIONS sections each."""
    rng = random.Random(seed)
    files = []
    for document in range(DOCUMENTS):
        words = _TOPICS[list(_TOPICS)[document % 3]].split()
        sections = [
            f"## Section {n}\n\n{' '.join(rng.choice(words) for _ in range(rng.randint(40, 90)))}."
            for n in range(SECTIONS)
        ]
        files.append((f"doc-{document:02}.md", "\n\n".join(sections).encode()))
    return files


class _TimedEmbedder:
    """The real embedder, timed; vectors of questions asked before are kept, so a search can be
    timed without the embedding of its question."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder
        self.seconds = 0.0
        self._known: dict[str, list[float]] = {}

    @property
    def name(self) -> str:
        return self._embedder.name

    @property
    def model_id(self) -> str:
        return self._embedder.model_id

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        if len(texts) == 1 and texts[0] in self._known:
            return [self._known[texts[0]]]
        began = time.perf_counter()
        vectors = self._embedder.embed(texts)
        self.seconds += time.perf_counter() - began
        return vectors

    def remember(self, texts: list[str]) -> float:
        """Embeds each new question alone, as it would come; returns the mean ms per question."""
        began, new = self.seconds, [text for text in dict.fromkeys(texts) if text not in self._known]
        for text in new:
            self._known[text] = self.embed([text])[0]
        return (self.seconds - began) * 1000 / max(len(new), 1)


def _timed(calls) -> tuple[float, float]:
    timings = []
    for call in calls:
        began = time.perf_counter()
        call()
        timings.append((time.perf_counter() - began) * 1000)
    return p50_p95(timings)


def run_retrieval_bench(*, as_json: bool = False) -> dict:
    from qdrant_client import QdrantClient

    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.documents.onnx_embeddings import OnnxMiniLMEmbedder

    embedder = _TimedEmbedder(OnnxMiniLMEmbedder())
    embedder.embed(["warm up"])
    embedder.seconds = 0.0
    rng = random.Random(5)
    questions = [f"What does it say about the {' and the '.join(rng.sample(rng.choice(list(_TOPICS.values())).split(), 2))}?"
                 for _ in range(QUERIES)]
    with tempfile.TemporaryDirectory(prefix="docchat-bench-retrieval-") as tmp:
        # The search is timed, not the model: no LLM server is needed or asked.
        library = build_services(Settings(data_dir=Path(tmp) / "docchat"), embedder=embedder,
                                 contact_llm=False).documents
        began = time.perf_counter()
        documents = [library.ingest(name, data) for name, data in _library()]
        ingest_s = time.perf_counter() - began
        embed_s = embedder.seconds
        chunks = sum(d.chunks for d in documents)

        embed_ms = embedder.remember(questions)
        scopes = {"all": None, **{f"scoped_{n}": [d.id for d in documents[:n]] for n in SCOPES}}
        docchat = {mode: _timed(lambda q=q, s=scope: library.retrieve(q, top_k=TOP_K, document_ids=s)
                                for q in questions)
                   for mode, scope in scopes.items()}
        client = QdrantClient(path=str(Path(tmp) / "baseline"))
        baseline_index = _QdrantHybrid(client)
        baseline_index.build(library)
        baseline = {mode: _timed(lambda q=q, s=scope: baseline_index.search(q, embedder.embed([q])[0], scope=s)
                                 for q in questions)
                    for mode, scope in scopes.items()}
        client.close()
        library.index().close()

    result = {
        "chunks": chunks, "ingest_chunks_per_s": round(chunks / ingest_s, 1),
        "embedding_share": round(embed_s / ingest_s, 3), "query_embedding_ms": round(embed_ms, 2),
        **{f"{mode}_p50_ms": round(docchat[mode][0], 2) for mode in scopes},
        **{f"{mode}_p95_ms": round(docchat[mode][1], 2) for mode in scopes},
        **{f"baseline_{mode}_p50_ms": round(baseline[mode][0], 2) for mode in scopes},
        **{f"baseline_{mode}_p95_ms": round(baseline[mode][1], 2) for mode in scopes},
    }
    if as_json:
        print(json.dumps(result))
        return result
    print(f"ingested {DOCUMENTS} documents, {chunks:,} chunks, in {ingest_s:.1f} s: "
          f"{result['ingest_chunks_per_s']} chunks/s (embedding {embed_s:.1f} s = {embed_s / ingest_s:.0%})")
    print(f"hybrid top-{TOP_K} over {QUERIES} questions (query embedding apart: {embed_ms:.1f} ms each), "
          f"p50 / p95 ms, target p95 <= 50 ms:")
    print(f"  {'':28} {'docchat (Qdrant + FTS5)':>24} {'baseline (Qdrant hybrid)':>25}")
    for mode in scopes:
        shown = "every document" if mode == "all" else f"scoped to {mode.split('_')[1]} of {DOCUMENTS} documents"
        print(f"  {shown:28} {docchat[mode][0]:>11.1f} / {docchat[mode][1]:<10.1f} "
              f"{baseline[mode][0]:>11.1f} / {baseline[mode][1]:<10.1f}")
    return result


class _QdrantHybrid:
    """The baseline: dense and sparse vectors side by side in one Qdrant collection (a folder
    of its own), the dense ones copied from docchat's index."""

    COLLECTION = "baseline_hybrid"

    def __init__(self, client) -> None:
        self._client = client

    def build(self, library) -> None:
        from itertools import islice

        from qdrant_client import models

        from docchat.bench.sparse import document_vector
        from docchat.documents.index import DENSE, UPSERT_BATCH, point_id

        texts = {hit.chunk.id: hit.chunk.text for hit in library.whole(None, max_tokens=10**12)}
        self._client.create_collection(
            self.COLLECTION,
            vectors_config={DENSE: models.VectorParams(size=384, distance=models.Distance.COSINE)},
            sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        vectors = library.index().vectors()
        while batch := list(islice(vectors, UPSERT_BATCH)):
            points = []
            for chunk_id, document_id, vector in batch:
                terms = document_vector(texts[chunk_id])
                points.append(models.PointStruct(
                    id=point_id(chunk_id), payload={"chunk_id": chunk_id, "document_id": document_id}, vector={
                        DENSE: vector,
                        "bm25": models.SparseVector(indices=list(terms.indices), values=list(terms.values)),
                    }))
            self._client.upsert(self.COLLECTION, points, wait=True)

    def search(self, question: str, vector: list[float], *, scope: list[str] | None) -> list:
        from qdrant_client import models

        from docchat.bench.sparse import query_vector
        from docchat.documents.fusion import RRF_K

        scope_filter = None if scope is None else models.Filter(
            must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=scope))])
        terms = query_vector(question)
        prefetch = [
            models.Prefetch(query=vector, using="dense", filter=scope_filter, limit=4 * TOP_K),
            models.Prefetch(query=models.SparseVector(indices=list(terms.indices), values=list(terms.values)),
                            using="bm25", filter=scope_filter, limit=4 * TOP_K),
        ]
        return self._client.query_points(self.COLLECTION, prefetch=prefetch,
                                         query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
                                         limit=TOP_K, with_payload=True).points
