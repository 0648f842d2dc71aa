"""`docchat bench coldstart`: how long a one-shot command takes to put its question to the model.

Each run starts a new `docchat` process over a copy of a generated library and times command
start -> the first chat-completion request at a stand-in LLM server, which answers at once, so
the figure is docchat's own start-up: imports, the database, the token counter, the document
index (Qdrant's local mode loads every vector), the embedding model, the search. Measured:
- `docchat ask` on the library (a new conversation: the question is the first request);
- `docchat ask` on an empty library: the same start-up without documents (the difference is
  what the documents cost);
- `docchat ask --conversation` with a follow-up in that conversation: the DSPy rewriter's call
  is then the first request, and the answer's request comes after it (both are shown);
- `docchat chat` with the question piped in at once (no typing time to hide the start-up).
The library is N Markdown notes of about three chunks each, ingested once with the real embedding
model and kept in the user's cache folder: the first run builds it (minutes), later runs copy
it. The stand-in says it serves the bundled model and, when it has been converted, where its
tokenizer.json is, as the cpu profile's server does, so tokens are counted as with the real one.
CPU is the process's own (user + system) when its first request arrives. Target: <= 4 s.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TARGET_S = 4.0
DOCUMENTS = 1000
RUNS = 3
# Bump when the generated notes change, so an older library in the cache is not reused.
LIBRARY_VERSION = 1
QUESTION = "Who lit the lighthouse on Skerry Point?"
FOLLOW_UP = "And until which year did she light it?"
NEEDLE = ("lighthouse.md", "# The lighthouse on Skerry Point\n\nThe lighthouse on Skerry Point was lit by Agnes "
                           "Marrow every evening from 1921 to 1958. Its lamp burned paraffin and turned once every "
                           "twelve seconds.\n")
_TOPICS = {
    "trust": "trustee beneficiary determination date reserve account distribution notes payment business day",
    "lease": "landlord tenant rent review break clause deposit repair service charge notice period",
    "recipe": "flour butter oven knead dough simmer sauce season roast bake minutes",
    "harbour": "harbour crew cargo manifest tide anchor berth pilot voyage hull",
}
# How long one command may take before the run is given up.
COMMAND_TIMEOUT_S = 300


def run_coldstart_bench(*, documents: int = DOCUMENTS, runs: int = RUNS, as_json: bool = False,
                        cache_dir: Path | None = None,
                        say=lambda line: print(line, file=sys.stderr, flush=True)) -> dict:
    """`cache_dir`: where the library is kept (default: the user's cache folder)."""
    load_before = os.getloadavg()[0]
    with _StandIn() as server:
        library, built = _library(documents, server.root, cache_dir, say)
        with tempfile.TemporaryDirectory(prefix="docchat-bench-coldstart-") as folder:
            work = Path(folder)
            empty = work / "empty"
            _docchat(["conversations", "list"], empty, server)  # its database, migrated, untimed
            samples: dict[str, list[dict]] = {"ask": [], "ask_empty": [], "ask_follow_up": [], "chat": []}
            for number in range(1, runs + 1):
                say(f"run {number} of {runs}")
                copy = work / f"run-{number}"
                shutil.copytree(library, copy)
                asked = _timed(["ask", "--json", QUESTION], copy, server)
                samples["ask"].append(asked)
                samples["ask_empty"].append(_timed(["ask", "--json", QUESTION], empty, server))
                samples["ask_follow_up"].append(
                    _timed(["ask", "--json", "--conversation", asked["conversation_id"], FOLLOW_UP], copy, server))
                samples["chat"].append(_timed(["chat"], copy, server, typed=f"{QUESTION}\nexit\n"))
                shutil.rmtree(copy)
    report = {
        "documents": built["documents"], "chunks": built["chunks"], "library": str(library),
        "counter": server.counter_note, "runs": runs, "cores": os.cpu_count(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)], "target_s": TARGET_S,
        **{name: _summary(rows) for name, rows in samples.items()},
    }
    print(json.dumps(report, indent=2) if as_json else _table(report))
    return report


def _summary(rows: list[dict]) -> dict:
    def median(key: str) -> float | None:
        values = [r[key] for r in rows]
        return round(statistics.median(values), 2) if None not in values else None

    keys = ("seconds", "cpu_s", "answer_seconds", "answer_cpu_s")
    return {**{key: median(key) for key in keys},
            "runs": [{key: r[key] for key in (*keys, "cited")} for r in rows]}


# the library

def _notes(count: int, seed: int = 7) -> list[tuple[str, str]]:
    """`count` notes of two short sections each (about three chunks), one of them the needle."""
    rng = random.Random(seed)
    topics = list(_TOPICS)
    notes = []
    for number in range(count - 1):
        words = _TOPICS[topics[number % len(topics)]].split()
        sections = [f"## Part {part}\n\n{' '.join(rng.choice(words) for _ in range(rng.randint(90, 130)))}."
                    for part in (1, 2)]
        notes.append((f"note-{number:04}.md", f"# Note {number}\n\n" + "\n\n".join(sections) + "\n"))
    notes.insert(count // 2, NEEDLE)
    return notes


def _library(documents: int, model_dir: str | None, cache_dir: Path | None, say) -> tuple[Path, dict]:
    """The generated library's data dir in the user's cache folder, built on first use."""
    import hashlib

    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.documents.index.onnx_embeddings import default_cache_dir
    from docchat.llm.profiles import CPU_MODEL_NAME
    from docchat.memory.tokens import counter_for

    # Chunks cut by the served model's tokens, as `docchat ingest` cuts them; another counter
    # cuts other chunks, so it gets its own library.
    counter = counter_for(CPU_MODEL_NAME, Path(model_dir) / "tokenizer.json" if model_dir else None)
    cut_by = hashlib.sha256(counter.id.encode()).hexdigest()[:8]
    folder = (cache_dir or default_cache_dir()) / "bench-coldstart" / f"{documents}-notes-v{LIBRARY_VERSION}-{cut_by}"
    built = folder / "built.json"
    if built.exists():
        return folder / "data", json.loads(built.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    say(f"building the library once: {documents} notes, embedded with the bundled model, in {folder} "
        "(minutes; later runs reuse it)")
    settings = Settings(data_dir=folder / "data", database_url=None, qdrant_url=None, embeddings_url=None)
    services = build_services(settings, counter=counter, contact_llm=False)
    chunks = 0
    try:
        for number, (name, text) in enumerate(_notes(documents), start=1):
            chunks += services.ingestion.add(name, text.encode()).document.chunks
            if number % 100 == 0 or number == documents:
                say(f"  {number} of {documents} notes ingested")
    finally:
        services.close()
    figures = {"documents": documents, "chunks": chunks}
    built.write_text(json.dumps(figures))
    return folder / "data", figures


# one command

def _environment(data_dir: Path, server: "_StandIn") -> dict:
    # The user's own DOCCHAT_ settings (another index, embeddings server...) would measure
    # something else.
    env = {key: value for key, value in os.environ.items() if not key.startswith("DOCCHAT_")}
    env.update(DOCCHAT_DATA_DIR=str(data_dir), DOCCHAT_LLM_URL=f"{server.url}/v1")
    return env


def _docchat(args: list[str], data_dir: Path, server: "_StandIn") -> None:
    subprocess.run([sys.executable, "-m", "docchat.cli", *args], env=_environment(data_dir, server),
                   capture_output=True, timeout=COMMAND_TIMEOUT_S, check=True)


def _timed(args: list[str], data_dir: Path, server: "_StandIn", *, typed: str | None = None) -> dict:
    """Command start -> the first chat completion at the stand-in, and the command's CPU then."""
    server.expect()
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "docchat.cli", *args], env=_environment(data_dir, server),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server.watch(process.pid)
    try:
        out, err = process.communicate(typed, timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise RuntimeError(f"docchat {args[0]} took more than {COMMAND_TIMEOUT_S} s") from None
    first, answer = server.arrivals()
    if first is None or answer is None:
        raise RuntimeError(f"docchat {' '.join(args[:1])} did not ask the model for an answer "
                           f"(exit {process.returncode}): {err.strip()[-500:]}")
    printed = _json(out) if "--json" in args else {}
    citations = printed.get("citations") or []
    return {"seconds": round(first[0] - began, 3), "cpu_s": first[1],
            "answer_seconds": round(answer[0] - began, 3), "answer_cpu_s": answer[1],
            "conversation_id": printed.get("conversation_id"),
            "cited": citations[0].get("document") if citations else None}


def _json(out: str) -> dict:
    try:
        return json.loads(out)
    except ValueError:
        return {}


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a running process, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


# the stand-in LLM server

class _StandIn:
    """An OpenAI-compatible server that answers at once and notes when a command's first chat
    completion arrives and when its first streamed one (the answer) does, each with the
    command's CPU at that moment."""

    def __init__(self) -> None:
        from docchat.llm.profiles import embedded_model_dir
        from docchat.config import Settings
        from docchat.llm.profiles import CPU_MODEL_NAME

        self.model = CPU_MODEL_NAME
        model_dir = embedded_model_dir(Settings())
        self.root = str(model_dir) if (model_dir / "tokenizer.json").exists() else None
        self.counter_note = (f"{CPU_MODEL_NAME}'s tokenizer.json" if self.root
                             else "a characters/4 estimate (the bundled model is not converted yet: `make run` once)")
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._first = self._answer = None
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> "_StandIn":
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="bench-stand-in-llm").start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def expect(self) -> None:
        with self._lock:
            self._pid = self._first = self._answer = None

    def watch(self, pid: int) -> None:
        with self._lock:
            self._pid = pid

    def completion_arrived(self, *, streamed: bool) -> None:
        arrived = time.perf_counter()
        with self._lock:
            moment = (arrived, _cpu_seconds(self._pid) if self._pid else None)
            if self._first is None:
                self._first = moment
            if streamed and self._answer is None:
                self._answer = moment

    def arrivals(self) -> tuple:
        """(seconds, CPU) when the first request came, and when the answer's did."""
        with self._lock:
            return self._first, self._answer


def _handler_for(server: _StandIn):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # the bench prints its own lines
            pass

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                model = {"id": server.model, "object": "model", "max_model_len": 8192}
                if server.root:
                    model["root"] = server.root
                self._json({"object": "list", "data": [model]})
            else:
                self._json({})  # /health

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path.rstrip("/") == "/v1/chat/completions":
                server.completion_arrived(streamed=bool(body.get("stream")))
            if self.path == "/tokenize":
                self._json({"count": 0})
            elif body.get("stream"):
                self._stream()
            else:  # a DSPy program's call: a reply it cannot parse makes it fall back at once
                self._json({"id": "bench", "object": "chat.completion", "model": server.model,
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": ""}}],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(_ANSWER)))
            self.end_headers()
            self.wfile.write(_ANSWER)

        def _json(self, payload) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _event(delta: dict | None, finish: str | None = None, usage: dict | None = None) -> bytes:
    chunk = {"id": "bench", "object": "chat.completion.chunk", "model": "bench",
             "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        chunk["usage"] = usage
    return f"data: {json.dumps(chunk)}\n\n".encode()


_ANSWER = (_event({"role": "assistant", "content": ""}) + _event({"content": "Agnes Marrow [1]."})
           + _event({}, "stop") + _event(None, usage={"prompt_tokens": 1, "completion_tokens": 4, "total_tokens": 5})
           + b"data: [DONE]\n\n")


def _table(report: dict) -> str:
    def seconds(value: float | None) -> str:
        return f"{value:>7.2f} s" if value is not None else "      -  "

    def row(label: str, figures: dict, target: bool = False) -> str:
        line = (f"{label:<42}{seconds(figures['seconds'])}{seconds(figures['cpu_s'])}"
                f"{seconds(figures['answer_seconds'])}{seconds(figures['answer_cpu_s'])}")
        if target:
            met = figures["seconds"] <= report["target_s"]
            line += f"   {'meets' if met else 'MISSES'} <= {report['target_s']:g} s"
        return line

    cited = {r["cited"] for r in report["ask"]["runs"]}
    lines = [
        f"docchat bench coldstart: command start -> first request at the LLM server (an instant stand-in), "
        f"median of {report['runs']} runs",
        f"library: {report['documents']:,} notes, {report['chunks']:,} chunks ({report['library']}); tokens counted "
        f"with {report['counter']}; {report['cores']} cores, load average {report['load_average'][0]} at the start, "
        f"{report['load_average'][1]} at the end",
        "",
        f"{'':<42}{'first request':>18}{'answer request':>18}",
        f"{'':<42}{'after':>9}{'CPU':>9}{'after':>9}{'CPU':>9}",
        row("docchat ask, the library", report["ask"], target=True),
        row("docchat ask, an empty library", report["ask_empty"]),
        row("docchat ask --conversation, a follow-up", report["ask_follow_up"]),
        row("docchat chat, the question piped in", report["chat"], target=True),
        "",
        f"the answer cited: {', '.join(sorted(str(c) for c in cited))}",
    ]
    return "\n".join(lines)
