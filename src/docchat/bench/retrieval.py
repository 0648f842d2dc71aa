"""`docchat bench retrieval`: ingestion throughput and hybrid query latency at ~10,000 chunks.

A generated corpus (deterministic prose about trusts, leases and recipes) is embedded with
the real MiniLM model and indexed in Qdrant local mode in a temporary folder; then hybrid
top-10 queries run with and without a document-scope filter. Target: p95 <= 50 ms.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from docchat.bench.figures import p50_p95

CHUNKS = 10_000
DOCUMENTS = 50
QUERIES = 200
_TOPICS = {
    "trust": "trustee beneficiary determination date reserve account distribution notes payment business day",
    "lease": "landlord tenant rent review break clause deposit repair service charge notice period",
    "recipe": "flour butter oven knead dough simmer sauce season roast bake minutes",
}


def _corpus(seed: int = 3) -> list[tuple[str, str, str]]:
    """(document_id, chunk_id, text) for CHUNKS chunks over DOCUMENTS documents."""
    rng = random.Random(seed)
    rows = []
    for number in range(CHUNKS):
        document = number % DOCUMENTS
        words = _TOPICS[list(_TOPICS)[document % 3]].split()
        text = " ".join(rng.choice(words) for _ in range(rng.randint(40, 90)))
        rows.append((f"doc-{document}", f"chunk-{number}", f"Section {number}. {text}."))
    return rows


def run_retrieval_bench(*, as_json: bool = False) -> dict:
    from qdrant_client import QdrantClient

    from docchat.documents.embeddings import MiniLMEmbedder
    from docchat.documents.index import ChunkIndex, IndexedChunk

    corpus = _corpus()
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory(prefix="docchat-bench-retrieval-") as tmp:
        client = QdrantClient(path=str(Path(tmp) / "qdrant"))
        index = ChunkIndex(client)
        index.ensure_collection()
        embed_s = index_s = 0.0
        for start in range(0, len(corpus), 256):
            batch = corpus[start:start + 256]
            began = time.perf_counter()
            vectors = embedder.embed([text for _, _, text in batch])
            embed_s += time.perf_counter() - began
            began = time.perf_counter()
            index.add([IndexedChunk(document_id=d, chunk_id=c, text=t, label="section", page=None, index=i)
                       for i, (d, c, t) in enumerate(batch, start=start)], vectors)
            index_s += time.perf_counter() - began
        rng = random.Random(5)
        questions = [f"What does the agreement say about the {rng.choice(list(_TOPICS.values())).split()[i % 5]}?"
                     for i in range(QUERIES)]
        vectors = embedder.embed(questions)
        timings = {"all": [], "scoped": []}
        for question, vector in zip(questions, vectors):
            for mode, scope in (("all", None), ("scoped", [f"doc-{n}" for n in range(5)])):
                began = time.perf_counter()
                index.search(question, vector, top_k=10, document_ids=scope)
                timings[mode].append((time.perf_counter() - began) * 1000)
        client.close()
    total = embed_s + index_s
    all_p50, all_p95 = p50_p95(timings["all"])
    scoped_p50, scoped_p95 = p50_p95(timings["scoped"])
    result = {
        "chunks": len(corpus), "ingest_chunks_per_s": round(len(corpus) / total, 1),
        "embedding_share": round(embed_s / total, 3),
        "query_p50_ms": round(all_p50, 2), "query_p95_ms": round(all_p95, 2),
        "scoped_query_p50_ms": round(scoped_p50, 2), "scoped_query_p95_ms": round(scoped_p95, 2),
    }
    if as_json:
        print(json.dumps(result))
    else:
        print(f"ingested {len(corpus):,} chunks in {total:.1f} s: {result['ingest_chunks_per_s']} chunks/s "
              f"(embedding {embed_s:.1f} s = {embed_s / total:.0%}, Qdrant local upserts {index_s:.1f} s)")
        print(f"hybrid top-10 over {QUERIES} queries: p50 {all_p50:.1f} ms, p95 {all_p95:.1f} ms; "
              f"scoped to 5 of {DOCUMENTS} documents: p50 {scoped_p50:.1f} ms, p95 {scoped_p95:.1f} ms "
              f"(target p95 <= 50 ms)")
    return result
