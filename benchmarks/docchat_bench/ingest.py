"""`docchat bench ingest`: how fast files become searchable, before and after, on the same files.

Two generated corpora of deterministic prose (trusts, leases, recipes): one long text document
(`--pages`, about three chunks a page) and a folder of small notes of one to three chunks
(`--files`). Each goes through the real document service (SQLite, Qdrant local mode, the bundled
MiniLM on ONNX Runtime) twice, into two temporary libraries:
- before: file by file (`IngestionService.add`), the model fed runs of 32 texts, as `docchat
  ingest` did;
- after: in shared batches (`add_many`), runs of at most 256 word pieces, as it does now.
Printed: chunks/s and files/s, wall and CPU seconds (on two shared cores the wall figures carry
other processes' load, printed too), and the top-10 overlap of hybrid retrieval between the two
libraries over generated questions (1.0: the same passages are found).
Target (issue 13): twice the chunks/s, and at least 20 files/s for small files.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from pathlib import Path

# About two minutes on two shared cores.
PAGES = 60
FILES = 200
QUESTIONS = 60
TOP_K = 10
_SUBJECTS = {
    "trust": ("the trustee", "the settlor", "each beneficiary", "the reserve account", "the determination date",
              "the distribution notes", "the auditor", "the trust fund"),
    "lease": ("the landlord", "the tenant", "the rent review", "the break clause", "the deposit",
              "the service charge", "the notice period", "the premises"),
    "recipe": ("the dough", "the butter", "the oven", "the sauce", "the roast", "the pastry", "the stock",
               "the custard"),
}
_VERBS = ("shall review", "may reduce", "must record", "pays for", "keeps", "is checked against", "depends on",
          "is set out in", "covers", "is adjusted for")
_TAILS = ("within ten business days", "before the first of May", "at the end of each quarter",
          "unless the schedule says otherwise", "for twenty minutes at 220 degrees", "in writing",
          "as the annex describes", "on the fifth anniversary", "with a pinch of salt", "by recorded post")


def _sentence(rng: random.Random, topic: str) -> str:
    subject, other = rng.sample(_SUBJECTS[topic], 2)
    return f"{subject.capitalize()} {rng.choice(_VERBS)} {other} {rng.choice(_TAILS)}."


def _paragraphs(rng: random.Random, topic: str, words: int) -> str:
    paragraphs, written = [], 0
    while written < words:
        paragraph = " ".join(_sentence(rng, topic) for _ in range(rng.randint(2, 6)))
        paragraphs.append(paragraph)
        written += len(paragraph.split())
    return "\n\n".join(paragraphs)


def corpora(pages: int, files: int, seed: int = 13) -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """(the long document, the small notes), each a list of (file name, bytes)."""
    rng = random.Random(seed)
    topics = list(_SUBJECTS)
    long = "\n\n".join(f"Page {n}\n\n{_paragraphs(rng, topics[n % 3], 450)}" for n in range(1, pages + 1))
    notes = [(f"note-{n:04}.txt", _paragraphs(rng, topics[n % 3], rng.choice((60, 150, 300, 450))).encode())
             for n in range(files)]
    return [("long-document.txt", long.encode())], notes


def _questions(seed: int = 17) -> list[str]:
    rng = random.Random(seed)
    return [f"What does it say about {' and '.join(rng.sample(_SUBJECTS[rng.choice(list(_SUBJECTS))], 2))}?"
            for _ in range(QUESTIONS)]


def _timed(ingest) -> dict:
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    chunks, files = ingest()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"files": files, "chunks": chunks, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "chunks_per_s": round(chunks / wall, 1), "files_per_s": round(files / wall, 1),
            "load": round(max(load, os.getloadavg()[0]), 1)}


class _RunsOf32:
    """The embedder as ingestion used it before: texts sorted by length, 32 to a run of the
    model however long they are."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder
        self.name, self.model_id, self.dimension = embedder.name, embedder.model_id, embedder.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list = [None] * len(texts)
        for start in range(0, len(order), 32):
            run = order[start:start + 32]
            for i, vector in zip(run, self._embedder.embed([texts[i] for i in run])):
                vectors[i] = vector
        return vectors


def _one_by_one(services, files) -> tuple[int, int]:
    return sum(services.ingestion.add(name, data).document.chunks for name, data in files), len(files)


def _batched(services, files) -> tuple[int, int]:
    from docchat.services.ingestion import FileToAdd

    outcomes = list(services.ingestion.add_many([FileToAdd(name, lambda data=data: data) for name, data in files]))
    return sum(o.report.document.chunks for o in outcomes), len(outcomes)


def _overlap(before, after, questions: list[str]) -> float:
    """Mean share of `before`'s top 10 that `after` finds too (chunks named by document and place)."""
    shares = []
    for question in questions:
        found = [{(hit.document, hit.chunk.position) for hit in services.retrieval.retrieve(question, top_k=TOP_K)}
                 for services in (before, after)]
        shares.append(len(found[0] & found[1]) / max(len(found[0]), 1))
    return sum(shares) / len(shares)


def run_ingest_bench(*, pages: int = PAGES, files: int = FILES, as_json: bool = False) -> dict:
    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

    long, notes = corpora(pages, files)
    embedders = {"before": _RunsOf32(OnnxMiniLMEmbedder(tokens_per_run=10**9)), "after": OnnxMiniLMEmbedder()}
    for embedder in embedders.values():
        embedder.embed(["warm up"])  # loading the model is not ingestion
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="docchat-bench-ingest-") as tmp:
        libraries = {}
        for way, ingest in (("before", _one_by_one), ("after", _batched)):
            services = build_services(Settings(data_dir=Path(tmp) / way), embedder=embedders[way], contact_llm=False)
            libraries[way] = services
            services.index.open()
            result[way] = {"long": _timed(lambda: ingest(libraries[way], long)),
                           "small": _timed(lambda: ingest(libraries[way], notes))}
        result["top10_overlap"] = round(_overlap(libraries["before"], libraries["after"], _questions()), 3)
        for services in libraries.values():
            services.close()
    for corpus in ("long", "small"):
        result[f"{corpus}_speedup"] = round(result["after"][corpus]["chunks_per_s"]
                                            / result["before"][corpus]["chunks_per_s"], 2)
    if as_json:
        print(json.dumps(result))
        return result
    _print(result)
    return result


def _print(result: dict) -> None:
    print(f"{'':34} {'chunks':>7} {'wall s':>7} {'CPU s':>7} {'chunks/s':>9} {'files/s':>8} {'load':>5}")
    for corpus, shown in (("long", "one long document"), ("small", "small files")):
        for way in ("before", "after"):
            figures = result[way][corpus]
            label = f"{shown}, {way} ({figures['files']} file{'s' if figures['files'] != 1 else ''})"
            per_file = figures["files_per_s"] if figures["files"] > 1 else "-"
            print(f"{label:34} {figures['chunks']:>7} {figures['wall_s']:>7} {figures['cpu_s']:>7} "
                  f"{figures['chunks_per_s']:>9} {per_file:>8} {figures['load']:>5}")
    print(f"speed-up in chunks/s: {result['long_speedup']}x (long), {result['small_speedup']}x (small files); "
          f"top-{TOP_K} overlap of hybrid retrieval, after vs before: {result['top10_overlap']:.3f}")
    print("before: file by file, runs of 32 texts; after: shared batches, runs of <= 256 word pieces. "
          "Target: 2x chunks/s, >= 20 files/s for small files.")
