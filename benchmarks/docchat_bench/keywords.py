"""`docchat bench keywords`: the keyword side of retrieval alone, Tantivy (today's word index)
against FTS5 (what docchat searched with before), in the same run over the same chunks.

A SQLite store at the newest schema gets `--chunks` chunks of the retrieval bench's generated
text (documents of 200 sections, a dozen words per topic: each question word is in about a third
of the chunks). The FTS5 table docchat kept before (migration 0009's) is built over the same rows.
Then the bench's questions are asked for the top 40 (what hybrid retrieval asks each side for)
over every document and scoped to 1 and to 25 documents, and a long question of fifteen common
words 20 times. Reported: p50/p95 ms of each, the word index's build time from the rows, and the
share of the two engines' top 10s that agree (docs/perf/keyword-engines.md).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
import uuid
from pathlib import Path

from docchat_bench.figures import p50_p95
from docchat_bench.retrieval import QUERIES, _library, _questions

TOP = 40
LONG = ("What do the trustee and the landlord say about the rent, the deposit, the notice period, the payment "
        "date, the distribution, the reserve account, the oven and the flour in the business day?")
LONG_ASKED = 20
MODES = ("all", "scoped_1", "scoped_25", "long", "long_scoped_1")
# Migration 0009's table and docchat's query before migration 0014.
FTS5_TABLE = ("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, heading, content='chunks', content_rowid='pk', "
              "tokenize='unicode61 remove_diacritics 2')")
FTS5_QUERY = """SELECT c.id, c.document_id FROM chunks_fts JOIN chunks c ON c.pk = chunks_fts.rowid
    JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH :query AND d.status = 'ready' {scope}
    ORDER BY bm25(chunks_fts), c.pk LIMIT :limit"""


def run_keywords_bench(*, chunks: int, as_json: bool = False) -> dict:
    from sqlalchemy import bindparam, text

    from docchat.documents.index.word_index import TantivyWordIndex
    from docchat.retrieval.words import query_terms
    from docchat.store.engine import make_engine
    from docchat.store.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="docchat-bench-keywords-") as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'docchat.db'}")
        upgrade(engine)
        documents = _store(engine, chunks)
        with engine.begin() as connection:
            connection.execute(text(FTS5_TABLE))
            connection.execute(text("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')"))
        every = text(FTS5_QUERY.format(scope=""))
        scoped = text(FTS5_QUERY.format(scope="AND c.document_id IN :scope")).bindparams(
            bindparam("scope", expanding=True))

        def fts5(terms: list[str], scope: list[str] | None) -> list[str]:
            query = " OR ".join('"' + term + '"' for term in terms)
            with engine.connect() as connection:
                if scope is None:
                    return [r[0] for r in connection.execute(every, {"query": query, "limit": TOP})]
                return [r[0] for r in connection.execute(scoped, {"query": query, "limit": TOP, "scope": scope})]

        words = TantivyWordIndex(Path(tmp) / "words", engine, progress=lambda done, total: None)
        began = time.perf_counter()
        words.prepare()
        build_s = time.perf_counter() - began

        def tantivy(terms: list[str], scope: list[str] | None) -> list[str]:
            return [chunk for chunk, _ in words.search(terms, limit=TOP, document_ids=scope)]

        questions = [query_terms(q) for q in _questions(QUERIES)]
        result: dict = {"chunks": chunks, "documents": len(documents), "questions": len(questions),
                        "tantivy_build_s": round(build_s, 2)}
        for mode in MODES:
            for name, search in (("fts5", fts5), ("tantivy", tantivy)):
                p50, p95 = _timed(search, mode, questions, query_terms(LONG), documents)
                result |= {f"{name}_{mode}_p50_ms": round(p50, 2), f"{name}_{mode}_p95_ms": round(p95, 2)}
        agree = [len(set(fts5(q, None)[:10]) & set(tantivy(q, None)[:10])) / 10 for q in questions]
        result["top10_agreement"] = round(sum(agree) / len(agree), 3)
        engine.dispose()
    if as_json:
        print(json.dumps(result))
    else:
        _print(result)
    return result


def _store(engine, chunks: int) -> list[str]:
    """The generated library's rows, written as ingestion writes them (ready documents)."""
    from sqlalchemy import text

    documents = []
    with engine.begin() as connection:
        for number, (name, data) in enumerate(_library(chunks)):
            document = str(uuid.UUID(int=number + 1))
            sections = data.decode().split("\n\n## ")
            connection.execute(text(
                "INSERT INTO documents (id, name, kind, path, size, content_hash, chunks, status, added_at) "
                "VALUES (:id, :name, 'markdown', 'x', :size, :id, :n, 'ready', '2026-11-30 09:00:00')"),
                {"id": document, "name": name, "size": len(data), "n": len(sections)})
            connection.execute(text(
                "INSERT INTO chunks (id, document_id, position, label, text, token_count, heading) "
                "VALUES (:id, :document, :position, :label, :text, 60, :heading)"),
                [{"id": f"{document}-{n}", "document": document, "position": n, "label": f"Section {n}",
                  "text": section.split("\n\n", 1)[-1], "heading": f"{name} › Section {n}"}
                 for n, section in enumerate(sections)])
            documents.append(document)
    return documents


def _timed(search, mode: str, questions: list[list[str]], long: list[str], documents: list[str]) -> tuple[float, float]:
    rng = random.Random(1)
    asked = [long] * LONG_ASKED if mode.startswith("long") else questions
    times = []
    for terms in asked:
        scope = (None if mode in ("all", "long") else [rng.choice(documents)] if mode.endswith("scoped_1")
                 else rng.sample(documents, min(25, len(documents))))
        began = time.perf_counter()
        search(terms, scope)
        times.append((time.perf_counter() - began) * 1000)
    return p50_p95(times)


def _print(result: dict) -> None:
    print(f"keyword side, {result['chunks']:,} chunks in {result['documents']:,} documents, top {TOP}, "
          f"p50 / p95 ms (before: FTS5; now: Tantivy, built from the rows in {result['tantivy_build_s']} s)")
    for mode in MODES:
        print(f"  {mode:15} FTS5 {result[f'fts5_{mode}_p50_ms']:>9} / {result[f'fts5_{mode}_p95_ms']:<9} "
              f"Tantivy {result[f'tantivy_{mode}_p50_ms']:>7} / {result[f'tantivy_{mode}_p95_ms']}")
    print(f"  top 10s that agree: {result['top10_agreement']:.0%}")
