"""`docchat bench api`: what the HTTP API adds to an answer, and how it holds 8 clients at once.

The LLM is an instant stand-in (a few deltas, no wait), so the figures are docchat's own cost:
the stateless pipeline (query embedding with the real MiniLM model, hybrid search over a small
library in SQLite and Qdrant local mode, prompt assembly, exact token counts) and, over HTTP,
FastAPI, uvicorn and JSON on 127.0.0.1. The DSPy programs are off: they would ask the LLM.

1. Added latency: the same questions asked in-process (`services.stateless.answer`) and through
   `POST /api/v1/rag/query`, interleaved; the figure is the difference of the medians.
2. Concurrency: 8 clients, each on its own connection, ask N questions each; requests/s over
   the wall time, p50/p95 per request, errors.
Targets on two cores: added p50 <= 5 ms; 8 clients >= 50 requests/s with p95 <= 150 ms.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from docchat_bench.figures import p50_p95

QUESTIONS = (
    "When is the Determination Date?", "Who is the trustee of the Harbour Street Trust?",
    "What notice does the tenant give to break the lease?", "How long does the dough rest?",
    "What happens if the Payment Date falls on a weekend?", "Who pays for repairs to the roof?",
    "At what temperature is the bread baked?", "What goes into the reserve account?",
)
LIBRARY = {
    "trust.md": "# Trust\n\n## Dates\n\nThe Determination Date is the 15th of each month; the Payment Date is "
                "the 20th, or the next Business Day.\n\n## Parties\n\nHarbour Street Bank is the trustee. "
                "The reserve account holds 2% of the notes.\n",
    "lease.md": "# Lease\n\n## Break clause\n\nThe tenant may end the lease on the fifth anniversary with six "
                "months' notice.\n\n## Repairs\n\nThe landlord repairs the roof and structure; the tenant "
                "the interior.\n",
    "bread.md": "# Bread\n\n## Dough\n\nKnead for ten minutes and let the dough rest for an hour.\n\n## Baking"
                "\n\nBake at 220 degrees for thirty minutes.\n",
}
ANSWER = ("The document says so [1]. ", "It gives the date ", "and the party ", "who is responsible.")
TARGET_ADDED_MS = 5.0
TARGET_RPS = 50.0
TARGET_P95_MS = 150.0


@dataclass(frozen=True)
class _Info:
    base_url: str
    model: str = "instant"
    max_model_len: int = 8_192
    root: str | None = None
    models: tuple[str, ...] = ("instant",)
    window_source: str = "reported by the server"
    window_note: str = ""
    server: str = "instant stand-in"
    reports_prefix_cache: bool = False
    continues_answers: bool = True
    sampling_options: tuple[str, ...] = ()
    constrains: bool = False


class _Answer:
    """A finished generation: the same few deltas every time."""

    model = "instant"
    finish_reason = "stop"

    def __init__(self) -> None:
        self.usage = {"prompt_tokens": 0, "completion_tokens": len(ANSWER)}

    def __iter__(self):
        return iter(ANSWER)

    def close(self) -> None:
        pass


class InstantGateway:
    """An LLM that answers at once, so that only docchat's own work is timed."""

    base_url = "http://127.0.0.1:9/v1"
    window = 8_192  # the window it says it has (a bench may make it smaller)

    def info(self, *, refresh: bool = False) -> _Info:
        return _Info(self.base_url, max_model_len=self.window)

    def watch(self, listener) -> None:
        pass  # it never changes model

    def healthy(self, *, timeout: float = 2.0) -> bool:
        return True

    def prefix_cache(self):
        return None

    def count_tokens(self, messages: list[dict]) -> int:
        from docchat.errors import LLMError

        raise LLMError("the instant stand-in does not count tokens")

    def stream(self, messages, *, max_tokens: int, stop=None, continue_last: bool = False,
               varied: bool = False, conversation: str | None = None, constraint=None) -> _Answer:
        return _Answer()


def run_api_bench(*, questions: int = 50, clients: int = 8, as_json: bool = False) -> dict:
    import httpx

    from docchat.api import create_app
    from docchat.api.background import BackgroundServer, free_port

    with tempfile.TemporaryDirectory(prefix="docchat-bench-api-") as folder:
        services = _services(Path(folder))
        try:
            for name, text in LIBRARY.items():
                services.ingestion.ingest(name, text.encode())
            server = BackgroundServer(create_app(services), free_port()).start()
            try:
                added = _added_latency(services, server.url, questions, httpx)
                load = _concurrent(server.url, clients, questions, httpx)
            finally:
                server.stop()
        finally:
            services.close()
    report = {"questions": questions, "clients": clients, **added, **load,
              "targets": {"added_p50_ms": TARGET_ADDED_MS, "requests_per_s": TARGET_RPS, "p95_ms": TARGET_P95_MS}}
    print(json.dumps(report, indent=2) if as_json else _table(report))
    return report


def _services(folder: Path):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    settings = Settings(data_dir=folder / "data", context_programs=False)
    return build_services(settings, gateway=InstantGateway(), contact_llm=False)


def _added_latency(services, url: str, questions: int, httpx) -> dict:
    in_process, over_http = [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        for question in QUESTIONS:  # warm-up: the embedding model, the index, the connection
            services.stateless.answer([], question).text()
            client.post("/api/v1/rag/query", json={"query": question}).raise_for_status()
        for n in range(questions):
            question = QUESTIONS[n % len(QUESTIONS)]
            started = time.perf_counter()
            services.stateless.answer([], question).text()
            in_process.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            client.post("/api/v1/rag/query", json={"query": question}).raise_for_status()
            over_http.append((time.perf_counter() - started) * 1000)
    in_p50, _ = p50_p95(in_process)
    http_p50, _ = p50_p95(over_http)
    return {"in_process_p50_ms": round(in_p50, 2), "http_p50_ms": round(http_p50, 2),
            "added_p50_ms": round(http_p50 - in_p50, 2)}


def _concurrent(url: str, clients: int, questions: int, httpx) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)

    def client_run(offset: int) -> None:
        mine, failed = [], []
        with httpx.Client(base_url=url, timeout=60) as client:
            start.wait()
            for n in range(questions):
                started = time.perf_counter()
                try:
                    response = client.post("/api/v1/rag/query",
                                           json={"query": QUESTIONS[(offset + n) % len(QUESTIONS)]})
                    if response.status_code != 200:
                        failed.append(f"{response.status_code}: {response.text[:200]}")
                except httpx.HTTPError as error:
                    failed.append(str(error))
                mine.append((time.perf_counter() - started) * 1000)
        with lock:
            latencies.extend(mine)
            errors.extend(failed)

    threads = [threading.Thread(target=client_run, args=(offset,)) for offset in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    p50, p95 = p50_p95(latencies)
    return {"requests": len(latencies), "requests_per_s": round(len(latencies) / wall, 1),
            "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "errors": len(errors),
            "first_errors": errors[:3]}


def _table(report: dict) -> str:
    def mark(ok: bool) -> str:
        return "meets target" if ok else "MISSES target"

    lines = [
        f"docchat bench api: {report['questions']} questions; the LLM is an instant stand-in",
        "",
        f"{'added latency (p50)':<34}{report['added_p50_ms']:>9.2f} ms   "
        f"({report['http_p50_ms']:.2f} over HTTP vs {report['in_process_p50_ms']:.2f} in-process; "
        f"{mark(report['added_p50_ms'] <= TARGET_ADDED_MS)} <= {TARGET_ADDED_MS:g} ms)",
        f"{str(report['clients']) + ' clients: requests/s':<34}{report['requests_per_s']:>9.1f}      "
        f"({mark(report['requests_per_s'] >= TARGET_RPS)} >= {TARGET_RPS:g})",
        f"{'  p50 / p95':<34}{report['p50_ms']:>9.1f} / {report['p95_ms']:.1f} ms   "
        f"({mark(report['p95_ms'] <= TARGET_P95_MS)} p95 <= {TARGET_P95_MS:g} ms)",
        f"{'  errors':<34}{report['errors']:>9}",
    ]
    lines += [f"    {error}" for error in report["first_errors"]]
    return "\n".join(lines)
